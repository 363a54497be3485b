//! Session and project records as the daemon sees them.

use serde::{Deserialize, Serialize};

/// What `create_session` needs.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct NewSession {
    pub scope: String,
    pub id: String,
    pub workspace: Option<String>,
    pub title: Option<String>,
    pub reasoning_level: String,
    pub network_enabled: bool,
}

/// The wire `SessionHeader` (reference §5.4); field order is the wire order.
/// A missing title or workspace is left out, as the original's serializer
/// does (`title?, workspace?`); `session.get` writes them as `null`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionHeader {
    /// Never empty in a stored header; `session.get` empties it after moving
    /// it to the front of its own object.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
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
    pub created_at: String,
    pub updated_at: String,
    /// The scope key the session lives in (not part of the wire shape).
    #[serde(skip)]
    pub scope: String,
    /// Owner id of the turn running on this session, if any (not on the wire).
    #[serde(skip)]
    pub active_turn: Option<String>,
}

/// A partial update; `None` leaves a field unchanged. `title: Some(None)`
/// clears the title.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SessionPatch {
    pub title: Option<Option<String>>,
    pub reasoning_level: Option<String>,
    pub network_enabled: Option<bool>,
    pub archived: Option<bool>,
}

/// Usage of one provider call (or a batch of them) added to a session's
/// counters, all added up. `execution_steps` is one turn's highest step
/// (reference §2.5: accumulated per turn and added to the session row).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct UsageDelta {
    pub llm_rounds: i64,
    pub execution_steps: i64,
    pub input_tokens: i64,
    pub total_input_tokens: i64,
    pub cached_input_tokens: i64,
    pub output_tokens: i64,
    pub output_elapsed_ms: i64,
}

/// A registered project (workspace folder).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Project {
    pub id: String,
    pub path: String,
    pub name: String,
    pub created_at: String,
    pub updated_at: String,
}

/// Row counts for `status`/`doctor`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StoreStats {
    pub sessions: i64,
    pub events: i64,
}
