//! `seekclaw run`: one turn through the engine in this process, shown as it
//! streams by a [`RunOutput`] the caller picks (the terminal's look, plain
//! text from [`plain::PlainOutput`], or a wire's lines). Ctrl-C cancels the
//! turn (its stream and tools end, its partial answer is kept); a second one
//! stops waiting for that clean end. `--concurrency N` is a fleet
//! ([`crate::fleet`]).

pub mod plain;
mod start;

pub use start::{RunOptions, start_run};

use std::path::Path;

use seekclaw_agent::{AgentEvent, TurnOutcome};
use seekclaw_config::Home;
use seekclaw_engine::{Engine, TurnControls};
use tokio_util::sync::CancellationToken;

use crate::error::{ExecError, IoContext};

/// How a run ended (the caller's exit code: 0, 130, 1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunEnd {
    Done,
    Cancelled,
    /// The turn failed; why.
    Failed(String),
    /// A spend budget stopped the turn before a model request; the text
    /// names it and how to raise it.
    Budget(String),
}

/// The turn's session, once it started.
#[derive(Debug, Clone, Copy)]
pub struct Started<'a> {
    pub session: &'a str,
    /// The home the session is stored in.
    pub home: &'a Path,
    /// The session's workspace root (`None`: global).
    pub workspace: Option<&'a str>,
}

/// What the caller shows of a run. Write errors are the output's own to
/// ignore: the turn goes on whatever the terminal does.
pub trait RunOutput {
    /// The engine could not start the turn (before the run fails with it).
    fn setup_failed(&mut self, _error: &str) {}
    /// The turn started (before its first event).
    fn started(&mut self, _started: Started<'_>) {}
    /// One event of the turn.
    fn event(&mut self, session: &str, ev: AgentEvent);
    /// Whether [`RunOutput::tick`] should be called while the run waits (a
    /// spinner).
    fn ticks(&self) -> bool {
        false
    }
    /// 100 ms passed (only when [`RunOutput::ticks`]).
    fn tick(&mut self) {}
    /// The turn ended.
    fn finish(&mut self, session: &str, outcome: TurnOutcome);
    /// A second Ctrl-C: the run stopped waiting for the turn's end.
    fn stopped(&mut self);
}

/// Runs one turn of `opts` over the engine of `home` and shows it through
/// `out`.
pub fn run(home: Home, opts: RunOptions, out: &mut dyn RunOutput) -> Result<RunEnd, ExecError> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .at(|| "cannot start the async runtime".into())?;
    let end = runtime.block_on(run_turn(home, opts, out));
    // The run awaited all it needs; after a forced stop (a second Ctrl-C)
    // a store write may still be on a blocking thread: don't wait for it.
    runtime.shutdown_background();
    end
}

async fn run_turn(
    home: Home,
    opts: RunOptions,
    out: &mut dyn RunOutput,
) -> Result<RunEnd, ExecError> {
    let engine = Engine::open(home).await?;
    engine.start_telemetry("run");
    let controls = TurnControls::default();
    let force = CancellationToken::new();
    watch_ctrl_c(controls.cancel.clone(), force.clone());
    let mut turn = match start_run(&engine, &opts, controls.clone()).await {
        Ok(turn) => turn,
        Err(e) => {
            let e = ExecError::from(e);
            out.setup_failed(&e.to_string());
            return Err(e);
        }
    };
    let sid = turn.session().id.clone();
    out.started(Started {
        session: &sid,
        home: engine.home.root(),
        workspace: turn.session().workspace.as_deref(),
    });
    // The spinner's clock (only for an output that draws one).
    let ticks = out.ticks();
    let mut spinner = tokio::time::interval(std::time::Duration::from_millis(100));
    spinner.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    loop {
        tokio::select! {
            _ = spinner.tick(), if ticks => out.tick(),
            ev = turn.next_event() => match ev {
                Some(ev) => out.event(&sid, ev),
                None => break,
            },
            _ = force.cancelled() => {
                // The turn is dropped unfinished: its log keeps the active
                // mark, so the next daemon start records it as interrupted.
                out.stopped();
                return Ok(RunEnd::Cancelled);
            }
        }
    }
    let outcome = turn.outcome().await;
    let end = match &outcome {
        TurnOutcome::Done(_) => RunEnd::Done,
        TurnOutcome::Cancelled(_) => RunEnd::Cancelled,
        TurnOutcome::Failed(f) if f.kind == seekclaw_agent::FailureKind::Budget => {
            RunEnd::Budget(f.message.clone())
        }
        TurnOutcome::Failed(f) => RunEnd::Failed(f.message.clone()),
        TurnOutcome::Unsaved { error, .. } => {
            RunEnd::Failed(seekclaw_protocol::wording::unsaved_message(error))
        }
    };
    out.finish(&sid, outcome);
    tokio::select! {
        _ = engine.close() => {}
        _ = force.cancelled() => {}
    }
    Ok(end)
}

/// Ctrl-C cancels the turn; a second one stops waiting for its clean end.
fn watch_ctrl_c(cancel: CancellationToken, force: CancellationToken) {
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            cancel.cancel();
            if tokio::signal::ctrl_c().await.is_ok() {
                force.cancel();
            }
        }
    });
}
