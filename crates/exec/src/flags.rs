//! The turn flags, defined once: every command that runs turns in this
//! process (`run` and its fleets, `review`, `serve`, `mcp serve`) flattens
//! [`TurnFlags`], so each flag has one spelling, one help text and one
//! default. Where the turn happens is [`SessionArgs`] (`run`, `serve`,
//! `chat`), or [`WorkspaceArg`] alone (`review`).

use std::path::PathBuf;

use clap::Args;
use seekclaw_config::{AgentMode, ApprovalPolicy, ReasoningLevel};
use seekclaw_engine::TurnOverrides;

/// `--workspace`: the project a command works in.
#[derive(Args, Debug, Clone, Default, PartialEq, Eq)]
pub struct WorkspaceArg {
    /// Project directory (default: the current directory's project root).
    #[arg(long)]
    pub workspace: Option<PathBuf>,
}

/// Where a front end works and which session it continues (`run`, `serve`,
/// `chat`).
#[derive(Args, Debug, Clone, Default, PartialEq, Eq)]
pub struct SessionArgs {
    #[command(flatten)]
    pub dir: WorkspaceArg,
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

impl SessionArgs {
    /// `--workspace`, if given.
    pub fn workspace(&self) -> Option<&std::path::Path> {
        self.dir.workspace.as_deref()
    }
}

/// What every turn a command starts runs with.
#[derive(Args, Debug, Clone, Default, PartialEq, Eq)]
pub struct TurnFlags {
    /// Model to use: `provider/model` or a model id (default: the
    /// session's, else the workspace's, else the config's).
    #[arg(long)]
    pub model: Option<String>,
    /// Model requests per turn, exactly (default: unbounded; the model's
    /// context window bounds the turn; 0 makes none).
    #[arg(long, value_name = "N")]
    pub max_steps: Option<u32>,
    /// Agent mode: plan, readonly, edit or auto (`review`: plan or
    /// readonly, default readonly).
    #[arg(long, value_parser = parse_mode)]
    pub mode: Option<AgentMode>,
    /// Approval policy: never, on-request (or OpenSeek's `ask`) or untrusted
    /// (default: the session's, else the workspace's and the config's;
    /// `review`: never).
    /// `serve` asks with `approval_requested`; `run`, `review` and
    /// `mcp serve` cannot ask, so what the policy would ask about is refused.
    #[arg(long, value_parser = parse_approval)]
    pub approval: Option<ApprovalPolicy>,
    /// Reasoning effort: none, low, medium, high, max, xhigh or ultra, kept
    /// with the session (default: the session's, else the config's
    /// `agent.reasoningLevel`).
    #[arg(long, value_name = "LEVEL", value_parser = parse_reasoning)]
    pub reasoning: Option<ReasoningLevel>,
    /// Spend limit in US dollars for each session this command runs turns
    /// on (its session budget, unless the session has its own set with
    /// `seekclaw budget set`); a fleet (`--concurrency N`) splits it evenly
    /// over its copies. The turn stops before a model request that would
    /// exceed it.
    #[arg(long, value_name = "USD", value_parser = parse_usd)]
    pub max_cost: Option<MaxCost>,
}

/// `--max-cost`, kept in micro-dollars so the flags stay comparable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MaxCost(u64);

impl MaxCost {
    /// In US dollars.
    pub fn usd(self) -> f64 {
        self.0 as f64 / 1_000_000.0
    }
}

fn parse_usd(s: &str) -> Result<MaxCost, String> {
    let usd: f64 = s
        .trim()
        .trim_start_matches('$')
        .parse()
        .map_err(|_| format!("{s:?} is not an amount of dollars (e.g. 0.50)"))?;
    if !usd.is_finite() || usd < 0.0 {
        return Err(format!("{s:?} is not an amount of dollars (0 or more)"));
    }
    Ok(MaxCost((usd * 1_000_000.0).round() as u64))
}

impl TurnFlags {
    /// The settings the flags put over the config's, with each flag's one
    /// default (`--max-steps`: unbounded).
    pub fn overrides(&self) -> TurnOverrides {
        TurnOverrides {
            max_steps: Some(self.max_steps.unwrap_or(u32::MAX)),
            model: self.model.clone(),
            mode: self.mode,
            finish_tool: true,
            approval_policy: self.approval,
            reasoning: self.reasoning,
            budget: self.max_cost.map(|c| seekclaw_engine::FrontEndBudget {
                usd: Some(c.usd()),
                task: None,
            }),
            ..TurnOverrides::default()
        }
    }
}

fn parse_approval(s: &str) -> Result<ApprovalPolicy, String> {
    ApprovalPolicy::parse_strict(s).ok_or_else(|| {
        format!("unknown approval policy {s:?} (expected never, on-request, ask or untrusted)")
    })
}

fn parse_reasoning(s: &str) -> Result<ReasoningLevel, String> {
    ReasoningLevel::parse(s).ok_or_else(|| {
        format!(
            "unknown reasoning level {s:?} (expected none, low, medium, high, max, xhigh or ultra)"
        )
    })
}

fn parse_mode(s: &str) -> Result<AgentMode, String> {
    AgentMode::parse_strict(s)
        .ok_or_else(|| format!("unknown mode {s:?} (expected plan, readonly, edit or auto)"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cmd {
        #[command(flatten)]
        at: SessionArgs,
        #[command(flatten)]
        turn: TurnFlags,
    }

    #[test]
    fn no_flag_is_unbounded_and_flags_go_over_the_config() {
        let none = Cmd::try_parse_from(["x"]).unwrap();
        assert_eq!(none.turn.overrides().max_steps, Some(u32::MAX));
        assert_eq!(none.turn.overrides().model, None);
        let cmd = Cmd::try_parse_from([
            "x",
            "--model",
            "p/m",
            "--max-steps",
            "3",
            "--mode",
            "readonly",
            "--approval",
            "ask",
            "--reasoning",
            "low",
            "--workspace",
            "/w",
            "-c",
        ])
        .unwrap();
        let o = cmd.turn.overrides();
        assert_eq!(o.max_steps, Some(3));
        assert_eq!(o.model.as_deref(), Some("p/m"));
        assert_eq!(o.mode, Some(AgentMode::Readonly));
        assert!(o.approval_policy.is_some());
        assert_eq!(o.reasoning, Some(ReasoningLevel::Low));
        let capped = Cmd::try_parse_from(["x", "--max-cost", "$0.25"]).unwrap();
        let budget = capped.turn.overrides().budget.unwrap();
        assert_eq!(budget.usd, Some(0.25));
        assert!(Cmd::try_parse_from(["x", "--max-cost", "-1"]).is_err());
        assert!(Cmd::try_parse_from(["x", "--max-cost", "lots"]).is_err());
        assert_eq!(cmd.at.workspace(), Some(std::path::Path::new("/w")));
        assert!(cmd.at.continue_latest);
        assert!(Cmd::try_parse_from(["x", "--mode", "fast"]).is_err());
        assert!(Cmd::try_parse_from(["x", "--reasoning", "lots"]).is_err());
        assert!(Cmd::try_parse_from(["x", "--global", "--workspace", "/w"]).is_err());
    }
}
