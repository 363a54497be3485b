//! `seekclaw mcp serve`: the engine as an MCP server on stdin/stdout, in this
//! process (the server lives in `seekclaw_mcp_serve`). Logs go to stderr;
//! stdout carries only MCP messages.

use std::process::ExitCode;

use clap::Args;
use seekclaw_config::{AgentMode, ApprovalPolicy};
use seekclaw_engine::TurnOverrides;
use seekclaw_mcp_serve::McpServeOptions;

/// `seekclaw mcp serve`'s arguments: what every `run_task` runs with.
#[derive(Args, Debug, Clone, PartialEq, Eq)]
pub struct McpServeArgs {
    /// Model for every task: `provider/model` or a model id (default: the
    /// workspace's, else the config's).
    #[arg(long)]
    model: Option<String>,
    /// Model requests per task (default: the config's `agent.maxSteps`).
    #[arg(long)]
    max_steps: Option<u32>,
    /// Default agent mode: plan, readonly, edit or auto (a call's `mode`
    /// wins).
    #[arg(long, value_parser = parse_mode)]
    mode: Option<AgentMode>,
    /// Approval policy: never, on-request or untrusted (default: the
    /// session's, else the workspace's and the config's). Nobody can be
    /// asked over MCP, so what the policy would ask about is refused.
    #[arg(long, value_parser = parse_approval)]
    approval: Option<ApprovalPolicy>,
}

fn parse_mode(s: &str) -> Result<AgentMode, String> {
    AgentMode::parse_strict(s)
        .ok_or_else(|| format!("unknown mode {s:?} (expected plan, readonly, edit or auto)"))
}

fn parse_approval(s: &str) -> Result<ApprovalPolicy, String> {
    ApprovalPolicy::parse_strict(s).ok_or_else(|| {
        format!("unknown approval policy {s:?} (expected never, on-request or untrusted)")
    })
}

/// Serves until the client closes stdin (exit 0); 1 when the server cannot
/// start.
pub fn serve(args: McpServeArgs) -> ExitCode {
    let opts = McpServeOptions {
        overrides: TurnOverrides {
            max_steps: args.max_steps,
            model: args.model,
            mode: args.mode,
            // Answers come as plain text, as the desktop's do.
            finish_tool: false,
            approval_policy: args.approval,
            extra_mcp: Vec::new(),
            files: None,
            ..TurnOverrides::default()
        },
    };
    crate::serve::run_stdio(|engine, stop| async move {
        seekclaw_mcp_serve::serve_stdio(&engine, opts, stop)
            .await
            .map_err(anyhow::Error::from)
    })
}
