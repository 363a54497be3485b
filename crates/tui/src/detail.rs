//! `session.get` read into just what the conversation view shows: parsing
//! straight into these types (not a `serde_json::Value` tree) keeps opening a
//! 5,000-message session small, and image data is skipped unread.

use serde::Deserialize;

/// A session as `session.get` returns it (the fields the UI uses).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct SessionDetail {
    /// The session id.
    pub id: String,
    /// Input tokens, summed.
    pub input_tokens: u64,
    /// Output tokens, summed.
    pub output_tokens: u64,
    /// The session's own model (`/model`), if it has one.
    pub model: Option<String>,
    /// The conversation, oldest first.
    pub messages: Vec<DetailMessage>,
}

/// One message of a session.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct DetailMessage {
    /// `user`, `assistant` or `tool`.
    pub role: String,
    /// Its text.
    pub text: String,
    /// An assistant step's reasoning.
    pub thinking: Option<String>,
    /// The model that wrote an assistant step.
    pub model_ref: Option<String>,
    /// A tool result's call.
    pub tool_call_id: Option<String>,
    /// A tool result's tool.
    pub tool_name: Option<String>,
    /// Whether the tool succeeded (absent: it did).
    pub tool_success: Option<bool>,
    /// The diff of a file the tool changed.
    pub tool_diff: Option<String>,
    /// A prompt's images (their data is not read).
    pub images: Vec<ImageRef>,
}

/// An image of a prompt, as its chip needs it.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ImageRef {
    /// Its file name.
    pub name: Option<String>,
    /// Its size in bytes.
    pub size_bytes: Option<u64>,
}
