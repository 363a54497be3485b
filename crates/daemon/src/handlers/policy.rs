//! `hooks.list`, `hooks.approve`, `permissions.check`: the user's hooks and
//! permission rules as the engine applies them.

use seekclaw_protocol::{MethodError, Params, method};

use crate::ctx::Ctx;
use crate::handlers::Reply;

pub async fn hooks_list(_daemon: &Ctx, _id: i64, p: &Params) -> Reply {
    let _ = p.read::<method::HooksList>()?;
    Err(MethodError::internal("hooks.list is not wired yet"))
}

pub async fn hooks_approve(_daemon: &Ctx, _id: i64, p: &Params) -> Reply {
    let _ = p.read::<method::HooksApprove>()?;
    Err(MethodError::internal("hooks.approve is not wired yet"))
}

pub async fn permissions_check(_daemon: &Ctx, _id: i64, p: &Params) -> Reply {
    let _ = p.read::<method::PermissionsCheck>()?;
    Err(MethodError::internal("permissions.check is not wired yet"))
}
