//! `seekclaw chat` (and `seekclaw` alone): the terminal UI, a client of the daemon.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

/// Where the chat runs and which session it opens.
#[derive(Args, Debug, Clone, Default)]
pub struct ChatArgs {
    /// Project directory (default: the current directory's project).
    #[arg(long)]
    pub workspace: Option<PathBuf>,
    /// Use the directory-free global scope.
    #[arg(long, conflicts_with = "workspace")]
    pub global: bool,
    /// Open this session.
    #[arg(long)]
    pub session: Option<String>,
    /// Open the scope's most recently updated session.
    #[arg(long = "continue", conflicts_with = "session")]
    pub continue_latest: bool,
    /// A first prompt, sent right away.
    pub prompt: Option<String>,
}

#[cfg(unix)]
pub fn chat(args: ChatArgs) -> ExitCode {
    use seekclaw_config::Home;
    use seekclaw_tui::{ChatOptions, Scope, SessionChoice};
    let outcome = (|| -> anyhow::Result<()> {
        let home = Home::from_env()?;
        let scope = if args.global {
            Scope::Global
        } else {
            match args.workspace {
                Some(dir) => Scope::Workspace(std::path::absolute(dir)?),
                None => Scope::Workspace(std::env::current_dir()?),
            }
        };
        let session = match (args.session, args.continue_latest) {
            (Some(id), _) => SessionChoice::Id(id),
            (None, true) => SessionChoice::Latest,
            (None, false) => SessionChoice::New,
        };
        seekclaw_tui::run(ChatOptions {
            home,
            scope,
            session,
            prompt: args.prompt,
        })?;
        Ok(())
    })();
    crate::report(outcome)
}

#[cfg(not(unix))]
pub fn chat(_args: ChatArgs) -> ExitCode {
    crate::report(Err(anyhow::anyhow!(
        "seekclaw chat needs a Unix socket to the daemon; it is not available on this system yet"
    )))
}
