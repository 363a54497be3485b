//! The tools the server offers: their arguments and results (schemas come
//! from these types), descriptions and annotations.

use std::sync::Arc;

use rmcp::handler::server::common::{schema_for_output, schema_for_type};
use rmcp::model::{Tool, ToolAnnotations};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `run_task`.
pub const RUN_TASK: &str = "run_task";
/// `session_list`.
pub const SESSION_LIST: &str = "session_list";
/// `session_get`.
pub const SESSION_GET: &str = "session_get";
/// `session_search`.
pub const SESSION_SEARCH: &str = "session_search";

/// The agent mode of a `run_task` turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Explore read-only, then propose a plan.
    Plan,
    /// No mutating tools: answer questions about the workspace.
    Readonly,
    /// All tools (the default).
    Edit,
    /// Like edit, with full initiative.
    Auto,
}

impl Mode {
    /// The engine's mode.
    pub fn agent_mode(self) -> seekclaw_config::AgentMode {
        use seekclaw_config::AgentMode;
        match self {
            Mode::Plan => AgentMode::Plan,
            Mode::Readonly => AgentMode::Readonly,
            Mode::Edit => AgentMode::Edit,
            Mode::Auto => AgentMode::Auto,
        }
    }
}

/// Arguments of `run_task`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RunTaskArgs {
    /// What the agent should do, in plain words.
    pub prompt: String,
    /// Absolute path of the project directory the agent works in (its
    /// project root is found from there, as `seekclaw run --workspace` does).
    pub workspace: String,
    /// Continue this session of the workspace (an id from an earlier
    /// `run_task` or from `session_list`); a new session when absent.
    #[serde(default)]
    pub session_id: Option<String>,
    /// plan, readonly, edit or auto (default: the workspace's or the
    /// config's mode).
    #[serde(default)]
    pub mode: Option<Mode>,
}

/// How a `run_task` turn ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum TaskStatus {
    /// The agent finished and answered.
    Done,
    /// The turn was cancelled; `answer` is what it had said.
    Cancelled,
    /// The turn failed; `error` says why.
    Failed,
}

/// The structured result of `run_task`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RunTaskResult {
    /// The session the turn ran in: pass it as `sessionId` to continue.
    pub session_id: String,
    /// How the turn ended.
    pub status: TaskStatus,
    /// The agent's final answer (the partial one when cancelled).
    pub answer: String,
    /// Why the turn failed, when it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// Arguments of `session_list`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SessionListArgs {
    /// Only this workspace's sessions (an absolute path inside it); every
    /// workspace's when absent.
    #[serde(default)]
    pub workspace: Option<String>,
    /// Include archived sessions.
    #[serde(default)]
    pub include_archived: bool,
    /// At most this many sessions, most recently updated first (1–500,
    /// default 50).
    #[serde(default)]
    pub limit: Option<u32>,
}

/// One session in a listing.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SessionSummary {
    /// The session id.
    pub session_id: String,
    /// Its title (from its first message), if any.
    pub title: Option<String>,
    /// Its workspace (`null`: the global scope).
    pub workspace: Option<String>,
    /// Turns that ended.
    pub turns: u64,
    /// A turn runs on it now.
    pub running: bool,
    /// Hidden from the default listing.
    pub archived: bool,
    /// Creation time (ISO 8601, UTC).
    pub created_at: String,
    /// Last change (ISO 8601, UTC).
    pub updated_at: String,
}

/// The structured result of `session_list`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SessionListResult {
    /// Most recently updated first.
    pub sessions: Vec<SessionSummary>,
    /// More sessions matched than `limit` allowed.
    pub truncated: bool,
}

/// Arguments of `session_get`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SessionGetArgs {
    /// The session id.
    pub session_id: String,
    /// Its workspace: needed only when the id exists in several.
    #[serde(default)]
    pub workspace: Option<String>,
    /// Only the last this many messages (1–1000, default 100).
    #[serde(default)]
    pub last_messages: Option<u32>,
}

/// One message of a session.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SessionMessage {
    /// `user`, `assistant` or `tool`.
    pub role: String,
    /// The message text (a tool message: what the tool returned).
    pub text: String,
    /// For an assistant message: the tools it called.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<String>,
    /// For a tool message: the tool that ran.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_name: Option<String>,
    /// For a tool message: whether it succeeded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_success: Option<bool>,
    /// For a tool message that changed a file: the unified diff.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff: Option<String>,
}

/// The structured result of `session_get`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SessionGetResult {
    /// The session.
    pub session: SessionSummary,
    /// Messages in the session, all of them.
    pub total_messages: usize,
    /// The last `lastMessages` messages, oldest first.
    pub messages: Vec<SessionMessage>,
}

/// Arguments of `session_search`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SessionSearchArgs {
    /// Words to find (all must match, in any order; `word*` is a prefix).
    pub query: String,
    /// Only this workspace's sessions (an absolute path inside it); every
    /// workspace's when absent.
    #[serde(default)]
    pub workspace: Option<String>,
    /// At most this many hits, newest first (1–500, default 20).
    #[serde(default)]
    pub limit: Option<u32>,
}

/// One search hit.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SearchHit {
    /// The session holding it.
    pub session_id: String,
    /// Its session's title, if any.
    pub title: Option<String>,
    /// Its session's workspace (`null`: global).
    pub workspace: Option<String>,
    /// The event's position in the session's log.
    pub seq: u64,
    /// `user`, `steer`, `assistant` or `tool_result`.
    pub kind: String,
    /// Text around the match, each match between « and ».
    pub snippet: String,
}

/// The structured result of `session_search`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SessionSearchResult {
    /// Newest first.
    pub hits: Vec<SearchHit>,
}

fn tool<A: JsonSchema + 'static, R: JsonSchema + 'static>(
    name: &'static str,
    title: &str,
    description: &'static str,
    annotations: ToolAnnotations,
) -> Tool {
    let input: Arc<_> = schema_for_type::<A>();
    Tool::new(name, description, input)
        .with_title(title)
        .with_raw_output_schema(schema_for_output::<R>())
        .with_annotations(annotations)
}

/// Reading the store: no side effects, same answer for the same state.
fn reads(title: &str) -> ToolAnnotations {
    ToolAnnotations::with_title(title)
        .read_only(true)
        .destructive(false)
        .idempotent(true)
        .open_world(false)
}

/// Every tool, in the order `tools/list` gives them.
pub fn all() -> Vec<Tool> {
    // A turn edits files and runs commands in the workspace (per mode and
    // approval policy), calls the model provider and may use the web: it
    // mutates, may destroy, and is not idempotent.
    let run = ToolAnnotations::with_title("Run a seekclaw task")
        .read_only(false)
        .destructive(true)
        .idempotent(false)
        .open_world(true);
    vec![
        tool::<RunTaskArgs, RunTaskResult>(
            RUN_TASK,
            "Run a seekclaw task",
            "Runs one seekclaw agent turn in a workspace: the agent reads, edits and runs \
             commands there until it has an answer. Continue a session with sessionId. \
             Progress notifications report each step and tool call; cancelling the request \
             cancels the turn. Returns the answer and the session id.",
            run,
        ),
        tool::<SessionListArgs, SessionListResult>(
            SESSION_LIST,
            "List seekclaw sessions",
            "Lists seekclaw sessions (all workspaces, or one), most recently updated first.",
            reads("List seekclaw sessions"),
        ),
        tool::<SessionGetArgs, SessionGetResult>(
            SESSION_GET,
            "Read a seekclaw session",
            "Reads a seekclaw session: its header and its last messages (user prompts, \
             answers, tool results with diffs).",
            reads("Read a seekclaw session"),
        ),
        tool::<SessionSearchArgs, SessionSearchResult>(
            SESSION_SEARCH,
            "Search seekclaw sessions",
            "Full-text search over every seekclaw session's messages and tool results, \
             newest first.",
            reads("Search seekclaw sessions"),
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schemas_say_what_is_required_and_refuse_unknown_fields() {
        let tools = all();
        let run = &tools[0];
        assert_eq!(run.name, RUN_TASK);
        let schema = serde_json::Value::Object(run.input_schema.as_ref().clone());
        assert_eq!(schema["type"], "object");
        assert_eq!(
            schema["required"],
            serde_json::json!(["prompt", "workspace"])
        );
        assert_eq!(schema["additionalProperties"], false);
        let out = serde_json::Value::Object(run.output_schema.clone().unwrap().as_ref().clone());
        assert!(out["properties"]["sessionId"].is_object(), "{out}");
        let ann = run.annotations.clone().unwrap();
        assert_eq!(ann.read_only_hint, Some(false));
        assert_eq!(ann.destructive_hint, Some(true));
        for t in &tools[1..] {
            let ann = t.annotations.clone().unwrap();
            assert_eq!(ann.read_only_hint, Some(true), "{}", t.name);
            assert_eq!(ann.open_world_hint, Some(false), "{}", t.name);
        }
    }

    #[test]
    fn modes_parse_lowercase_only() {
        let args: RunTaskArgs = serde_json::from_value(
            serde_json::json!({"prompt": "p", "workspace": "/w", "mode": "plan"}),
        )
        .unwrap();
        assert_eq!(args.mode, Some(Mode::Plan));
        let err = serde_json::from_value::<RunTaskArgs>(
            serde_json::json!({"prompt": "p", "workspace": "/w", "mode": "fast"}),
        )
        .unwrap_err();
        assert!(err.to_string().contains("unknown variant `fast`"), "{err}");
        let err = serde_json::from_value::<RunTaskArgs>(
            serde_json::json!({"prompt": "p", "workspace": "/w", "session_id": "x"}),
        )
        .unwrap_err();
        assert!(
            err.to_string().contains("unknown field `session_id`"),
            "{err}"
        );
    }
}
