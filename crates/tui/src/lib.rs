//! `seekclaw chat`: the terminal UI, a client of the daemon. It connects to
//! the daemon of the home (starting one when none answers, and shutting down
//! only that one on exit), runs turns with `chat`, and renders their events:
//! Markdown answers, dimmed reasoning, tool rows, diffs and a status bar.
//!
//! Unix only (the daemon's socket, process groups, signals); the CLI depends
//! on it only there.
#![cfg(unix)]
#![warn(missing_docs)]
#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used))]

mod actions;
pub mod app;
pub mod approval;
pub mod attach;
mod attention;
pub mod budget_view;
pub mod client;
mod commands;
pub mod completion;
mod config_notice;
mod config_watch;
mod cost;
mod deliberate;
pub mod detail;
pub mod elicitation;
mod event_loop;
#[cfg(test)]
mod fixtures;
mod headless;
pub mod highlight;
pub mod hook_set;
pub mod hooks;
pub mod input;
pub mod lifecycle;
pub mod markdown;
mod memory;
mod notify;
mod phase;
pub mod picker;
pub mod print;
mod print_live;
pub mod quit;
pub mod render;
mod reports;
pub mod rewind;
mod rewind_act;
pub mod setup;
mod shell;
pub mod status;
pub mod status_line;
pub mod subrun;
pub mod trust;
pub mod watching;

use std::io::IsTerminal;
use std::path::PathBuf;

use seekclaw_config::Home;

/// What can stop `seekclaw chat`.
#[derive(Debug, thiserror::Error)]
pub enum TuiError {
    /// The daemon could not be started.
    #[error("cannot start the daemon: {0}")]
    Spawn(std::io::Error),
    /// A daemon was started and exited before answering.
    #[error("the daemon exited ({status}) before answering; see {}", .1.display(), status = .0)]
    DaemonExited(String, PathBuf),
    /// A daemon was started and never answered `ping`.
    #[error("the daemon did not answer within 6 s; see {}", .0.display())]
    DaemonSilent(PathBuf),
    /// The connection closed.
    #[error("the daemon closed the connection")]
    Disconnected,
    /// A call got no answer in time.
    #[error("the daemon did not answer {0} in time")]
    Timeout(String),
    /// A call's result was not the JSON it should be.
    #[error("the daemon answered {0} with data that is not the expected JSON")]
    BadResult(String),
    /// The daemon answered with an error.
    #[error("{0}")]
    Daemon(String),
    /// The daemon refused with `conflict` (a rewind would overwrite files
    /// someone else changed).
    #[error("{0}")]
    Conflict(String),
    /// The terminal failed (raw mode, drawing, reading keys).
    #[error("terminal: {0}")]
    Terminal(std::io::Error),
    /// An `@image` named in the message could not be read.
    #[error("cannot attach {}: {err}", .0.display(), err = .1)]
    Attach(PathBuf, std::io::Error),
    /// The turn was cancelled (Ctrl-C without a terminal UI).
    #[error("the turn was cancelled")]
    Cancelled,
    /// The chat's folder cannot be a workspace unless named (`/`, the home
    /// directory): what to do instead.
    #[error("{0}")]
    NotAProject(String),
    /// No prompt to answer when stdout is not a terminal.
    #[error(
        "stdout is not a terminal: pass a prompt (`seekclaw chat \"…\"`) to print its answer, or use `seekclaw run`"
    )]
    NoPrompt,
}

/// Where the chat runs: a workspace or the global scope.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scope {
    /// A project directory (the daemon walks up to its root).
    Workspace(PathBuf),
    /// The directory-free global scope.
    Global,
}

impl Scope {
    /// The scope as typed params fields: `(workspace, global)`.
    pub fn fields(&self) -> (Option<String>, Option<bool>) {
        match self {
            Scope::Workspace(dir) => (Some(dir.to_string_lossy().into_owned()), None),
            Scope::Global => (None, Some(true)),
        }
    }

    /// `session.*` params naming session `id` in this scope.
    pub fn session(&self, id: &str) -> seekclaw_protocol::api::SessionRefParams {
        let (workspace, global) = self.fields();
        seekclaw_protocol::api::SessionRefParams {
            id: seekclaw_protocol::api::Required(id.to_string()),
            workspace,
            global,
        }
    }

    /// `session.timeline` params in this scope; `follow`: the running turn
    /// is left for `session.watch` to replay (see `followAfterSeq`).
    pub fn timeline(
        &self,
        id: &str,
        follow: bool,
    ) -> seekclaw_protocol::api::SessionTimelineParams {
        let (workspace, global) = self.fields();
        seekclaw_protocol::api::SessionTimelineParams {
            id: seekclaw_protocol::api::Required(id.to_string()),
            workspace,
            global,
            follow: follow.then_some(true),
        }
    }

    /// `session.watch` params in this scope, resuming after `after_seq`.
    pub fn watch(
        &self,
        id: &str,
        after_seq: Option<u64>,
    ) -> seekclaw_protocol::api::SessionWatchParams {
        let (workspace, global) = self.fields();
        seekclaw_protocol::api::SessionWatchParams {
            id: seekclaw_protocol::api::Required(id.to_string()),
            workspace,
            global,
            after_seq,
        }
    }

    /// `session.new` params in this scope.
    pub fn new_session(&self) -> seekclaw_protocol::api::SessionNewParams {
        let (workspace, global) = self.fields();
        seekclaw_protocol::api::SessionNewParams {
            workspace,
            global,
            ..Default::default()
        }
    }
}

/// The session to open.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SessionChoice {
    /// A new session (made on the first prompt).
    New,
    /// This session.
    Id(String),
    /// The scope's most recently updated session.
    Latest,
}

/// `seekclaw chat`'s options.
#[derive(Debug, Clone)]
pub struct ChatOptions {
    /// The home whose daemon to use.
    pub home: Home,
    /// Where the chat runs.
    pub scope: Scope,
    /// Which session to open.
    pub session: SessionChoice,
    /// A prompt to send right away.
    pub prompt: Option<String>,
    /// The workspace is the current directory, not one the user named: a
    /// folder not yet a known project is asked about (trust) first.
    pub ask_trust: bool,
}

/// Where a chat ended: what a "resume with …" line needs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ChatEnd {
    /// The session open when the chat closed (`None`: none was made).
    pub session_id: Option<String>,
    /// It is a global session (the chat may have moved scope meanwhile).
    pub global: bool,
    /// A turn was started in this chat (so the session is its scope's newest).
    pub sent: bool,
}

/// Runs `seekclaw chat`: the UI when stdout is a terminal; otherwise the
/// prompt's answer is printed as `seekclaw run` would (an error without one).
pub fn run(opts: ChatOptions) -> Result<ChatEnd, TuiError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(TuiError::Terminal)?;
    if std::io::stdout().is_terminal() && std::io::stdin().is_terminal() {
        runtime.block_on(event_loop::run(opts))
    } else {
        runtime
            .block_on(headless::run(opts))
            .map(|()| ChatEnd::default())
    }
}

/// The session `choice` names: its `session.timeline`, or `None` for a new one.
pub(crate) async fn open_session(
    conn: &client::Connection,
    scope: &Scope,
    choice: &SessionChoice,
) -> Result<Option<detail::SessionDetail>, TuiError> {
    let id = match choice {
        SessionChoice::New => return Ok(None),
        SessionChoice::Id(id) => id.clone(),
        SessionChoice::Latest => {
            let (workspace, global) = scope.fields();
            let params = seekclaw_protocol::api::SessionListParams {
                workspace,
                global,
                include_archived: None,
            };
            let list = conn
                .call::<seekclaw_protocol::method::SessionList>(&params)
                .await?;
            match list
                .into_iter()
                .max_by(|a, b| a.updated_at.cmp(&b.updated_at))
            {
                Some(latest) => latest.id,
                None => return Ok(None),
            }
        }
    };
    // Read into the UI's own lenient shape (an entry kind from a newer
    // daemon is skipped, not an error).
    let timeline = conn
        .call_as::<seekclaw_protocol::method::SessionTimeline, detail::SessionDetail>(
            &scope.timeline(&id, true),
        )
        .await;
    match timeline {
        Ok(detail) => Ok(Some(detail)),
        // A daemon still running an older seekclaw (say, one kept up by a
        // user unit across an upgrade) has only `session.get`.
        Err(TuiError::Daemon(message)) if message.starts_with("Unknown method") => {
            let old = conn
                .call_as::<seekclaw_protocol::method::SessionGet, detail::OldSession>(
                    &scope.session(&id),
                )
                .await?;
            Ok(Some(old.into()))
        }
        Err(e) => Err(e),
    }
}
