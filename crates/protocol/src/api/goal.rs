//! `goal.*` (ours, additive): a session's standing goal, as `seekclaw serve`'s
//! `goal` command keeps it (durable markers in the session log).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Scope, ScopeParams};
use crate::adapter::Required;

/// `goal.set`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct GoalSetParams {
    /// The session id.
    pub id: Required,
    /// A workspace path (walked up to its project root); must exist.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workspace: Option<String>,
    /// The directory-free global scope.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub global: Option<bool>,
    /// The goal (not blank).
    pub text: Required,
    /// Keep starting turns toward the goal after each turn that ends `done`
    /// (at most 20; any `agent.cancel` on the session disarms it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub auto: Option<bool>,
}

impl Scope for GoalSetParams {
    fn scope(&self) -> ScopeParams {
        ScopeParams::from_fields(self.workspace.as_deref(), self.global)
    }
}

/// The goal of a session, as `goal.get`, `goal.set` and `goal.clear` return it.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct GoalView {
    /// The session id.
    pub session_id: String,
    /// The goal in force; null when none.
    pub goal: Option<String>,
    /// Whether the model reported it blocked (auto continuation pauses).
    pub blocked: bool,
    /// Why, while blocked.
    pub reason: Option<String>,
    /// Whether the engine keeps starting turns toward it.
    pub auto: bool,
    /// Automatic turns left (0 unless `auto`).
    pub auto_turns_left: u32,
}
