//! The typed items of a session's append-only event log.
//!
//! Serialized with an internal `type` tag (snake_case); that tag is also
//! the `kind` column of `session_events`.

use serde::{Deserialize, Serialize};

/// One entry of a session's log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum EventItem {
    User(UserMessage),
    Assistant(AssistantMessage),
    ToolResult(ToolResult),
    /// Steering guidance drained into a running turn.
    Steer(UserMessage),
    /// A compaction summary covering a range of earlier events.
    Summary(Summary),
    /// Repair prompts, truncation nudges and warnings injected by the runtime.
    Runtime(RuntimeNotice),
    /// The end of a turn.
    Terminal(TurnTerminal),
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
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UserMessage {
    pub text: String,
    #[serde(default)]
    pub images: Vec<ImageAttachment>,
}

/// An image as clients send and receive it: `data` is base64. In the
/// database only a hash reference is kept; the bytes live in `blobs`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ImageAttachment {
    pub id: String,
    pub name: String,
    pub media_type: String,
    pub data: String,
    pub size_bytes: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AssistantMessage {
    pub text: String,
    pub thinking: Option<String>,
    /// Anthropic thinking-block signature, needed to send thinking back.
    pub thinking_signature: Option<String>,
    /// The model that actually answered (after failover).
    pub model_ref: Option<String>,
    #[serde(default)]
    pub tool_calls: Vec<ToolCall>,
    #[serde(default)]
    pub viewed_images: Vec<ViewedImage>,
    pub finish_reason: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    pub arguments_json: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ViewedImage {
    pub id: String,
    pub name: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolResult {
    pub tool_call_id: String,
    pub tool_name: String,
    pub success: bool,
    pub output: String,
    pub diff: Option<String>,
    /// Workspace-relative path of the file the tool touched.
    pub file_path: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Summary {
    pub text: String,
    pub from_seq: u64,
    pub to_seq: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RuntimeNotice {
    /// e.g. "repair", "continuation", "warning".
    pub kind: String,
    pub text: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TurnTerminal {
    pub status: TerminalStatus,
    pub text: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TerminalStatus {
    Finished,
    Aborted,
    Interrupted,
    Failed,
}

/// An event as read back from the log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionEvent {
    pub seq: u64,
    pub unix_ms: i64,
    pub turn: Option<String>,
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
