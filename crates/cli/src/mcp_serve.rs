//! `seekclaw mcp serve`: the engine as an MCP server on stdin/stdout, in this
//! process (the server lives in `seekclaw_mcp_serve`). Logs go to stderr;
//! stdout carries only MCP messages.

use std::process::ExitCode;

use clap::Args;
use seekclaw_exec::TurnFlags;
use seekclaw_mcp_serve::McpServeOptions;

/// `seekclaw mcp serve`'s arguments: what every `run_task` runs with (a
/// call's `mode` wins over `--mode`).
#[derive(Args, Debug, Clone, PartialEq, Eq)]
pub struct McpServeArgs {
    #[command(flatten)]
    pub(crate) turn: TurnFlags,
}

/// Serves until the client closes stdin (exit 0); 1 when the server cannot
/// start.
pub fn serve(args: McpServeArgs) -> ExitCode {
    let mut overrides = args.turn.overrides();
    // Answers come as plain text, as the desktop's do.
    overrides.finish_tool = false;
    let opts = McpServeOptions { overrides };
    crate::serve::run_stdio(|engine, stop| async move {
        engine.start_telemetry("mcp");
        seekclaw_mcp_serve::serve_stdio(&engine, opts, stop)
            .await
            .map_err(anyhow::Error::from)
    })
}
