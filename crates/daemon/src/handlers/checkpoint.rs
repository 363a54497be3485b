//! `checkpoint.list`, `checkpoint.diff`, `session.rewind`, `session.fork`:
//! the engine's checkpoints of a session's workspace, read and used.

use seekclaw_protocol::{MethodError, Params, method};

use super::Reply;
use crate::ctx::Ctx;

fn not_wired() -> MethodError {
    MethodError::internal("checkpoints are not wired to the engine yet")
}

pub async fn list(_daemon: &Ctx, _id: i64, p: &Params) -> Reply {
    p.read::<method::CheckpointList>()?;
    Err(not_wired())
}

pub async fn diff(_daemon: &Ctx, _id: i64, p: &Params) -> Reply {
    p.read::<method::CheckpointDiff>()?;
    Err(not_wired())
}

pub async fn rewind(_daemon: &Ctx, _id: i64, p: &Params) -> Reply {
    p.read::<method::SessionRewind>()?;
    Err(not_wired())
}

pub async fn fork(_daemon: &Ctx, _id: i64, p: &Params) -> Reply {
    p.read::<method::SessionFork>()?;
    Err(not_wired())
}
