//! `session.timeline` (ours, additive): a session's log as a front end redraws
//! it — what the user saw while its turns ran (tool rows with their summaries
//! and durations, steers, notices, how each turn ended), where `session.get`
//! keeps the desktop's message shape. Image data and tool output are left
//! out: a redraw needs neither, and a long session stays small.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The result of `session.timeline`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct SessionTimeline {
    /// The session id.
    pub id: String,
    /// The display title; null when unset.
    pub title: Option<String>,
    /// The workspace root; null for global sessions.
    pub workspace: Option<String>,
    /// Input tokens, summed over the session's turns.
    pub input_tokens: i64,
    /// Output tokens, summed.
    pub output_tokens: i64,
    /// What its provider calls cost in USD as the engine priced each (cache
    /// prices included; a model without prices adds nothing), summed from
    /// the same records as the token totals. Absent from older daemons.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
    /// The session's own model (set with `session.update {model}`); null
    /// when its turns use the config's.
    pub model: Option<String>,
    /// The log, oldest first.
    pub entries: Vec<TimelineEntry>,
    /// With `follow`: `session.watch {afterSeq: this}` streams what the
    /// entries leave out (the running turn, from its start) and then the
    /// live events, each once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub follow_after_seq: Option<u64>,
}

/// One entry of a session's timeline; `kind` tells which. `seq` is the
/// log event it comes from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(
    tag = "kind",
    rename_all = "snake_case",
    rename_all_fields = "camelCase",
    deny_unknown_fields
)]
pub enum TimelineEntry {
    /// A prompt that started a turn.
    User {
        /// Log position.
        seq: u64,
        /// The prompt as sent.
        text: String,
        /// Its images (name and size only).
        images: Vec<TimelineImage>,
    },
    /// Guidance the user sent into a running turn.
    Steer {
        /// Log position.
        seq: u64,
        /// The guidance as sent.
        text: String,
        /// Its images (name and size only).
        images: Vec<TimelineImage>,
    },
    /// One model step's answer and reasoning.
    Assistant {
        /// Log position.
        seq: u64,
        /// The answer text (Markdown); may be empty.
        text: String,
        /// The reasoning; null when none.
        thinking: Option<String>,
        /// The `provider/model` that answered; null when unknown.
        model_ref: Option<String>,
    },
    /// A tool call's row, as it showed when the call ended.
    Tool {
        /// Log position.
        seq: u64,
        /// The call id.
        call_id: String,
        /// The tool's name.
        name: String,
        /// The row's one-line summary (the result's, else the call's).
        summary: String,
        /// Whether the tool succeeded.
        success: bool,
        /// How long it ran, in milliseconds; null when the log predates it.
        duration_ms: Option<u64>,
        /// The unified diff of a file it changed; null otherwise.
        diff: Option<String>,
    },
    /// A notice of the engine the model read (a background job ended): not
    /// the user's words.
    Notice {
        /// Log position.
        seq: u64,
        /// The notice.
        text: String,
    },
    /// Another note the runtime gave the model (repair and continuation
    /// prompts, reminders, warnings, goal markers); front ends may hide it.
    Runtime {
        /// Log position.
        seq: u64,
        /// e.g. `repair`, `continuation`, `goal`, `plan`.
        note: String,
        /// The note as the model read it.
        text: String,
    },
    /// A compaction summary standing in for events `fromSeq..=toSeq`.
    Summary {
        /// Log position.
        seq: u64,
        /// The summary.
        text: String,
        /// First event it covers.
        from_seq: u64,
        /// Last event it covers.
        to_seq: u64,
    },
    /// How a turn ended.
    End {
        /// Log position.
        seq: u64,
        /// `done`, `cancelled`, `interrupted` (the daemon stopped first) or `failed`.
        status: String,
        /// The answer (`done`, `cancelled`) or what went wrong.
        text: String,
    },
    /// A lifecycle hook that ran (ours, additive; issue 39): what its
    /// `hook_finished` showed.
    Hook {
        /// Log position.
        seq: u64,
        /// The hook event (`PreToolUse`, `Stop`, …).
        event: String,
        /// The shell command.
        command: String,
        /// `managed`, `user` or `workspace`.
        source: String,
        /// The tool call it was about; null for other events.
        call_id: Option<String>,
        /// That call's tool, by Claude Code's name; null for other events.
        tool: Option<String>,
        /// Its exit code; null: killed at its timeout, or it could not start.
        exit_code: Option<i32>,
        /// Wall time, in milliseconds.
        duration_ms: f64,
        /// `ok`, `allow`, `ask`, `deny`, `block`, `stop`, `error`, `timeout` or `cancelled` (stopped with its turn).
        decision: String,
        /// The reason or stderr shown to the user; null when none.
        message: Option<String>,
    },
}

impl TimelineEntry {
    /// The entry's log position.
    pub fn seq(&self) -> u64 {
        match self {
            TimelineEntry::User { seq, .. }
            | TimelineEntry::Steer { seq, .. }
            | TimelineEntry::Assistant { seq, .. }
            | TimelineEntry::Tool { seq, .. }
            | TimelineEntry::Notice { seq, .. }
            | TimelineEntry::Runtime { seq, .. }
            | TimelineEntry::Summary { seq, .. }
            | TimelineEntry::Hook { seq, .. }
            | TimelineEntry::End { seq, .. } => *seq,
        }
    }
}

/// An image of a prompt, as its chip shows it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct TimelineImage {
    /// The file name.
    pub name: String,
    /// Its size in bytes.
    pub size_bytes: u64,
}
