//! `mcp.*` and `skill.*`.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::adapter::{Required, Skipped};

/// `mcp.upsert`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct McpUpsertParams {
    /// The server name.
    pub name: Required,
    /// workspace (default) or global (case-insensitive).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
    /// The server (read by the handler into the config's server type).
    #[schemars(with = "McpServerInput")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server: Option<Skipped<McpServerInput>>,
}

/// An MCP server as `mcp.upsert` takes it. An empty `env`/`headers` value
/// keeps the stored one.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct McpServerInput {
    /// stdio (default), sse or http (alias streamable-http).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transport: Option<String>,
    /// stdio: the program.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// stdio: the program's arguments.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub args: Option<Vec<String>>,
    /// stdio: environment variables set for the program (name to value).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub env: Option<BTreeMap<String, String>>,
    /// sse/http: an absolute URL.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// sse/http: HTTP headers sent with every request (name to value).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub headers: Option<BTreeMap<String, String>>,
    /// Default true.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
}

/// `mcp.remove`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct McpRemoveParams {
    /// The server name.
    pub name: Required,
    /// workspace (default) or global (case-insensitive).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
}

/// `mcp.login` and `mcp.logout`: a remote server of the current workspace.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct McpLoginParams {
    /// The server name.
    pub name: Required,
}

/// `mcp.login`: the daemon waits (up to 5 minutes) on a loopback listener for
/// the browser's redirect; the client shows or opens `authUrl`. `mcp.list`'s
/// `auth` turns `authorized` once the login completed.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct McpLoginResult {
    /// The server name.
    pub name: String,
    /// The authorization URL the user's browser must open.
    pub auth_url: String,
    /// The loopback port (on the daemon's machine) the browser is sent back to.
    pub redirect_port: u16,
}

/// One `mcp.list` row. Env and header values never leave the daemon: only their names.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct McpServerView {
    /// The server name.
    pub name: String,
    /// global or workspace.
    pub scope: String,
    /// stdio, http or sse.
    pub transport: String,
    /// stdio: the program; null otherwise.
    pub command: Option<String>,
    /// stdio: the program's arguments (empty otherwise).
    pub args: Vec<String>,
    /// sse/http: the server URL; null otherwise.
    pub url: Option<String>,
    /// Names of the environment variables set (never their values).
    pub env_keys: Vec<String>,
    /// Whether the entry is enabled.
    pub enabled: bool,
    /// Whether a connection is up now.
    pub connected: bool,
    /// Tools the server offers now.
    pub tool_count: u64,
    /// Why it is unusable or not connected, when known; null otherwise.
    pub error: Option<String>,
    /// The connection state behind `connected`/`error` (connecting, connected,
    /// reconnecting, failed, stopped, disabled, invalid, …).
    pub status: String,
    /// Names of the HTTP headers sent.
    pub header_keys: Vec<String>,
    /// OAuth state of a remote server: authorized, needs_login or
    /// login_required; absent when OAuth is not involved (and from older daemons).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auth: Option<String>,
}

/// `skill.import`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SkillImportParams {
    /// A `.md` or `.zip` file (relative to the current workspace).
    pub path: Required,
}

/// `skill.toggle`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SkillToggleParams {
    /// The skill name (matched case-insensitively).
    pub name: Required,
    /// Required.
    #[schemars(with = "bool")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
}

/// One `skill.list` row.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct SkillView {
    /// The skill name (never empty).
    pub name: String,
    /// One-line description; empty when none.
    pub description: String,
    /// The declared version; null when none.
    pub version: Option<String>,
    /// Whether its prompt is added to turns (not disabled globally or in the workspace).
    pub enabled: bool,
    /// Absolute path of the skill directory.
    pub directory: String,
    /// global or workspace.
    pub scope: String,
}
