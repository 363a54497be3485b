//! `plugin.*` (ours, additive): plugins installed per user and per project,
//! what each brings, and installing, switching and removing them.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::Required;

/// `plugin.list`: both scopes as a workspace sees them.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PluginListParams {
    /// A workspace path (walked up to its project root); default: the
    /// daemon's current workspace.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workspace: Option<String>,
}

/// `plugin.install`: the daemon does not ask; the client showed what the
/// plugin brings first.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PluginInstallParams {
    /// A folder, a git URL, `owner/repo` or `NAME@MARKETPLACE`.
    pub source: Required,
    /// `user` (default) or `project`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
    /// The workspace of a project install (default: the daemon's current one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workspace: Option<String>,
    /// Replace a plugin of the same name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub force: Option<bool>,
}

/// `plugin.toggle`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PluginToggleParams {
    /// The plugin name.
    pub name: Required,
    /// Required.
    #[schemars(with = "bool")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
    /// `user` (default) or `project`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
    /// The workspace of a project plugin (default: the daemon's current one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workspace: Option<String>,
}

/// `plugin.remove`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PluginRemoveParams {
    /// The plugin name.
    pub name: Required,
    /// `user` (default) or `project`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
    /// The workspace of a project plugin (default: the daemon's current one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workspace: Option<String>,
}

/// A hook command a plugin brings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PluginHookView {
    /// The event (`PreToolUse`, …).
    pub event: String,
    /// Its matcher, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matcher: Option<String>,
    /// The command run.
    pub command: String,
}

/// An MCP server a plugin brings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PluginServerView {
    /// The server name its tools carry (`plugin_<plugin>_<server>`).
    pub name: String,
    /// The command line it starts, or its URL.
    pub target: String,
}

/// A prompt a plugin brings (`/plugin:name` in the terminal UI).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PluginCommandView {
    /// The command's name (the file stem).
    pub name: String,
    /// One line; empty when none.
    pub description: String,
    /// The prompt; `$ARGUMENTS` stands for what follows the command.
    pub body: String,
}

/// One `plugin.list` row, also `plugin.install`'s result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PluginView {
    /// The plugin name.
    pub name: String,
    /// `user` or `project`.
    pub scope: String,
    /// What it was installed from.
    pub source: String,
    /// The declared version.
    pub version: Option<String>,
    /// One line.
    pub description: Option<String>,
    /// Switched on.
    pub enabled: bool,
    /// Takes part in turns (enabled, readable, and for a project plugin a trusted workspace).
    pub active: bool,
    /// Why it does not take part, when it does not.
    pub inactive_reason: Option<String>,
    /// The installed folder.
    pub directory: String,
    /// Skill names as the model sees them (`plugin:skill`).
    pub skills: Vec<String>,
    /// Its prompts.
    pub commands: Vec<PluginCommandView>,
    /// Agent names (listed only).
    pub agents: Vec<String>,
    /// Its hook commands.
    pub hooks: Vec<PluginHookView>,
    /// Its MCP servers.
    pub mcp_servers: Vec<PluginServerView>,
    /// Parts that could not be read.
    pub problems: Vec<String>,
}
