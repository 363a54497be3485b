//! `seekclaw review`: parses the flags, runs the review `seekclaw_exec`
//! owns, and prints its one report: JSON with `--json`, readable text
//! otherwise. Exit codes: 0 a report without blockers, 1 no report, 2 a
//! blocker found.

use std::io::{IsTerminal, Write};
use std::process::ExitCode;

use clap::Args;
use seekclaw_config::Home;
use seekclaw_exec::review::{Ended, Progress, ReviewSpec};
use seekclaw_exec::{TurnFlags, WorkspaceArg};

/// `seekclaw review`'s arguments.
#[derive(Args, Debug)]
pub struct ReviewArgs {
    /// What to compare against (default: the branch's upstream, else `main`).
    #[arg(long)]
    base: Option<String>,
    // `--workspace`: the repository (default: the current directory's).
    #[command(flatten)]
    pub(crate) dir: WorkspaceArg,
    /// Review the commits `base...HEAD` only. By default the working tree's
    /// uncommitted changes (staged, unstaged and untracked files) are
    /// reviewed too; with this flag they are named as not reviewed.
    #[arg(long)]
    committed: bool,
    /// Print the report as one JSON document.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    pub(crate) turn: TurnFlags,
}

/// Runs the review; the exit code says how it went.
pub fn run(args: ReviewArgs) -> ExitCode {
    // Progress for a person watching; the report alone goes to stdout.
    let tools = std::io::stderr().is_terminal();
    let mut progress = |p: Progress<'_>| match p {
        Progress::Scope(line) => eprintln!("{line}"),
        Progress::Tool { name, summary } if tools => eprintln!("  {name} {summary}"),
        Progress::Tool { .. } => {}
    };
    let ended = (|| -> anyhow::Result<Ended> {
        let spec = ReviewSpec {
            dir: match &args.dir.workspace {
                Some(dir) => dir.clone(),
                None => crate::cwd::working_dir()?,
            },
            base: args.base.clone(),
            committed: args.committed,
            turn: args.turn.clone(),
        };
        let home = Home::from_env()?;
        Ok(seekclaw_exec::review::review(home, &spec, &mut progress)?)
    })();
    let mut stdout = std::io::stdout().lock();
    match ended {
        Ok(Ended::Report(report)) => {
            let printed = if args.json {
                serde_json::to_string(&report).map(|line| line + "\n")
            } else {
                Ok(seekclaw_exec::review::render_text(&report))
            };
            match printed {
                Ok(text) => {
                    let _ = stdout.write_all(text.as_bytes());
                    let _ = stdout.flush();
                }
                Err(e) => {
                    eprintln!("seekclaw: {e}");
                    return ExitCode::from(1);
                }
            }
            ExitCode::from(if report.has_blocker() { 2 } else { 0 })
        }
        Ok(Ended::NoReport(why)) => {
            eprintln!("seekclaw: no report: {why}");
            ExitCode::from(1)
        }
        Ok(Ended::Cancelled) => ExitCode::from(130),
        Err(e) => {
            eprintln!("seekclaw: {e:#}");
            ExitCode::from(1)
        }
    }
}
