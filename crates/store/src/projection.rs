//! Projection of the event log to the message shape `session.get` returns
//! (reference §5.4, plus `modelRef`).

use serde::{Deserialize, Serialize};

use crate::items::{
    EventItem, ImageAttachment, SessionEvent, TerminalStatus, TurnTerminal, UserMessage,
    ViewedImage,
};

/// Prefix of a compaction summary shown as a user message.
pub const SUMMARY_PREFIX: &str = ">>> [Context compaction]\n\n";

/// Runtime notice kinds that the model saw as user turns, and so are shown
/// (`goal`: goal markers). Engine notices (`notice`: a background job ended,
/// a reminder) are not: the user never typed them, and live they are not
/// steers either (`notice` events), so a reload must not show them as prompts.
const VISIBLE_RUNTIME_KINDS: [&str; 3] = ["repair", "continuation", "goal"];

/// One message of `session.get`. Field order is the wire order; every field
/// is always present (null or `[]` when absent).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Message {
    /// `user`, `assistant` or `tool`.
    pub role: String,
    /// The message text.
    pub text: String,
    /// Images the user attached.
    pub images: Vec<ImageAttachment>,
    /// The model's reasoning, for assistant messages.
    pub thinking: Option<String>,
    /// Images the model was shown in this step.
    pub viewed_images: Vec<ViewedImage>,
    /// Tool calls of an assistant message.
    pub tool_calls: Vec<ToolCallRef>,
    /// For a tool message, the call it answers.
    pub tool_call_id: Option<String>,
    /// For a tool message, the tool that ran.
    pub tool_name: Option<String>,
    /// For a tool message, whether the tool succeeded.
    pub tool_success: bool,
    /// For a tool message, the diff of its file change.
    pub tool_diff: Option<String>,
    /// For a tool message, the file it touched.
    pub tool_file_path: Option<String>,
    /// The model that answered an assistant message.
    pub model_ref: Option<String>,
    /// The event this message was projected from (not on the wire).
    #[serde(skip)]
    pub seq: u64,
}

/// A tool call as shown to clients: no arguments.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolCallRef {
    /// Call id.
    pub id: String,
    /// Name of the tool called.
    pub name: String,
}

impl Message {
    fn plain(role: &str, text: String, seq: u64) -> Message {
        Message {
            role: role.to_string(),
            text,
            images: Vec::new(),
            thinking: None,
            viewed_images: Vec::new(),
            tool_calls: Vec::new(),
            tool_call_id: None,
            tool_name: None,
            tool_success: true,
            tool_diff: None,
            tool_file_path: None,
            model_ref: None,
            seq,
        }
    }

    /// A final answer kept only in a terminal (see [`replays_as_answer`]).
    pub(crate) fn answer(text: String, seq: u64) -> Message {
        Message::plain("assistant", text, seq)
    }

    fn user(m: UserMessage, seq: u64) -> Message {
        Message {
            images: m.images,
            ..Message::plain("user", m.text, seq)
        }
    }

    /// The message an event shows as, or `None` for events that are not
    /// messages (terminals, internal runtime notices).
    pub fn from_item(seq: u64, item: EventItem) -> Option<Message> {
        match item {
            EventItem::User(m) | EventItem::Steer(m) => Some(Message::user(m, seq)),
            EventItem::Assistant(a) => Some(Message {
                thinking: a.thinking,
                viewed_images: a.viewed_images,
                tool_calls: a
                    .tool_calls
                    .into_iter()
                    .map(|c| ToolCallRef {
                        id: c.id,
                        name: c.name,
                    })
                    .collect(),
                model_ref: a.model_ref,
                ..Message::plain("assistant", a.text, seq)
            }),
            EventItem::ToolResult(t) => Some(Message {
                tool_call_id: Some(t.tool_call_id),
                tool_name: Some(t.tool_name),
                tool_success: t.success,
                tool_diff: t.diff,
                tool_file_path: t.file_path,
                ..Message::plain("tool", t.output, seq)
            }),
            EventItem::Summary(s) => Some(Message::plain(
                "user",
                format!("{SUMMARY_PREFIX}{}", s.text),
                seq,
            )),
            EventItem::Runtime(r) if is_visible_runtime(&r.kind) => {
                Some(Message::plain("user", r.text, seq))
            }
            EventItem::Runtime(_)
            | EventItem::Terminal(_)
            | EventItem::Rewind(_)
            | EventItem::Hook(_) => None,
        }
    }
}

/// Projects a whole log, in order.
pub fn project(events: impl IntoIterator<Item = SessionEvent>) -> Vec<Message> {
    let mut out = Vec::new();
    let mut after_answer = false;
    for e in events {
        // Hook runs are not part of the conversation (nor of whether a
        // terminal repeats the answer before it).
        if matches!(e.item, EventItem::Hook(_)) {
            continue;
        }
        let closes = closes_answer(&e.item);
        match e.item {
            EventItem::Terminal(t) if replays_as_answer(&t, after_answer) => {
                out.push(Message::answer(t.text, e.seq));
            }
            // A rewound range is gone from what clients are shown.
            EventItem::Rewind(r) => out.retain(|m: &Message| m.seq < r.from_seq),
            item => out.extend(Message::from_item(e.seq, item)),
        }
        after_answer = closes;
    }
    out
}

/// How OpenSeek's context-ceiling yield answers begin (§4.5): not an answer.
pub const CONTEXT_CEILING: &str = "[context ceiling]";

/// Whether `item` already says a turn's last word, so that a `finished`
/// terminal right after it is no answer of its own: an assistant message
/// (ours repeat the answer in the terminal) or the `finish` tool's result
/// (the finish message, which our model view never replayed).
pub fn closes_answer(item: &EventItem) -> bool {
    match item {
        EventItem::Assistant(_) => true,
        EventItem::ToolResult(r) => r.tool_name == FINISH_TOOL,
        _ => false,
    }
}

/// The control tool that ends a turn with a message.
pub(crate) const FINISH_TOOL: &str = "finish";

/// Whether a terminal is a final answer to show (and send the model) as an
/// assistant message: OpenSeek keeps a plain final answer only in its
/// `finished` terminal (§4.1) and replays it so; an imported log keeps it
/// that way, unchanged. Not blank, not a `[context ceiling]` yield, and not
/// right after an event that [`closes_answer`] (`after_answer`).
pub fn replays_as_answer(t: &TurnTerminal, after_answer: bool) -> bool {
    t.status == TerminalStatus::Finished
        && !after_answer
        && !t.text.trim().is_empty()
        && !t.text.starts_with(CONTEXT_CEILING)
}

pub(crate) fn is_visible_runtime(kind: &str) -> bool {
    VISIBLE_RUNTIME_KINDS.contains(&kind)
}

/// Whether an event row projects to a message, from its `kind` column and,
/// for runtime notices, the notice's own kind.
/// (Terminals are decided by [`replays_as_answer`].)
pub(crate) fn is_message_row(kind: &str, runtime_kind: Option<&str>) -> bool {
    match kind {
        "user" | "steer" | "assistant" | "tool_result" | "summary" => true,
        "runtime" => runtime_kind.is_some_and(is_visible_runtime),
        _ => false,
    }
}
