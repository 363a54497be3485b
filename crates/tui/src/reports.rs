//! The slash commands that answer with a report in the conversation:
//! `/usage`, `/mcp`, `/goal`. Each asks the daemon (typed) and words the
//! answer; the caller shows it as a notice.

use seekclaw_protocol::api::{GoalSetParams, NoParams, Required};
use seekclaw_protocol::method;

use crate::client::Connection;
use crate::{Scope, TuiError};

/// `/usage`: all-time calls, tokens and cost per model.
pub async fn usage(conn: &Connection) -> Result<String, TuiError> {
    let rows = conn.call::<method::UsageGet>(&Default::default()).await?;
    let lines: Vec<String> = rows
        .iter()
        .map(|r| {
            // A model without prices records 0: unknown, not free.
            let cost = if r.cost > 0.0 {
                format!("${:.4}", r.cost)
            } else {
                "cost unknown".to_string()
            };
            format!(
                "{}/{}: {} calls ({} failed), {} in, {} out, {cost}",
                r.provider, r.model, r.calls, r.failures, r.total_input_tokens, r.output_tokens,
            )
        })
        .collect();
    Ok(if lines.is_empty() {
        "No usage recorded yet.".to_string()
    } else {
        format!("Usage, all time:\n{}", lines.join("\n"))
    })
}

/// `/mcp`: the daemon's current workspace's servers (it reads no scope).
pub async fn mcp(conn: &Connection) -> Result<String, TuiError> {
    let servers = conn.call::<method::McpList>(&NoParams {}).await?;
    let lines: Vec<String> = servers
        .iter()
        .map(|m| {
            let error = m
                .error
                .as_ref()
                .map(|e| format!(" ({e})"))
                .unwrap_or_default();
            format!(
                "{} [{}, {}]: {}, {} tools{error}",
                m.name, m.scope, m.transport, m.status, m.tool_count,
            )
        })
        .collect();
    Ok(if lines.is_empty() {
        "No MCP servers configured.".to_string()
    } else {
        format!("MCP servers:\n{}", lines.join("\n"))
    })
}

/// `/goal` (show), `/goal clear` (`Some(None)`) or `/goal TEXT` on session `id`.
pub async fn goal(
    conn: &Connection,
    scope: &Scope,
    id: String,
    change: Option<Option<String>>,
) -> Result<String, TuiError> {
    let goal = match change {
        None => conn.call::<method::GoalGet>(&scope.session(&id)).await?,
        Some(None) => conn.call::<method::GoalClear>(&scope.session(&id)).await?,
        Some(Some(text)) => {
            let (workspace, global) = scope.fields();
            let params = GoalSetParams {
                id: Required(id),
                workspace,
                global,
                text: Required(text),
                auto: None,
            };
            conn.call::<method::GoalSet>(&params).await?
        }
    };
    Ok(match goal.goal {
        Some(g) if goal.blocked => format!(
            "Goal (blocked: {}): {g}",
            goal.reason.as_deref().unwrap_or("no reason given")
        ),
        Some(g) => format!("Goal: {g}"),
        None => "No goal set (/goal TEXT sets one).".to_string(),
    })
}
