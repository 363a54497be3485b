//! `session/fork` (ACP v1, unstable: `sessionCapabilities.fork`): a new
//! session with the context of an existing one, through the engine's fork.
//!
//! ACP's fork copies the whole conversation; the engine forks at a user
//! message (the new session holds the events before it). So the fork is
//! made at the source's latest user message (the engine's policy: its
//! checkpoints and `forkedFrom` come along) and that message and what
//! followed are then appended to the new session as they stand, in order.
//! `_meta.seekclaw.seq` asks for the engine's own fork at an earlier user
//! message instead: the new session then ends before it, and its text comes
//! back in the answer's `_meta.seekclaw.prompt` for the editor to resend.

use seekclaw_engine::{Engine, ForkRequest, Scope};
use seekclaw_store::{EventItem, SessionEvent};
use serde_json::{Value, json};

use crate::rpc::{INVALID_PARAMS, RpcError};
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
    let events = events(engine, &scope, &source).await?;
    let whole = at.is_none();
    let seq = match at {
        Some(seq) => seq,
        None => events
            .iter()
            .rev()
            .find(|e| matches!(e.item, EventItem::User(_)))
            .map(|e| e.seq)
            .ok_or_else(|| {
                RpcError::new(
                    INVALID_PARAMS,
                    format!("session {source} has no prompt yet: there is nothing to fork"),
                )
            })?,
    };
    let request = ForkRequest {
        session_id: source.clone(),
        seq,
        restore_code: false,
        force: false,
    };
    let outcome = engine.fork(&scope, request).await?;
    let id = outcome.session.id.clone();
    if whole {
        for e in events.into_iter().filter(|e| e.seq >= seq) {
            engine.append_idle(&scope.key, &id, e.item).await?;
        }
    }
    let mode = engine.config.load().agent.mode;
    let mut answer = json!({"sessionId": id, "modes": session::modes(mode)});
    if !whole {
        let prompt = outcome.prompt.map(|p| p.text);
        answer["_meta"] = json!({"seekclaw": {"forkedFrom": source, "seq": seq, "prompt": prompt}});
    }
    Ok(Forked {
        session: Session::new(id, scope, cwd, mode, true, mcp),
        answer,
    })
}

/// The source's log, read off the async threads.
async fn events(engine: &Engine, scope: &Scope, id: &str) -> Result<Vec<SessionEvent>, RpcError> {
    let (store, key, sid) = (engine.store.clone(), scope.key.clone(), id.to_string());
    let found = tokio::task::spawn_blocking(move || {
        store
            .session(&key, &sid)
            .and_then(|found| found.map(|_| store.events(&key, &sid)).transpose())
    })
    .await
    .map_err(|e| RpcError::internal(e.to_string()))?
    .map_err(seekclaw_engine::store_error)?;
    found.ok_or_else(|| {
        RpcError::new(
            crate::rpc::RESOURCE_NOT_FOUND,
            format!("session {id} not found in this workspace"),
        )
    })
}
