//! What a key's [`Action`] does against the daemon: start or steer a turn,
//! cancel it, and the slash commands.

use std::io::Write;

use seekclaw_protocol::api::{
    ApproveParams, CancelParams, CatalogEntry, ChatParams, DoctorParams, ModeSwitchParams,
    ModelParams, NoParams, Required, SessionHeader, SessionListParams, SessionUpdateParams,
    Skipped, SteerParams,
};
use seekclaw_protocol::method;

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
    // A session loaded to be followed is watched again from where its
    // timeline stops, even when it is the one watched already.
    let resume = app.resume_after.take();
    if resume.is_none() && app.watch.as_ref().is_some_and(|w| w.session == sid) {
        return Ok(());
    }
    if let Some(old) = app.watch.take() {
        // Not scoped: the watch is found by session id alone. Awaited: an
        // unwatch handled after the new watch would end that one too.
        let unwatch = seekclaw_protocol::api::SessionRefParams {
            id: Required(old.session),
            ..Default::default()
        };
        daemon.conn.call::<method::SessionUnwatch>(&unwatch).await?;
    }
    let id = daemon
        .conn
        .send::<method::SessionWatch>(&scope.watch(&sid, resume))
        .await?;
    app.watch = Some(crate::watching::Watching::new(id, sid));
    Ok(())
}

/// The watch could not replay what this window missed (`resync`): the
/// session is redrawn from the store; the watch goes on live.
pub async fn reload_session(daemon: &Daemon, scope: &Scope, app: &mut App) {
    let Some(sid) = app.session_id.clone() else {
        return;
    };
    let timeline = daemon
        .conn
        .call_as::<method::SessionTimeline, crate::detail::SessionDetail>(
            &scope.timeline(&sid, false),
        )
        .await;
    match timeline {
        Ok(detail) => {
            let watch = app.watch.take();
            app.load_session(detail);
            app.watch = watch;
            app.notice(
                "Some of this session's events were no longer kept; reloaded it from the store.",
            );
        }
        Err(e) => app.error(format!("cannot reload the session: {e}")),
    }
}

async fn try_act(
    daemon: &Daemon,
    scope: &mut Scope,
    app: &mut App,
    action: Action,
) -> Result<(), TuiError> {
    let conn = &daemon.conn;
    match action {
        Action::Chat(message) => send_chat(daemon, scope, app, message).await?,
        Action::Steer(message) => {
            let Some(turn) = &app.turn else { return Ok(()) };
            conn.send::<method::AgentSteer>(&steer(app, turn, message))
                .await?;
        }
        Action::Cancel(request_id) => {
            let params = CancelParams {
                request_id: Some(request_id),
                ..Default::default()
            };
            conn.send::<method::AgentCancel>(&params).await?;
        }
        Action::CancelSession(session_id) => {
            let params = CancelParams {
                session_id: Some(session_id),
                ..Default::default()
            };
            conn.send::<method::AgentCancel>(&params).await?;
        }
        Action::NewSession => {
            end_session(daemon, scope, app, "clear").await;
            let sid = conn
                .call::<method::SessionNew>(&scope.new_session())
                .await?;
            app.reset(Some(sid.clone()));
            app.notice(format!("New session {sid}."));
            // Plugins installed or switched meanwhile: their commands now.
            crate::commands::load_plugin_commands(conn, scope, app).await;
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
            let catalog = catalog(conn).await?;
            app.set_catalog(&catalog);
            crate::commands::load_plugin_commands(conn, scope, app).await;
        }
        Action::Resume(id) => {
            let choice = crate::SessionChoice::Id(id);
            if let Some(detail) = open_session(conn, scope, &choice).await? {
                app.load_session(detail);
            }
        }
        Action::Model(None) => {
            let catalog = catalog(conn).await?;
            app.set_catalog(&catalog);
            app.picker = Some(crate::picker::Picker::models(
                &catalog,
                app.session_model.as_deref(),
            ));
        }
        // The session keeps the model; other sessions keep the default.
        Action::Model(Some(model)) => set_session_model(daemon, scope, app, model).await?,
        Action::ModelDefault(model) => set_default_model(conn, app, model).await?,
        Action::Mode(None) => {
            let mode = conn.call::<method::AgentModeGet>(&NoParams {}).await?.text;
            app.notice(format!(
                "Mode: {mode} (/mode plan|readonly|edit|auto switches)"
            ));
        }
        Action::Mode(Some(mode)) => {
            let params = ModeSwitchParams { mode: Some(mode) };
            let mode = conn.call::<method::AgentModeSwitch>(&params).await?;
            app.notice(format!("Mode: {mode}"));
        }
        Action::Compact => compact(conn, scope, app).await?,
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
        Action::Reasoning(level) => set_reasoning(daemon, scope, app, level).await?,
        Action::Doctor => {
            let report = conn
                .call::<method::DoctorText>(&DoctorParams::default())
                .await?;
            app.notice(report);
        }
        Action::Usage => app.notice(crate::reports::usage(conn).await?),
        Action::Mcp(command) => app.notice(crate::reports::mcp_command(conn, command).await?),
        // Run by the event loop, which holds the terminal they hand over.
        Action::Init | Action::Memory => {}
        Action::Hooks(approve) => app.notice(crate::hook_set::report(conn, scope, approve).await?),
        Action::Goal(change) => {
            let id = ensure_session(daemon, scope, app).await?;
            app.notice(crate::reports::goal(conn, scope, id, change).await?);
        }
        Action::Approve {
            approval_id,
            session_id,
            decision,
            message,
        } => {
            // The answer comes back as an envelope; only a failure shows.
            let params = ApproveParams {
                request_id: None,
                session_id,
                approval_id: Some(approval_id),
                decision: Some(decision.to_string()),
                message,
                ..ApproveParams::default()
            };
            conn.send::<method::AgentApprove>(&params).await?;
        }
        Action::Elicit {
            approval_id,
            session_id,
            action,
            content,
        } => {
            let params = ApproveParams {
                session_id,
                approval_id: Some(approval_id),
                action: Some(action.to_string()),
                content,
                ..ApproveParams::default()
            };
            conn.send::<method::AgentApprove>(&params).await?;
        }
        Action::Shell(command) => run_shell(conn, scope, app, command).await?,
        Action::OpenRewind(goal) => crate::rewind_act::open(daemon, scope, app, goal).await?,
        Action::Rewind {
            seq,
            restore,
            force,
        } => crate::rewind_act::rewind(daemon, scope, app, seq, restore, force).await?,
        Action::Fork {
            seq,
            restore_code,
            force,
        } => crate::rewind_act::fork(daemon, scope, app, seq, restore_code, force).await?,
        Action::Quit | Action::CancelAndQuit(_) => {}
    }
    Ok(())
}

/// What a quitting action does before the UI leaves: the turn the user chose
/// to cancel is cancelled (its answer awaited, so the daemon has it before
/// the connection closes; a kept turn needs nothing: its chat is detached).
pub async fn before_quit(daemon: &Daemon, action: &Action) {
    if let Action::CancelAndQuit(request_id) = action {
        let params = CancelParams {
            request_id: Some(*request_id),
            ..Default::default()
        };
        let _ = daemon.conn.call::<method::AgentCancel>(&params).await;
    }
}

/// The user is done with the chat's session (quit, or `/new`): its
/// `SessionEnd` hooks run in the daemon with Claude Code's `reason`. A turn
/// the user left running keeps its session open (the daemon ends it later).
pub async fn end_session(daemon: &Daemon, scope: &Scope, app: &App, reason: &str) {
    let (Some(id), None) = (&app.session_id, &app.turn) else {
        return;
    };
    let (workspace, global) = scope.fields();
    let params = seekclaw_protocol::api::SessionEndParams {
        id: seekclaw_protocol::api::Required(id.clone()),
        workspace,
        global,
        reason: Some(reason.to_string()),
    };
    // Best effort: a daemon that cannot answer ends it when we disconnect.
    let _ = daemon.conn.call::<method::SessionEnd>(&params).await;
}

/// Sends the user's message (with `!cmd` context and `@image` attachments)
/// as a turn on the chat's session.
async fn send_chat(
    daemon: &Daemon,
    scope: &Scope,
    app: &mut App,
    message: String,
) -> Result<(), TuiError> {
    let conn = &daemon.conn;
    let sid = ensure_session(daemon, scope, app).await?;
    // `!cmd` output run while idle goes with this message.
    let mut sent = std::mem::take(&mut app.shell_context);
    sent.push(message.clone());
    let (workspace, global) = scope.fields();
    let mut params = ChatParams {
        message: Some(sent.join("\n\n")),
        session_id: Some(sid),
        workspace,
        global,
        // This client answers approval requests (`approval_request`).
        approvals: Some(true),
        // The turn outlives this window: quitting asks whether to cancel
        // it, and a closed terminal leaves it to finish in the daemon.
        detach: Some(true),
        ..Default::default()
    };
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
        params.images = Some(Skipped::send(images));
    }
    let id = conn.send::<method::Chat>(&params).await?;
    app.start_turn(id, &message);
    if let Some(Entry::User(_, chips)) = app.entries.last_mut() {
        *chips = found.iter().map(crate::attach::Attachment::chip).collect();
    }
    Ok(())
}

/// `/model NAME`: this session keeps `model`.
async fn set_session_model(
    daemon: &Daemon,
    scope: &Scope,
    app: &mut App,
    model: String,
) -> Result<(), TuiError> {
    let conn = &daemon.conn;
    let id = ensure_session(daemon, scope, app).await?;
    let params = SessionUpdateParams {
        model: Some(Some(model.clone())),
        ..session_update(scope, &id)
    };
    let header = conn.call::<method::SessionUpdate>(&params).await?;
    let chosen = header.model.unwrap_or(model);
    app.model = Some(chosen.clone());
    app.session_model = Some(chosen.clone());
    app.notice(format!(
        "This session now uses {chosen}. (/model default {chosen} makes it the default for new sessions.)"
    ));
    Ok(())
}

/// `/model default NAME`: new sessions (and those without a model) use it.
async fn set_default_model(
    conn: &crate::client::Connection,
    app: &mut App,
    model: String,
) -> Result<(), TuiError> {
    let params = ModelParams {
        model: Required(model.clone()),
    };
    let text = conn.call::<method::ModelSwitch>(&params).await?;
    let chosen = text
        .strip_prefix("switched to ")
        .unwrap_or(&model)
        .to_string();
    app.default_model = Some(chosen.clone());
    let this = match &app.session_model {
        Some(own) => format!("this session keeps {own}"),
        None => "this session too".to_string(),
    };
    app.notice(format!(
        "Default model: {chosen} (new sessions and those without a model of their own; {this})."
    ));
    Ok(())
}

/// `/compact`: summarizes the open session.
async fn compact(
    conn: &crate::client::Connection,
    scope: &Scope,
    app: &mut App,
) -> Result<(), TuiError> {
    let Some(id) = app.session_id.clone() else {
        app.error("Nothing to compact yet.");
        return Ok(());
    };
    app.notice("Compacting…");
    let result = conn
        .call::<method::SessionCompact>(&scope.session(&id))
        .await?;
    app.notice(crate::detail::compacted(&result.summary));
    Ok(())
}

/// `/reasoning LEVEL` for the open session.
async fn set_reasoning(
    daemon: &Daemon,
    scope: &Scope,
    app: &mut App,
    level: String,
) -> Result<(), TuiError> {
    let conn = &daemon.conn;
    let id = ensure_session(daemon, scope, app).await?;
    let params = SessionUpdateParams {
        reasoning_level: Some(level),
        ..session_update(scope, &id)
    };
    let header = conn.call::<method::SessionUpdate>(&params).await?;
    app.notice(format!("Reasoning level: {}", header.reasoning_level));
    Ok(())
}

/// `!cmd`: runs it here; its output goes to the running turn, or with the
/// next message.
async fn run_shell(
    conn: &crate::client::Connection,
    scope: &Scope,
    app: &mut App,
    command: String,
) -> Result<(), TuiError> {
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
            let params = steer(app, turn, ran.context.clone());
            app.shell_steers.push(ran.context);
            conn.send::<method::AgentSteer>(&params).await?;
        }
        None => {
            app.shell_context.push(ran.context);
            app.hint = Some("the output goes with your next message".into());
        }
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
) -> Result<Vec<SessionHeader>, TuiError> {
    let (workspace, global) = scope_for(scope, global)?.fields();
    let params = SessionListParams {
        workspace,
        global,
        include_archived: Some(archived),
    };
    daemon.conn.call::<method::SessionList>(&params).await
}

/// `model.catalog`: the picker and the status bar read it.
pub(crate) async fn catalog(
    conn: &crate::client::Connection,
) -> Result<Vec<CatalogEntry>, TuiError> {
    conn.call::<method::ModelCatalog>(&NoParams {}).await
}

/// `agent.steer` params for the running turn: another client's turn is
/// steered by its session, ours by its request too.
fn steer(app: &App, turn: &crate::app::Turn, message: String) -> SteerParams {
    SteerParams {
        message: Some(message),
        request_id: (!turn.foreign).then_some(turn.request_id),
        session_id: app.session_id.clone(),
        ..Default::default()
    }
}

/// `session.update` params for session `id` in `scope`, changing nothing yet.
fn session_update(scope: &Scope, id: &str) -> SessionUpdateParams {
    let (workspace, global) = scope.fields();
    SessionUpdateParams {
        id: Required(id.to_string()),
        workspace,
        global,
        ..Default::default()
    }
}

/// The session prompts go to, made with `session.new` when there is none yet.
async fn ensure_session(daemon: &Daemon, scope: &Scope, app: &mut App) -> Result<String, TuiError> {
    if let Some(sid) = &app.session_id {
        return Ok(sid.clone());
    }
    let sid = daemon
        .conn
        .call::<method::SessionNew>(&scope.new_session())
        .await?;
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
