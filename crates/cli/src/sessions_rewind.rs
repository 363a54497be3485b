//! `seekclaw sessions checkpoints|rewind|fork`: a session's checkpoints,
//! going back to one of its user messages, and branching off at one.
//!
//! Through the running daemon when there is one (its watchers then see the
//! rewind, and a turn it runs makes the rewind `busy`), else through an
//! engine in this process, which refuses just the same while any process
//! runs a turn on the session. Both answer with the protocol's shapes, so
//! the printing is one.

use std::future::Future;
use std::io::Write;
use std::path::Path;

use anyhow::{Context, anyhow};
use clap::Subcommand;
use seekclaw_config::{GLOBAL_SCOPE, Home};
use seekclaw_daemon::Scope;
use seekclaw_engine::{Engine, EngineError, ErrorKind};
use seekclaw_protocol::api::{
    CheckpointFileDiff, CheckpointListParams, CheckpointSummary, ForkOutcome, Required,
    RestoreMode, RewindOutcome, RewoundPrompt, SessionForkParams, SessionRewindParams, Strict,
};
use seekclaw_protocol::{ErrorCode, MethodType, method};
use seekclaw_store::Store;
use serde::de::DeserializeOwned;

use crate::client::DaemonClient;
use crate::sessions::{ScopeArgs, find, one_line, short_time};

/// `seekclaw sessions checkpoints|rewind|fork`.
#[derive(Subcommand)]
pub enum CheckpointCommand {
    /// List the checkpoints the engine took of the session's workspace:
    /// seq, the turn (user message) each belongs to, time, kind, files
    /// changed and lines added/removed.
    Checkpoints {
        /// Session id, or a unique start (or end) of it.
        id: String,
        #[command(flatten)]
        scope: ScopeArgs,
        /// Print a JSON array (`checkpoint.list`'s shape).
        #[arg(long)]
        json: bool,
    },
    /// Go back to before one of the session's user messages: put the files
    /// back as they were before its turn changed any, and/or drop the
    /// conversation from it on (the log keeps it; the model no longer sees
    /// it). Files someone else changed since stop the rewind unless --force.
    Rewind {
        /// Session id, or a unique start (or end) of it.
        id: String,
        /// The user message's seq (TURN in `sessions checkpoints`, `#N` in `sessions show`).
        #[arg(long, value_name = "SEQ")]
        to: u64,
        /// Restore the code only (the conversation stays).
        #[arg(long, conflicts_with = "conversation")]
        code: bool,
        /// Rewind the conversation only (the files stay).
        #[arg(long)]
        conversation: bool,
        /// Change nothing; print what would be restored, as unified diffs.
        #[arg(long)]
        dry_run: bool,
        /// Overwrite files changed after that point by someone other than the agent.
        #[arg(long)]
        force: bool,
        #[command(flatten)]
        scope: ScopeArgs,
        /// Print the outcome as JSON (`session.rewind`'s shape).
        #[arg(long)]
        json: bool,
    },
    /// Start a new session from the conversation before one of the
    /// session's user messages (the original is left as it is); prints the
    /// new id and how to resume it.
    Fork {
        /// Session id, or a unique start (or end) of it.
        id: String,
        /// The user message's seq: the fork holds what came before it.
        #[arg(long, value_name = "SEQ")]
        at: u64,
        /// Also put the workspace's files back as they were before that message's turn.
        #[arg(long)]
        code: bool,
        /// With --code: overwrite files changed after that point by someone other than the agent.
        #[arg(long, requires = "code")]
        force: bool,
        #[command(flatten)]
        scope: ScopeArgs,
        /// Print the outcome as JSON (`session.fork`'s shape).
        #[arg(long)]
        json: bool,
    },
}

/// Runs one of them.
pub fn run(home: &Home, cmd: CheckpointCommand, out: &mut impl Write) -> anyhow::Result<()> {
    match cmd {
        CheckpointCommand::Checkpoints { id, scope, json } => {
            checkpoints(home, &scope, &id, json, out)
        }
        CheckpointCommand::Rewind {
            id,
            to,
            code,
            conversation,
            dry_run,
            force,
            scope,
            json,
        } => {
            let restore = match (code, conversation) {
                (true, _) => RestoreMode::Code,
                (false, true) => RestoreMode::Conversation,
                (false, false) => RestoreMode::Both,
            };
            let args = RewindArgs {
                to,
                restore,
                dry_run,
                force,
                json,
            };
            rewind(home, &scope, &id, &args, out)
        }
        CheckpointCommand::Fork {
            id,
            at,
            code,
            force,
            scope,
            json,
        } => fork(home, &scope, &id, at, (code, force, json), out),
    }
}

/// A session found by id (or a unique part of it) and where it lives.
struct Target {
    id: String,
    /// The project root; `None` for the global scope.
    root: Option<String>,
}

impl Target {
    fn resolve(home: &Home, args: &ScopeArgs, given: &str) -> anyhow::Result<Target> {
        let store = Store::open(&home.db_path())?;
        let (key, id) = find(&store, home, args, given)?;
        let header = store
            .session(&key, &id)?
            .with_context(|| format!("session {id} not found"))?;
        let root = header.workspace.filter(|_| key != GLOBAL_SCOPE);
        Ok(Target { id, root })
    }

    fn scope(&self) -> Scope {
        match &self.root {
            Some(root) => Scope::of_root(Path::new(root)),
            None => Scope::global(),
        }
    }

    /// The wire's scope fields.
    fn fields(&self) -> (Option<String>, Option<bool>) {
        match &self.root {
            Some(root) => (Some(root.clone()), None),
            None => (None, Some(true)),
        }
    }

    /// The flags that open this session's scope from anywhere.
    fn scope_flags(&self) -> String {
        match &self.root {
            Some(root) => format!(" --workspace {}", quoted(root)),
            None => " --global".into(),
        }
    }
}

/// A failed call: a conflict is told apart (it gets a hint).
struct Failure {
    conflict: bool,
    error: anyhow::Error,
}

impl From<anyhow::Error> for Failure {
    fn from(error: anyhow::Error) -> Self {
        Failure {
            conflict: false,
            error,
        }
    }
}

impl From<EngineError> for Failure {
    fn from(e: EngineError) -> Self {
        Failure {
            conflict: e.kind == ErrorKind::Conflict,
            error: anyhow!(e.message),
        }
    }
}

/// Calls `M` on the running daemon, else runs `local` on an engine of this
/// process; either way the answer is read as `M`'s result.
fn call<M, F, Fut, T>(home: &Home, params: &M::Params, local: F) -> Result<M::Result, Failure>
where
    M: MethodType,
    M::Result: DeserializeOwned,
    F: FnOnce(Engine) -> Fut,
    Fut: Future<Output = Result<T, EngineError>>,
    T: serde::Serialize,
{
    if let Some(mut daemon) = DaemonClient::running(home) {
        return daemon
            .call_coded::<M>(params)
            .map_err(|(code, error)| Failure {
                conflict: code == Some(ErrorCode::Conflict),
                error,
            });
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(anyhow::Error::from)?;
    let done = runtime.block_on(async {
        let engine = Engine::open(home.clone()).await?;
        let done = local(engine.clone()).await;
        engine.close().await;
        done
    });
    runtime.shutdown_background();
    let value = serde_json::to_value(done?).map_err(anyhow::Error::from)?;
    Ok(serde_json::from_value(value).map_err(anyhow::Error::from)?)
}

/// `seekclaw sessions checkpoints ID`.
fn checkpoints(
    home: &Home,
    args: &ScopeArgs,
    given: &str,
    json: bool,
    out: &mut impl Write,
) -> anyhow::Result<()> {
    let target = Target::resolve(home, args, given)?;
    let (workspace, global) = target.fields();
    let params = CheckpointListParams {
        session_id: Required(target.id.clone()),
        workspace,
        global,
    };
    let scope = target.scope();
    let id = target.id.clone();
    let list = call::<method::CheckpointList, _, _, _>(home, &params, |engine| async move {
        engine.checkpoints(&scope, &id).await
    })
    .map_err(|f| f.error)?;
    if json {
        serde_json::to_writer_pretty(&mut *out, &list)?;
        writeln!(out)?;
        return Ok(());
    }
    if list.is_empty() {
        eprintln!(
            "seekclaw: session {} has no checkpoints (none of its turns changed the workspace)",
            target.id
        );
        return Ok(());
    }
    print_checkpoints(&list, out)?;
    writeln!(
        out,
        "\nTURN is the user message a checkpoint belongs to: `seekclaw sessions rewind {} --to TURN` goes back to before it.",
        target.id
    )?;
    Ok(())
}

fn print_checkpoints(list: &[CheckpointSummary], out: &mut impl Write) -> anyhow::Result<()> {
    let rows: Vec<[String; 6]> = list
        .iter()
        .map(|c| {
            [
                c.seq.map_or_else(|| "-".into(), |s| s.to_string()),
                // 0: taken between turns (a job's end, a rewind).
                match c.turn_seq {
                    0 => "-".to_string(),
                    n => n.to_string(),
                },
                short_time(&c.created_at),
                c.kind.clone(),
                c.files_changed.to_string(),
                if c.full {
                    "(whole tree)".into()
                } else {
                    format!("+{} -{}", c.added, c.removed)
                },
            ]
        })
        .collect();
    crate::table::write_table(
        out,
        ["SEQ", "TURN", "TIME (UTC)", "KIND", "FILES", "+/-"],
        &rows,
    )?;
    Ok(())
}

/// What `seekclaw sessions rewind` was asked.
struct RewindArgs {
    to: u64,
    restore: RestoreMode,
    dry_run: bool,
    force: bool,
    json: bool,
}

/// `seekclaw sessions rewind ID --to SEQ`.
fn rewind(
    home: &Home,
    args: &ScopeArgs,
    given: &str,
    r: &RewindArgs,
    out: &mut impl Write,
) -> anyhow::Result<()> {
    let target = Target::resolve(home, args, given)?;
    let (workspace, global) = target.fields();
    let params = SessionRewindParams {
        id: Required(target.id.clone()),
        seq: Strict::new(r.to),
        restore: Some(Strict::new(r.restore)),
        dry_run: Some(r.dry_run),
        force: Some(r.force),
        workspace,
        global,
    };
    let request = seekclaw_engine::RewindRequest {
        session_id: target.id.clone(),
        seq: r.to,
        restore: r.restore,
        dry_run: r.dry_run,
        force: r.force,
    };
    let scope = target.scope();
    let done = call::<method::SessionRewind, _, _, _>(home, &params, |engine| async move {
        engine.rewind(&scope, request).await
    });
    let outcome = match done {
        Ok(outcome) => outcome,
        Err(f) if f.conflict => {
            return Err(anyhow!(
                "{:#}\n  `--dry-run` shows what the rewind would do; `--force` overwrites those files.",
                f.error
            ));
        }
        Err(f) => return Err(f.error),
    };
    if r.json {
        serde_json::to_writer_pretty(&mut *out, &outcome)?;
        writeln!(out)?;
        return Ok(());
    }
    print_rewind(&outcome, &target, out)
}

fn print_rewind(o: &RewindOutcome, target: &Target, out: &mut impl Write) -> anyhow::Result<()> {
    let what = match o.restore {
        RestoreMode::Code => "the code",
        RestoreMode::Conversation => "the conversation",
        RestoreMode::Both => "the code and the conversation",
    };
    let code = o.restore != RestoreMode::Conversation;
    if o.dry_run {
        writeln!(
            out,
            "Dry run: rewinding {what} of session {} to before message #{} (nothing is changed).",
            target.id, o.seq
        )?;
    } else {
        writeln!(
            out,
            "Rewound {what} of session {} to before message #{}.",
            target.id, o.seq
        )?;
    }
    if code {
        let verb = if o.dry_run {
            "would be restored"
        } else {
            "restored"
        };
        match o.files.len() {
            0 => writeln!(out, "No file {verb}: the workspace is as it was then.")?,
            n => {
                writeln!(out, "{n} file(s) {verb}:")?;
                print_diffstat(&o.files, out)?;
            }
        }
        if o.dry_run {
            for f in o.files.iter().filter(|f| !f.diff.is_empty()) {
                write!(out, "\n{}", f.diff)?;
                if !f.diff.ends_with('\n') {
                    writeln!(out)?;
                }
            }
        }
        print_list(
            out,
            if o.dry_run {
                "Changed after that point by someone other than the agent (a rewind stops on them; --force overwrites them)"
            } else {
                "Overwritten though changed after that point by someone other than the agent (--force)"
            },
            &o.conflicts,
        )?;
        print_list(out, "Kept (you created them after that point)", &o.kept)?;
        print_list(
            out,
            "Not restorable (over checkpoints.maxFileBytes then)",
            &o.unrestorable,
        )?;
    }
    if let Some(prompt) = &o.prompt {
        let lead = if o.dry_run {
            "The message that would be rewound"
        } else {
            "The rewound message (edit and send it again)"
        };
        print_prompt(prompt, lead, o.dry_run, target, out)?;
    }
    Ok(())
}

/// `  modified  src/a.rs  +2 -1`, aligned.
fn print_diffstat(files: &[CheckpointFileDiff], out: &mut impl Write) -> anyhow::Result<()> {
    let status = files.iter().map(|f| f.status.len()).max().unwrap_or(0);
    let path = files
        .iter()
        .map(|f| f.path.chars().count())
        .max()
        .unwrap_or(0);
    for f in files {
        let lines = if f.binary {
            "binary".to_string()
        } else {
            format!("+{} -{}", f.added, f.removed)
        };
        writeln!(out, "  {:<status$}  {:<path$}  {lines}", f.status, f.path)?;
    }
    Ok(())
}

fn print_list(out: &mut impl Write, heading: &str, items: &[String]) -> anyhow::Result<()> {
    if items.is_empty() {
        return Ok(());
    }
    writeln!(out, "{heading}:")?;
    for item in items {
        writeln!(out, "  {item}")?;
    }
    Ok(())
}

fn print_prompt(
    prompt: &RewoundPrompt,
    lead: &str,
    dry_run: bool,
    target: &Target,
    out: &mut impl Write,
) -> anyhow::Result<()> {
    writeln!(out, "{lead}, #{}:", prompt.seq)?;
    for line in prompt.text.lines() {
        writeln!(out, "  {line}")?;
    }
    if !prompt.images.is_empty() {
        let names: Vec<&str> = prompt.images.iter().map(|i| i.name.as_str()).collect();
        writeln!(out, "  (images: {})", names.join(", "))?;
    }
    if !dry_run {
        writeln!(
            out,
            "Resend it with `seekclaw{} --resume {} {}`.",
            target.scope_flags(),
            target.id,
            quoted(&one_line(&prompt.text))
        )?;
    }
    Ok(())
}

/// `seekclaw sessions fork ID --at SEQ`.
fn fork(
    home: &Home,
    args: &ScopeArgs,
    given: &str,
    at: u64,
    (restore_code, force, json): (bool, bool, bool),
    out: &mut impl Write,
) -> anyhow::Result<()> {
    let target = Target::resolve(home, args, given)?;
    let (workspace, global) = target.fields();
    let params = SessionForkParams {
        id: Required(target.id.clone()),
        seq: Strict::new(at),
        restore_code: Some(restore_code),
        force: Some(force),
        workspace,
        global,
    };
    let request = seekclaw_engine::ForkRequest {
        session_id: target.id.clone(),
        seq: at,
        restore_code,
        force,
    };
    let scope = target.scope();
    let done = call::<method::SessionFork, _, _, _>(home, &params, |engine| async move {
        engine.fork(&scope, request).await
    });
    let outcome: ForkOutcome = match done {
        Ok(o) => o,
        Err(f) if f.conflict => {
            return Err(anyhow!(
                "{:#}\n  No session was made; `--force` overwrites those files.",
                f.error
            ));
        }
        Err(f) => return Err(f.error),
    };
    if json {
        serde_json::to_writer_pretty(&mut *out, &outcome)?;
        writeln!(out)?;
        return Ok(());
    }
    let new = Target {
        id: outcome.session.id.clone(),
        root: target.root.clone(),
    };
    writeln!(
        out,
        "Forked session {} at message #{at}: new session {}",
        target.id, new.id
    )?;
    if let Some(code) = &outcome.code {
        match code.files.len() {
            0 => writeln!(out, "The code was already as it was then.")?,
            n => {
                writeln!(out, "{n} file(s) restored:")?;
                print_diffstat(&code.files, out)?;
            }
        }
    }
    match &outcome.prompt {
        Some(prompt) => print_prompt(
            prompt,
            "The message forked at (edit it and send it in the new session)",
            false,
            &new,
            out,
        )?,
        None => writeln!(
            out,
            "Resume it with `seekclaw{} --resume {}`.",
            new.scope_flags(),
            new.id
        )?,
    }
    Ok(())
}

/// `text` as one shell word.
fn quoted(text: &str) -> String {
    if !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+,:@".contains(c))
    {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_diffstat_aligns_status_and_path() {
        let file = |path: &str, status: &str, added, removed, binary| CheckpointFileDiff {
            path: path.into(),
            status: status.into(),
            added,
            removed,
            binary,
            diff: String::new(),
        };
        let mut out = Vec::new();
        print_diffstat(
            &[
                file("src/a.rs", "modified", 2, 1, false),
                file("b", "added", 0, 0, true),
            ],
            &mut out,
        )
        .unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "  modified  src/a.rs  +2 -1\n  added     b         binary\n"
        );
        assert_eq!(quoted("fix it's"), r"'fix it'\''s'");
        assert_eq!(quoted("a/b.rs"), "a/b.rs");
    }
}
