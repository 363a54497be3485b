//! `seekclaw mcp list|check`: the merged MCP configuration of a scope,
//! validated and connected server by server, in this process (no daemon
//! needed), with each server's tools under the names turns see.

use std::path::PathBuf;

use crate::error::EngineError;
use seekclaw_config::Home;
use seekclaw_mcp::auth::AuthState;
use seekclaw_mcp::{McpManager, ServerListing, ServerStatus, Timeouts};
use serde::Serialize;

use crate::config_service::ConfigService;
use crate::extensions::{mcp_config, mcp_cwd, workspace_config};
use crate::scope::local_root;

/// Which configuration `seekclaw mcp` checks.
#[derive(Debug, Clone)]
pub struct McpCheckOptions {
    /// The process's working directory (the default workspace).
    pub cwd: PathBuf,
    /// Project directory; its project root's servers are merged in.
    pub workspace: Option<PathBuf>,
    /// Only the global configuration.
    pub global: bool,
}

/// What the check found.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct McpCheck {
    /// The project root checked; `None` for the global configuration.
    pub workspace: Option<String>,
    /// Configuration files that could not be read.
    pub problems: Vec<String>,
    /// Every configured server, sorted by name.
    pub servers: Vec<ServerCheck>,
}

/// One server: its `mcp.list` row and the tools it offers a turn.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerCheck {
    /// The row `mcp.list` shows for it, after the connection attempt.
    #[serde(flatten)]
    pub listing: ServerListing,
    /// Its tools as `mcp__<server>__<tool>`.
    pub tools: Vec<String>,
}

impl McpCheck {
    /// Whether every enabled server connected and every file was readable.
    pub fn healthy(&self) -> bool {
        self.problems.is_empty()
            && self
                .servers
                .iter()
                .all(|s| !s.listing.enabled || s.listing.connected)
    }
}

/// The scope's root, the config, and its merged servers (the configured ones
/// and the user's active plugins').
fn scope_config(
    home: &Home,
    opts: &McpCheckOptions,
) -> Result<
    (
        Option<PathBuf>,
        seekclaw_config::Config,
        seekclaw_mcp::Merged,
    ),
    EngineError,
> {
    let root = if opts.global {
        None
    } else {
        Some(local_root(home, &opts.cwd, opts.workspace.as_deref())?)
    };
    let config = ConfigService::new(home.clone()).load();
    let ws = workspace_config(home, root.as_deref());
    let merged = mcp_config(home, &config.mcp, root.as_deref(), ws.as_ref());
    Ok((root, config, merged))
}

/// Validates and connects the servers of the scope `opts` names; each server
/// gets its whole connect timeout (`mcp.connectTimeoutSeconds`).
pub async fn check_mcp(home: &Home, opts: &McpCheckOptions) -> Result<McpCheck, EngineError> {
    let (root, config, merged) = scope_config(home, opts)?;
    let cwd = mcp_cwd(home, root.as_deref());
    // Global servers run in the global scratch folder, which a fresh home lacks.
    home.ensure()
        .map_err(|e| EngineError::internal(e.to_string()))?;
    std::fs::create_dir_all(&cwd)
        .map_err(|e| EngineError::internal(format!("Cannot create {}: {e}", cwd.display())))?;
    let manager = McpManager::with_auth(seekclaw_mcp::auth::AuthStore::in_home(home.root()));
    manager.set_timeouts(Timeouts::from_settings(&config.mcp));
    let specs = merged.specs(&cwd);
    let all = specs.clone();
    manager.activate_with(|| all, false).await;
    let mut servers = Vec::with_capacity(merged.servers.len());
    for entry in &merged.servers {
        // Names are unique in a merged configuration.
        let (status, tools, auth) = match specs.iter().find(|s| s.name == entry.name) {
            Some(spec) => {
                let turn = manager.for_turn(std::slice::from_ref(spec), []).await;
                let tools = turn
                    .tools
                    .iter()
                    .map(|t| t.definition().name.clone())
                    .collect();
                (manager.status(spec), tools, manager.auth_state(spec))
            }
            None => (ServerStatus::default(), Vec::new(), AuthState::None),
        };
        servers.push(ServerCheck {
            listing: ServerListing::new(entry, status).with_auth(auth),
            tools,
        });
    }
    manager.shutdown().await;
    Ok(McpCheck {
        workspace: root.map(|r| r.display().to_string()),
        problems: merged.problems,
        servers,
    })
}

/// The configured entry named `name` in the scope `opts` names (for `mcp login`).
pub fn find_mcp_server(
    home: &Home,
    opts: &McpCheckOptions,
    name: &str,
) -> Result<seekclaw_mcp::ServerEntry, EngineError> {
    let (_, _, merged) = scope_config(home, opts)?;
    let known: Vec<&str> = merged.servers.iter().map(|e| e.name.as_str()).collect();
    merged
        .servers
        .iter()
        .find(|e| e.name == name)
        .cloned()
        .ok_or_else(|| {
            EngineError::not_found(format!(
                "no MCP server named '{name}' is configured (configured: {})",
                if known.is_empty() {
                    "none".to_string()
                } else {
                    known.join(", ")
                }
            ))
        })
}
