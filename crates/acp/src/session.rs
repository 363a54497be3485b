//! One ACP session: a store session of the scope of its `cwd`, its mode,
//! the client's MCP servers, and the turn it runs (if any).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use seekclaw_agent::Approvals;
use seekclaw_config::{AgentMode, ApprovalPolicy};
use seekclaw_engine::{Engine, Scope, SessionTarget, TurnOverrides};
use seekclaw_mcp::{ServerSpec, Transport};
use seekclaw_tools::FileAccess;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use crate::rpc::RpcError;

/// A session of this connection.
pub struct Session {
    /// The store's session id, also the ACP `sessionId`.
    pub id: String,
    /// The scope of `cwd` (its project root).
    pub scope: Scope,
    /// The client's working directory for it (absolute).
    pub cwd: PathBuf,
    mode: Mutex<AgentMode>,
    /// The session exists in the store (a new one is made by its first turn,
    /// so a session nobody prompts leaves nothing behind).
    stored: AtomicBool,
    /// The running prompt's cancel token.
    running: Mutex<Option<CancellationToken>>,
    /// The client answers this session's approval requests.
    pub approvals: Approvals,
    /// The client's MCP servers for it.
    pub mcp: Vec<ServerSpec>,
    /// File tools go through the editor (it offered `fs/*`).
    pub files: Option<Arc<dyn FileAccess>>,
}

impl Session {
    /// A session of `scope`; `stored` when it is already in the store.
    pub fn new(
        id: String,
        scope: Scope,
        cwd: PathBuf,
        mode: AgentMode,
        stored: bool,
        mcp: Vec<ServerSpec>,
    ) -> Session {
        Session {
            id,
            scope,
            cwd,
            mode: Mutex::new(mode),
            stored: AtomicBool::new(stored),
            running: Mutex::new(None),
            approvals: Approvals::attended(),
            mcp,
            files: None,
        }
    }

    /// Which store session the next turn writes to.
    pub fn target(&self) -> SessionTarget {
        if self.stored.load(Ordering::Acquire) {
            SessionTarget::Id(self.id.clone())
        } else {
            SessionTarget::New {
                id: Some(self.id.clone()),
            }
        }
    }

    /// A turn started: the session is in the store now.
    pub fn mark_stored(&self) {
        self.stored.store(true, Ordering::Release);
    }

    /// The current mode.
    pub fn mode(&self) -> AgentMode {
        self.mode.lock().map(|m| *m).unwrap_or_default()
    }

    /// Sets the mode (the next turn runs in it).
    pub fn set_mode(&self, mode: AgentMode) {
        if let Ok(mut m) = self.mode.lock() {
            *m = mode;
        }
    }

    /// Claims the session for a prompt; `None` while one runs.
    pub fn begin(&self) -> Option<CancellationToken> {
        let mut running = self.running.lock().ok()?;
        if running.is_some() {
            return None;
        }
        let token = CancellationToken::new();
        *running = Some(token.clone());
        Some(token)
    }

    /// The prompt ended.
    pub fn end(&self) {
        if let Ok(mut running) = self.running.lock() {
            *running = None;
        }
    }

    /// Cancels the running prompt, if any.
    pub fn cancel(&self) {
        if let Ok(running) = self.running.lock()
            && let Some(token) = running.as_ref()
        {
            token.cancel();
        }
    }

    /// The engine settings of the session's mode. `edit` asks before
    /// mutating calls (an editor is attended) unless the config already asks
    /// more; `auto` never asks; `plan` and `readonly` mutate nothing.
    pub fn overrides(&self, engine: &Engine) -> TurnOverrides {
        let mode = self.mode();
        let configured = engine.config.load().agent.approval_policy;
        let approval_policy = match mode {
            AgentMode::Edit if configured == ApprovalPolicy::Never => {
                Some(ApprovalPolicy::OnRequest)
            }
            AgentMode::Auto => Some(ApprovalPolicy::Never),
            _ => None,
        };
        TurnOverrides {
            mode: Some(mode),
            approval_policy,
            extra_mcp: self.mcp.clone(),
            files: self.files.clone(),
            start_dir: Some(self.cwd.clone()),
            ..TurnOverrides::default()
        }
    }
}

/// The ACP mode id of a mode.
pub fn mode_id(mode: AgentMode) -> &'static str {
    match mode {
        AgentMode::Plan => "plan",
        AgentMode::Readonly => "readonly",
        AgentMode::Edit => "edit",
        AgentMode::Auto => "auto",
    }
}

/// A mode from its ACP id.
pub fn parse_mode(id: &str) -> Result<AgentMode, RpcError> {
    AgentMode::ALL
        .into_iter()
        .find(|m| mode_id(*m) == id)
        .ok_or_else(|| {
            RpcError::params(format!(
                "unknown mode {id:?} (expected plan, readonly, edit or auto)"
            ))
        })
}

/// The `modes` field of `session/new` and `session/load`.
pub fn modes(current: AgentMode) -> Value {
    let available: Vec<Value> = AgentMode::ALL
        .into_iter()
        .map(|m| {
            let (name, description) = match m {
                AgentMode::Plan => ("Plan", "Explore read-only, then propose a plan"),
                AgentMode::Readonly => ("Read-only", "Answer questions; change nothing"),
                AgentMode::Edit => ("Edit", "Change files; ask before edits and commands"),
                AgentMode::Auto => ("Auto", "Full initiative; never ask"),
            };
            json!({"id": mode_id(m), "name": name, "description": description})
        })
        .collect();
    json!({"currentModeId": mode_id(current), "availableModes": available})
}

/// The absolute `cwd` of `session/new` and `session/load`.
pub fn cwd(params: &Value) -> Result<PathBuf, RpcError> {
    let cwd = params["cwd"]
        .as_str()
        .ok_or_else(|| RpcError::params("params.cwd must be a string (an absolute path)"))?;
    let path = Path::new(cwd);
    if !path.is_absolute() {
        return Err(RpcError::params(format!(
            "params.cwd must be an absolute path, got {cwd:?}"
        )));
    }
    if !path.is_dir() {
        return Err(RpcError::params(format!(
            "params.cwd {cwd} is not a directory"
        )));
    }
    Ok(path.to_path_buf())
}

/// The client's `mcpServers` as server specs; stdio servers run in `cwd`.
pub fn mcp_servers(params: &Value, cwd: &Path) -> Result<Vec<ServerSpec>, RpcError> {
    let list = match &params["mcpServers"] {
        Value::Null => return Ok(Vec::new()),
        Value::Array(list) => list,
        _ => return Err(RpcError::params("params.mcpServers must be an array")),
    };
    list.iter()
        .enumerate()
        .map(|(i, s)| {
            let field = |name: &str| {
                s[name].as_str().map(str::to_string).ok_or_else(|| {
                    RpcError::params(format!("params.mcpServers[{i}].{name} must be a string"))
                })
            };
            let name = field("name")?;
            let transport = match s["type"].as_str() {
                None | Some("stdio") => Transport::Stdio {
                    command: field("command")?,
                    args: s["args"]
                        .as_array()
                        .map(|a| {
                            a.iter()
                                .filter_map(Value::as_str)
                                .map(str::to_string)
                                .collect()
                        })
                        .unwrap_or_default(),
                    env: pairs(&s["env"]),
                },
                Some("http") => Transport::Http {
                    url: field("url")?,
                    headers: pairs(&s["headers"]),
                },
                Some("sse") => Transport::Sse {
                    url: field("url")?,
                    headers: pairs(&s["headers"]),
                },
                Some(other) => {
                    return Err(RpcError::params(format!(
                        "params.mcpServers[{i}]: unknown transport {other:?}"
                    )));
                }
            };
            Ok(ServerSpec {
                name,
                transport,
                cwd: cwd.to_path_buf(),
            })
        })
        .collect()
}

/// ACP's `[{name, value}]` lists (env, headers).
fn pairs(list: &Value) -> BTreeMap<String, String> {
    list.as_array()
        .map(|a| {
            a.iter()
                .filter_map(|p| Some((p["name"].as_str()?.into(), p["value"].as_str()?.into())))
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_round_trip_and_unknown_ones_are_refused() {
        for m in AgentMode::ALL {
            assert_eq!(parse_mode(mode_id(m)).unwrap(), m);
        }
        assert!(parse_mode("yolo").unwrap_err().message.contains("yolo"));
    }

    #[test]
    fn mcp_servers_of_each_transport() {
        let specs = mcp_servers(
            &json!({"mcpServers": [
                {"name": "a", "command": "srv", "args": ["-x"], "env": [{"name": "K", "value": "v"}]},
                {"type": "http", "name": "b", "url": "http://h/mcp", "headers": []},
            ]}),
            Path::new("/w"),
        )
        .unwrap();
        assert_eq!(specs.len(), 2);
        assert!(
            matches!(&specs[0].transport, Transport::Stdio { command, env, .. } if command == "srv" && env["K"] == "v")
        );
        let e = mcp_servers(&json!({"mcpServers": [{"name": "c"}]}), Path::new("/w")).unwrap_err();
        assert_eq!(e.message, "params.mcpServers[0].command must be a string");
    }
}
