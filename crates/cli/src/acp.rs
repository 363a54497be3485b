//! `seekclaw acp`: the engine as an Agent Client Protocol agent on
//! stdin/stdout, in this process over the shared store (the protocol lives
//! in `seekclaw_acp`). Logs go to stderr; stdout carries only JSON-RPC.

use std::process::ExitCode;

use clap::Args;
use seekclaw_config::Home;
use seekclaw_engine::Engine;

/// `seekclaw acp`'s arguments (an editor starts it with none).
#[derive(Args, Debug)]
pub struct AcpArgs {}

/// Serves until stdin ends (exit 0); 1 when the engine cannot start.
pub fn acp(_args: AcpArgs) -> ExitCode {
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
            crate::serve::watch_signals(stop.clone())?;
            let stdin = tokio::io::BufReader::new(tokio::io::stdin());
            let served = seekclaw_acp::serve(&engine, stdin, tokio::io::stdout(), stop).await;
            engine.close().await;
            served.map_err(|e| anyhow::anyhow!(e.0))
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
