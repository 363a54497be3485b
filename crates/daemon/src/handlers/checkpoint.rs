//! `checkpoint.list`, `checkpoint.diff`, `session.rewind`, `session.fork`:
//! the engine's checkpoints of a session's workspace, read and used. The
//! engine holds the policy (busy, conflicts, what a rewind restores); this
//! reads the params, names the scope and words the answer.

use seekclaw_engine::{EngineError, ErrorKind, ForkRequest, RewindRequest};
use seekclaw_protocol::api::{CheckpointDiffResult, Scope as _};
use seekclaw_protocol::{Envelope, MethodError, Params, method};

use super::Reply;
use super::session::{SessionRef, target};
use crate::ctx::Ctx;
use crate::error::Wire;

/// A rewind's or fork's failure: `busy` says what to do about the turn (the
/// general wording's `agent.steer` hint does not apply here).
fn refused(e: EngineError) -> MethodError {
    match e.kind {
        ErrorKind::Busy => {
            let message = format!(
                "{}; wait for it to end, or stop it with agent.cancel, then try again",
                e.message
            );
            MethodError {
                message,
                ..crate::error::wire(e)
            }
        }
        _ => crate::error::wire(e),
    }
}

pub async fn list(daemon: &Ctx, id: i64, p: &Params) -> Reply {
    let params = p.read::<method::CheckpointList>()?;
    let r = SessionRef {
        id: params.session_id.trimmed(),
        scope: params.scope(),
    };
    let scope = target(daemon, &r)?;
    let list = daemon.engine.checkpoints(&scope, &r.id).await.wire()?;
    Ok(Envelope::json_result(id, &list).with_session(Some(r.id)))
}

pub async fn diff(daemon: &Ctx, id: i64, p: &Params) -> Reply {
    let params = p.read::<method::CheckpointDiff>()?;
    let seq = params.seq.clone().into_inner();
    let r = SessionRef {
        id: params.session_id.trimmed(),
        scope: params.scope(),
    };
    let scope = target(daemon, &r)?;
    let files = daemon
        .engine
        .checkpoint_diff(&scope, &r.id, seq)
        .await
        .wire()?;
    let result = CheckpointDiffResult { seq, files };
    Ok(Envelope::json_result(id, &result).with_session(Some(r.id)))
}

pub async fn rewind(daemon: &Ctx, id: i64, p: &Params) -> Reply {
    let params = p.read::<method::SessionRewind>()?;
    let r = SessionRef {
        id: params.id.trimmed(),
        scope: params.scope(),
    };
    let scope = target(daemon, &r)?;
    let request = RewindRequest {
        session_id: r.id.clone(),
        seq: params.seq.clone().into_inner(),
        restore: params.restore(),
        dry_run: params.dry_run.unwrap_or(false),
        force: params.force.unwrap_or(false),
    };
    let outcome = daemon
        .engine
        .rewind(&scope, request)
        .await
        .map_err(refused)?;
    Ok(Envelope::json_result(id, &outcome).with_session(Some(r.id)))
}

pub async fn fork(daemon: &Ctx, id: i64, p: &Params) -> Reply {
    let params = p.read::<method::SessionFork>()?;
    let r = SessionRef {
        id: params.id.trimmed(),
        scope: params.scope(),
    };
    let scope = target(daemon, &r)?;
    let request = ForkRequest {
        session_id: r.id.clone(),
        seq: params.seq.clone().into_inner(),
        restore_code: params.restore_code.unwrap_or(false),
        force: params.force.unwrap_or(false),
    };
    let outcome = daemon.engine.fork(&scope, request).await.map_err(refused)?;
    Ok(Envelope::json_result(id, &outcome).with_session(Some(r.id)))
}
