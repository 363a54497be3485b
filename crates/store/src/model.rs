//! Session and project records as the daemon sees them.

use serde::{Deserialize, Serialize};

/// What `create_session` needs.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct NewSession {
    /// Scope key the session belongs to.
    pub scope: String,
    /// Session id, unique within the scope.
    pub id: String,
    /// Workspace folder the session works in.
    pub workspace: Option<String>,
    /// Display title.
    pub title: Option<String>,
    /// Reasoning level the session starts with.
    pub reasoning_level: String,
    /// Whether network tools may run.
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
    /// Display title, if set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Workspace folder, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workspace: Option<String>,
    /// Hidden from the default session list.
    pub archived: bool,
    /// Reasoning level of the session's turns.
    pub reasoning_level: String,
    /// Whether network tools may run.
    pub network_enabled: bool,
    /// Provider calls made, summed over turns.
    pub llm_rounds: i64,
    /// Execution steps, each turn's highest step summed.
    pub execution_steps: i64,
    /// Input tokens of the session's provider calls, summed.
    pub input_tokens: i64,
    /// Every input token, cached or not, summed.
    pub total_input_tokens: i64,
    /// Input tokens read from a prompt cache, summed.
    pub cached_input_tokens: i64,
    /// Output tokens, summed.
    pub output_tokens: i64,
    /// Time the provider calls took (ms), summed.
    pub output_elapsed_ms: i64,
    /// Creation time (ISO 8601, UTC).
    pub created_at: String,
    /// Last change (ISO 8601, UTC); lists sort by it.
    pub updated_at: String,
    /// The session whose turn started this one (a subagent's child
    /// session); left out for a top-level session.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_id: Option<String>,
    /// The session and user message this one was forked from; left out
    /// for a session that is no fork.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forked_from: Option<ForkedFrom>,
    /// The scope key the session lives in (not part of the wire shape).
    #[serde(skip)]
    pub scope: String,
    /// Owner id of the turn running on this session, if any (not on the wire).
    #[serde(skip)]
    pub active_turn: Option<String>,
}

/// Where a forked session came from: `{sessionId, seq}`, the seq of the
/// user message it was forked at (the fork holds the events before it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ForkedFrom {
    /// The source session.
    pub session_id: String,
    /// The user message forked at.
    pub seq: u64,
}

/// A partial update; `None` leaves a field unchanged. `title: Some(None)`
/// clears the title.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SessionPatch {
    /// New title; `Some(None)` clears it.
    pub title: Option<Option<String>>,
    /// New reasoning level.
    pub reasoning_level: Option<String>,
    /// Allow or forbid network tools.
    pub network_enabled: Option<bool>,
    /// Archive or unarchive.
    pub archived: Option<bool>,
}

/// A registered project (workspace folder).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Project {
    /// Project id.
    pub id: String,
    /// Absolute path of the folder.
    pub path: String,
    /// Display name.
    pub name: String,
    /// Registration time (ISO 8601, UTC).
    pub created_at: String,
    /// Last change (ISO 8601, UTC).
    pub updated_at: String,
}

/// Row counts for `status`/`doctor`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StoreStats {
    /// Sessions in every scope.
    pub sessions: i64,
    /// Events in every session log.
    pub events: i64,
}
