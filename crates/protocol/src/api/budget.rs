//! `budget.*` (ours, additive): spend budgets (`budgets` in the config, a
//! session's or a scheduled task's own) and what was spent against them.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Scope, ScopeParams};

/// `budget.get`: the budgets that apply to a session (with `sessionId`), to
/// a project (with `workspace`), or the day's alone.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct BudgetGetParams {
    /// The session whose budgets to show.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// A workspace path (walked up to its project root); must exist.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workspace: Option<String>,
    /// The directory-free global scope.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub global: Option<bool>,
}

impl Scope for BudgetGetParams {
    fn scope(&self) -> ScopeParams {
        ScopeParams::from_fields(self.workspace.as_deref(), self.global)
    }
}

/// `budget.set`: sets (or, with neither `usd` nor `tokens`, removes) one
/// budget. `session` with `sessionId`: that session's own budget, over the
/// config's; `schedule` with `taskId`: that task's own; otherwise the
/// config's `budgets.<scope>` (`budgets.tokens.<scope>` for `tokens`).
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct BudgetSetParams {
    /// `session`, `day`, `project` or `schedule`.
    pub scope: String,
    /// USD (not negative).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub usd: Option<f64>,
    /// Tokens of models without a price (`session` and `day` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tokens: Option<u64>,
    /// The session whose own budget to set (`scope: session`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// The scheduled task whose own budget to set (`scope: schedule`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub task_id: Option<String>,
    /// The session's workspace path.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workspace: Option<String>,
    /// The session is in the global scope.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub global: Option<bool>,
}

impl Scope for BudgetSetParams {
    fn scope(&self) -> ScopeParams {
        ScopeParams::from_fields(self.workspace.as_deref(), self.global)
    }
}

/// One budget in effect and what was spent against it.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct BudgetEntry {
    /// `session`, `schedule`, `project` (this calendar month) or `day` (today, local time).
    pub scope: String,
    /// The limit in USD; null for a token limit.
    pub usd: Option<f64>,
    /// The limit in tokens of models without a price; null for a dollar limit.
    pub tokens: Option<u64>,
    /// USD spent in the budget's span.
    pub spent_usd: f64,
    /// Tokens of unpriced models used in the budget's span.
    pub spent_tokens: u64,
    /// What is left in USD (never below 0); null for a token limit.
    pub remaining_usd: Option<f64>,
    /// What is left in tokens; null for a dollar limit.
    pub remaining_tokens: Option<u64>,
    /// `config`, `session` (its own), `task` (the scheduled task's own) or
    /// `frontEnd` (`--max-cost`).
    pub source: String,
    /// The scheduled task of a `schedule` budget.
    pub task_id: Option<String>,
}

/// What `budget.get` and `budget.set` return.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct BudgetView {
    /// The session asked about, if any.
    pub session_id: Option<String>,
    /// Every budget in effect.
    pub budgets: Vec<BudgetEntry>,
    /// The share (0 to 1) at which a warning is given.
    pub warn_at: f64,
    /// USD spent today by every session (local time).
    pub today_cost_usd: f64,
    /// USD spent this calendar month by every session (local time).
    pub month_cost_usd: f64,
}
