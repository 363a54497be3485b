//! `session_list`, `session_get`, `session_search`: the shared store, read.

use std::path::Path;

use seekclaw_engine::{Engine, Scope};
use seekclaw_store::{ListedSession, MAX_SEARCH_LIMIT, SessionHeader};

use crate::ToolError;
use crate::tools::{
    SearchHit, SessionGetArgs, SessionGetResult, SessionListArgs, SessionListResult,
    SessionMessage, SessionSearchArgs, SessionSearchResult, SessionSummary,
};

const DEFAULT_LIST: u32 = 50;
const DEFAULT_MESSAGES: u32 = 100;
const MAX_MESSAGES: u32 = 1000;
const DEFAULT_HITS: u32 = 20;

/// The scope of a workspace a caller named: an absolute path (a server's
/// working directory means nothing to the agent calling it).
pub fn workspace_scope(engine: &Engine, workspace: &str) -> Result<Scope, ToolError> {
    let path = Path::new(workspace);
    if workspace.trim().is_empty() || !path.is_absolute() {
        return Err(ToolError(format!(
            "workspace must be an absolute directory path, got {workspace:?}"
        )));
    }
    Ok(engine.scope_of(Some(path), false, path, "")?)
}

fn limit(value: Option<u32>, default: u32, max: u32, name: &str) -> Result<usize, ToolError> {
    match value {
        None => Ok(default as usize),
        Some(n) if (1..=max).contains(&n) => Ok(n as usize),
        Some(n) => Err(ToolError(format!(
            "{name} must be between 1 and {max}, got {n}"
        ))),
    }
}

fn summary(header: SessionHeader, turns: u64) -> SessionSummary {
    SessionSummary {
        running: header.active_turn.is_some(),
        session_id: header.id,
        title: header.title,
        workspace: header.workspace,
        turns,
        archived: header.archived,
        created_at: header.created_at,
        updated_at: header.updated_at,
    }
}

/// `session_list`.
pub async fn list(engine: &Engine, args: SessionListArgs) -> Result<SessionListResult, ToolError> {
    let limit = limit(args.limit, DEFAULT_LIST, MAX_SEARCH_LIMIT as u32, "limit")?;
    let key = match &args.workspace {
        Some(ws) => Some(workspace_scope(engine, ws)?.key),
        None => None,
    };
    let include = args.include_archived;
    let listed: Vec<ListedSession> = engine
        .db(move |s| s.list_with_stats(key.as_deref(), include))
        .await?;
    let truncated = listed.len() > limit;
    let sessions = listed
        .into_iter()
        .take(limit)
        .map(|l| summary(l.header, l.turns))
        .collect();
    Ok(SessionListResult {
        sessions,
        truncated,
    })
}

/// The scope holding session `id`: the named workspace's, or the only one
/// that has it.
async fn scope_of_session(
    engine: &Engine,
    id: &str,
    workspace: Option<&str>,
) -> Result<String, ToolError> {
    if let Some(ws) = workspace {
        return Ok(workspace_scope(engine, ws)?.key);
    }
    let wanted = id.to_string();
    let mut scopes = engine.db(move |s| s.scopes_of_session(&wanted)).await?;
    match scopes.len() {
        0 => Err(ToolError(format!("Session {id} not found"))),
        1 => Ok(scopes.remove(0)),
        n => Err(ToolError(format!(
            "Session {id} exists in {n} workspaces: name one with `workspace`"
        ))),
    }
}

/// `session_get`.
pub async fn get(engine: &Engine, args: SessionGetArgs) -> Result<SessionGetResult, ToolError> {
    let last = limit(
        args.last_messages,
        DEFAULT_MESSAGES,
        MAX_MESSAGES,
        "lastMessages",
    )?;
    let id = args.session_id.trim().to_string();
    if id.is_empty() {
        return Err(ToolError("sessionId must not be empty".into()));
    }
    let key = scope_of_session(engine, &id, args.workspace.as_deref()).await?;
    let sid = id.clone();
    let found = engine
        .db(move |s| {
            let Some(header) = s.session(&key, &sid)? else {
                return Ok(None);
            };
            // One read of the log: its turns (one terminal each) and its
            // messages.
            let events = s.events(&key, &sid)?;
            let turns = events
                .iter()
                .filter(|e| e.item.kind() == "terminal")
                .count() as u64;
            Ok(Some((header, turns, seekclaw_store::project(events))))
        })
        .await?;
    let Some((header, turns, messages)) = found else {
        return Err(ToolError(format!("Session {id} not found")));
    };
    let total_messages = messages.len();
    let messages = messages
        .into_iter()
        .skip(total_messages.saturating_sub(last))
        .map(|m| {
            let tool = m.role == "tool";
            SessionMessage {
                tool_calls: m.tool_calls.into_iter().map(|c| c.name).collect(),
                tool_success: tool.then_some(m.tool_success),
                tool_name: m.tool_name,
                diff: m.tool_diff,
                role: m.role,
                text: m.text,
            }
        })
        .collect();
    Ok(SessionGetResult {
        session: summary(header, turns),
        total_messages,
        messages,
    })
}

/// `session_search`.
pub async fn search(
    engine: &Engine,
    args: SessionSearchArgs,
) -> Result<SessionSearchResult, ToolError> {
    let limit = limit(args.limit, DEFAULT_HITS, MAX_SEARCH_LIMIT as u32, "limit")?;
    if seekclaw_store::fts_query(&args.query).is_none() {
        return Err(ToolError(
            "query has no word to search for (letters or digits)".into(),
        ));
    }
    let key = match &args.workspace {
        Some(ws) => Some(workspace_scope(engine, ws)?.key),
        None => None,
    };
    let query = args.query;
    let hits = engine
        .db(move |s| s.search(&query, key.as_deref(), limit))
        .await?;
    Ok(SessionSearchResult {
        hits: hits
            .into_iter()
            .map(|h| SearchHit {
                session_id: h.session_id,
                title: h.title,
                workspace: h.workspace,
                seq: h.seq,
                kind: h.kind,
                snippet: h.snippet,
            })
            .collect(),
    })
}
