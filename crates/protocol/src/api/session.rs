//! `session.*`: params and result shapes (reference §2.4, §5.4).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Scope, ScopeParams};
use crate::adapter::{FieldMessage, Required, Strict, double_option};

/// `session.list`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SessionListParams {
    /// A workspace path (walked up to its project root); must exist.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workspace: Option<String>,
    /// The directory-free global scope.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub global: Option<bool>,
    /// Include archived sessions (default false).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub include_archived: Option<bool>,
}

/// `session.search` (ours, additive): full-text search of session logs.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SessionSearchParams {
    /// The words to find, all of them, in any order, case and accents
    /// ignored; a word ending in `*` is a prefix. Everything else is plain
    /// text (quotes, `-`, `:`, parentheses, `NEAR` are not query syntax).
    pub query: Required,
    /// Search this workspace's sessions only (walked up to its project
    /// root; must exist).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workspace: Option<String>,
    /// Search the global scope's sessions only. With neither `workspace`
    /// nor `global`, every scope is searched.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub global: Option<bool>,
    /// The most hits to return: default 50, at most 500.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limit: Option<u64>,
}

/// One hit of `session.search`: an event whose text matches.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct SessionSearchHit {
    /// The session id.
    pub session_id: String,
    /// The event's position in the session's log (`session.timeline`'s `seq`).
    pub seq: u64,
    /// What the text is: user, steer, assistant or tool_result.
    pub kind: String,
    /// A stretch of the event's text around the matches, each match between
    /// `«` and `»` (left as they are: a client escapes the text, then
    /// highlights); `…` marks a cut.
    pub snippet: String,
    /// The session's workspace root; absent for global sessions.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workspace: Option<String>,
    /// The session's title; absent when unset.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Whether the session is archived (archived sessions are searched too).
    pub archived: bool,
}

/// `session.get`, `session.delete`, `session.resume`: one session in a scope.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SessionRefParams {
    /// The session id.
    pub id: Required,
    /// A workspace path (walked up to its project root); must exist.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workspace: Option<String>,
    /// The directory-free global scope.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub global: Option<bool>,
}

/// `session.watch`: a session's turns, live, and (with `afterSeq`) what
/// was missed first.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SessionWatchParams {
    /// The session id.
    pub id: Required,
    /// A workspace path (walked up to its project root); must exist.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workspace: Option<String>,
    /// The directory-free global scope.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub global: Option<bool>,
    /// Replays every event after this `seq` (the last one the client saw)
    /// before the live ones, or sends `resync` when it no longer can.
    /// Absent: live events only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub after_seq: Option<u64>,
}

/// `session.timeline`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SessionTimelineParams {
    /// The session id.
    pub id: Required,
    /// A workspace path (walked up to its project root); must exist.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workspace: Option<String>,
    /// The directory-free global scope.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub global: Option<bool>,
    /// To follow the session from here: the entries of its running (or
    /// just started) turns are left out, and `followAfterSeq` says where
    /// `session.watch {afterSeq}` replays them from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub follow: Option<bool>,
}

/// `session.new`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SessionNewParams {
    /// A workspace path (walked up to its project root); must exist.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workspace: Option<String>,
    /// The directory-free global scope.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub global: Option<bool>,
    /// none, low, medium, high, max, xhigh or ultra (case-insensitive); default `agent.reasoningLevel`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reasoning_level: Option<String>,
    /// Default true.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub network_enabled: Option<bool>,
}

/// `session.update`: absent fields stay unchanged.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SessionUpdateParams {
    /// The session id.
    pub id: Required,
    /// A workspace path (walked up to its project root); must exist.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workspace: Option<String>,
    /// The directory-free global scope.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub global: Option<bool>,
    /// The new title; `""` or null clears it.
    #[serde(
        skip_serializing_if = "Option::is_none",
        default,
        deserialize_with = "double_option"
    )]
    // Skipping None on write would drop the schema's `default: null`.
    #[schemars(extend("default" = null))]
    pub title: Option<Option<String>>,
    /// none, low, medium, high, max, xhigh or ultra (case-insensitive).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reasoning_level: Option<String>,
    /// null means true.
    #[serde(
        skip_serializing_if = "Option::is_none",
        default,
        deserialize_with = "double_option"
    )]
    // Skipping None on write would drop the schema's `default: null`.
    #[schemars(extend("default" = null))]
    pub network_enabled: Option<Option<bool>>,
    /// The session's own approval policy: never, on-request or untrusted;
    /// null returns to the workspace's or the config's (ours, additive).
    #[serde(
        skip_serializing_if = "Option::is_none",
        default,
        deserialize_with = "double_option"
    )]
    // Skipping None on write would drop the schema's `default: null`.
    #[schemars(extend("default" = null))]
    pub approval_policy: Option<Option<String>>,
    /// The model the session's turns use (`provider/model`, an alias or a
    /// unique bare id), over the config's active one, which other sessions
    /// keep; null returns to it (ours, additive).
    #[serde(
        skip_serializing_if = "Option::is_none",
        default,
        deserialize_with = "double_option"
    )]
    // Skipping None on write would drop the schema's `default: null`.
    #[schemars(extend("default" = null))]
    pub model: Option<Option<String>>,
}

/// `session.archive`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SessionArchiveParams {
    /// The session id.
    pub id: Required,
    /// A workspace path (walked up to its project root); must exist.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workspace: Option<String>,
    /// The directory-free global scope.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub global: Option<bool>,
    /// false restores an archived session (default true).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub archived: Option<bool>,
}

/// The reference's one message for a missing, mistyped or negative `keepCount`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeepCountMessage;

impl FieldMessage for KeepCountMessage {
    const PARAM: &'static str = "keepCount";
    const MESSAGE: &'static str = "params.keepCount is required (>= 0)";
}

/// `session.truncate`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SessionTruncateParams {
    /// The session id.
    pub id: Required,
    /// A workspace path (walked up to its project root); must exist.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workspace: Option<String>,
    /// The directory-free global scope.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub global: Option<bool>,
    /// How many stored messages to keep (the first N).
    pub keep_count: Strict<u64, KeepCountMessage>,
}

macro_rules! scoped {
    ($($t:ty),*) => {$(
        impl Scope for $t {
            fn scope(&self) -> ScopeParams {
                ScopeParams::from_fields(self.workspace.as_deref(), self.global)
            }
        }
    )*};
}

scoped!(
    SessionListParams,
    SessionSearchParams,
    SessionRefParams,
    SessionWatchParams,
    SessionTimelineParams,
    SessionNewParams,
    SessionUpdateParams,
    SessionArchiveParams,
    SessionTruncateParams
);

/// A session header, as `session.list`, `session.update` and `session.archive`
/// return it (field order is the wire order; a missing title or workspace is left out).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct SessionHeader {
    /// `yyyyMMdd-HHmmss-xxxxxx`.
    pub id: String,
    /// The display title; absent when unset.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The workspace root; absent for global sessions.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workspace: Option<String>,
    /// Whether the session is archived (hidden from `session.list` unless `includeArchived`).
    pub archived: bool,
    /// The session's reasoning level: none, low, medium, high, max, xhigh or ultra.
    pub reasoning_level: String,
    /// Whether the network tools (`web_search`, `web_fetch`) may run.
    pub network_enabled: bool,
    /// Model requests made, summed over the session's turns.
    pub llm_rounds: i64,
    /// Execution steps: each turn's highest workflow step, summed.
    pub execution_steps: i64,
    /// Input tokens, cached ones included, summed (the same count as `totalInputTokens`).
    pub input_tokens: i64,
    /// Every input token, cached or not, summed.
    pub total_input_tokens: i64,
    /// Input tokens read from a prompt cache, summed.
    pub cached_input_tokens: i64,
    /// Output tokens, summed.
    pub output_tokens: i64,
    /// Time the model requests took, in milliseconds, summed.
    pub output_elapsed_ms: i64,
    /// ISO-8601.
    pub created_at: String,
    /// ISO-8601.
    pub updated_at: String,
    /// The session whose turn started this one: a subagent's session
    /// (`explore`, `review`); absent for a top-level session (ours, additive).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent_id: Option<String>,
    /// The session and user message it was forked from (`session.fork`);
    /// absent for a session that is not a fork (ours, additive).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forked_from: Option<super::ForkedFrom>,
    /// The session's own model, in `session.update`'s answer when it has one
    /// (ours, additive; `session.get` always carries it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
}

/// `session.compact`: the summary appended over the whole log.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct SessionCompactResult {
    /// The session id.
    pub id: String,
    /// First log event the summary covers.
    pub from_seq: u64,
    /// Last log event it covers.
    pub to_seq: u64,
    /// The summary's own event seq.
    pub summary_seq: u64,
    /// The summary the next turn starts from.
    pub summary: String,
}

/// `session.get`: the header with `title` and `workspace` always present
/// (null when unset), then the projected messages.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct SessionDetail {
    /// `yyyyMMdd-HHmmss-xxxxxx`.
    pub id: String,
    /// The display title; null when unset.
    pub title: Option<String>,
    /// null for global sessions.
    pub workspace: Option<String>,
    /// Whether the session is archived (hidden from `session.list` unless `includeArchived`).
    pub archived: bool,
    /// The session's reasoning level: none, low, medium, high, max, xhigh or ultra.
    pub reasoning_level: String,
    /// Whether the network tools (`web_search`, `web_fetch`) may run.
    pub network_enabled: bool,
    /// Model requests made, summed over the session's turns.
    pub llm_rounds: i64,
    /// Execution steps: each turn's highest workflow step, summed.
    pub execution_steps: i64,
    /// Input tokens, cached ones included, summed (the same count as `totalInputTokens`).
    pub input_tokens: i64,
    /// Every input token, cached or not, summed.
    pub total_input_tokens: i64,
    /// Input tokens read from a prompt cache, summed.
    pub cached_input_tokens: i64,
    /// Output tokens, summed.
    pub output_tokens: i64,
    /// Time the model requests took, in milliseconds, summed.
    pub output_elapsed_ms: i64,
    /// ISO-8601.
    pub created_at: String,
    /// ISO-8601.
    pub updated_at: String,
    /// The session whose turn started this one (a subagent's session);
    /// absent for a top-level session (ours, additive).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent_id: Option<String>,
    /// The session and user message it was forked from (`session.fork`);
    /// absent for a session that is not a fork (ours, additive).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forked_from: Option<super::ForkedFrom>,
    /// The approval policy the session's turns run with (its own, else the
    /// workspace's, else `agent.approvalPolicy`) (ours, additive).
    pub approval_policy: String,
    /// The calls allowed for the rest of the session (`allow_session`).
    pub approval_rules: Vec<ApprovalRuleView>,
    /// The session's own model (`provider/model`, set with `session.update
    /// {model}`); null: the config's active model (ours, additive).
    pub model: Option<String>,
    /// The conversation, oldest first.
    pub messages: Vec<SessionMessage>,
    /// The ids of the subagent sessions its turns started, oldest first;
    /// absent when there are none (ours, additive).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub children: Vec<String>,
    /// The instruction files (`AGENTS.md` and the like) the system prompt of
    /// the session's latest turn included, most general first; absent
    /// before its first turn (ours, additive).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instruction_files: Option<Vec<InstructionFileView>>,
}

/// An instruction file a turn's system prompt included.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct InstructionFileView {
    /// Where it is (absolute).
    pub path: String,
    /// How the prompt names it: relative to the workspace root, or
    /// `~seekclaw/AGENTS.md` for the user's own file in the SeekClaw home.
    pub label: String,
    /// Its size with its `@path` imports expanded.
    pub bytes: u64,
    /// Cut (or left out) to keep within `instructions.maxBytes`.
    pub truncated: bool,
    /// The user's own file rather than the workspace's.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub user: bool,
    /// The files its `@path` imports brought in.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub imports: Vec<String>,
}

/// A call allowed for the rest of a session.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct ApprovalRuleView {
    /// The tool's name.
    pub tool: String,
    /// For `bash`: the exact command; absent: every call of the tool.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
}

/// One message of `session.get` (every field always present).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct SessionMessage {
    /// user, assistant or tool. Steering guidance, a compaction summary (text
    /// starting `>>> [Context compaction]`) and the runtime's repair and
    /// continuation prompts show as user messages.
    pub role: String,
    /// The message text (a tool message: the tool's output); may be empty.
    pub text: String,
    /// Images attached to a user message (empty otherwise).
    pub images: Vec<ImageAttachment>,
    /// An assistant message's reasoning; null when none.
    pub thinking: Option<String>,
    /// Images the model was shown in this assistant step (empty otherwise).
    pub viewed_images: Vec<ViewedImage>,
    /// Tool calls an assistant message made, in order (empty otherwise).
    pub tool_calls: Vec<ToolCallRef>,
    /// A tool message: the call it answers; null otherwise.
    pub tool_call_id: Option<String>,
    /// A tool message: the tool that ran; null otherwise.
    pub tool_name: Option<String>,
    /// A tool message: whether the tool succeeded; true for other roles.
    pub tool_success: bool,
    /// A tool message that changed a file: the unified diff; null otherwise.
    pub tool_diff: Option<String>,
    /// A tool message that changed a file: its workspace-relative path; null otherwise.
    pub tool_file_path: Option<String>,
    /// An assistant message: the `provider/model` that actually answered (after
    /// any failover); null otherwise.
    pub model_ref: Option<String>,
    /// The session-log event the message comes from: a user message's is
    /// what `session.rewind` and `session.fork` take (ours, additive).
    pub seq: u64,
}

/// An image of a user message; `data` is base64.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct ImageAttachment {
    /// The image id.
    pub id: String,
    /// The file name shown to the user.
    pub name: String,
    /// MIME type, e.g. `image/png`.
    pub media_type: String,
    /// The image bytes, base64.
    pub data: String,
    /// Size of the image in bytes.
    pub size_bytes: u64,
}

/// An image the model was shown in a step.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct ViewedImage {
    /// The image id (as in the user message's `images`).
    pub id: String,
    /// The file name.
    pub name: String,
}

/// A tool call as shown to clients (no arguments).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct ToolCallRef {
    /// The call id (a tool message's `toolCallId` answers it).
    pub id: String,
    /// The tool called.
    pub name: String,
}
