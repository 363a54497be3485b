//! `mcp.*`: the MCP servers of the current workspace (global config, the
//! workspace's `mcp/servers.json` and its inline config, merged) with their live
//! status. Writes reconnect what changed, one server at a time, before answering.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use seekclaw_config::{McpServer, WorkspaceConfig, read_json_lenient, workspace_config_path};
use seekclaw_mcp::Transport;
use seekclaw_mcp::auth::{AuthState, AuthStore, LOGIN_WAIT, LoginTarget, begin_login};
use seekclaw_mcp::{ServerListing, ServerSpec, ServerStatus, servers_file, transport_of};
use seekclaw_protocol::api::McpLoginResult;
use seekclaw_protocol::{Envelope, MethodError, Params, method};
use serde_json::{Map, Value};

use super::Reply;
use crate::ctx::Ctx;
use crate::error::Wire;
use crate::extensions;
use seekclaw_engine::config_service::save_file;
use seekclaw_engine::{active_config, mcp_cwd, own_workspace, workspace_config};

/// The `mcp.list` rows of the current workspace.
pub(crate) fn listing(daemon: &Ctx) -> Result<Vec<ServerListing>, MethodError> {
    let root = daemon.current_workspace();
    let config = daemon.engine.config.load();
    let trusted = extensions::plugins_trusted(daemon, &root);
    let merged = active_config(&daemon.engine.home, &config, &root, trusted);
    if let Some(file) = merged.problems.first() {
        return Err(MethodError::invalid(format!("Invalid MCP config: {file}")));
    }
    let cwd = mcp_cwd(&daemon.engine.home, Some(&root));
    Ok(merged
        .servers
        .iter()
        .map(|entry| {
            let (status, auth) = match &entry.transport {
                Ok(transport) if entry.config.enabled => {
                    let spec = ServerSpec {
                        name: entry.name.clone(),
                        transport: transport.clone(),
                        cwd: cwd.clone(),
                    };
                    let mcp = &daemon.engine.mcp;
                    (mcp.status(&spec), mcp.auth_state(&spec))
                }
                _ => (ServerStatus::default(), AuthState::None),
            };
            ServerListing::new(entry, status).with_auth(auth)
        })
        .collect())
}

fn list_reply(daemon: &Ctx, id: i64) -> Reply {
    Ok(Envelope::json_result(id, &listing(daemon)?))
}

pub async fn list(daemon: &Ctx, id: i64) -> Reply {
    list_reply(daemon, id)
}

/// Reconnects the current workspace's servers (unchanged ones keep running unless `restart`).
/// Switches the MCP servers to what the config says now. Holds no daemon-wide
/// lock: the manager runs one switch at a time and reads the config when its
/// turn comes, so the last writer's servers win.
async fn reconnect(daemon: &Ctx, restart: bool) {
    extensions::activate(daemon, restart).await;
}

pub async fn reload(daemon: &Ctx, id: i64) -> Reply {
    reconnect(daemon, true).await;
    list_reply(daemon, id)
}

/// The URL of the current workspace's remote server `name`, and its entry.
fn remote_server(daemon: &Ctx, name: &str) -> Result<(String, McpServer), MethodError> {
    let root = daemon.current_workspace();
    let config = daemon.engine.config.load();
    let trusted = extensions::plugins_trusted(daemon, &root);
    let merged = active_config(&daemon.engine.home, &config, &root, trusted);
    let entry = merged
        .servers
        .into_iter()
        .find(|e| e.name == name)
        .ok_or_else(|| MethodError::not_found(format!("MCP server not found: {name}")))?;
    match &entry.transport {
        Ok(Transport::Http { url, .. } | Transport::Sse { url, .. }) => {
            Ok((url.clone(), entry.config))
        }
        Ok(Transport::Stdio { .. }) => Err(MethodError::invalid(format!(
            "MCP server '{name}' runs on stdio: only remote (http, sse) servers log in"
        ))),
        Err(e) => Err(MethodError::invalid(e.clone())),
    }
}

fn auth_store(daemon: &Ctx) -> Result<AuthStore, MethodError> {
    daemon
        .engine
        .mcp
        .auth_store()
        .cloned()
        .ok_or_else(|| MethodError::invalid("MCP OAuth is not available in this daemon"))
}

/// `mcp.login`: starts the authorization flow here and answers with the URL;
/// the redirect is awaited in the background and the server reconnects once
/// the tokens are stored (the slot watches the token store).
pub async fn login(daemon: &Ctx, id: i64, p: &Params) -> Reply {
    let params = p.read::<method::McpLogin>()?;
    let name = params.name.trimmed();
    let (url, config) = remote_server(daemon, &name)?;
    let store = auth_store(daemon)?;
    let target = LoginTarget {
        server: name.clone(),
        url,
        oauth: config.oauth.unwrap_or_default(),
    };
    let pending = begin_login(&store, target)
        .await
        .map_err(|e| MethodError::invalid(e.to_string()))?;
    let result = McpLoginResult {
        name: name.clone(),
        auth_url: pending.auth_url.clone(),
        redirect_port: pending.port().unwrap_or(0),
    };
    tokio::spawn(async move {
        match pending.finish(&store, LOGIN_WAIT).await {
            Ok(()) => tracing::info!(server = %name, "MCP OAuth login completed"),
            Err(e) => {
                tracing::warn!(server = %name, error = %e, "MCP OAuth login did not complete")
            }
        }
    });
    Ok(Envelope::json_result(id, &result))
}

/// `mcp.logout`: forgets the stored tokens; the server shows `needs_login`
/// at its next connection.
pub async fn logout(daemon: &Ctx, id: i64, p: &Params) -> Reply {
    let params = p.read::<method::McpLogout>()?;
    let name = params.name.trimmed();
    let (url, _) = remote_server(daemon, &name)?;
    let store = auth_store(daemon)?;
    let removed = store
        .remove(&url)
        .map_err(|e| MethodError::invalid(format!("cannot remove the stored login: {e}")))?;
    if !removed {
        return Err(MethodError::not_found(format!(
            "No login is stored for MCP server '{name}'"
        )));
    }
    // The server's slot sees the file go and drops its connection.
    list_reply(daemon, id)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Target {
    Global,
    Workspace,
}

/// Where a write goes. `workspace` (the default) falls back to the global config
/// when the daemon has no workspace of its own (its folder holds the SeekClaw home).
fn target(daemon: &Ctx, scope: Option<&str>) -> Result<(Target, Option<PathBuf>), MethodError> {
    let raw = scope.unwrap_or("workspace");
    match raw.trim().to_ascii_lowercase().as_str() {
        "" | "workspace" => match workspace_root(daemon) {
            Some(root) => Ok((Target::Workspace, Some(root))),
            None => Ok((Target::Global, None)),
        },
        "global" => Ok((Target::Global, None)),
        _ => Err(MethodError::invalid_param(
            "scope",
            "MCP scope must be workspace or global",
        )),
    }
}

/// The current workspace root, if it has a config of its own.
fn workspace_root(daemon: &Ctx) -> Option<PathBuf> {
    let root = daemon.current_workspace();
    own_workspace(&daemon.engine.home, Some(&root)).map(Path::to_path_buf)
}

pub async fn upsert(daemon: &Ctx, id: i64, p: &Params) -> Reply {
    let params = p.read::<method::McpUpsert>()?;
    let name = params.name.trimmed();
    let (target, root) = target(daemon, params.scope.as_deref())?;
    // The server object is read into the config's own type (its fields and
    // unknown keys are kept as they are).
    let server = match p.raw("server") {
        Some(v @ Value::Object(_)) => serde_json::from_value::<McpServer>(v.clone())
            .map_err(|e| MethodError::invalid_param("server", format!("Invalid request: {e}")))?,
        _ => {
            return Err(MethodError::invalid_param(
                "server",
                "params.server is required",
            ));
        }
    };
    transport_of(&name, &server).map_err(|e| MethodError::invalid_param("server", e))?;
    // The admin gate covers the write only: the reconnect below may wait for a
    // server for its whole connect timeout, and other config writers must not.
    let gate = daemon.admin_gate.lock().await;
    match target {
        Target::Global => {
            daemon
                .engine
                .config
                .update(crate::error::wire, |c| {
                    let merged = keep_hidden(c.mcp.servers.get(&name), server);
                    c.mcp.servers.insert(name.clone(), merged);
                    Ok(())
                })
                .await?
        }
        Target::Workspace => {
            let root = root.unwrap_or_else(|| daemon.current_workspace());
            let ws = workspace_config(&daemon.engine.home, Some(&root));
            let inline = ws
                .as_ref()
                .and_then(|w| w.mcp.as_ref())
                .is_some_and(|m| m.servers.contains_key(&name));
            if inline {
                edit_inline(&root, |servers| {
                    let merged = keep_hidden(servers.get(&name), server);
                    servers.insert(name.clone(), merged);
                    true
                })
                .await?;
            } else {
                edit_servers_file(&root, |servers| {
                    let old = servers
                        .get(&name)
                        .and_then(|v| serde_json::from_value::<McpServer>(v.clone()).ok());
                    let merged = keep_hidden(old.as_ref(), server);
                    servers.insert(
                        name.clone(),
                        serde_json::to_value(&merged).unwrap_or_default(),
                    );
                    true
                })
                .await?;
            }
        }
    }
    drop(gate);
    reconnect(daemon, false).await;
    list_reply(daemon, id)
}

/// An upsert replaces the entry, but keeps what a client cannot send back
/// because `mcp.list` never shows it: env and header values (a missing map, or
/// an empty value for a known name, keeps the stored one) and unknown keys.
fn keep_hidden(old: Option<&McpServer>, mut new: McpServer) -> McpServer {
    let Some(old) = old else { return new };
    new.env = keep_values(old.env.as_ref(), new.env.take());
    new.headers = keep_values(old.headers.as_ref(), new.headers.take());
    // Like header values, a client secret is never listed, so never sent back.
    if new.oauth.is_none() {
        new.oauth.clone_from(&old.oauth);
    }
    for (key, value) in &old.extra {
        new.extra
            .entry(key.clone())
            .or_insert_with(|| value.clone());
    }
    new
}

fn keep_values(
    old: Option<&BTreeMap<String, String>>,
    new: Option<BTreeMap<String, String>>,
) -> Option<BTreeMap<String, String>> {
    match (old, new) {
        (old, None) => old.cloned(),
        (None, new) => new,
        (Some(old), Some(mut new)) => {
            for (key, value) in new.iter_mut() {
                if value.is_empty()
                    && let Some(stored) = old.get(key)
                {
                    value.clone_from(stored);
                }
            }
            Some(new)
        }
    }
}

pub async fn remove(daemon: &Ctx, id: i64, p: &Params) -> Reply {
    let params = p.read::<method::McpRemove>()?;
    let name = params.name.trimmed();
    let (target, root) = target(daemon, params.scope.as_deref())?;
    let gate = daemon.admin_gate.lock().await;
    let removed = match target {
        Target::Global => {
            daemon
                .engine
                .config
                .update(crate::error::wire, |c| {
                    Ok(c.mcp.servers.remove(&name).is_some())
                })
                .await?
        }
        Target::Workspace => match root {
            Some(root) => {
                // Both places: a copy left in one would take over the name.
                let inline = edit_inline(&root, |servers| servers.remove(&name).is_some()).await?;
                let file =
                    edit_servers_file(&root, |servers| servers.remove(&name).is_some()).await?;
                inline || file
            }
            None => false,
        },
    };
    drop(gate);
    if !removed {
        let scope = match target {
            Target::Global => "global",
            Target::Workspace => "workspace",
        };
        return Err(MethodError::not_found(format!(
            "MCP server not found in {scope} scope: {name}"
        )));
    }
    reconnect(daemon, false).await;
    list_reply(daemon, id)
}

/// Edits `mcp.servers` of the workspace's `.seekclaw/config.json`; saves when
/// `change` says it changed something. Returns that answer.
async fn edit_inline(
    root: &Path,
    change: impl FnOnce(&mut BTreeMap<String, McpServer>) -> bool,
) -> Result<bool, MethodError> {
    let path = workspace_config_path(root);
    let mut ws = match read_json_lenient::<WorkspaceConfig>(&path) {
        Ok(ws) => ws.unwrap_or_default(),
        Err(e) => {
            return Err(MethodError::invalid(format!(
                "Invalid workspace config {}: {e}",
                path.display()
            )));
        }
    };
    let mcp = ws.mcp.get_or_insert_with(Default::default);
    if !change(&mut mcp.servers) {
        return Ok(false);
    }
    save_file(path, ws).await.wire()?;
    Ok(true)
}

/// Edits the servers of `<ws>/.seekclaw/mcp/servers.json` (keeping the file's
/// `servers` or `mcpServers` key and anything else in it).
async fn edit_servers_file(
    root: &Path,
    change: impl FnOnce(&mut Map<String, Value>) -> bool,
) -> Result<bool, MethodError> {
    let path = servers_file(root);
    let mut doc = match read_json_lenient::<Value>(&path) {
        Ok(Some(Value::Object(doc))) => doc,
        Ok(None) => Map::new(),
        Ok(Some(_)) | Err(_) => {
            return Err(MethodError::invalid(format!(
                "Invalid MCP config: {}",
                path.display()
            )));
        }
    };
    let key = if doc.contains_key("mcpServers") && !doc.contains_key("servers") {
        "mcpServers"
    } else {
        "servers"
    };
    let servers = doc.entry(key).or_insert_with(|| Value::Object(Map::new()));
    let Value::Object(servers) = servers else {
        return Err(MethodError::invalid(format!(
            "Invalid MCP config: {}",
            path.display()
        )));
    };
    if !change(servers) {
        return Ok(false);
    }
    save_file(path, Value::Object(doc)).await.wire()?;
    Ok(true)
}
