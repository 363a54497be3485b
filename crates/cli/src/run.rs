//! `seekclaw run`: one turn through the engine in this process, printed as it
//! streams (the answer on stdout, tool calls on stderr) or as protocol
//! envelopes (`--json`). Ctrl-C cancels the turn; a second one stops waiting.

use std::io::Write;
use std::process::ExitCode;

use seekclaw_agent::{AgentEvent, TurnOutcome};
use seekclaw_config::Home;
use seekclaw_daemon::{LocalEngine, RunOptions, event_envelope, terminal_envelope};
use tokio_util::sync::CancellationToken;

/// How the run ended, for the exit code.
enum RunResult {
    Done,
    Cancelled,
    Failed(String),
}

/// Runs `opts` and maps its end to the exit code (0 done, 130 cancelled, 1 failed).
pub fn run(opts: RunOptions, json: bool) -> ExitCode {
    let outcome = (|| -> anyhow::Result<RunResult> {
        let home = Home::from_env()?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()?;
        let outcome = runtime.block_on(run_turn(home, opts, json));
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

async fn run_turn(home: Home, opts: RunOptions, json: bool) -> anyhow::Result<RunResult> {
    let engine = LocalEngine::open(home)
        .await
        .map_err(|e| anyhow::anyhow!(e.message))?;
    let cancel = CancellationToken::new();
    let force = CancellationToken::new();
    let (first, second) = (cancel.clone(), force.clone());
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
    let mut turn = engine
        .start(&opts, &cancel)
        .await
        .map_err(|e| anyhow::anyhow!(e.message))?;
    let sid = turn.session().id.clone();
    let mut stdout = std::io::stdout().lock();
    loop {
        tokio::select! {
            ev = turn.next_event() => match ev {
                Some(ev) => print_event(json, &sid, ev, &mut stdout),
                None => break,
            },
            _ = force.cancelled() => {
                // The turn is dropped unfinished: its log keeps the active
                // mark, so the next daemon start records it as interrupted.
                let _ = writeln!(stdout);
                return Ok(RunResult::Cancelled);
            }
        }
    }
    let outcome = turn.outcome().await;
    let result = match &outcome {
        TurnOutcome::Done(_) => RunResult::Done,
        TurnOutcome::Cancelled(_) => RunResult::Cancelled,
        TurnOutcome::Failed(f) => RunResult::Failed(f.message.clone()),
        TurnOutcome::Unsaved { error, .. } => RunResult::Failed(error.clone()),
    };
    if json {
        let _ = stdout.write_all(&terminal_envelope(0, Some(sid), outcome).to_line());
    } else {
        let _ = writeln!(stdout);
    }
    let _ = stdout.flush();
    tokio::select! {
        _ = engine.close() => {}
        _ = force.cancelled() => {}
    }
    Ok(result)
}

fn print_event(json: bool, session: &str, ev: AgentEvent, out: &mut impl Write) {
    if json {
        let _ = out.write_all(&event_envelope(0, session, ev).to_line());
    } else if let AgentEvent::Delta(d) = ev {
        let _ = out.write_all(d.as_bytes());
    } else if let AgentEvent::ToolStart { name, summary, .. } = ev {
        let _ = writeln!(std::io::stderr(), "\n[{name}] {summary}");
    }
    let _ = out.flush();
}
