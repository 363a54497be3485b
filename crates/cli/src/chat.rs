//! `seekclaw chat` (and `seekclaw` alone): the terminal UI, a client of the
//! daemon; once it closes, how to resume its session (`chat_hint`).

use std::process::ExitCode;

use clap::Args;

/// Where the chat runs and which session it opens.
#[derive(Args, Debug, Clone, Default)]
pub struct ChatArgs {
    #[command(flatten)]
    pub at: seekclaw_exec::SessionArgs,
    /// A first prompt, sent right away.
    pub prompt: Option<String>,
}

#[cfg(unix)]
pub fn chat(args: ChatArgs) -> ExitCode {
    use std::io::IsTerminal;

    use seekclaw_config::Home;
    use seekclaw_tui::{ChatOptions, Scope, SessionChoice};
    let outcome = (|| -> anyhow::Result<()> {
        if args.prompt.as_deref().is_some_and(|p| p.trim().is_empty()) {
            anyhow::bail!("the prompt is empty: say what to do (or leave it out to open the chat)");
        }
        let home = Home::from_env()?;
        // Before the terminal is taken and before the first-run welcome
        // could offer to add a provider it cannot save.
        crate::config_check::before_chat(&home)?;
        let at = args.at;
        // A person at a terminal is told how to come back (a pipe gets only the answer).
        let interactive = std::io::stdout().is_terminal() && std::io::stdin().is_terminal();
        let named = match &at.dir.workspace {
            Some(dir) => Some(seekclaw_config::normalize_path(
                dir,
                &crate::cwd::working_dir()?,
            )),
            None => None,
        };
        // Only the current directory is asked about: a named one was chosen.
        let ask_trust = !at.global && at.dir.workspace.is_none();
        let scope = if at.global {
            Scope::Global
        } else {
            match at.dir.workspace {
                Some(dir) => Scope::Workspace(std::path::absolute(dir)?),
                None => Scope::Workspace(crate::cwd::working_dir()?),
            }
        };
        let session = match (at.session, at.continue_latest) {
            (Some(id), _) => SessionChoice::Id(id),
            (None, true) => SessionChoice::Latest,
            (None, false) => SessionChoice::New,
        };
        let end = seekclaw_tui::run(ChatOptions {
            home: home.clone(),
            scope,
            session,
            prompt: args.prompt,
            ask_trust,
        })?;
        if interactive && let Some(line) = crate::chat_hint::hint(&end, named.as_deref()) {
            println!("{line}");
        }
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
