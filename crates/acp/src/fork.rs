//! `session/fork` (ACP v1, unstable: `sessionCapabilities.fork`): a new
//! session with the context of an existing one, through the engine's fork.
//!
//! ACP's fork copies the whole conversation: the engine's fork of the whole
//! log (its checkpoints and `forkedFrom` come along). `_meta.seekclaw.seq` asks for the engine's own fork at an earlier user
//! message instead: the new session then ends before it, and its text comes
//! back in the answer's `_meta.seekclaw.prompt` for the editor to resend.

use seekclaw_engine::{Engine, ForkRequest, Scope};
use serde_json::{Value, json};

use crate::rpc::RpcError;
use crate::session::{self, Session};

/// What a fork made: the new session, and the answer for the editor.
pub(crate) struct Forked {
    pub session: Session,
    pub answer: Value,
}

/// Forks `params.sessionId` in `params.cwd`'s workspace.
pub(crate) async fn fork(engine: &Engine, params: &Value) -> Result<Forked, RpcError> {
    let cwd = session::cwd(params)?;
    let mcp = session::mcp_servers(params, &cwd)?;
    let source = params["sessionId"]
        .as_str()
        .ok_or_else(|| RpcError::params("params.sessionId must be a string"))?
        .to_string();
    let at = match &params["_meta"]["seekclaw"]["seq"] {
        Value::Null => None,
        v => Some(v.as_u64().ok_or_else(|| {
            RpcError::params("params._meta.seekclaw.seq must be the seq of a user message")
        })?),
    };
    let scope = engine.scope_of(Some(&cwd), false, &cwd, "")?;
    exists(engine, &scope, &source).await?;
    let request = ForkRequest {
        session_id: source.clone(),
        seq: at.unwrap_or(ForkRequest::WHOLE),
        restore_code: false,
        force: false,
    };
    let outcome = engine.fork(&scope, request).await?;
    let id = outcome.session.id.clone();
    let mode = engine.config.load().agent.mode;
    let mut answer = json!({"sessionId": id, "modes": session::modes(mode)});
    if let (Some(seq), Some(prompt)) = (at, outcome.prompt) {
        answer["_meta"] =
            json!({"seekclaw": {"forkedFrom": source, "seq": seq, "prompt": prompt.text}});
    }
    Ok(Forked {
        session: Session::new(id, scope, cwd, mode, true, mcp),
        answer,
    })
}

/// The source session, or the ACP error for one not in this workspace.
async fn exists(engine: &Engine, scope: &Scope, id: &str) -> Result<(), RpcError> {
    let (store, key, sid) = (engine.store.clone(), scope.key.clone(), id.to_string());
    let found = tokio::task::spawn_blocking(move || store.session(&key, &sid))
        .await
        .map_err(|e| RpcError::internal(e.to_string()))?
        .map_err(seekclaw_engine::store_error)?;
    match found {
        Some(_) => Ok(()),
        None => Err(RpcError::new(
            crate::rpc::RESOURCE_NOT_FOUND,
            format!("session {id} not found in this workspace"),
        )),
    }
}
