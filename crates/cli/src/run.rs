//! `seekclaw run`: parses the flags and prints the turn `seekclaw_exec`
//! runs: on a terminal with the chat's look (see `run_pretty`), piped as
//! plain text (the answer on stdout, tool calls on stderr), or as protocol
//! envelopes (`--json`: the daemon's, `--events`: serve's). `--concurrency
//! N` runs the task N times side by side in copies of the workspace (a
//! fleet); `--task-file F --task-index I` takes the task from a list (a
//! Kubernetes Indexed Job's pods).

use std::io::{StdoutLock, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use seekclaw_agent::{AgentEvent, TurnOutcome};
use seekclaw_config::Home;
use seekclaw_daemon::{event_envelope, terminal_envelope};
use seekclaw_exec::RunOptions;
use seekclaw_exec::run::plain::PlainOutput;
use seekclaw_exec::run::{RunEnd, RunOutput, Started};
use seekclaw_exec::{SessionArgs, TurnFlags};
use seekclaw_serve::{TurnMapper, WireEvent, WireLine};

use crate::run_pretty::Pretty;

/// `seekclaw run`'s arguments.
#[derive(Args, Debug)]
pub struct RunArgs {
    /// What to do (or `--task-file` and `--task-index`).
    #[arg(required_unless_present = "task_file", conflicts_with = "task_file")]
    prompt: Option<String>,
    #[command(flatten)]
    pub(crate) at: SessionArgs,
    #[command(flatten)]
    pub(crate) turn: TurnFlags,
    /// Attach an image file (png, jpeg, webp, gif); repeatable.
    #[arg(long = "image", value_name = "PATH")]
    images: Vec<PathBuf>,
    /// Print daemon-protocol envelopes as JSONL.
    #[arg(long, conflicts_with = "events")]
    json: bool,
    /// Print the OpenSeek event stream as JSONL (as `seekclaw serve` does).
    #[arg(long)]
    events: bool,
    /// Run the task N times side by side (N from 2 to 64), each in its own
    /// copy of the workspace with its own session, then print a summary
    /// (status, steps, tokens, cost, files changed, diff stat of each copy).
    /// The copies go in a new folder beside the workspace,
    /// `<workspace>-fleet-<date>-<time>/run-1..N` (or `--fleet-dir`), and
    /// are kept; build, dependency and cache folders (target, node_modules,
    /// .venv, __pycache__…), the seekclaw home and a worktree's `.git`
    /// pointer are not copied; the original is never written. `--json`
    /// prints one JSON document. Ctrl-C cancels every run (the copies stay).
    /// Exit code: 0 when every run is done, 130 after Ctrl-C, 1 otherwise.
    #[arg(
        long,
        value_name = "N",
        value_parser = clap::value_parser!(u32).range(2..=64),
        conflicts_with_all = ["events", "session", "continue_latest", "global"]
    )]
    concurrency: Option<u32>,
    /// Where `--concurrency` puts its copies (created if missing; must not
    /// be inside the workspace).
    #[arg(long, value_name = "DIR", requires = "concurrency")]
    fleet_dir: Option<PathBuf>,
    /// Take the task from a list: one task per line (line N+1 is task N),
    /// or a JSON array of strings. For a Kubernetes Indexed Job:
    /// `--task-file /tasks/tasks.txt --task-index $JOB_COMPLETION_INDEX`.
    #[arg(long, value_name = "FILE", requires = "task_index")]
    task_file: Option<PathBuf>,
    /// Which task of `--task-file` (0-based).
    #[arg(long, value_name = "N", requires = "task_file")]
    task_index: Option<usize>,
}

/// Runs one turn (or a fleet) and maps its end to the exit code (0 done,
/// 130 cancelled, 1 failed, 3 stopped by a spend budget).
pub fn run(args: RunArgs) -> ExitCode {
    let prompt = match (&args.prompt, &args.task_file, args.task_index) {
        (Some(prompt), _, _) => prompt.clone(),
        (None, Some(file), Some(index)) => {
            match seekclaw_exec::fleet::tasks::task_at(file, index) {
                Ok(task) => task,
                Err(e) => {
                    eprintln!("seekclaw: {e}");
                    return ExitCode::from(1);
                }
            }
        }
        // clap requires a prompt or both task flags.
        _ => {
            eprintln!("seekclaw: say what to do, or give --task-file and --task-index");
            return ExitCode::from(2);
        }
    };
    if let Some(n) = args.concurrency {
        return crate::fleet::run(seekclaw_exec::fleet::FleetSpec {
            prompt,
            copies: n as usize,
            fleet_dir: args.fleet_dir,
            workspace: args.at.dir.workspace.clone(),
            images: args.images,
            overrides: args.turn.overrides(),
            verbose: !args.json,
        });
    }
    let ended = (|| -> anyhow::Result<Result<RunEnd, seekclaw_exec::ExecError>> {
        let opts = RunOptions {
            cwd: crate::cwd::working_dir()?,
            prompt,
            workspace: args.at.dir.workspace.clone(),
            global: args.at.global,
            session: args.at.session.clone(),
            continue_latest: args.at.continue_latest,
            images: args.images,
            overrides: args.turn.overrides(),
        };
        let home = Home::from_env()?;
        let stdout = || std::io::stdout().lock();
        Ok(if args.json {
            seekclaw_exec::run::run(home, opts, &mut Json(stdout()))
        } else if args.events {
            seekclaw_exec::run::run(home, opts, &mut Events::new(stdout()))
        } else if let Some(mut pretty) = Pretty::open() {
            // Text on a terminal is printed as the chat shows it; piped, it is plain.
            seekclaw_exec::run::run(home, opts, &mut pretty)
        } else {
            let mut plain = PlainOutput::new(stdout(), std::io::stderr());
            seekclaw_exec::run::run(home, opts, &mut plain)
        })
    })();
    match ended {
        Ok(Ok(RunEnd::Done)) => ExitCode::SUCCESS,
        Ok(Ok(RunEnd::Cancelled)) => ExitCode::from(130),
        Ok(Ok(RunEnd::Failed(e))) => {
            eprintln!("seekclaw: {e}");
            ExitCode::from(1)
        }
        // Its own code: a script can tell "out of budget" from a failure.
        Ok(Ok(RunEnd::Budget(e))) => {
            eprintln!("seekclaw: {e}");
            ExitCode::from(3)
        }
        Ok(Err(e)) => {
            eprintln!("seekclaw: {e}");
            ExitCode::from(1)
        }
        Err(e) => {
            eprintln!("seekclaw: {e:#}");
            ExitCode::from(1)
        }
    }
}

/// `--json`: the daemon's envelopes (labels in English whatever
/// `ui.language` says: our own front end).
struct Json<'a>(StdoutLock<'a>);

impl RunOutput for Json<'_> {
    fn event(&mut self, session: &str, ev: AgentEvent) {
        if let Some(env) = event_envelope(0, session, ev, seekclaw_config::UiLanguage::En) {
            let _ = self.0.write_all(&env.to_line());
        }
        let _ = self.0.flush();
    }

    fn finish(&mut self, session: &str, outcome: TurnOutcome) {
        let end = terminal_envelope(0, Some(session.to_string()), outcome);
        let _ = self.0.write_all(&end.to_line());
        let _ = self.0.flush();
    }

    fn stopped(&mut self) {
        let _ = writeln!(self.0);
    }
}

/// `--events`: serve's OpenSeek event stream.
struct Events<'a> {
    out: StdoutLock<'a>,
    mapper: TurnMapper,
}

impl<'a> Events<'a> {
    fn new(out: StdoutLock<'a>) -> Self {
        Events {
            out,
            mapper: TurnMapper::new(None),
        }
    }

    fn write(&mut self, events: Vec<WireEvent>) {
        for ev in events {
            let _ = self.out.write_all(&ev.to_line());
        }
        let _ = self.out.flush();
    }
}

impl RunOutput for Events<'_> {
    fn setup_failed(&mut self, error: &str) {
        let failed = WireEvent::AgentSetupFailed {
            error: error.to_string(),
        };
        self.write(vec![failed]);
    }

    fn started(&mut self, started: Started<'_>) {
        self.write(vec![WireEvent::SessionStarted {
            session: started.session.to_string(),
            session_root: started.home.display().to_string(),
            workspace_root: started.workspace.map(str::to_string),
        }]);
    }

    fn event(&mut self, _session: &str, ev: AgentEvent) {
        let mut wire = Vec::new();
        self.mapper.map(ev, &mut wire);
        self.write(wire);
    }

    fn finish(&mut self, _session: &str, outcome: TurnOutcome) {
        let mut wire = Vec::new();
        self.mapper.finish(outcome, &mut wire);
        self.write(wire);
    }

    fn stopped(&mut self) {
        let _ = writeln!(self.out);
    }
}
