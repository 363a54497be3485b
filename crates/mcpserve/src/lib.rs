//! `seekclaw mcp serve`: the engine as an MCP server over stdio, for other
//! agents. A front end beside `serve` and the daemon (it imports neither):
//! `run_task` runs a turn through [`Engine::start_turn`] in the shared
//! store, so the desktop, the terminal UI and `seekclaw sessions` see the
//! session; `session_list`, `session_get` and `session_search` read the store.
//!
//! Bad arguments are tool errors (`isError`) the calling model can read and
//! correct; only an unknown tool name is a protocol error. Nothing a client
//! sends ends the server but the end of its input (or a signal), which
//! cancels the turns still running and waits for them to record their end.

#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used))]
#![warn(missing_docs)]

mod error;
mod input;
mod run_task;
mod sessions;
pub mod tools;

pub use error::ToolError;

use rmcp::ServiceExt;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    InitializeResult, ListToolsResult, PaginatedRequestParams, ServerCapabilities, Tool,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData as McpError, ServerHandler};
use seekclaw_engine::{Engine, TurnOverrides};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::tools::{RUN_TASK, SESSION_GET, SESSION_LIST, SESSION_SEARCH, TaskStatus};

/// What `seekclaw mcp serve` was asked.
#[derive(Debug, Clone, Default)]
pub struct McpServeOptions {
    /// Model, step limit and approval policy for every `run_task` (a call's
    /// `mode` goes over these).
    pub overrides: TurnOverrides,
}

/// Why the server could not run.
#[derive(Debug, thiserror::Error)]
pub enum McpServeError {
    /// The engine refused the options (e.g. a model that is not configured).
    #[error("{0}")]
    Setup(String),
    /// The MCP connection failed before it was established.
    #[error("MCP connection: {0}")]
    Connection(String),
}

/// The MCP server: the engine, the settings of its turns, and the tasks
/// that drive them.
#[derive(Clone)]
pub struct Server {
    engine: Engine,
    overrides: TurnOverrides,
    tracker: TaskTracker,
    /// Fires when the client's input ends or the server is stopped: every
    /// running task is cancelled.
    closing: CancellationToken,
    tools: std::sync::Arc<Vec<Tool>>,
}

impl Server {
    fn new(engine: Engine, overrides: TurnOverrides, closing: CancellationToken) -> Server {
        Server {
            engine,
            overrides,
            tracker: TaskTracker::new(),
            closing,
            tools: std::sync::Arc::new(tools::all()),
        }
    }

    async fn call(
        &self,
        name: &str,
        args: Value,
        rc: RequestContext<RoleServer>,
    ) -> Option<Result<CallToolResult, ToolError>> {
        let engine = &self.engine;
        Some(match name {
            RUN_TASK => match parse(name, args) {
                Ok(a) => run_task::run(self, a, rc).await.map(task_result),
                Err(e) => Err(e),
            },
            SESSION_LIST => match parse(name, args) {
                Ok(a) => structured(sessions::list(engine, a).await),
                Err(e) => Err(e),
            },
            SESSION_GET => match parse(name, args) {
                Ok(a) => structured(sessions::get(engine, a).await),
                Err(e) => Err(e),
            },
            SESSION_SEARCH => match parse(name, args) {
                Ok(a) => structured(sessions::search(engine, a).await),
                Err(e) => Err(e),
            },
            _ => return None,
        })
    }
}

fn parse<T: DeserializeOwned>(tool: &str, args: Value) -> Result<T, ToolError> {
    serde_json::from_value(args)
        .map_err(|e| ToolError(format!("invalid arguments for {tool}: {e}")))
}

fn structured<T: Serialize>(r: Result<T, ToolError>) -> Result<CallToolResult, ToolError> {
    let value = serde_json::to_value(r?).map_err(|e| ToolError(e.to_string()))?;
    Ok(CallToolResult::structured(value))
}

/// The answer as text (what a model reads), the session id beside it, and
/// the whole result as structured content; an error unless the turn ended
/// done.
fn task_result(r: tools::RunTaskResult) -> CallToolResult {
    let mut content = Vec::new();
    match (&r.status, &r.error) {
        (TaskStatus::Done, _) => content.push(ContentBlock::text(r.answer.clone())),
        (_, error) => {
            let why = error.clone().unwrap_or_default();
            content.push(ContentBlock::text(format!(
                "The task did not finish: {why}"
            )));
            if !r.answer.is_empty() {
                content.push(ContentBlock::text(r.answer.clone()));
            }
        }
    }
    content.push(ContentBlock::text(format!(
        "sessionId: {} (pass it to run_task to continue this session)",
        r.session_id
    )));
    let mut result = match r.status {
        TaskStatus::Done => CallToolResult::success(content),
        _ => CallToolResult::error(content),
    };
    result.structured_content = serde_json::to_value(&r).ok();
    result
}

impl ServerHandler for Server {
    fn get_info(&self) -> InitializeResult {
        InitializeResult::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(
                Implementation::new("seekclaw", env!("CARGO_PKG_VERSION")).with_title("SeekClaw"),
            )
            .with_instructions(
                "SeekClaw is a local coding agent. run_task gives it a task in a workspace \
                 (an absolute project path) and returns its answer and session id; pass the \
                 session id back to continue. session_list, session_get and session_search \
                 read the sessions every seekclaw front end shares.",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(self.tools.as_ref().clone()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.tools.iter().find(|t| t.name == name).cloned()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let args = Value::Object(request.arguments.unwrap_or_default());
        match self.call(&request.name, args, context).await {
            Some(Ok(result)) => Ok(result.into()),
            Some(Err(ToolError(message))) => {
                Ok(CallToolResult::error(vec![ContentBlock::text(message)]).into())
            }
            None => Err(McpError::invalid_params(
                format!(
                    "unknown tool {:?} (the tools are {RUN_TASK}, {SESSION_LIST}, \
                     {SESSION_GET} and {SESSION_SEARCH})",
                    request.name
                ),
                None,
            )),
        }
    }
}

/// Serves MCP on `input`/`output` until the client closes its end or
/// `stop` fires; then cancels the turns still running and returns once each
/// has recorded its end.
pub async fn serve<R, W>(
    engine: &Engine,
    opts: McpServeOptions,
    input: R,
    output: W,
    stop: CancellationToken,
) -> Result<(), McpServeError>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    engine
        .check_overrides(&opts.overrides)
        .map_err(|e| McpServeError::Setup(e.message))?;
    let closing = stop.child_token();
    let input = input::WatchedInput::new(input, closing.clone());
    let server = Server::new(engine.clone(), opts.overrides, closing.clone());
    let tracker = server.tracker.clone();
    let served = match server.serve_with_ct((input, output), stop.clone()).await {
        Ok(running) => running
            .waiting()
            .await
            .map(|_| ())
            .map_err(|e| McpServeError::Connection(e.to_string())),
        Err(e) => Err(McpServeError::Connection(e.to_string())),
    };
    // Normally done already (the input ended, or `stop`); this also covers a
    // connection that failed.
    closing.cancel();
    engine.turns.cancel_all();
    tracker.close();
    tracker.wait().await;
    served
}

/// [`serve`] on this process's stdin/stdout: non-blocking pipes when the
/// client gave it pipes (MCP clients do), so no thread sits in `read(2)` at
/// exit.
pub async fn serve_stdio(
    engine: &Engine,
    opts: McpServeOptions,
    stop: CancellationToken,
) -> Result<(), McpServeError> {
    let (input, output) = rmcp::transport::io::stdio_pipes();
    serve(engine, opts, input, output, stop).await
}
