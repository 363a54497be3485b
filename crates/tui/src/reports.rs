//! The slash commands that answer with a report in the conversation:
//! `/usage`, `/mcp`, `/goal`. Each asks the daemon (typed) and words the
//! answer; the caller shows it as a notice.

use seekclaw_protocol::api::{GoalSetParams, McpLoginParams, NoParams, Required};
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

/// `/mcp`, `/mcp login NAME`, `/mcp logout NAME`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum McpCommand {
    List,
    Login(String),
    Logout(String),
}

impl McpCommand {
    /// The argument of `/mcp`; `None` when it is not understood.
    pub fn parse(arg: &str) -> Option<McpCommand> {
        let mut words = arg.split_whitespace();
        let command = match (words.next(), words.next()) {
            (None, _) => McpCommand::List,
            (Some("login"), Some(name)) => McpCommand::Login(name.to_string()),
            (Some("logout"), Some(name)) => McpCommand::Logout(name.to_string()),
            _ => return None,
        };
        words.next().is_none().then_some(command)
    }
}

/// Runs an `/mcp` command and words its answer.
pub async fn mcp_command(conn: &Connection, command: McpCommand) -> Result<String, TuiError> {
    match command {
        McpCommand::List => mcp(conn).await,
        McpCommand::Login(name) => {
            let params = McpLoginParams {
                name: Required(name),
            };
            let started = conn.call::<method::McpLogin>(&params).await?;
            let opened = open_browser(&started.auth_url);
            Ok(format!(
                "{} to log in to MCP server '{}'; if it does not open, visit:\n{}\n\
                 The daemon waits for the browser to come back (to 127.0.0.1:{}); /mcp shows the result.",
                if opened {
                    "Opened the browser"
                } else {
                    "Open this URL in a browser"
                },
                started.name,
                started.auth_url,
                started.redirect_port,
            ))
        }
        McpCommand::Logout(name) => {
            let params = McpLoginParams {
                name: Required(name.clone()),
            };
            conn.call::<method::McpLogout>(&params).await?;
            Ok(format!(
                "Logged out of MCP server '{name}': its stored tokens are deleted."
            ))
        }
    }
}

/// `$BROWSER` (its first entry; `%s` is the URL), else the system's opener.
fn open_browser(url: &str) -> bool {
    let browser = std::env::var("BROWSER")
        .ok()
        .filter(|b| !b.trim().is_empty());
    let (program, mut args): (String, Vec<String>) = match browser {
        Some(b) => {
            let first = b.split(':').next().unwrap_or_default().to_string();
            let mut words = first.split_whitespace().map(str::to_string);
            (words.next().unwrap_or_default(), words.collect())
        }
        None if cfg!(target_os = "macos") => ("open".into(), Vec::new()),
        None => ("xdg-open".into(), Vec::new()),
    };
    if args.iter().any(|a| a.contains("%s")) {
        args = args.into_iter().map(|a| a.replace("%s", url)).collect();
    } else {
        args.push(url.to_string());
    }
    let spawned = tokio::process::Command::new(program)
        .args(args)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
    match spawned {
        Ok(mut child) => {
            tokio::spawn(async move {
                let _ = child.wait().await;
            });
            true
        }
        Err(_) => false,
    }
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
            let login = match m.auth.as_deref() {
                Some("needs_login" | "login_required") => {
                    format!(" — log in: /mcp login {}", m.name)
                }
                Some("authorized") => " (OAuth: logged in)".to_string(),
                _ => String::new(),
            };
            format!(
                "{} [{}, {}]: {}, {} tools{error}{login}",
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

#[cfg(test)]
mod tests {
    use super::McpCommand;

    #[test]
    fn mcp_arguments_parse_into_list_login_and_logout() {
        assert_eq!(McpCommand::parse(""), Some(McpCommand::List));
        assert_eq!(
            McpCommand::parse("login linear"),
            Some(McpCommand::Login("linear".into()))
        );
        assert_eq!(
            McpCommand::parse(" logout  linear "),
            Some(McpCommand::Logout("linear".into()))
        );
        assert_eq!(McpCommand::parse("login"), None);
        assert_eq!(McpCommand::parse("login a b"), None);
        assert_eq!(McpCommand::parse("frobnicate"), None);
    }
}
