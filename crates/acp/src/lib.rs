//! `seekclaw acp`: the engine as an Agent Client Protocol agent (protocol
//! version 1) over stdin/stdout, a front end beside the daemon and `serve`
//! (it imports neither). Editors (Zed, JetBrains IDEs, Neovim plugins)
//! start it as a subprocess. Sessions live in the shared store: the desktop,
//! the terminal UI and `seekclaw sessions` see them, and the engine's
//! session claim keeps two processes from running turns on one session.
//!
//! One reader dispatches the client's lines; every `session/prompt` runs on
//! its own task, so several sessions of one connection run (and cancel)
//! independently, and a cancel is read while a prompt streams.

#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used))]
#![warn(missing_docs)]

mod content;
mod error;
mod fork;
mod fs;
mod prompt;
pub mod rpc;
mod session;
mod tools;
mod updates;

use std::collections::HashMap;
use std::sync::Arc;

use seekclaw_engine::Engine;
use serde_json::{Value, json};
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWrite};
use tokio_util::sync::CancellationToken;

use rpc::{Incoming, METHOD_NOT_FOUND, Peer, RESOURCE_NOT_FOUND, RpcError};
use session::Session;

/// The ACP version spoken.
pub const PROTOCOL_VERSION: u64 = 1;

/// Why `acp` could not run at all.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct AcpError(pub String);

/// The connection's state.
struct Agent {
    engine: Engine,
    peer: Peer,
    sessions: HashMap<String, Arc<Session>>,
    /// The client offered `fs/read_text_file` and `fs/write_text_file`.
    editor_files: bool,
    /// Prompt tasks, so the end of input waits for them.
    prompts: tokio::task::JoinSet<()>,
}

/// Serves ACP until stdin ends (the running prompts are then cancelled and
/// waited for) or `stop` fires.
pub async fn serve<R, W>(
    engine: &Engine,
    input: R,
    output: W,
    stop: CancellationToken,
) -> Result<(), AcpError>
where
    R: AsyncBufRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (peer, writer) = Peer::new(output);
    let mut agent = Agent {
        engine: engine.clone(),
        peer,
        sessions: HashMap::new(),
        editor_files: false,
        prompts: tokio::task::JoinSet::new(),
    };
    let mut lines = input.lines();
    loop {
        tokio::select! {
            _ = stop.cancelled() => break,
            line = lines.next_line() => match line {
                Ok(Some(line)) if line.trim().is_empty() => {}
                Ok(Some(line)) => agent.line(&line).await,
                Ok(None) => break,
                Err(e) => {
                    // Not UTF-8 or a read error: reported, and reading goes on.
                    agent.peer.respond_invalid(None, &RpcError::new(rpc::PARSE_ERROR, format!("Parse error: {e}")));
                    if e.kind() != std::io::ErrorKind::InvalidData {
                        break;
                    }
                }
            },
            Some(_) = agent.prompts.join_next(), if !agent.prompts.is_empty() => {}
        }
    }
    for session in agent.sessions.values() {
        session.cancel();
        session.approvals.close("the editor disconnected");
    }
    agent.peer.fail_waiting();
    while agent.prompts.join_next().await.is_some() {}
    drop(agent);
    let _ = writer.await;
    Ok(())
}

impl Agent {
    async fn line(&mut self, line: &str) {
        match rpc::parse_line(line) {
            Incoming::Request { id, method, params } => {
                if method == "session/prompt" {
                    self.prompt(id, params);
                    return;
                }
                let result = self.request(&method, &params).await;
                // The commands are announced once the client knows the session.
                let announce = match (&result, method.as_str()) {
                    (Ok(r), "session/new" | "session/fork") => {
                        r["sessionId"].as_str().map(str::to_string)
                    }
                    (Ok(_), "session/load") => params["sessionId"].as_str().map(str::to_string),
                    _ => None,
                };
                self.peer.respond(id, result);
                if let Some(session) = announce {
                    self.available_commands(&session);
                }
            }
            Incoming::Notification { method, params } => self.notification(&method, &params),
            Incoming::Response { id, result } => self.peer.resolve(&id, result),
            Incoming::Invalid { id, error } => self.peer.respond_invalid(id, &error),
        }
    }

    async fn request(&mut self, method: &str, params: &Value) -> Result<Value, RpcError> {
        match method {
            "initialize" => {
                self.editor_files = fs::offered(params);
                Ok(initialize(params))
            }
            // Keys live in the config: there is nothing to authenticate.
            "authenticate" => Ok(json!({})),
            "session/new" => self.new_session(params),
            "session/load" => self.load_session(params).await,
            "session/fork" => self.fork_session(params).await,
            "session/set_mode" => {
                let session = self.session(params)?;
                let mode = params["modeId"]
                    .as_str()
                    .ok_or_else(|| RpcError::params("params.modeId must be a string"))?;
                session.set_mode(session::parse_mode(mode)?);
                Ok(json!({}))
            }
            _ => Err(RpcError::new(
                METHOD_NOT_FOUND,
                format!("Method not found: {method}"),
            )),
        }
    }

    fn notification(&mut self, method: &str, params: &Value) {
        if method == "session/cancel"
            && let Ok(session) = self.session(params)
        {
            session.cancel();
        }
        // Unknown notifications are ignored, as JSON-RPC asks.
    }

    fn session(&self, params: &Value) -> Result<Arc<Session>, RpcError> {
        let id = params["sessionId"]
            .as_str()
            .ok_or_else(|| RpcError::params("params.sessionId must be a string"))?;
        self.sessions.get(id).cloned().ok_or_else(|| {
            RpcError::new(
                RESOURCE_NOT_FOUND,
                format!("unknown session {id} (create it with session/new or session/load)"),
            )
        })
    }

    fn prompt(&mut self, id: Value, params: Value) {
        let session = match self.session(&params) {
            Ok(s) => s,
            Err(e) => return self.peer.respond(id, Err(e)),
        };
        let (engine, peer) = (self.engine.clone(), self.peer.clone());
        self.prompts.spawn(async move {
            let result = prompt::run(&engine, &peer, session, &params).await;
            peer.respond(id, result);
        });
    }

    fn new_session(&mut self, params: &Value) -> Result<Value, RpcError> {
        let cwd = session::cwd(params)?;
        let mcp = session::mcp_servers(params, &cwd)?;
        let scope = self.engine.scope_of(Some(&cwd), false, &cwd, "")?;
        let mode = self.engine.config.load().agent.mode;
        let id = seekclaw_engine::new_session_id();
        let mut session = Session::new(id.clone(), scope, cwd, mode, false, mcp);
        session.files = self.files_for(&id);
        self.sessions.insert(id.clone(), Arc::new(session));
        Ok(json!({"sessionId": id, "modes": session::modes(mode)}))
    }

    /// `session/fork`: see [`fork`].
    async fn fork_session(&mut self, params: &Value) -> Result<Value, RpcError> {
        let mut forked = fork::fork(&self.engine, params).await?;
        forked.session.files = self.files_for(&forked.session.id);
        let id = forked.session.id.clone();
        self.sessions.insert(id, Arc::new(forked.session));
        Ok(forked.answer)
    }

    /// Replays the stored conversation as `session/update`s, then answers.
    async fn load_session(&mut self, params: &Value) -> Result<Value, RpcError> {
        let cwd = session::cwd(params)?;
        let mcp = session::mcp_servers(params, &cwd)?;
        let id = params["sessionId"]
            .as_str()
            .ok_or_else(|| RpcError::params("params.sessionId must be a string"))?
            .to_string();
        let scope = self.engine.scope_of(Some(&cwd), false, &cwd, "")?;
        let (store, key, sid) = (self.engine.store.clone(), scope.key.clone(), id.clone());
        let events = tokio::task::spawn_blocking(move || {
            store
                .session(&key, &sid)
                .and_then(|found| found.map(|_| store.events(&key, &sid)).transpose())
        })
        .await
        .map_err(|e| RpcError::internal(e.to_string()))?
        .map_err(seekclaw_engine::store_error)?
        .ok_or_else(|| {
            RpcError::new(
                RESOURCE_NOT_FOUND,
                format!(
                    "session {id} not found in the workspace of {}",
                    cwd.display()
                ),
            )
        })?;
        for update in updates::replay(&events, &cwd) {
            self.peer.update(&id, update);
        }
        let mode = self.engine.config.load().agent.mode;
        let mut session = Session::new(id.clone(), scope, cwd, mode, true, mcp);
        session.files = self.files_for(&id);
        if let Some(old) = self.sessions.insert(id.clone(), Arc::new(session)) {
            old.cancel();
        }
        Ok(json!({"modes": session::modes(mode)}))
    }

    fn files_for(&self, id: &str) -> Option<Arc<dyn seekclaw_tools::FileAccess>> {
        self.editor_files.then(|| {
            Arc::new(fs::EditorFiles::new(self.peer.clone(), id.to_string()))
                as Arc<dyn seekclaw_tools::FileAccess>
        })
    }

    fn available_commands(&self, id: &str) {
        self.peer.update(
            id,
            json!({
                "sessionUpdate": "available_commands_update",
                "availableCommands": [
                    {"name": "compact", "description": "Summarize the conversation so far to free context"},
                ],
            }),
        );
    }
}

/// The `initialize` answer: version 1 (the only one spoken, whatever the
/// client asked), and what this agent really does.
fn initialize(_params: &Value) -> Value {
    json!({
        "protocolVersion": PROTOCOL_VERSION,
        "agentCapabilities": {
            "loadSession": true,
            "promptCapabilities": {"image": true, "audio": false, "embeddedContext": true},
            "mcpCapabilities": {"http": true, "sse": true},
            // `session/fork` (unstable in ACP v1: the SDK's `/unstable`).
            "sessionCapabilities": {"fork": {}},
        },
        "authMethods": [],
        "agentInfo": {"name": "seekclaw", "title": "SeekClaw", "version": env!("CARGO_PKG_VERSION")},
    })
}
