//! `chat` (and its aliases), `agent.steer`, `agent.cancel`.

use schemars::JsonSchema;
use serde::Deserialize;
use serde::de::IgnoredAny;

use super::{Scope, ScopeParams};

/// `chat`, `agent.runTurn`, `agent/runTurn`: one turn. `message` (or `prompt`)
/// or `images` is required.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ChatParams {
    /// The user message (`prompt` is read when `message` is absent or null).
    pub message: Option<String>,
    /// Alias of `message`.
    pub prompt: Option<String>,
    /// Images attached to the message (checked by the image intake, not here).
    #[schemars(with = "Option<Vec<ImageInput>>")]
    pub images: Option<IgnoredAny>,
    /// The session to continue; without it, the connection's current session in
    /// the scope, else the newest, else a new one.
    pub session_id: Option<String>,
    /// A workspace path (walked up to its project root); must exist.
    pub workspace: Option<String>,
    /// The directory-free global scope.
    pub global: Option<bool>,
    /// none, low, medium, high, max, xhigh or ultra (case-insensitive); stored on the session.
    pub reasoning_level: Option<String>,
    /// The model for this turn alone (`provider/model`, an alias or a unique
    /// bare id; ours, additive): it alone answers, without failover; a name
    /// that matches no configured model is an error listing those there are.
    pub model: Option<String>,
    /// This client answers `approval_request` events with `agent.approve`
    /// (ours, additive). Without it, a call the approval policy would ask
    /// about is refused at once (nobody could answer).
    pub approvals: Option<bool>,
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
#[derive(Debug, Clone, Deserialize, JsonSchema)]
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
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SteerParams {
    /// The guidance text (`prompt` is read when `message` is absent or null).
    pub message: Option<String>,
    /// Alias of `message`.
    pub prompt: Option<String>,
    /// Images attached to the guidance.
    #[schemars(with = "Option<Vec<ImageInput>>")]
    pub images: Option<IgnoredAny>,
    /// The chat request id of the turn.
    pub request_id: Option<i64>,
    /// The session of the turn (case-insensitive), when `requestId` is not given.
    pub session_id: Option<String>,
}

/// `agent.approve`: a person's decision on a pending `approval_request`,
/// found by `approvalId` in the turn picked by `requestId` (a chat request id
/// on this connection) or `sessionId`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ApproveParams {
    /// The chat request id of the turn.
    pub request_id: Option<i64>,
    /// The session of the turn (case-insensitive), when `requestId` is not given.
    pub session_id: Option<String>,
    /// The `approvalId` of the `approval_request`.
    pub approval_id: Option<String>,
    /// `allow_once`, `allow_session` or `reject`.
    pub decision: Option<String>,
    /// With `reject`: what the model reads as the call's result.
    pub message: Option<String>,
}

/// `agent.cancel`: one turn of this connection, or (without `requestId`) all of them.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CancelParams {
    /// The chat request id of the turn.
    pub request_id: Option<i64>,
}
