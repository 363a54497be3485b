//! `chat` (and its aliases), `agent.steer`, `agent.cancel`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Scope, ScopeParams};
use crate::adapter::Skipped;

/// `chat`, `agent.runTurn`, `agent/runTurn`: one turn. `message` (or `prompt`)
/// or `images` is required.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ChatParams {
    /// The user message (`prompt` is read when `message` is absent or null).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Alias of `message`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    /// Images attached to the message (checked by the image intake, not here).
    #[schemars(with = "Option<Vec<ImageInput>>")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub images: Option<Skipped<Vec<ImageInput>>>,
    /// The session to continue; without it, the connection's current session in
    /// the scope, else the newest, else a new one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// A workspace path (walked up to its project root); must exist.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workspace: Option<String>,
    /// The directory-free global scope.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub global: Option<bool>,
    /// none, low, medium, high, max, xhigh or ultra (case-insensitive); stored on the session.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reasoning_level: Option<String>,
    /// The model for this turn alone (`provider/model`, an alias or a unique
    /// bare id; ours, additive): it alone answers, without failover; a name
    /// that matches no configured model is an error listing those there are.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// This client answers `approval_request` events with `agent.approve`
    /// (ours, additive). Without it, a call the approval policy would ask
    /// about is refused at once (nobody could answer).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub approvals: Option<bool>,
    /// The turn outlives this connection (ours, additive): when the
    /// connection closes mid-turn, the turn runs to its end and is stored,
    /// its watchers (`session.watch`) seeing it through. Without it a
    /// closing connection cancels its turns, unless another client watches
    /// the turn's session: then the turn runs on for that watcher.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detach: Option<bool>,
}

impl Scope for ChatParams {
    fn scope(&self) -> ScopeParams {
        ScopeParams::from_fields(self.workspace.as_deref(), self.global)
    }
}

impl ChatParams {
    /// `message`, else `prompt`, else empty.
    pub fn text(&self) -> &str {
        self.message
            .as_deref()
            .or(self.prompt.as_deref())
            .unwrap_or_default()
    }
}

/// One image of `chat` / `agent.steer`: at most 10 per turn, each at most
/// 10 MB decoded (40 MB in all).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ImageInput {
    /// A file name (only its last path segment is kept).
    pub name: String,
    /// image/png, image/jpeg, image/webp or image/gif (case-insensitive).
    pub media_type: String,
    /// Base64 (line breaks allowed, no `data:` prefix).
    pub data: String,
}

/// `agent.steer`: guidance for a running turn, picked by `requestId` (a chat
/// request id on this connection) or `sessionId`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SteerParams {
    /// The guidance text (`prompt` is read when `message` is absent or null).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Alias of `message`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    /// Images attached to the guidance.
    #[schemars(with = "Option<Vec<ImageInput>>")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub images: Option<Skipped<Vec<ImageInput>>>,
    /// The chat request id of the turn.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_id: Option<i64>,
    /// The session of the turn (case-insensitive), when `requestId` is not given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
}

/// `agent.approve`: a person's decision on a pending `approval_request`,
/// found by `approvalId` in the turn picked by `requestId` (a chat request id
/// on this connection) or `sessionId`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ApproveParams {
    /// The chat request id of the turn.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_id: Option<i64>,
    /// The session of the turn (case-insensitive), when `requestId` is not given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// The `approvalId` of the `approval_request`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub approval_id: Option<String>,
    /// `allow_once`, `allow_session`, `allow_always` (saves the request's
    /// `alwaysRule` to its `alwaysTarget` config) or `reject`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decision: Option<String>,
    /// With `reject`: what the model reads as the call's result.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// For an elicitation (`approval_request` with `kind: "elicitation"`;
    /// ours, additive): `accept`, `decline` or `cancel`; replaces
    /// `decision` (`reject` there declines).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub action: Option<String>,
    /// With `action: "accept"`: the field values, checked against the
    /// request's `requestedSchema` (values that do not fit are refused and
    /// the request stays pending).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content: Option<serde_json::Value>,
}

/// `agent.cancel`: one turn of this connection, the turn on a session, or
/// (with neither) all of this connection's turns.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CancelParams {
    /// The chat request id of the turn.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_id: Option<i64>,
    /// The turn running on this session, whichever client started it (ours,
    /// additive; `requestId` wins when both are given): a turn whose client
    /// left it running (`detach`) or another window's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
}
