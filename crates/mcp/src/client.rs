//! One live connection to one MCP server over rmcp: spawn or dial, `initialize`
//! within a timeout, discover tools and prompts, call tools, and end cleanly.
//!
//! A stdio server runs in its own process group, so ending it also ends whatever
//! it started (`npx` → `node` …): no orphans after a reload or shutdown.

use std::collections::VecDeque;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientCapabilities, ClientConfig, ContentBlock,
    ElicitRequestParams, ElicitResult, ElicitationCapability, FormElicitationCapability,
    GetPromptRequestParams, Implementation, Prompt, Tool,
};
use rmcp::service::{NotificationContext, RequestContext, RunningService};
use rmcp::transport::TokioChildProcess;
use rmcp::{ClientHandler, Peer, RoleClient, ServiceExt};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

use crate::elicit::{Entered, InFlight};
use crate::error::McpError;
use crate::spec::{ServerSpec, Transport};
use crate::sync::lock;

/// Lines of a server's stderr kept for the error shown when it dies.
const STDERR_TAIL: usize = 8;
/// Prompts fetched per server for the system prompt's MCP slot.
const MAX_PROMPTS: usize = 16;
/// How long a stopping server gets to exit after its stdin closes.
const STOP_GRACE: Duration = Duration::from_secs(2);
/// Between SIGTERM and SIGKILL for what is left of a stopped server's group.
const KILL_GRACE: Duration = Duration::from_millis(500);

/// What the server asked for after connecting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Notice {
    ToolsChanged,
}

/// Receives server notifications and elicitations; everything else keeps
/// rmcp's defaults.
#[derive(Clone)]
pub(crate) struct Handler {
    notices: mpsc::UnboundedSender<Notice>,
    server: String,
    /// Announce form elicitation (a front end can answer it).
    elicitation: bool,
    inflight: Arc<InFlight>,
}

impl ClientHandler for Handler {
    fn on_tool_list_changed(
        &self,
        _context: NotificationContext<RoleClient>,
    ) -> impl Future<Output = ()> + Send + '_ {
        let _ = self.notices.send(Notice::ToolsChanged);
        std::future::ready(())
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, rmcp::ErrorData> {
        let answer = crate::elicit::answer(&self.server, &self.inflight, request, context.ct);
        Ok(answer.await)
    }

    fn get_info(&self) -> ClientConfig {
        let mut capabilities = ClientCapabilities::default();
        if self.elicitation {
            let mut form = FormElicitationCapability::new();
            // Answers are checked against the schema before they are sent.
            form.schema_validation = Some(true);
            let mut elicitation = ElicitationCapability::new();
            elicitation.form = Some(form);
            capabilities.elicitation = Some(elicitation);
        }
        ClientConfig::new(
            capabilities,
            Implementation::new("seekclaw", env!("CARGO_PKG_VERSION")),
        )
    }
}

/// How a connection is opened.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Announce form elicitation: only where a front end can answer it.
    pub elicitation: bool,
    /// Where OAuth logins for remote servers are kept (`None`: no OAuth).
    pub auth: Option<crate::auth::AuthStore>,
}

/// How a connection ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ended {
    /// We closed it (reload, removal, shutdown).
    Stopped,
    /// The server went away on its own; the text says what we know.
    Lost(String),
}

/// A prompt's rendered text for the system prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptText {
    pub name: String,
    pub text: String,
}

/// A connected server.
pub struct Connection {
    peer: Peer<RoleClient>,
    inflight: Arc<InFlight>,
    /// The server's tools, as listed after connecting.
    pub tools: Vec<Tool>,
    /// The server's prompts, rendered.
    pub prompts: Vec<PromptText>,
    stop: CancellationToken,
    /// Resolves once the connection is fully closed (child reaped or killed).
    pub ended: Option<oneshot::Receiver<Ended>>,
    /// Notifications from the server (taken by the slot that keeps it).
    pub notices: Option<mpsc::UnboundedReceiver<Notice>>,
}

impl Drop for Connection {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

impl Connection {
    /// Connects, initializes and discovers tools and prompts, all within `timeout`.
    pub async fn open(spec: &ServerSpec, timeout: Duration) -> Result<Connection, McpError> {
        Connection::open_with(spec, timeout, Options::default()).await
    }

    /// [`Connection::open`], with OAuth logins from `auth` for remote servers.
    pub async fn open_with_auth(
        spec: &ServerSpec,
        timeout: Duration,
        auth: Option<&crate::auth::AuthStore>,
    ) -> Result<Connection, McpError> {
        let options = Options {
            auth: auth.cloned(),
            ..Options::default()
        };
        Connection::open_with(spec, timeout, options).await
    }

    /// [`Connection::open`] with `options`.
    pub async fn open_with(
        spec: &ServerSpec,
        timeout: Duration,
        options: Options,
    ) -> Result<Connection, McpError> {
        let (tx, notices) = mpsc::unbounded_channel();
        let inflight = Arc::new(InFlight::default());
        let handler = Handler {
            notices: tx,
            server: spec.name.clone(),
            elicitation: options.elicitation,
            inflight: inflight.clone(),
        };
        let stderr = Arc::new(Mutex::new(VecDeque::new()));
        let stop = CancellationToken::new();
        // One deadline for starting, initializing and discovering together.
        let deadline = tokio::time::Instant::now() + timeout;
        let started = match tokio::time::timeout_at(
            deadline,
            start(spec, handler, &stderr, options.auth.as_ref()),
        )
        .await
        {
            Ok(Ok(started)) => started,
            Ok(Err(e)) => return Err(e),
            Err(_) => {
                return Err(McpError::Timeout(format!(
                    "MCP server '{}' did not initialize within {}s{}",
                    spec.name,
                    timeout.as_secs(),
                    stderr_suffix(&stderr)
                )));
            }
        };
        let Started { service, pgid } = started;
        let peer = service.peer().clone();
        let (ended_tx, ended) = oneshot::channel();
        tokio::spawn(watch(service, pgid, stop.clone(), stderr, ended_tx));
        // Until the connection is handed out, giving up (an error, or this future
        // being dropped by a reload or shutdown) ends the server.
        let closing = stop.clone().drop_guard();
        let discovered = tokio::time::timeout_at(deadline, discover(&peer)).await;
        let (tools, prompts) = match discovered {
            Ok(Ok(found)) => found,
            Ok(Err(e)) => {
                return Err(McpError::Protocol(format!(
                    "MCP server '{}' could not list its tools: {e}",
                    spec.name
                )));
            }
            Err(_) => {
                return Err(McpError::Timeout(format!(
                    "MCP server '{}' did not list its tools within {}s",
                    spec.name,
                    timeout.as_secs()
                )));
            }
        };
        closing.disarm();
        Ok(Connection {
            peer,
            inflight,
            tools,
            prompts,
            stop,
            ended: Some(ended),
            notices: Some(notices),
        })
    }

    /// A handle for calls that outlives borrows of the connection.
    pub fn caller(&self) -> Caller {
        Caller {
            peer: self.peer.clone(),
            inflight: self.inflight.clone(),
        }
    }

    /// Closes the connection; `ended` resolves when the server is gone.
    pub fn stop(&self) {
        self.stop.cancel();
    }
}

/// Calls tools on a connection.
#[derive(Clone)]
pub struct Caller {
    peer: Peer<RoleClient>,
    inflight: Arc<InFlight>,
}

impl Caller {
    /// Marks a call of the turn `owner` as in flight on this connection until
    /// the guard drops: the server's elicitations during it go to `elicit`.
    pub(crate) fn enter(
        &self,
        owner: &str,
        elicit: Option<Arc<dyn seekclaw_tools::Elicit>>,
    ) -> Entered {
        InFlight::enter(&self.inflight, owner, elicit)
    }

    /// `work` within `limit`, not counting the time a person spends on the
    /// server's questions: a deadline that passes while one is open is
    /// pushed back by `limit` from then.
    pub(crate) async fn within<T>(
        &self,
        limit: Duration,
        work: impl Future<Output = T>,
    ) -> Result<T, tokio::time::error::Elapsed> {
        self.inflight.within(limit, work).await
    }

    /// `tools/list` again (after `notifications/tools/list_changed`).
    pub async fn list_tools(&self) -> Result<Vec<Tool>, McpError> {
        self.peer
            .list_all_tools()
            .await
            .map_err(|e| McpError::Protocol(e.to_string()))
    }

    /// `tools/call`. A JSON-RPC error is `Err`; a tool-level failure is a result
    /// with `is_error`.
    pub async fn call(
        &self,
        tool: &str,
        arguments: serde_json::Map<String, serde_json::Value>,
    ) -> Result<CallToolResult, McpError> {
        let params = CallToolRequestParams::new(tool.to_string()).with_arguments(arguments);
        self.peer
            .call_tool(params)
            .await
            .map_err(|e| McpError::Protocol(e.to_string()))
    }
}

struct Started {
    service: RunningService<RoleClient, Handler>,
    pgid: Option<u32>,
}

async fn start(
    spec: &ServerSpec,
    handler: Handler,
    stderr: &Arc<Mutex<VecDeque<String>>>,
    auth: Option<&crate::auth::AuthStore>,
) -> Result<Started, McpError> {
    match &spec.transport {
        Transport::Stdio { command, args, env } => {
            let mut cmd = tokio::process::Command::new(command);
            cmd.args(args)
                .envs(env)
                .current_dir(&spec.cwd)
                // Its own group: stopping the server also stops its children.
                .process_group(0)
                .kill_on_drop(true);
            let (child, err) = TokioChildProcess::builder(cmd)
                .stderr(Stdio::piped())
                .spawn()
                .map_err(|e| {
                    McpError::Spawn(format!(
                        "MCP server '{}' could not start `{command}`: {e}",
                        spec.name
                    ))
                })?;
            // A start that fails, or is dropped on timeout, ends the whole group
            // (`npx` → `node`…), not just the process rmcp knows about.
            let group = GroupGuard(child.id());
            if let Some(err) = err {
                tokio::spawn(keep_stderr(spec.name.clone(), err, stderr.clone()));
            }
            match handler.serve(child).await {
                Ok(service) => Ok(Started {
                    service,
                    pgid: group.disarm(),
                }),
                Err(e) => {
                    drop(group);
                    // Let the stderr reader catch the server's last words.
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    Err(McpError::Protocol(format!(
                        "MCP server '{}' failed to initialize: {e}{}",
                        spec.name,
                        stderr_suffix(stderr)
                    )))
                }
            }
        }
        Transport::Http { url, headers } => Ok(Started {
            service: crate::remote::serve(&spec.name, url, headers, false, handler, auth).await?,
            pgid: None,
        }),
        Transport::Sse { url, headers } => Ok(Started {
            service: crate::remote::serve(&spec.name, url, headers, true, handler, auth).await?,
            pgid: None,
        }),
    }
}

/// Tools and the texts of argument-free prompts.
async fn discover(
    peer: &Peer<RoleClient>,
) -> Result<(Vec<Tool>, Vec<PromptText>), rmcp::ServiceError> {
    let caps = peer.peer_info().map(|i| i.capabilities.clone());
    let has_tools = caps.as_ref().is_none_or(|c| c.tools.is_some());
    let tools = if has_tools {
        peer.list_all_tools().await?
    } else {
        Vec::new()
    };
    let mut prompts = Vec::new();
    if caps.as_ref().is_some_and(|c| c.prompts.is_some()) {
        // A broken prompt list must not cost the server its tools.
        let listed = peer.list_all_prompts().await.unwrap_or_default();
        for prompt in listed
            .iter()
            .filter(|p| !needs_arguments(p))
            .take(MAX_PROMPTS)
        {
            let params = GetPromptRequestParams::new(prompt.name.clone());
            if let Ok(got) = peer.get_prompt(params).await {
                let text = got
                    .messages
                    .iter()
                    .filter_map(|m| match &m.content {
                        ContentBlock::Text(t) => Some(t.text.as_str()),
                        _ => None,
                    })
                    .collect::<Vec<_>>()
                    .join("\n");
                if !text.trim().is_empty() {
                    prompts.push(PromptText {
                        name: prompt.name.clone(),
                        text,
                    });
                }
            }
        }
    }
    Ok((tools, prompts))
}

fn needs_arguments(prompt: &Prompt) -> bool {
    prompt
        .arguments
        .as_ref()
        .is_some_and(|args| args.iter().any(|a| a.required == Some(true)))
}

/// Owns the running service until it ends or is stopped, then reports how.
async fn watch(
    service: RunningService<RoleClient, Handler>,
    pgid: Option<u32>,
    stop: CancellationToken,
    stderr: Arc<Mutex<VecDeque<String>>>,
    ended: oneshot::Sender<Ended>,
) {
    let token = service.cancellation_token();
    let waiting = service.waiting();
    tokio::pin!(waiting);
    let reason = tokio::select! {
        reason = &mut waiting => reason,
        _ = stop.cancelled() => {
            token.cancel();
            // rmcp closes stdin and waits for the server on its own schedule; ours
            // is bounded, so shutdown never outlasts the group kill below.
            tokio::time::timeout(STOP_GRACE, &mut waiting)
                .await
                .unwrap_or(Ok(rmcp::service::QuitReason::Cancelled))
        }
    };
    let by_us = stop.is_cancelled();
    if let Some(pgid) = pgid {
        // A well-behaved server has exited by now. Whatever is left of the group
        // (the server or its children) is ended.
        end_group(pgid, if by_us { KILL_GRACE } else { Duration::ZERO }).await;
    }
    let outcome = if by_us {
        Ended::Stopped
    } else {
        let detail = match reason {
            Ok(_) => "the server closed the connection".to_string(),
            Err(e) => format!("the connection task failed: {e}"),
        };
        // Give the stderr reader a moment to collect the last lines.
        tokio::time::sleep(Duration::from_millis(50)).await;
        Ended::Lost(format!("{detail}{}", stderr_suffix(&stderr)))
    };
    let _ = ended.send(outcome);
}

async fn keep_stderr(
    name: String,
    err: tokio::process::ChildStderr,
    tail: Arc<Mutex<VecDeque<String>>>,
) {
    let mut lines = BufReader::new(err).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        tracing::debug!(server = %name, "{line}");
        let mut tail = lock(&tail);
        if tail.len() == STDERR_TAIL {
            tail.pop_front();
        }
        tail.push_back(line.chars().take(500).collect());
    }
}

fn stderr_suffix(tail: &Mutex<VecDeque<String>>) -> String {
    let lines: Vec<String> = lock(tail)
        .iter()
        .filter(|l| !l.trim().is_empty())
        .cloned()
        .collect();
    match lines.last() {
        Some(last) => format!(" (stderr: {})", last.trim()),
        None => String::new(),
    }
}

/// SIGTERM to the group, SIGKILL after `grace` while any member lives.
async fn end_group(pgid: u32, grace: Duration) {
    use rustix::process::{Signal, kill_process_group, test_kill_process_group};
    let Some(pid) = group_pid(pgid) else { return };
    if test_kill_process_group(pid).is_err() {
        return;
    }
    let _ = kill_process_group(pid, Signal::TERM);
    let until = tokio::time::Instant::now() + grace;
    while tokio::time::Instant::now() < until {
        if test_kill_process_group(pid).is_err() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let _ = kill_process_group(pid, Signal::KILL);
}

/// Ends a stdio server's process group when dropped, unless disarmed.
struct GroupGuard(Option<u32>);

impl GroupGuard {
    fn disarm(mut self) -> Option<u32> {
        self.0.take()
    }
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        if let Some(pgid) = self.0 {
            kill_group(pgid);
        }
    }
}

/// SIGKILL to the group now.
fn kill_group(pgid: u32) {
    if let Some(pid) = group_pid(pgid) {
        let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
    }
}

/// Never signal group 0 or 1 (ourselves or init): only real child groups.
fn group_pid(pgid: u32) -> Option<rustix::process::Pid> {
    let raw = i32::try_from(pgid).ok().filter(|p| *p > 1)?;
    rustix::process::Pid::from_raw(raw)
}
