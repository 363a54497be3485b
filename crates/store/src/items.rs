//! The typed items of a session's append-only event log.
//!
//! Serialized with an internal `type` tag (snake_case); that tag is also
//! the `kind` column of `session_events`.

use serde::{Deserialize, Serialize};

/// One entry of a session's log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum EventItem {
    /// What the user sent to start or continue a turn.
    User(UserMessage),
    /// One model step: its text, reasoning and tool calls.
    Assistant(AssistantMessage),
    /// The outcome of one tool call.
    ToolResult(ToolResult),
    /// Steering guidance drained into a running turn.
    Steer(UserMessage),
    /// A compaction summary covering a range of earlier events.
    Summary(Summary),
    /// Repair prompts, truncation nudges and warnings injected by the runtime.
    Runtime(RuntimeNotice),
    /// The end of a turn.
    Terminal(TurnTerminal),
    /// The conversation was rewound to before the user message at
    /// `fromSeq`: neither the model nor `session.get` sees the events from
    /// there to this marker (the log itself stays append-only).
    Rewind(RewindMarker),
    /// A hook command ran (its event, exit and decision); no model reads it.
    Hook(HookRecord),
}

impl EventItem {
    /// The serde tag, stored in the `kind` column.
    pub fn kind(&self) -> &'static str {
        match self {
            EventItem::User(_) => "user",
            EventItem::Assistant(_) => "assistant",
            EventItem::ToolResult(_) => "tool_result",
            EventItem::Steer(_) => "steer",
            EventItem::Summary(_) => "summary",
            EventItem::Runtime(_) => "runtime",
            EventItem::Terminal(_) => "terminal",
            EventItem::Rewind(_) => "rewind",
            EventItem::Hook(_) => "hook",
        }
    }
}

/// A user message and its attached images.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UserMessage {
    /// The message text.
    pub text: String,
    /// Images sent with the message.
    #[serde(default)]
    pub images: Vec<ImageAttachment>,
}

/// An image as clients send and receive it: `data` is base64. In the
/// database only a hash reference is kept; the bytes live in `blobs`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ImageAttachment {
    /// Id of the image.
    pub id: String,
    /// File name shown to the user.
    pub name: String,
    /// MIME type, e.g. `image/png`.
    pub media_type: String,
    /// The image bytes in base64 (the log itself keeps only their blob hash).
    pub data: String,
    /// Size of the image in bytes.
    pub size_bytes: u64,
}

/// One assistant step as stored.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AssistantMessage {
    /// The visible answer text.
    pub text: String,
    /// The model's reasoning, when it returned any.
    pub thinking: Option<String>,
    /// Anthropic thinking-block signature, needed to send thinking back.
    pub thinking_signature: Option<String>,
    /// The model that actually answered (after failover).
    pub model_ref: Option<String>,
    /// Tool calls the step asked for, in order.
    #[serde(default)]
    pub tool_calls: Vec<ToolCall>,
    /// Images the model was shown in this step.
    #[serde(default)]
    pub viewed_images: Vec<ViewedImage>,
    /// Why the model stopped (`FinishReason::as_str` of the providers crate).
    pub finish_reason: Option<String>,
    /// What the step's provider calls used (absent in logs from before it
    /// was recorded and in imported files).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<StepUsage>,
}

/// Tokens and cost of one step: every provider attempt it took (a failed
/// attempt's cost included).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StepUsage {
    /// Every input token, cached or not.
    pub input_tokens: u64,
    /// Input tokens read from the prompt cache.
    pub cached_input_tokens: u64,
    /// Output tokens (reasoning included).
    pub output_tokens: u64,
    /// Output tokens spent on reasoning, when the provider says.
    pub reasoning_tokens: u64,
    /// Cost in billionths of a USD (an integer keeps the item `Eq` and exact).
    pub cost_nano_usd: u64,
}

/// A tool call as the model made it.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolCall {
    /// Call id, matched by the tool result.
    pub id: String,
    /// Name of the tool called.
    pub name: String,
    /// The arguments as JSON text.
    pub arguments_json: String,
}

/// An image a tool showed the model, by reference.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ViewedImage {
    /// Id of the image.
    pub id: String,
    /// File name shown to the user.
    pub name: String,
}

/// What a tool call returned.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolResult {
    /// Id of the call this answers.
    pub tool_call_id: String,
    /// Name of the tool that ran.
    pub tool_name: String,
    /// False when the tool failed.
    pub success: bool,
    /// The text the model saw.
    pub output: String,
    /// Unified diff of the file change, for file-editing tools.
    pub diff: Option<String>,
    /// Workspace-relative path of the file the tool touched.
    pub file_path: Option<String>,
    /// The one-line summary the call's row showed (the result's, else the
    /// call's), kept so a reopened session redraws it; `None` in older logs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    /// How long the call ran, in whole milliseconds; `None` in older logs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
    /// The call had no row while it ran (`finish`: its answer ends the turn).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub silent: bool,
}

/// A compaction summary standing in for a range of earlier events.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Summary {
    /// The summary text.
    pub text: String,
    /// First event sequence number it covers.
    pub from_seq: u64,
    /// Last event sequence number it covers.
    pub to_seq: u64,
}

/// A conversation rewind (see [`EventItem::Rewind`]).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RewindMarker {
    /// The first event rewound (the user message rewound to).
    pub from_seq: u64,
    /// The code was restored too.
    #[serde(default)]
    pub code: bool,
}

/// One hook run (see [`EventItem::Hook`]).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HookRecord {
    /// The event (`PreToolUse`).
    pub event: String,
    /// The command.
    pub command: String,
    /// Its layer: `managed`, `user` or `workspace`.
    pub source: String,
    /// The tool call it was about.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call_id: Option<String>,
    /// That call's tool, as Claude Code names it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// Its exit code; `None`: killed at its timeout or never started.
    #[serde(default)]
    pub exit_code: Option<i32>,
    /// Wall time.
    #[serde(default)]
    pub duration_ms: f64,
    /// `ok`, `allow`, `ask`, `deny`, `block`, `stop`, `error`, `timeout` or `cancelled` (stopped with its turn).
    pub decision: String,
    /// What it said to the user (a reason, its stderr).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

impl Eq for HookRecord {}

/// A note the runtime injected into a turn.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RuntimeNotice {
    /// e.g. "repair", "continuation", "warning".
    pub kind: String,
    /// The note's text.
    pub text: String,
}

/// How a turn ended, with its closing text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TurnTerminal {
    /// The kind of ending.
    pub status: TerminalStatus,
    /// The final answer or the reason it stopped.
    pub text: String,
}

/// How a turn ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TerminalStatus {
    /// The model finished its answer.
    Finished,
    /// The turn was cancelled.
    Aborted,
    /// The daemon stopped before the turn's end was written.
    Interrupted,
    /// An error ended the turn.
    Failed,
}

/// An event as read back from the log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionEvent {
    /// Position in the session's log, from 1.
    pub seq: u64,
    /// When it was appended (Unix milliseconds).
    pub unix_ms: i64,
    /// Owner id of the turn that wrote it, if any.
    pub turn: Option<String>,
    /// The event itself.
    pub item: EventItem,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tag_matches_kind() {
        let items = [
            EventItem::User(UserMessage::default()),
            EventItem::Assistant(AssistantMessage::default()),
            EventItem::ToolResult(ToolResult::default()),
            EventItem::Steer(UserMessage::default()),
            EventItem::Summary(Summary::default()),
            EventItem::Runtime(RuntimeNotice::default()),
            EventItem::Terminal(TurnTerminal {
                status: TerminalStatus::Interrupted,
                text: String::new(),
            }),
        ];
        for item in items {
            let v = serde_json::to_value(&item).unwrap();
            assert_eq!(v["type"], item.kind());
            let back: EventItem = serde_json::from_value(v).unwrap();
            assert_eq!(back, item);
        }
    }

    #[test]
    fn wire_names_are_camel_case() {
        let item = EventItem::Summary(Summary {
            text: "s".into(),
            from_seq: 1,
            to_seq: 9,
        });
        assert_eq!(
            serde_json::to_string(&item).unwrap(),
            r#"{"type":"summary","text":"s","fromSeq":1,"toSeq":9}"#
        );
        let t = TurnTerminal {
            status: TerminalStatus::Finished,
            text: "done".into(),
        };
        assert_eq!(
            serde_json::to_string(&t).unwrap(),
            r#"{"status":"finished","text":"done"}"#
        );
    }
}
