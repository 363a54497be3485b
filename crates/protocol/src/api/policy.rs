//! `hooks.*` and `permissions.check` (ours, additive): the user's lifecycle
//! hooks and permission rules as a turn in a workspace sees them. The engine
//! enforces them; these methods only show them, and approve a workspace's
//! hook set.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::adapter::Required;

/// `hooks.list`: the policy of a workspace (or, without one, the daemon's
/// current workspace).
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct HooksListParams {
    /// A workspace path (walked up to its project root); must exist.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workspace: Option<String>,
}

/// `hooks.approve`: the user approves a workspace's hook set, named by the
/// `hooksHash` `hooks.list` returned (a set that changed since is refused
/// with `conflict`).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct HooksApproveParams {
    /// The workspace path (walked up to its project root); must exist.
    pub workspace: Required,
    /// The `hooksHash` of `hooks.list`.
    pub hash: Required,
}

/// `session.end`: the user is done with a session (a chat window quit, or
/// left it for a new one): its `SessionEnd` hooks run with `reason`, once,
/// after the answer. A client that says nothing gets `other` when its
/// connection closes.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SessionEndParams {
    /// The session id.
    pub id: Required,
    /// A workspace path (walked up to its project root); must exist.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workspace: Option<String>,
    /// The directory-free global scope.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub global: Option<bool>,
    /// Claude Code's reasons: `prompt_input_exit` (the default: the user
    /// quit), `clear` (a new session replaced it), `logout` or `other`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// `permissions.check`: the decision for one tool call or command.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PermissionsCheckParams {
    /// A workspace path (walked up to its project root); must exist.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workspace: Option<String>,
    /// The call, as words: `Tool(arg)` (`Read(./.env)`,
    /// `WebFetch(https://docs.rs/x)`), a bare tool name, or else a shell
    /// command (`git`, `push`, `origin`).
    #[serde(default)]
    pub probe: Vec<String>,
}

/// `hooks.list`: rules and hooks as a turn in the workspace would see them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct PolicyView {
    /// The workspace root it was read for (absent: none, the user's files only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workspace: Option<String>,
    /// Every permission rule, strictest layer first (managed, user, workspace, session).
    pub rules: Vec<RuleView>,
    /// Every hook, by layer.
    pub hooks: Vec<HookView>,
    /// Entries that were skipped, by file and path (the rest still apply).
    pub problems: Vec<PolicyProblemView>,
    /// The workspace is trusted (a registered project): its hooks and allow
    /// rules may apply (its deny and ask rules always do).
    pub trusted: bool,
    /// The hash of the workspace's hook set; null when it has none.
    pub hooks_hash: Option<String>,
    /// That set was approved with `hooks.approve` (true when there is none).
    pub hooks_approved: bool,
}

/// One permission rule of [`PolicyView`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct RuleView {
    /// `allow`, `ask` or `deny`.
    pub verdict: String,
    /// The rule as written (`Bash(npm test:*)`, `Read(./.env)`, `mcp__github__*`).
    pub rule: String,
    /// `managed`, `user`, `workspace` or `session`.
    pub layer: String,
    /// The file it comes from (empty for session rules).
    pub file: String,
    /// Whether it applies (an untrusted workspace's allow rules do not).
    pub active: bool,
}

/// One hook command of [`PolicyView`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct HookView {
    /// The event it runs on (`PreToolUse`, `Stop`, …).
    pub event: String,
    /// The regular expression over tool names; null: every tool.
    pub matcher: Option<String>,
    /// The shell command.
    pub command: String,
    /// Killed (with its process group) after this many seconds.
    pub timeout_seconds: u64,
    /// `managed`, `user` or `workspace`.
    pub layer: String,
    /// The file it comes from.
    pub file: String,
    /// Whether it runs (an untrusted or unapproved workspace's hooks do not).
    pub active: bool,
}

/// An entry of a rules or hooks file that was skipped, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct PolicyProblemView {
    /// The file.
    pub file: String,
    /// Where in it (`hooks.PreToolUse[0].hooks[1].command`).
    pub path: String,
    /// What is wrong.
    pub message: String,
}

/// `permissions.check`: the decision and what made it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct PermissionCheckView {
    /// `allow`, `ask` or `deny`; null: no rule matched, the approval policy decides.
    pub verdict: Option<String>,
    /// The rule that decided.
    pub rule: Option<String>,
    /// Its layer (`managed`, `user`, `workspace`, `session`).
    pub layer: Option<String>,
    /// Its file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// Why, in a sentence.
    pub reason: String,
}
