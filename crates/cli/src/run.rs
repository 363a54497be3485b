//! `seekclaw run`: one turn through the engine in this process, printed as it
//! streams: on a terminal with the chat's look (see `run_pretty`), piped as
//! plain text (the answer on stdout, tool calls on stderr), or as protocol
//! envelopes (`--json`, `--events`). Ctrl-C cancels the turn; a second one
//! stops waiting. `--concurrency N` runs the task N times side by side in
//! copies of the workspace (`fleet`); `--task-file F --task-index I` takes
//! the task from a list (a Kubernetes Indexed Job's pods).

use std::io::Write;
use std::process::ExitCode;

use std::path::PathBuf;

use clap::Args;
use seekclaw_agent::{AgentEvent, TurnOutcome};
use seekclaw_config::Home;
use seekclaw_daemon::{event_envelope, terminal_envelope};
use seekclaw_engine::{Engine, RunOptions, TurnControls};
use seekclaw_serve::{TurnMapper, WireEvent, WireLine};
use tokio_util::sync::CancellationToken;

use crate::run_pretty::Pretty;
use crate::turn_args::TurnArgs;

/// `seekclaw run`'s arguments.
#[derive(Args, Debug)]
pub struct RunArgs {
    /// What to do (or `--task-file` and `--task-index`).
    #[arg(required_unless_present = "task_file", conflicts_with = "task_file")]
    prompt: Option<String>,
    #[command(flatten)]
    turn: TurnArgs,
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

/// How the run prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Output {
    Text,
    Json,
    Events,
}

/// How the run ended, for the exit code.
enum RunResult {
    Done,
    Cancelled,
    Failed(String),
}

/// Runs one turn and maps its end to the exit code (0 done, 130 cancelled, 1 failed).
pub fn run(args: RunArgs) -> ExitCode {
    let output = match (args.json, args.events) {
        (true, _) => Output::Json,
        (_, true) => Output::Events,
        _ => Output::Text,
    };
    let prompt = match (&args.prompt, &args.task_file, args.task_index) {
        (Some(prompt), _, _) => prompt.clone(),
        (None, Some(file), Some(index)) => match crate::fleet::tasks::task_at(file, index) {
            Ok(task) => task,
            Err(e) => {
                eprintln!("seekclaw: {e}");
                return ExitCode::from(1);
            }
        },
        // clap requires a prompt or both task flags.
        _ => {
            eprintln!("seekclaw: say what to do, or give --task-file and --task-index");
            return ExitCode::from(2);
        }
    };
    if let Some(n) = args.concurrency {
        return crate::fleet::run(crate::fleet::FleetSpec {
            prompt,
            copies: n as usize,
            fleet_dir: args.fleet_dir,
            workspace: args.turn.at.workspace.clone(),
            images: args.images,
            overrides: args.turn.overrides(),
            json: args.json,
        });
    }
    let outcome = (|| -> anyhow::Result<RunResult> {
        let opts = RunOptions {
            cwd: crate::cwd::working_dir()?,
            prompt,
            workspace: args.turn.at.workspace.clone(),
            global: args.turn.at.global,
            session: args.turn.at.session.clone(),
            continue_latest: args.turn.at.continue_latest,
            images: args.images,
            overrides: args.turn.overrides(),
        };
        let home = Home::from_env()?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()?;
        let outcome = runtime.block_on(run_turn(home, opts, output));
        // The run awaited all it needs; after a forced stop (a second Ctrl-C)
        // a store write may still be on a blocking thread: don't wait for it.
        runtime.shutdown_background();
        outcome
    })();
    match outcome {
        Ok(RunResult::Done) => ExitCode::SUCCESS,
        Ok(RunResult::Cancelled) => ExitCode::from(130),
        Ok(RunResult::Failed(e)) => {
            eprintln!("seekclaw: {e}");
            ExitCode::from(1)
        }
        Err(e) => {
            eprintln!("seekclaw: {e:#}");
            ExitCode::from(1)
        }
    }
}

async fn run_turn(home: Home, opts: RunOptions, output: Output) -> anyhow::Result<RunResult> {
    let engine = Engine::open(home)
        .await
        .map_err(|e| anyhow::anyhow!(e.message))?;
    let controls = TurnControls::default();
    let force = CancellationToken::new();
    let (first, second) = (controls.cancel.clone(), force.clone());
    // Ctrl-C cancels the turn (its stream and tools end, its partial answer is
    // kept); a second Ctrl-C stops waiting for that clean end.
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            first.cancel();
            if tokio::signal::ctrl_c().await.is_ok() {
                second.cancel();
            }
        }
    });
    let mut stdout = std::io::stdout().lock();
    let mut turn = match engine.start_run(&opts, controls.clone()).await {
        Ok(turn) => turn,
        Err(e) if output == Output::Events => {
            let failed = WireEvent::AgentSetupFailed { error: e.message };
            let _ = stdout.write_all(&failed.to_line());
            return Ok(RunResult::Failed(failed_text(&failed)));
        }
        Err(e) => return Err(anyhow::anyhow!(e.message)),
    };
    let sid = turn.session().id.clone();
    let mut mapper = TurnMapper::new(None);
    let mut plain = crate::run_plain::Plain::new();
    // Text on a terminal is printed as the chat shows it; piped, it is plain.
    let mut pretty = match output {
        Output::Text => Pretty::open(),
        Output::Json | Output::Events => None,
    };
    if output == Output::Events {
        let started = WireEvent::SessionStarted {
            session: sid.clone(),
            session_root: engine.home.root().display().to_string(),
            workspace_root: turn.session().workspace.clone(),
        };
        let _ = stdout.write_all(&started.to_line());
    }
    // The spinner's clock (on a terminal only; piped output never sees it).
    let mut spinner = tokio::time::interval(std::time::Duration::from_millis(100));
    spinner.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    loop {
        tokio::select! {
            _ = spinner.tick(), if pretty.is_some() => {
                if let Some(p) = &mut pretty {
                    p.tick();
                }
            }
            ev = turn.next_event() => match ev {
                Some(ev) => match (&mut pretty, output) {
                    (Some(p), _) => p.event(ev),
                    (None, Output::Text) => plain.event(ev, &mut stdout, &mut std::io::stderr()),
                    (None, _) => print_event(output, &sid, ev, &mut mapper, &mut stdout),
                },
                None => break,
            },
            _ = force.cancelled() => {
                // The turn is dropped unfinished: its log keeps the active
                // mark, so the next daemon start records it as interrupted.
                match &mut pretty {
                    Some(p) => p.stopped(),
                    None => {
                        let _ = writeln!(stdout);
                        if output == Output::Text {
                            eprintln!("(cancelled; stopped waiting for the turn to end)");
                        }
                    }
                }
                return Ok(RunResult::Cancelled);
            }
        }
    }
    let outcome = turn.outcome().await;
    let result = match &outcome {
        TurnOutcome::Done(_) => RunResult::Done,
        TurnOutcome::Cancelled(_) => RunResult::Cancelled,
        TurnOutcome::Failed(f) => RunResult::Failed(f.message.clone()),
        TurnOutcome::Unsaved { error, .. } => {
            RunResult::Failed(seekclaw_protocol::wording::unsaved_message(error))
        }
    };
    match output {
        Output::Json => {
            let _ = stdout.write_all(&terminal_envelope(0, Some(sid), outcome).to_line());
        }
        Output::Events => {
            let mut out = Vec::new();
            mapper.finish(outcome, &mut out);
            for ev in out {
                let _ = stdout.write_all(&ev.to_line());
            }
        }
        Output::Text => match &mut pretty {
            Some(p) => p.finish(&outcome),
            None => {
                let _ = writeln!(stdout);
                if matches!(outcome, TurnOutcome::Cancelled(_)) {
                    eprintln!("(cancelled)");
                }
            }
        },
    }
    let _ = stdout.flush();
    tokio::select! {
        _ = engine.close() => {}
        _ = force.cancelled() => {}
    }
    Ok(result)
}

/// The error text of a failure event (for the exit message).
fn failed_text(ev: &WireEvent) -> String {
    match ev {
        WireEvent::AgentSetupFailed { error } => error.clone(),
        other => other.name().to_string(),
    }
}

fn print_event(
    output: Output,
    session: &str,
    ev: AgentEvent,
    mapper: &mut TurnMapper,
    out: &mut impl Write,
) {
    if output == Output::Json {
        // Our own front end: labels in English whatever `ui.language` says.
        if let Some(env) = event_envelope(0, session, ev, seekclaw_config::UiLanguage::En) {
            let _ = out.write_all(&env.to_line());
        }
    } else if output == Output::Events {
        let mut wire = Vec::new();
        mapper.map(ev, &mut wire);
        for w in wire {
            let _ = out.write_all(&w.to_line());
        }
    }
    let _ = out.flush();
}
