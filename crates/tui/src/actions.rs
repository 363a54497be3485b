//! What a key's [`Action`] does against the daemon: start or steer a turn,
//! cancel it, and the slash commands.

use std::io::Write;

use serde_json::json;

use crate::app::{Action, App, Entry};
use crate::lifecycle::Daemon;
use crate::{Scope, TuiError, open_session};

/// Carries out an action against the daemon; failures show in the conversation.
/// Opening a session of the other scope (the `/sessions` picker) moves the
/// chat to that scope.
pub async fn act(daemon: &Daemon, scope: &mut Scope, app: &mut App, action: Action) {
    let mut result = try_act(daemon, scope, app, action).await;
    if result.is_ok() {
        result = watch_session(daemon, scope, app).await;
    }
    if let Err(e) = result {
        if matches!(e, TuiError::Disconnected) {
            app.on_disconnect();
        } else {
            app.error(e.to_string());
        }
    }
}

/// Watches the open session (`session.watch`), moving the watch when the
/// session changed, so turns that others run on it show here live.
pub async fn watch_session(daemon: &Daemon, scope: &Scope, app: &mut App) -> Result<(), TuiError> {
    let Some(sid) = app.session_id.clone() else {
        return Ok(());
    };
    if app.watch.as_ref().is_some_and(|w| w.session == sid) {
        return Ok(());
    }
    if let Some(old) = app.watch.take() {
        daemon
            .conn
            .send("session.unwatch", json!({"id": old.session}))
            .await?;
    }
    let id = daemon
        .conn
        .send("session.watch", scope.with(json!({"id": sid})))
        .await?;
    app.watch = Some(crate::watching::Watching::new(id, sid));
    Ok(())
}

async fn try_act(
    daemon: &Daemon,
    scope: &mut Scope,
    app: &mut App,
    action: Action,
) -> Result<(), TuiError> {
    let conn = &daemon.conn;
    match action {
        Action::Chat(message) => {
            let sid = ensure_session(daemon, scope, app).await?;
            // `!cmd` output run while idle goes with this message.
            let mut sent = std::mem::take(&mut app.shell_context);
            sent.push(message.clone());
            // This client answers approval requests (`approval_request`).
            let mut params = scope
                .with(json!({"message": sent.join("\n\n"), "sessionId": sid, "approvals": true}));
            // `@image.png` words attach those images.
            let found = match &app.root {
                Some(root) => crate::attach::images_in(&message, root),
                None => Vec::new(),
            };
            let mut images = Vec::new();
            for a in &found {
                images.push(a.load().map_err(|e| TuiError::Attach(a.path.clone(), e))?);
            }
            if !images.is_empty() {
                params["images"] = images.into();
            }
            let id = conn.send("chat", params).await?;
            app.start_turn(id, &message);
            if let Some(Entry::User(_, chips)) = app.entries.last_mut() {
                *chips = found.iter().map(crate::attach::Attachment::chip).collect();
            }
        }
        Action::Steer(message) => {
            let Some(turn) = &app.turn else { return Ok(()) };
            // Another client's turn is steered by its session.
            let params = if turn.foreign {
                json!({"message": message, "sessionId": app.session_id})
            } else {
                json!({"message": message, "requestId": turn.request_id, "sessionId": app.session_id})
            };
            conn.send("agent.steer", params).await?;
        }
        Action::Cancel(request_id) => {
            conn.send("agent.cancel", json!({"requestId": request_id}))
                .await?;
        }
        Action::NewSession => {
            let sid = conn.call("session.new", scope.params()).await?;
            app.reset(Some(sid.clone()));
            app.notice(format!("New session {sid}."));
        }
        Action::ListSessions => {
            let global = matches!(scope, Scope::Global);
            let list = list_sessions(daemon, scope, global, false).await?;
            app.picker = Some(crate::picker::Picker::sessions(&list, global, false));
        }
        Action::PickSessions { global, archived } => {
            let list = list_sessions(daemon, scope, global, archived).await?;
            app.replace_picker(crate::picker::Picker::sessions(&list, global, archived));
        }
        Action::OpenSession { id, global } => {
            let target = scope_for(scope, global)?;
            let choice = crate::SessionChoice::Id(id);
            if let Some(detail) = open_session(conn, &target, &choice).await? {
                app.load_session(detail);
                *scope = target;
            }
        }
        Action::LoadCatalog => {
            let catalog = conn.call_json("model.catalog", json!({})).await?;
            app.set_catalog(&catalog);
        }
        Action::Resume(id) => {
            let choice = crate::SessionChoice::Id(id);
            if let Some(detail) = open_session(conn, scope, &choice).await? {
                app.load_session(detail);
            }
        }
        Action::Model(None) => {
            let catalog = conn.call_json("model.catalog", json!({})).await?;
            app.set_catalog(&catalog);
            app.picker = Some(crate::picker::Picker::models(
                &catalog,
                app.session_model.as_deref(),
            ));
        }
        // The session keeps the model; other sessions keep the default.
        Action::Model(Some(model)) => {
            let id = ensure_session(daemon, scope, app).await?;
            let header = conn
                .call_json(
                    "session.update",
                    scope.with(json!({"id": id, "model": model})),
                )
                .await?;
            let chosen = header["model"].as_str().unwrap_or(&model).to_string();
            app.model = Some(chosen.clone());
            app.session_model = Some(chosen.clone());
            app.notice(format!(
                "This session now uses {chosen}. (/model default {chosen} makes it the default for new sessions.)"
            ));
        }
        Action::ModelDefault(model) => {
            let text = conn.call("model.switch", json!({"model": model})).await?;
            let chosen = text
                .strip_prefix("switched to ")
                .unwrap_or(&model)
                .to_string();
            let this = match &app.session_model {
                Some(own) => format!("this session keeps {own}"),
                None => {
                    app.model = Some(chosen.clone());
                    "this session too".to_string()
                }
            };
            app.notice(format!(
                "Default model: {chosen} (new sessions and those without a model of their own; {this})."
            ));
        }
        Action::Mode(None) => {
            let mode = conn.call("agent.mode.get", json!({})).await?;
            app.notice(format!(
                "Mode: {mode} (/mode plan|readonly|edit|auto switches)"
            ));
        }
        Action::Mode(Some(mode)) => {
            let mode = conn
                .call("agent.mode.switch", json!({"mode": mode}))
                .await?;
            app.notice(format!("Mode: {mode}"));
        }
        Action::Compact => {
            let Some(id) = app.session_id.clone() else {
                app.error("Nothing to compact yet.");
                return Ok(());
            };
            app.notice("Compacting…");
            let result = conn
                .call_json("session.compact", scope.with(json!({"id": id})))
                .await?;
            app.notice(crate::detail::compacted(
                result["summary"].as_str().unwrap_or_default(),
            ));
        }
        Action::Copy => match app.last_answer() {
            Some(text) => {
                copy_to_clipboard(&text).map_err(TuiError::Terminal)?;
                app.notice(format!(
                    "Copied the last answer ({} chars).",
                    text.chars().count()
                ));
            }
            None => app.error("No answer to copy yet."),
        },
        Action::Reasoning(level) => {
            let id = ensure_session(daemon, scope, app).await?;
            let header = conn
                .call_json(
                    "session.update",
                    scope.with(json!({"id": id, "reasoningLevel": level})),
                )
                .await?;
            app.notice(format!(
                "Reasoning level: {}",
                header["reasoningLevel"].as_str().unwrap_or_default()
            ));
        }
        Action::Doctor => {
            let report = conn.call("doctor", json!({})).await?;
            app.notice(report);
        }
        Action::Usage => {
            let rows = conn.call_json("usage.get", json!({})).await?;
            let empty = Vec::new();
            let lines: Vec<String> = rows
                .as_array()
                .unwrap_or(&empty)
                .iter()
                .map(|r| {
                    // A model without prices records 0: unknown, not free.
                    let cost = r["cost"].as_f64().unwrap_or(0.0);
                    format!(
                        "{}/{}: {} calls ({} failed), {} in, {} out, {}",
                        r["provider"].as_str().unwrap_or_default(),
                        r["model"].as_str().unwrap_or_default(),
                        r["calls"].as_u64().unwrap_or(0),
                        r["failures"].as_u64().unwrap_or(0),
                        r["totalInputTokens"].as_u64().unwrap_or(0),
                        r["outputTokens"].as_u64().unwrap_or(0),
                        if cost > 0.0 {
                            format!("${cost:.4}")
                        } else {
                            "cost unknown".to_string()
                        },
                    )
                })
                .collect();
            if lines.is_empty() {
                app.notice("No usage recorded yet.");
            } else {
                app.notice(format!("Usage, all time:\n{}", lines.join("\n")));
            }
        }
        Action::Mcp => {
            let servers = conn.call_json("mcp.list", scope.params()).await?;
            let empty = Vec::new();
            let lines: Vec<String> = servers
                .as_array()
                .unwrap_or(&empty)
                .iter()
                .map(|m| {
                    let error = m["error"]
                        .as_str()
                        .map(|e| format!(" ({e})"))
                        .unwrap_or_default();
                    format!(
                        "{} [{}, {}]: {}, {} tools{error}",
                        m["name"].as_str().unwrap_or_default(),
                        m["scope"].as_str().unwrap_or_default(),
                        m["transport"].as_str().unwrap_or_default(),
                        m["status"].as_str().unwrap_or_default(),
                        m["toolCount"].as_u64().unwrap_or(0),
                    )
                })
                .collect();
            if lines.is_empty() {
                app.notice("No MCP servers configured.");
            } else {
                app.notice(format!("MCP servers:\n{}", lines.join("\n")));
            }
        }
        Action::Goal(change) => {
            let id = ensure_session(daemon, scope, app).await?;
            let (method, params) = match change {
                None => ("goal.get", json!({"id": id})),
                Some(None) => ("goal.clear", json!({"id": id})),
                Some(Some(text)) => ("goal.set", json!({"id": id, "text": text})),
            };
            let goal = conn.call_json(method, scope.with(params)).await?;
            let text = match goal["goal"].as_str() {
                Some(g) if goal["blocked"].as_bool().unwrap_or(false) => format!(
                    "Goal (blocked: {}): {g}",
                    goal["reason"].as_str().unwrap_or("no reason given")
                ),
                Some(g) => format!("Goal: {g}"),
                None => "No goal set (/goal TEXT sets one).".to_string(),
            };
            app.notice(text);
        }
        Action::Approve {
            approval_id,
            session_id,
            decision,
            message,
        } => {
            // The answer comes back as an envelope; only a failure shows.
            conn.send(
                "agent.approve",
                json!({"sessionId": session_id, "approvalId": approval_id,
                       "decision": decision, "message": message}),
            )
            .await?;
        }
        Action::Shell(command) => {
            let dir = match scope {
                Scope::Workspace(dir) => dir.clone(),
                Scope::Global => std::env::current_dir().map_err(TuiError::Terminal)?,
            };
            let ran = crate::shell::run(&command, &dir)
                .await
                .map_err(TuiError::Terminal)?;
            app.notice(ran.shown);
            match &app.turn {
                // A running turn gets it as guidance.
                Some(turn) => {
                    let params = if turn.foreign {
                        json!({"message": ran.context, "sessionId": app.session_id})
                    } else {
                        json!({"message": ran.context, "requestId": turn.request_id, "sessionId": app.session_id})
                    };
                    app.shell_steers.push(ran.context);
                    conn.send("agent.steer", params).await?;
                }
                None => {
                    app.shell_context.push(ran.context);
                    app.hint = Some("the output goes with your next message".into());
                }
            }
        }
        Action::Quit => {}
    }
    Ok(())
}

/// The workspace scope (the chat's, else the current directory's) or the global one.
fn scope_for(scope: &Scope, global: bool) -> Result<Scope, TuiError> {
    Ok(match (global, scope) {
        (true, _) => Scope::Global,
        (false, Scope::Workspace(dir)) => Scope::Workspace(dir.clone()),
        (false, Scope::Global) => {
            Scope::Workspace(std::env::current_dir().map_err(TuiError::Terminal)?)
        }
    })
}

/// `session.list` of the workspace or global scope.
async fn list_sessions(
    daemon: &Daemon,
    scope: &Scope,
    global: bool,
    archived: bool,
) -> Result<serde_json::Value, TuiError> {
    let target = scope_for(scope, global)?;
    daemon
        .conn
        .call_json(
            "session.list",
            target.with(json!({"includeArchived": archived})),
        )
        .await
}

/// The session prompts go to, made with `session.new` when there is none yet.
async fn ensure_session(daemon: &Daemon, scope: &Scope, app: &mut App) -> Result<String, TuiError> {
    if let Some(sid) = &app.session_id {
        return Ok(sid.clone());
    }
    let sid = daemon.conn.call("session.new", scope.params()).await?;
    app.session_id = Some(sid.clone());
    Ok(sid)
}

/// Puts `text` on the clipboard with OSC 52, which terminals (and tmux with
/// `set-clipboard on`) pass on to the system clipboard, over SSH too.
fn copy_to_clipboard(text: &str) -> std::io::Result<()> {
    use base64::Engine;
    let encoded = base64::engine::general_purpose::STANDARD.encode(text);
    let mut out = std::io::stdout().lock();
    write!(out, "\x1b]52;c;{encoded}\x07")?;
    out.flush()
}
