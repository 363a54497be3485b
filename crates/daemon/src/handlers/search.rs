//! `session.search`: full-text search of session logs (the store's FTS index).

use seekclaw_protocol::api::{Scope as _, SessionSearchHit};
use seekclaw_protocol::{Envelope, MethodError, Params, method};
use seekclaw_store::MAX_SEARCH_LIMIT;

use super::Reply;
use crate::ctx::Ctx;
use crate::scope;

/// Hits returned when the request names no `limit`.
const DEFAULT_LIMIT: usize = 50;

/// `workspace` searches that workspace's sessions, `global: true` the global
/// scope's; neither searches every scope (unlike `session.list`, which falls
/// back to the current workspace: someone searching their history expects
/// all of it). Newest first; archived sessions included.
pub async fn search(daemon: &Ctx, id: i64, p: &Params) -> Reply {
    let params = p.read::<method::SessionSearch>()?;
    let named = params.scope();
    let key = if named.global || named.workspace.is_some() {
        Some(scope::resolve(daemon, &named)?.key)
    } else {
        None
    };
    let limit = match params.limit {
        None => DEFAULT_LIMIT,
        Some(n) => usize::try_from(n)
            .ok()
            .filter(|n| (1..=MAX_SEARCH_LIMIT).contains(n))
            .ok_or_else(|| {
                MethodError::invalid_param(
                    "limit",
                    format!("params.limit must be between 1 and {MAX_SEARCH_LIMIT}"),
                )
            })?,
    };
    let query = params.query.into_inner();
    let hits = daemon
        .db(move |s| s.search(&query, key.as_deref(), limit))
        .await?;
    let hits: Vec<SessionSearchHit> = hits
        .into_iter()
        .map(|h| SessionSearchHit {
            session_id: h.session_id,
            seq: h.seq,
            kind: h.kind,
            snippet: h.snippet,
            workspace: h.workspace,
            title: h.title,
            archived: h.archived,
        })
        .collect();
    Ok(Envelope::json_result(id, &hits))
}
