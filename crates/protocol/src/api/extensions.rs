//! `mcp.*` and `skill.*`.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::de::IgnoredAny;
use serde::{Deserialize, Serialize};

use crate::adapter::Required;

/// `mcp.upsert`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct McpUpsertParams {
    /// The server name.
    pub name: Required,
    /// workspace (default) or global (case-insensitive).
    pub scope: Option<String>,
    /// The server (read by the handler into the config's server type).
    #[schemars(with = "McpServerInput")]
    pub server: Option<IgnoredAny>,
}

/// An MCP server as `mcp.upsert` takes it. An empty `env`/`headers` value
/// keeps the stored one.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct McpServerInput {
    /// stdio (default), sse or http (alias streamable-http).
    pub transport: Option<String>,
    /// stdio: the program.
    pub command: Option<String>,
    pub args: Option<Vec<String>>,
    pub env: Option<BTreeMap<String, String>>,
    /// sse/http: an absolute URL.
    pub url: Option<String>,
    pub headers: Option<BTreeMap<String, String>>,
    /// Default true.
    pub enabled: Option<bool>,
}

/// `mcp.remove`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct McpRemoveParams {
    /// The server name.
    pub name: Required,
    /// workspace (default) or global (case-insensitive).
    pub scope: Option<String>,
}

/// One `mcp.list` row. Env and header values never leave the daemon: only their names.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct McpServerView {
    pub name: String,
    /// global or workspace.
    pub scope: String,
    pub transport: String,
    pub command: Option<String>,
    pub args: Vec<String>,
    pub url: Option<String>,
    pub env_keys: Vec<String>,
    pub enabled: bool,
    pub connected: bool,
    pub tool_count: u64,
    pub error: Option<String>,
    /// The connection state behind `connected`/`error` (connecting, connected,
    /// reconnecting, failed, stopped, disabled, invalid, …).
    pub status: String,
    /// Names of the HTTP headers sent.
    pub header_keys: Vec<String>,
}

/// `skill.import`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SkillImportParams {
    /// A `.md` or `.zip` file (relative to the current workspace).
    pub path: Required,
}

/// `skill.toggle`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SkillToggleParams {
    /// The skill name (matched case-insensitively).
    pub name: Required,
    /// Required.
    #[schemars(with = "bool")]
    pub enabled: Option<bool>,
}

/// One `skill.list` row.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SkillView {
    pub name: String,
    pub description: String,
    pub version: Option<String>,
    pub enabled: bool,
    /// Absolute path of the skill directory.
    pub directory: String,
    /// global or workspace.
    pub scope: String,
}
