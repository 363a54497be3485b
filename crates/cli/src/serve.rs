//! `seekclaw serve`: the engine on stdin/stdout in this process (the
//! protocol lives in `seekclaw_serve`). Logs go to stderr; stdout
//! carries only events.

use std::process::ExitCode;

use clap::Args;
use seekclaw_config::Home;
use seekclaw_engine::Engine;
use seekclaw_serve::ServeOptions;

use seekclaw_exec::{SessionArgs, TurnFlags};

/// `seekclaw serve`'s arguments.
#[derive(Args, Debug)]
pub struct ServeArgs {
    #[command(flatten)]
    pub(crate) at: SessionArgs,
    #[command(flatten)]
    pub(crate) turn: TurnFlags,
}

/// SIGTERM, SIGINT and SIGHUP stop serving gracefully: the running turn is
/// cancelled and its end recorded, background jobs are killed, then exit.
pub(crate) fn watch_signals(stop: tokio_util::sync::CancellationToken) -> anyhow::Result<()> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut term = signal(SignalKind::terminate())?;
    let mut int = signal(SignalKind::interrupt())?;
    let mut hup = signal(SignalKind::hangup())?;
    tokio::spawn(async move {
        tokio::select! {
            _ = term.recv() => {}
            _ = int.recv() => {}
            _ = hup.recv() => {}
        }
        stop.cancel();
    });
    Ok(())
}

/// Serves until stdin ends and the work in hand is done (exit 0); 1 when the
/// engine cannot start (the reason is also on stdout as `agent_setup_failed`).
pub fn serve(args: ServeArgs) -> ExitCode {
    let opts = match crate::cwd::working_dir() {
        Ok(cwd) => ServeOptions {
            cwd,
            workspace: args.at.dir.workspace.clone(),
            global: args.at.global,
            session: args.at.session.clone(),
            continue_latest: args.at.continue_latest,
            overrides: args.turn.overrides(),
        },
        Err(e) => {
            eprintln!("seekclaw: {e:#}");
            return ExitCode::from(1);
        }
    };
    run_stdio(|engine, stop| async move {
        engine.start_telemetry("serve");
        let stdin = tokio::io::BufReader::new(tokio::io::stdin());
        seekclaw_serve::serve(&engine, opts, stdin, tokio::io::stdout(), stop)
            .await
            .map_err(|e| anyhow::anyhow!(e.0))
    })
}

/// Runs a stdio front end (`serve`, `acp`, `mcp serve`) over the engine of
/// `$SEEKCLAW_HOME`: signals stop it (see [`watch_signals`]), the engine
/// closes after it, and the exit is 0, or 1 with the reason on stderr.
pub(crate) fn run_stdio<F, Fut>(front_end: F) -> ExitCode
where
    F: FnOnce(Engine, tokio_util::sync::CancellationToken) -> Fut,
    Fut: std::future::Future<Output = anyhow::Result<()>>,
{
    let outcome = (|| -> anyhow::Result<()> {
        let home = Home::from_env()?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()?;
        runtime.block_on(async move {
            let engine = Engine::open(home)
                .await
                .map_err(|e| anyhow::anyhow!(e.message))?;
            let stop = tokio_util::sync::CancellationToken::new();
            watch_signals(stop.clone())?;
            let served = front_end(engine.clone(), stop).await;
            engine.close().await;
            served
        })?;
        // tokio's stdin reader is a blocking thread that may sit in read(2).
        runtime.shutdown_background();
        Ok(())
    })();
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("seekclaw: {e:#}");
            ExitCode::from(1)
        }
    }
}
