//! The engine's policy (permission rules, hooks, their problems) as the
//! protocol's views, in one place: `hooks.list`, `permissions.check`,
//! `config.status` and the CLI's `permissions`/`hooks` commands (which run
//! the engine in their own process) all show the same rows.

use std::path::Path;

use seekclaw_engine::{Engine, PolicyView as EnginePolicy};
use seekclaw_policy::{Explained, HookCommand, Probe, Problem, Rule};
use seekclaw_protocol::api::{
    HookView, PermissionCheckView, PolicyProblemView, PolicyView, RuleView,
};

/// `file` as shown: empty for rules that live in no file (session rules).
fn shown(file: &Path) -> String {
    file.display().to_string()
}

/// One rule as `hooks.list` shows it.
pub fn rule_view(r: &Rule) -> RuleView {
    RuleView {
        verdict: r.verdict.as_str().to_string(),
        rule: r.text.clone(),
        layer: r.layer.as_str().to_string(),
        file: shown(&r.file),
        active: r.active,
    }
}

/// One hook as `hooks.list` shows it.
pub fn hook_view(h: &HookCommand) -> HookView {
    HookView {
        event: h.event.as_str().to_string(),
        matcher: h.matcher.clone(),
        command: h.command.clone(),
        timeout_seconds: h.timeout.as_secs(),
        layer: h.layer.as_str().to_string(),
        file: shown(&h.file),
        active: h.active,
    }
}

/// One skipped entry, by file and path.
pub fn problem_view(p: &Problem) -> PolicyProblemView {
    PolicyProblemView {
        file: shown(&p.file),
        path: p.path.clone(),
        message: p.message.clone(),
    }
}

/// The engine's view of `workspace` as the protocol's.
pub fn policy_view(view: &EnginePolicy, workspace: Option<&Path>) -> PolicyView {
    PolicyView {
        workspace: workspace.map(|w| w.display().to_string()),
        rules: view.rules.iter().map(rule_view).collect(),
        hooks: view.hooks.iter().map(hook_view).collect(),
        problems: view.problems.iter().map(problem_view).collect(),
        trusted: view.trusted,
        hooks_hash: view.hooks_hash.clone(),
        hooks_approved: view.hooks_approved,
    }
}

/// A decision as the protocol's.
pub fn check_view(explained: &Explained) -> PermissionCheckView {
    PermissionCheckView {
        verdict: explained.verdict.map(|v| v.as_str().to_string()),
        rule: explained.rule.clone(),
        layer: explained.layer.map(|l| l.as_str().to_string()),
        file: explained
            .file
            .as_deref()
            .map(shown)
            .filter(|f| !f.is_empty()),
        reason: explained.reason.clone(),
    }
}

/// `permissions.check` over `engine`: the decision for `words` in
/// `workspace` and the rule (with its file) that made it.
pub async fn permission_check(
    engine: &Engine,
    workspace: Option<&Path>,
    words: &[String],
) -> Result<PermissionCheckView, seekclaw_engine::EngineError> {
    let probe = Probe::parse(words);
    let explained = engine.permission_check(workspace, &probe).await?;
    Ok(check_view(&explained))
}

/// `hooks.list` over `engine`.
pub async fn hooks_list(
    engine: &Engine,
    workspace: Option<&Path>,
) -> Result<PolicyView, seekclaw_engine::EngineError> {
    let view = engine.policy_view(workspace).await?;
    Ok(policy_view(&view, workspace))
}
