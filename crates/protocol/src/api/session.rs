//! `session.*`: params and result shapes (reference §2.4, §5.4).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Scope, ScopeParams};
use crate::adapter::{FieldMessage, Required, Strict, double_option};

/// `session.list`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SessionListParams {
    /// A workspace path (walked up to its project root); must exist.
    pub workspace: Option<String>,
    /// The directory-free global scope.
    pub global: Option<bool>,
    /// Include archived sessions (default false).
    pub include_archived: Option<bool>,
}

/// `session.get`, `session.delete`, `session.resume`: one session in a scope.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SessionRefParams {
    /// The session id.
    pub id: Required,
    /// A workspace path (walked up to its project root); must exist.
    pub workspace: Option<String>,
    /// The directory-free global scope.
    pub global: Option<bool>,
}

/// `session.new`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SessionNewParams {
    /// A workspace path (walked up to its project root); must exist.
    pub workspace: Option<String>,
    /// The directory-free global scope.
    pub global: Option<bool>,
    /// none, low, medium, high, max, xhigh or ultra (case-insensitive); default `agent.reasoningLevel`.
    pub reasoning_level: Option<String>,
    /// Default true.
    pub network_enabled: Option<bool>,
}

/// `session.update`: absent fields stay unchanged.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SessionUpdateParams {
    /// The session id.
    pub id: Required,
    /// A workspace path (walked up to its project root); must exist.
    pub workspace: Option<String>,
    /// The directory-free global scope.
    pub global: Option<bool>,
    /// The new title; `""` or null clears it.
    #[serde(default, deserialize_with = "double_option")]
    pub title: Option<Option<String>>,
    /// none, low, medium, high, max, xhigh or ultra (case-insensitive).
    pub reasoning_level: Option<String>,
    /// null means true.
    #[serde(default, deserialize_with = "double_option")]
    pub network_enabled: Option<Option<bool>>,
}

/// `session.archive`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SessionArchiveParams {
    /// The session id.
    pub id: Required,
    /// A workspace path (walked up to its project root); must exist.
    pub workspace: Option<String>,
    /// The directory-free global scope.
    pub global: Option<bool>,
    /// false restores an archived session (default true).
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
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SessionTruncateParams {
    /// The session id.
    pub id: Required,
    /// A workspace path (walked up to its project root); must exist.
    pub workspace: Option<String>,
    /// The directory-free global scope.
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
    SessionRefParams,
    SessionNewParams,
    SessionUpdateParams,
    SessionArchiveParams,
    SessionTruncateParams
);

/// A session header, as `session.list`, `session.update` and `session.archive`
/// return it (field order is the wire order; a missing title or workspace is left out).
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SessionHeader {
    /// `yyyyMMdd-HHmmss-xxxxxx`.
    pub id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The workspace root; absent for global sessions.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workspace: Option<String>,
    pub archived: bool,
    pub reasoning_level: String,
    pub network_enabled: bool,
    pub llm_rounds: i64,
    pub execution_steps: i64,
    pub input_tokens: i64,
    pub total_input_tokens: i64,
    pub cached_input_tokens: i64,
    pub output_tokens: i64,
    pub output_elapsed_ms: i64,
    /// ISO-8601.
    pub created_at: String,
    /// ISO-8601.
    pub updated_at: String,
}

/// `session.get`: the header with `title` and `workspace` always present
/// (null when unset), then the projected messages.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SessionDetail {
    pub id: String,
    pub title: Option<String>,
    /// null for global sessions.
    pub workspace: Option<String>,
    pub archived: bool,
    pub reasoning_level: String,
    pub network_enabled: bool,
    pub llm_rounds: i64,
    pub execution_steps: i64,
    pub input_tokens: i64,
    pub total_input_tokens: i64,
    pub cached_input_tokens: i64,
    pub output_tokens: i64,
    pub output_elapsed_ms: i64,
    /// ISO-8601.
    pub created_at: String,
    /// ISO-8601.
    pub updated_at: String,
    pub messages: Vec<SessionMessage>,
}

/// One message of `session.get` (every field always present).
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SessionMessage {
    /// user, assistant, tool or summary.
    pub role: String,
    pub text: String,
    pub images: Vec<ImageAttachment>,
    pub thinking: Option<String>,
    pub viewed_images: Vec<ViewedImage>,
    pub tool_calls: Vec<ToolCallRef>,
    pub tool_call_id: Option<String>,
    pub tool_name: Option<String>,
    pub tool_success: bool,
    pub tool_diff: Option<String>,
    pub tool_file_path: Option<String>,
    /// `provider/model` that actually answered.
    pub model_ref: Option<String>,
}

/// An image of a user message; `data` is base64.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ImageAttachment {
    pub id: String,
    pub name: String,
    pub media_type: String,
    pub data: String,
    pub size_bytes: u64,
}

/// An image the model was shown in a step.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ViewedImage {
    pub id: String,
    pub name: String,
}

/// A tool call as shown to clients (no arguments).
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ToolCallRef {
    pub id: String,
    pub name: String,
}
