//! `seekclaw acp`: the engine as an Agent Client Protocol agent on
//! stdin/stdout, in this process over the shared store (the protocol lives
//! in `seekclaw_acp`). Logs go to stderr; stdout carries only JSON-RPC.

use std::process::ExitCode;

use clap::Args;

/// `seekclaw acp`'s arguments (an editor starts it with none).
#[derive(Args, Debug)]
pub struct AcpArgs {}

/// Serves until stdin ends (exit 0); 1 when the engine cannot start.
pub fn acp(_args: AcpArgs) -> ExitCode {
    crate::serve::run_stdio(|engine, stop| async move {
        let stdin = tokio::io::BufReader::new(tokio::io::stdin());
        seekclaw_acp::serve(&engine, stdin, tokio::io::stdout(), stop)
            .await
            .map_err(|e| anyhow::anyhow!(e.0))
    })
}
