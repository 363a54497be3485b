//! The flags every front end that runs turns in this process shares
//! (`seekclaw run`, `seekclaw serve`).

use std::path::PathBuf;

use clap::Args;
use seekclaw_config::{AgentMode, ApprovalPolicy};
use seekclaw_engine::TurnOverrides;

/// Where a front end works and which session it continues (`run`, `serve`,
/// `chat`).
#[derive(Args, Debug, Clone, Default)]
pub struct SessionArgs {
    /// Project directory (default: the current directory's project root).
    #[arg(long)]
    pub workspace: Option<PathBuf>,
    /// Use the directory-free global scope.
    #[arg(long, conflicts_with = "workspace")]
    pub global: bool,
    /// Continue this session instead of starting a new one.
    #[arg(long, visible_alias = "resume", value_name = "ID")]
    pub session: Option<String>,
    /// Continue the scope's most recently updated session.
    #[arg(short = 'c', long = "continue", conflicts_with = "session")]
    pub continue_latest: bool,
}

/// Where the turns run and what they run with.
#[derive(Args, Debug, Clone)]
pub struct TurnArgs {
    #[command(flatten)]
    pub at: SessionArgs,
    /// Model requests per turn, exactly (default: unbounded; the model's
    /// context window bounds the turn; 0 makes none).
    #[arg(long)]
    pub max_steps: Option<u32>,
    /// Model to use: `provider/model` or a model id.
    #[arg(long)]
    pub model: Option<String>,
    /// Agent mode: plan, readonly, edit or auto.
    #[arg(long, value_parser = parse_mode)]
    pub mode: Option<AgentMode>,
    /// Approval policy: never, on-request (or OpenSeek's `ask`) or untrusted
    /// (default: the session's, else the workspace's and the config's).
    /// `serve` asks with `approval_requested`; `run` cannot ask, so what the
    /// policy would ask about is refused.
    #[arg(long, value_parser = parse_approval)]
    pub approval: Option<ApprovalPolicy>,
}

impl TurnArgs {
    /// The settings this process puts over the config's.
    pub fn overrides(&self) -> TurnOverrides {
        TurnOverrides {
            max_steps: Some(self.max_steps.unwrap_or(u32::MAX)),
            model: self.model.clone(),
            mode: self.mode,
            finish_tool: true,
            approval_policy: self.approval,
            ..TurnOverrides::default()
        }
    }
}

fn parse_approval(s: &str) -> Result<ApprovalPolicy, String> {
    ApprovalPolicy::parse_strict(s).ok_or_else(|| {
        format!("unknown approval policy {s:?} (expected never, on-request, ask or untrusted)")
    })
}

fn parse_mode(s: &str) -> Result<AgentMode, String> {
    AgentMode::parse_strict(s)
        .ok_or_else(|| format!("unknown mode {s:?} (expected plan, readonly, edit or auto)"))
}
