//! Rebuilds the model-facing conversation from a session's append-only log.
//! Summaries replace the range they cover; images of earlier turns become a
//! short placeholder (only the current turn's images are sent).

use seekclaw_providers::types::{ChatMessage, Thinking, ToolCall};
use seekclaw_store::{EventItem, SessionEvent};

/// A user message's text plus placeholders for images it carried.
fn with_image_placeholders(text: &str, names: impl Iterator<Item = String>) -> String {
    let mut out = text.to_string();
    for name in names {
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(&format!("[image: {name} — shown in an earlier turn]"));
    }
    out
}

/// The conversation the model sees, from stored events in order, each message
/// with the sequence number of the event it came from.
pub fn conversation(events: &[SessionEvent]) -> Vec<(u64, ChatMessage)> {
    let mut out: Vec<(u64, ChatMessage)> = Vec::new();
    let mut after_answer = false;
    for ev in events {
        // Hook runs are the user's record, not the conversation.
        if matches!(ev.item, EventItem::Hook(_)) {
            continue;
        }
        let closes = seekclaw_store::closes_answer(&ev.item);
        let previous = std::mem::replace(&mut after_answer, closes);
        let msg = match &ev.item {
            // A final answer kept only in its terminal (an imported OpenSeek
            // turn): the model said it, so it reads it back.
            EventItem::Terminal(t) if seekclaw_store::replays_as_answer(t, previous) => {
                ChatMessage::Assistant {
                    text: t.text.clone(),
                    thinking: None,
                    tool_calls: Vec::new(),
                }
            }
            EventItem::User(u) | EventItem::Steer(u) => ChatMessage::User {
                text: with_image_placeholders(&u.text, u.images.iter().map(|i| i.name.clone())),
                images: Vec::new(),
            },
            EventItem::Assistant(a) => ChatMessage::Assistant {
                text: a.text.clone(),
                thinking: match (&a.thinking, &a.thinking_signature) {
                    (None, None) => None,
                    (t, sig) => Some(Thinking {
                        text: t.clone().unwrap_or_default(),
                        signature: sig.clone(),
                    }),
                },
                tool_calls: a
                    .tool_calls
                    .iter()
                    .map(|c| ToolCall {
                        id: c.id.clone(),
                        name: c.name.clone(),
                        arguments: c.arguments_json.clone(),
                    })
                    .collect(),
            },
            EventItem::ToolResult(r) => ChatMessage::Tool {
                call_id: r.tool_call_id.clone(),
                name: r.tool_name.clone(),
                content: r.output.clone(),
                is_error: !r.success,
                images: Vec::new(),
            },
            // A rewound range is not sent again.
            EventItem::Rewind(r) => {
                out.retain(|(seq, _)| *seq < r.from_seq);
                continue;
            }
            EventItem::Summary(s) => {
                out.retain(|(seq, _)| *seq < s.from_seq || *seq > s.to_seq);
                crate::context::summary_message(&s.text)
            }
            EventItem::Runtime(n)
                if matches!(
                    n.kind.as_str(),
                    "repair" | "continuation" | "goal" | "notice" | "reminder" | "hook"
                ) =>
            {
                ChatMessage::User {
                    text: n.text.clone(),
                    images: Vec::new(),
                }
            }
            EventItem::Runtime(_) | EventItem::Terminal(_) | EventItem::Hook(_) => continue,
        };
        out.push((ev.seq, msg));
    }
    out
}

/// The messages a step is sent, from the log events before it: the
/// [`conversation`], then the repair the turn loop gives every request (each
/// call answered, a synthesized failure for one left dangling; each result
/// called for). Each message with the seq of its event (`None` when
/// synthesized). Viewers (`seekclaw inspect`) show exactly this.
pub fn model_messages(events: &[SessionEvent]) -> Vec<(Option<u64>, ChatMessage)> {
    let (seqs, mut messages): (Vec<u64>, Vec<ChatMessage>) =
        conversation(events).into_iter().unzip();
    let origin = crate::context::repair_pairs_with_origin(&mut messages);
    origin
        .into_iter()
        .zip(messages)
        .map(|(o, m)| (o.and_then(|i| seqs.get(i).copied()), m))
        .collect()
}

#[cfg(test)]
mod tests {
    use seekclaw_store::{
        AssistantMessage, ImageAttachment, RuntimeNotice, Summary, TerminalStatus,
        ToolCall as StoredCall, ToolResult, TurnTerminal, UserMessage,
    };

    use super::*;

    fn ev(seq: u64, item: EventItem) -> SessionEvent {
        SessionEvent {
            seq,
            unix_ms: 0,
            turn: None,
            item,
        }
    }

    fn user(text: &str) -> EventItem {
        EventItem::User(UserMessage {
            text: text.into(),
            images: Vec::new(),
        })
    }

    #[test]
    fn model_messages_close_a_dangling_call_as_every_request_does() {
        let events = vec![
            ev(1, user("go")),
            ev(
                2,
                EventItem::Assistant(AssistantMessage {
                    tool_calls: vec![StoredCall {
                        id: "c1".into(),
                        name: "shell".into(),
                        arguments_json: "{}".into(),
                    }],
                    ..Default::default()
                }),
            ),
            ev(3, user("next")),
        ];
        let msgs = model_messages(&events);
        let seqs: Vec<Option<u64>> = msgs.iter().map(|(s, _)| *s).collect();
        assert_eq!(seqs, [Some(1), Some(2), None, Some(3)]);
        assert!(
            matches!(&msgs[2].1, ChatMessage::Tool { call_id, is_error: true, .. } if call_id == "c1")
        );
    }

    #[test]
    fn summaries_replace_their_range_and_images_become_placeholders() {
        let events = vec![
            ev(
                1,
                EventItem::User(UserMessage {
                    text: "look".into(),
                    images: vec![ImageAttachment {
                        name: "shot.png".into(),
                        ..ImageAttachment::default()
                    }],
                }),
            ),
            ev(
                2,
                EventItem::Assistant(AssistantMessage {
                    text: "ok".into(),
                    tool_calls: vec![StoredCall {
                        id: "c1".into(),
                        name: "read_file".into(),
                        arguments_json: "{}".into(),
                    }],
                    ..AssistantMessage::default()
                }),
            ),
            ev(
                3,
                EventItem::ToolResult(ToolResult {
                    tool_call_id: "c1".into(),
                    tool_name: "read_file".into(),
                    success: false,
                    output: "nope".into(),
                    ..ToolResult::default()
                }),
            ),
            ev(
                4,
                EventItem::Terminal(TurnTerminal {
                    status: TerminalStatus::Aborted,
                    text: "cancelled".into(),
                }),
            ),
            ev(5, user("second")),
            ev(
                6,
                EventItem::Summary(Summary {
                    text: "S".into(),
                    from_seq: 1,
                    to_seq: 3,
                }),
            ),
            ev(
                7,
                EventItem::Runtime(RuntimeNotice {
                    kind: "continuation".into(),
                    text: "go on".into(),
                }),
            ),
            ev(
                8,
                EventItem::Runtime(RuntimeNotice {
                    kind: "warning".into(),
                    text: "hidden".into(),
                }),
            ),
        ];
        let conv = conversation(&events);
        let seqs: Vec<u64> = conv.iter().map(|(s, _)| *s).collect();
        assert_eq!(seqs, [5, 6, 7]);
        assert!(
            matches!(&conv[1].1, ChatMessage::User { text, .. } if text.starts_with(">>> [Context compaction]"))
        );
        let before = conversation(&events[..3]);
        assert!(
            matches!(&before[0].1, ChatMessage::User { text, images } if text.contains("[image: shot.png") && images.is_empty())
        );
        assert!(matches!(
            &before[2].1,
            ChatMessage::Tool { is_error: true, .. }
        ));
    }

    #[test]
    fn a_final_answer_kept_only_in_its_terminal_is_read_back_as_the_models() {
        let finished = |text: &str| {
            EventItem::Terminal(TurnTerminal {
                status: TerminalStatus::Finished,
                text: text.into(),
            })
        };
        let events = vec![
            ev(1, user("one")),
            ev(2, finished("answer")),
            ev(3, user("two")),
            ev(
                4,
                EventItem::Assistant(AssistantMessage {
                    text: "ours".into(),
                    ..AssistantMessage::default()
                }),
            ),
            ev(5, finished("ours")),
            ev(6, user("three")),
            ev(7, finished("[context ceiling] yielded")),
        ];
        let conv = conversation(&events);
        let seqs: Vec<u64> = conv.iter().map(|(s, _)| *s).collect();
        assert_eq!(seqs, [1, 2, 3, 4, 6]);
        assert!(matches!(&conv[1].1, ChatMessage::Assistant { text, .. } if text == "answer"));
    }
}
