//! What the rewind and fork actions do against the daemon: load the list
//! (`session.timeline`'s prompts, `checkpoint.list`'s changes), call
//! `session.rewind` / `session.fork`, and on a conflict ask (listing the
//! files a dry run names) before anything is overwritten.

use seekclaw_protocol::api::{
    CheckpointListParams, RestoreMode, RewindOutcome, RewoundPrompt, SessionForkParams,
    SessionRewindParams,
};
use seekclaw_protocol::api::{Required, Strict};
use seekclaw_protocol::method;
use serde_json::Value;

use crate::app::App;
use crate::lifecycle::Daemon;
use crate::rewind::{Choice, Goal, Restore, Row};
use crate::{Scope, SessionChoice, TuiError, open_session};

/// Loads the session's prompts and their changes, then shows the list.
pub(crate) async fn open(
    daemon: &Daemon,
    scope: &Scope,
    app: &mut App,
    goal: Goal,
) -> Result<(), TuiError> {
    let Some(sid) = app.session_id.clone() else {
        return Ok(());
    };
    let conn = &daemon.conn;
    // Read leniently: only the prompts (`user` entries) and their seqs.
    let timeline: Value = conn
        .call_as::<method::SessionTimeline, Value>(&scope.timeline(&sid, false))
        .await?;
    let prompts: Vec<(u64, String)> = timeline["entries"]
        .as_array()
        .map(|entries| {
            entries
                .iter()
                .filter(|e| e["kind"] == "user")
                .filter_map(|e| Some((e["seq"].as_u64()?, prompt_text(e["text"].as_str()?))))
                .collect()
        })
        .unwrap_or_default();
    let (workspace, global) = scope.fields();
    let params = CheckpointListParams {
        session_id: Required(sid),
        workspace,
        global,
    };
    let list = conn.call::<method::CheckpointList>(&params).await?;
    let rows: Vec<Row<'_>> = list
        .iter()
        .filter(|c| !c.full)
        .map(|c| Row {
            turn_seq: c.turn_seq,
            kind: &c.kind,
            files: c.files_changed,
            added: c.added,
            removed: c.removed,
        })
        .collect();
    app.show_rewind(goal, crate::rewind::targets(prompts, &rows));
    Ok(())
}

/// A prompt as the user typed it (`!cmd` output sent with it left out).
fn prompt_text(text: &str) -> String {
    crate::shell::split_context(text).1.to_string()
}

fn mode(restore: Restore) -> RestoreMode {
    match restore {
        Restore::Both => RestoreMode::Both,
        Restore::Conversation => RestoreMode::Conversation,
        Restore::Code => RestoreMode::Code,
    }
}

fn rewind_params(scope: &Scope, sid: &str, seq: u64, restore: Restore) -> SessionRewindParams {
    let (workspace, global) = scope.fields();
    SessionRewindParams {
        id: Required(sid.to_string()),
        seq: Strict::new(seq),
        restore: Some(Strict::new(mode(restore))),
        dry_run: None,
        force: None,
        workspace,
        global,
    }
}

/// Rewinds the open session to before the prompt at `seq`.
pub(crate) async fn rewind(
    daemon: &Daemon,
    scope: &Scope,
    app: &mut App,
    seq: u64,
    restore: Restore,
    force: bool,
) -> Result<(), TuiError> {
    let Some(sid) = app.session_id.clone() else {
        return Ok(());
    };
    let conn = &daemon.conn;
    let mut params = rewind_params(scope, &sid, seq, restore);
    params.force = Some(force);
    let outcome = match conn.call::<method::SessionRewind>(&params).await {
        Ok(outcome) => outcome,
        Err(TuiError::Conflict(message)) if !force && restore.code() => {
            return ask_overwrite(
                daemon,
                scope,
                app,
                &sid,
                seq,
                Choice::Rewind(restore),
                message,
            )
            .await;
        }
        Err(e) => {
            app.rewind = None;
            return Err(e);
        }
    };
    app.rewind = None;
    if restore.conversation() {
        // The rewound range is gone from the timeline: draw it again.
        if let Some(detail) = open_session(conn, scope, &SessionChoice::Id(sid)).await? {
            app.load_session(detail);
        }
    }
    let what = match restore {
        Restore::Both => "the code and the conversation",
        Restore::Conversation => "the conversation",
        Restore::Code => "the code",
    };
    let mut lines = vec![format!(
        "⟲ Rewound {what} to before «{}».",
        short(outcome.prompt.as_ref().map(|p| p.text.as_str()), seq, app)
    )];
    if restore.code() {
        lines.extend(code_lines(&outcome));
    }
    put_back(app, outcome.prompt.as_ref(), &mut lines);
    app.notice(lines.join("\n"));
    Ok(())
}

/// Forks the open session at the prompt at `seq` and opens the fork.
pub(crate) async fn fork(
    daemon: &Daemon,
    scope: &Scope,
    app: &mut App,
    seq: u64,
    restore_code: bool,
    force: bool,
) -> Result<(), TuiError> {
    let Some(sid) = app.session_id.clone() else {
        return Ok(());
    };
    let conn = &daemon.conn;
    let (workspace, global) = scope.fields();
    let params = SessionForkParams {
        id: Required(sid.clone()),
        seq: Strict::new(seq),
        restore_code: Some(restore_code),
        force: Some(force),
        workspace,
        global,
    };
    let outcome = match conn.call::<method::SessionFork>(&params).await {
        Ok(outcome) => outcome,
        Err(TuiError::Conflict(message)) if !force && restore_code => {
            let choice = Choice::Fork(true);
            return ask_overwrite(daemon, scope, app, &sid, seq, choice, message).await;
        }
        Err(e) => {
            app.rewind = None;
            return Err(e);
        }
    };
    app.rewind = None;
    let at = short(outcome.prompt.as_ref().map(|p| p.text.as_str()), seq, app);
    let new_id = outcome.session.id.clone();
    if let Some(detail) = open_session(conn, scope, &SessionChoice::Id(new_id.clone())).await? {
        app.load_session(detail);
    }
    let mut lines = vec![format!(
        "⑂ Forked session {sid} at «{at}» into session {new_id}: this chat is now on the fork \
         (/resume {sid} goes back)."
    )];
    if let Some(code) = &outcome.code {
        lines.extend(code_lines(code));
    }
    put_back(app, outcome.prompt.as_ref(), &mut lines);
    app.notice(lines.join("\n"));
    Ok(())
}

/// The restore of `choice` met files someone else changed: a dry run names
/// them and the flow asks whether to overwrite them.
async fn ask_overwrite(
    daemon: &Daemon,
    scope: &Scope,
    app: &mut App,
    sid: &str,
    seq: u64,
    choice: Choice,
    message: String,
) -> Result<(), TuiError> {
    let mut params = rewind_params(scope, sid, seq, Restore::Code);
    params.dry_run = Some(true);
    let files = match daemon.conn.call::<method::SessionRewind>(&params).await {
        Ok(dry) if !dry.conflicts.is_empty() => dry.conflicts,
        // Nothing to list (changed meanwhile): the daemon's words stand.
        _ => {
            app.rewind = None;
            return Err(TuiError::Daemon(message));
        }
    };
    app.ask_overwrite(seq, choice, files);
    Ok(())
}

/// The rewound prompt's first line (else the list's copy of it).
fn short(text: Option<&str>, seq: u64, app: &App) -> String {
    let listed = app
        .rewind
        .as_ref()
        .and_then(|f| f.targets.iter().find(|t| t.seq == seq))
        .map(|t| t.text.clone());
    let target = crate::rewind::Target {
        seq,
        text: text.map(prompt_text).or(listed).unwrap_or_default(),
        changes: Default::default(),
    };
    target.short(60)
}

/// What a code restore did, a line each.
fn code_lines(outcome: &RewindOutcome) -> Vec<String> {
    let mut out = Vec::new();
    let list = |files: &[String]| {
        let shown: Vec<&str> = files.iter().take(8).map(String::as_str).collect();
        let more = files.len().saturating_sub(shown.len());
        let more = if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        };
        format!("{}{more}", shown.join(", "))
    };
    let restored: Vec<String> = outcome.files.iter().map(|f| f.path.clone()).collect();
    if restored.is_empty() {
        out.push("  No file needed restoring.".to_string());
    } else {
        let (added, removed) = outcome
            .files
            .iter()
            .fold((0, 0), |(a, r), f| (a + f.added, r + f.removed));
        out.push(format!(
            "  Restored {} file{} (+{added} −{removed}): {}",
            restored.len(),
            if restored.len() == 1 { "" } else { "s" },
            list(&restored)
        ));
    }
    if !outcome.conflicts.is_empty() {
        out.push(format!(
            "  Overwrote what someone else changed in: {}",
            list(&outcome.conflicts)
        ));
    }
    if !outcome.kept.is_empty() {
        out.push(format!("  Kept files you created: {}", list(&outcome.kept)));
    }
    if !outcome.unrestorable.is_empty() {
        out.push(format!(
            "  Not restorable (too large when checkpointed): {}",
            list(&outcome.unrestorable)
        ));
    }
    out
}

/// Puts the rewound prompt into the editor (what was typed there stays
/// after it) and says so.
fn put_back(app: &mut App, prompt: Option<&RewoundPrompt>, lines: &mut Vec<String>) {
    let Some(prompt) = prompt else {
        return;
    };
    let text = prompt_text(&prompt.text);
    let typed = app.editor.take();
    app.editor.insert_str(&text);
    if !typed.trim().is_empty() {
        app.editor.insert_str(&format!("\n{typed}"));
    }
    let images = match prompt.images.len() {
        0 => String::new(),
        n => format!(" (its {n} image(s) are not attached again: name them with @)"),
    };
    lines.push(format!(
        "  The prompt is back in the editor{images}: edit it and press Enter to send it again."
    ));
}
