//! MCP server configuration: the three sources merged (later wins), each entry
//! validated into something we can connect to, and the `mcp.list` wire shape.
//!
//! Sources (reference §5.7): the global `config.json` `mcp.servers`, then
//! `<ws>/.seekclaw/mcp/servers.json` (`{"servers":{…}}`, Claude-style
//! `{"mcpServers":{…}}` is accepted too), then the workspace `.seekclaw/config.json`
//! `mcp.servers`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use seekclaw_config::{McpServer, McpSettings, read_json_lenient};
use serde::Serialize;
use serde_json::Value;

/// Where a server's entry lives, which is also where `mcp.upsert`/`mcp.remove` write it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Source {
    /// The global `config.json`.
    GlobalConfig,
    /// The workspace's `.seekclaw/mcp/servers.json`.
    ServersFile,
    /// The workspace's own config file.
    WorkspaceConfig,
    /// An installed plugin's `.mcp.json` (`project`: a project plugin).
    Plugin {
        /// Installed in the workspace rather than for the user.
        project: bool,
    },
}

impl Source {
    /// The wire `scope`.
    pub fn scope(self) -> &'static str {
        match self {
            Source::GlobalConfig | Source::Plugin { project: false } => "global",
            Source::ServersFile | Source::WorkspaceConfig | Source::Plugin { project: true } => {
                "workspace"
            }
        }
    }
}

/// How to reach a server.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub enum Transport {
    /// A child process speaking newline-delimited JSON-RPC on stdin/stdout.
    Stdio {
        /// Program to run.
        command: String,
        /// Its arguments.
        args: Vec<String>,
        /// Extra environment variables.
        env: BTreeMap<String, String>,
    },
    /// Streamable HTTP (its responses may be JSON or SSE streams).
    Http {
        /// Endpoint URL.
        url: String,
        /// HTTP headers sent with every request.
        headers: BTreeMap<String, String>,
    },
    /// `sse` entries: Streamable HTTP, else the legacy HTTP+SSE transport.
    Sse {
        /// Endpoint URL.
        url: String,
        /// HTTP headers sent with every request.
        headers: BTreeMap<String, String>,
    },
}

/// One server of the merged configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerEntry {
    /// Server name, the `<server>` of its tool names.
    pub name: String,
    /// Where the entry is configured.
    pub source: Source,
    /// The entry as configured.
    pub config: McpServer,
    /// What to connect to, or why the entry cannot be used.
    pub transport: Result<Transport, String>,
}

/// A server the manager connects: a valid, enabled entry plus the directory its
/// process runs in. Two turns with equal specs share one connection.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ServerSpec {
    /// Server name.
    pub name: String,
    /// How to reach it.
    pub transport: Transport,
    /// Working directory of a stdio server: the workspace root.
    pub cwd: PathBuf,
}

/// Connection limits, from the global `mcp` settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timeouts {
    /// Longest wait for a server to connect and list its tools.
    pub connect: Duration,
    /// Longest wait for one tool call.
    pub call: Duration,
}

impl Default for Timeouts {
    fn default() -> Self {
        Timeouts {
            connect: Duration::from_secs(30),
            call: Duration::from_secs(120),
        }
    }
}

impl Timeouts {
    /// The limits of the global `mcp` settings (clamped), defaults for what is unset.
    pub fn from_settings(settings: &McpSettings) -> Timeouts {
        let d = Timeouts::default();
        Timeouts {
            connect: settings
                .connect_timeout_seconds
                .map_or(d.connect, |s| Duration::from_secs(s.clamp(1, 600))),
            call: settings
                .call_timeout_seconds
                .map_or(d.call, |s| Duration::from_secs(s.clamp(1, 3600))),
        }
    }
}

/// The merged configuration of one scope.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Merged {
    /// Sorted by name.
    pub servers: Vec<ServerEntry>,
    /// Files that could not be read (`Invalid MCP config: <file>`).
    pub problems: Vec<String>,
}

impl Merged {
    /// The enabled, valid servers, ready to connect from `cwd`.
    pub fn specs(&self, cwd: &Path) -> Vec<ServerSpec> {
        self.servers
            .iter()
            .filter(|e| e.config.enabled)
            .filter_map(|e| {
                let transport = e.transport.as_ref().ok()?.clone();
                Some(ServerSpec {
                    name: e.name.clone(),
                    transport,
                    cwd: cwd.to_path_buf(),
                })
            })
            .collect()
    }
}

/// `<ws>/.seekclaw/mcp/servers.json`.
pub fn servers_file(workspace_root: &Path) -> PathBuf {
    workspace_root
        .join(".seekclaw")
        .join("mcp")
        .join("servers.json")
}

/// Reads a `servers.json`: `Ok(None)` when it does not exist.
pub fn read_servers_file(path: &Path) -> Result<Option<BTreeMap<String, McpServer>>, String> {
    let Some(doc) = read_json_lenient::<Value>(path)? else {
        return Ok(None);
    };
    let servers = doc
        .get("servers")
        .or_else(|| doc.get("mcpServers"))
        .cloned()
        .unwrap_or(Value::Object(Default::default()));
    serde_json::from_value(servers)
        .map(Some)
        .map_err(|e| e.to_string())
}

/// Merges the sources of one scope; `workspace` is `None` for the global scope.
pub fn merge(global: &McpSettings, workspace: Option<(&Path, Option<&McpSettings>)>) -> Merged {
    merge_with_plugins(global, workspace, &[])
}

/// A server an active plugin brings: its namespaced name
/// (`plugin_<plugin>_<server>`), its entry, and whether the plugin is a
/// project's.
pub type PluginServer = (String, McpServer, bool);

/// [`merge`] with the servers of active plugins first: the user's own
/// configuration can still override one by its name.
pub fn merge_with_plugins(
    global: &McpSettings,
    workspace: Option<(&Path, Option<&McpSettings>)>,
    plugins: &[PluginServer],
) -> Merged {
    let mut by_name: BTreeMap<String, ServerEntry> = BTreeMap::new();
    let mut problems = Vec::new();
    let mut put = |name: &str, config: &McpServer, source: Source| {
        let entry = ServerEntry {
            name: name.to_string(),
            source,
            transport: transport_of(name, config),
            config: config.clone(),
        };
        by_name.insert(name.to_string(), entry);
    };
    for (name, config, project) in plugins {
        put(name, config, Source::Plugin { project: *project });
    }
    for (name, config) in &global.servers {
        put(name, config, Source::GlobalConfig);
    }
    if let Some((root, inline)) = workspace {
        let file = servers_file(root);
        match read_servers_file(&file) {
            Ok(Some(servers)) => {
                for (name, config) in &servers {
                    put(name, config, Source::ServersFile);
                }
            }
            Ok(None) => {}
            Err(e) => {
                tracing::warn!(file = %file.display(), error = %e, "invalid MCP config");
                problems.push(file.display().to_string());
            }
        }
        if let Some(inline) = inline {
            for (name, config) in &inline.servers {
                put(name, config, Source::WorkspaceConfig);
            }
        }
    }
    Merged {
        servers: by_name.into_values().collect(),
        problems,
    }
}

/// The error text of an unusable entry (reference wording).
pub fn invalid_combination(name: &str) -> String {
    format!("MCP server '{name}' has an invalid transport/command/url combination")
}

/// Validates an entry. `stdio` needs a command; `http`, `streamable-http` and
/// `sse` need an absolute http(s) URL. An entry with only a `url` (Claude style)
/// is HTTP.
pub fn transport_of(name: &str, config: &McpServer) -> Result<Transport, String> {
    let kind = config.transport.trim().to_ascii_lowercase();
    let command = config
        .command
        .as_deref()
        .map(str::trim)
        .filter(|c| !c.is_empty());
    let url = config
        .url
        .as_deref()
        .map(str::trim)
        .filter(|u| !u.is_empty());
    if let Some(reserved) = config
        .headers
        .iter()
        .flat_map(|h| h.keys())
        .find(|k| RESERVED_HEADERS.contains(&k.trim().to_ascii_lowercase().as_str()))
    {
        return Err(format!(
            "MCP server '{name}' sets the header '{reserved}', which the MCP transport manages itself"
        ));
    }
    let http = |url: Option<&str>| match url {
        Some(u) if is_absolute_http(u) => Ok(Transport::Http {
            url: u.to_string(),
            headers: config.headers.clone().unwrap_or_default(),
        }),
        _ => Err(invalid_combination(name)),
    };
    match kind.as_str() {
        "" | "stdio" => match (command, url) {
            (Some(command), _) => Ok(Transport::Stdio {
                command: command.to_string(),
                args: config.args.clone().unwrap_or_default(),
                env: config.env.clone().unwrap_or_default(),
            }),
            (None, Some(_)) => http(url),
            (None, None) => Err(invalid_combination(name)),
        },
        "http" | "streamable-http" | "streamablehttp" | "streamable_http" => http(url),
        "sse" => match http(url)? {
            Transport::Http { url, headers } => Ok(Transport::Sse { url, headers }),
            other => Ok(other),
        },
        _ => Err(invalid_combination(name)),
    }
}

/// Headers the Streamable HTTP transport sets itself (rmcp refuses overrides).
const RESERVED_HEADERS: &[&str] = &[
    "accept",
    "content-type",
    "mcp-session-id",
    "mcp-protocol-version",
    "last-event-id",
];

fn is_absolute_http(url: &str) -> bool {
    let lower = url.to_ascii_lowercase();
    let rest = lower
        .strip_prefix("http://")
        .or_else(|| lower.strip_prefix("https://"));
    rest.is_some_and(|r| !r.is_empty() && !r.starts_with('/'))
}

/// The transport as configured, or `http` for a URL-only entry that left it at
/// the `stdio` default.
fn listed_transport(entry: &ServerEntry) -> String {
    let raw = entry.config.transport.trim().to_ascii_lowercase();
    match (&entry.transport, raw.as_str()) {
        (Ok(Transport::Http { .. }), "" | "stdio") => "http".to_string(),
        (_, "") => "stdio".to_string(),
        _ => raw,
    }
}

/// Live state of a server, as `mcp.list` reports it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ServerStatus {
    /// A connection is up.
    pub connected: bool,
    /// Tools the server offers.
    pub tool_count: usize,
    /// The last connection error.
    pub error: Option<String>,
    /// `connecting`, `connected`, `reconnecting`, `failed`, `disabled`, `invalid`, `idle`.
    pub state: &'static str,
}

/// One `mcp.list` row (reference §2.4). Env values never leave the daemon: only
/// their names are listed.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ServerListing {
    /// Server name.
    pub name: String,
    /// `global` or `workspace`.
    pub scope: &'static str,
    /// `stdio`, `http` or `sse`.
    pub transport: String,
    /// Program of a stdio server.
    pub command: Option<String>,
    /// Its arguments.
    pub args: Vec<String>,
    /// URL of an HTTP server.
    pub url: Option<String>,
    /// Names of the environment variables set (never their values).
    pub env_keys: Vec<String>,
    /// Whether the entry is enabled.
    pub enabled: bool,
    /// A connection is up.
    pub connected: bool,
    /// Tools the server offers.
    pub tool_count: usize,
    /// Why it is not usable or connected, if known.
    pub error: Option<String>,
    /// Ours: the connection state behind `connected`/`error`.
    pub status: &'static str,
    /// Ours: names of the HTTP headers sent (values, like env values, stay here).
    pub header_keys: Vec<String>,
    /// Ours: OAuth state (`authorized`, `needs_login`, `login_required`);
    /// absent for `none`, so rows of servers without OAuth keep their shape.
    #[serde(skip_serializing_if = "no_auth")]
    pub auth: &'static str,
}

fn no_auth(auth: &&'static str) -> bool {
    *auth == "none"
}

impl ServerListing {
    /// The row of `entry` with its live `status`.
    pub fn new(entry: &ServerEntry, status: ServerStatus) -> ServerListing {
        let c = &entry.config;
        let (status, error) = match &entry.transport {
            Err(e) => (
                ServerStatus {
                    state: "invalid",
                    ..ServerStatus::default()
                },
                Some(e.clone()),
            ),
            Ok(_) if !c.enabled => (
                ServerStatus {
                    state: "disabled",
                    ..ServerStatus::default()
                },
                None,
            ),
            Ok(_) => {
                let error = status.error.clone();
                (status, error)
            }
        };
        ServerListing {
            name: entry.name.clone(),
            scope: entry.source.scope(),
            transport: listed_transport(entry),
            command: c.command.clone(),
            args: c.args.clone().unwrap_or_default(),
            url: c.url.clone(),
            env_keys: c
                .env
                .as_ref()
                .map(|e| e.keys().cloned().collect())
                .unwrap_or_default(),
            enabled: c.enabled,
            connected: status.connected,
            tool_count: status.tool_count,
            error,
            status: status.state,
            header_keys: c
                .headers
                .as_ref()
                .map(|h| h.keys().cloned().collect())
                .unwrap_or_default(),
            auth: "none",
        }
    }

    /// The row with its OAuth state.
    pub fn with_auth(mut self, auth: crate::auth::AuthState) -> ServerListing {
        self.auth = auth.as_str();
        self
    }
}

#[cfg(test)]
#[path = "spec_tests.rs"]
mod tests;
