//! A session's log as a front end redraws it (`session.timeline`): each
//! event becomes the entry the live turn showed — a tool result its row
//! (summary, duration, diff), an engine notice a notice rather than the
//! user's words, a turn's terminal how it ended.

use std::collections::HashMap;

use seekclaw_protocol::api::{SessionTimeline, TimelineEntry, TimelineImage};
use seekclaw_store::{
    EventItem, ImageAttachment, SessionEvent, SessionHeader, TerminalStatus, ToolResult,
};

/// Runtime notes that are engine notices (a background job ended, a goal
/// marker while a turn ran): shown to the user as notices.
const NOTICE_KIND: &str = "notice";

/// The timeline of a session: its header's totals and its whole log.
pub fn session_timeline(
    header: SessionHeader,
    cost_usd: Option<f64>,
    model: Option<String>,
    events: Vec<SessionEvent>,
) -> SessionTimeline {
    SessionTimeline {
        id: header.id,
        title: header.title,
        workspace: header.workspace,
        input_tokens: header.input_tokens,
        output_tokens: header.output_tokens,
        cost_usd,
        model,
        entries: timeline(events),
        follow_after_seq: None,
    }
}

/// Every event of a log as its timeline entry, in order (results of calls
/// that had no row while they ran are left out).
pub fn timeline(events: Vec<SessionEvent>) -> Vec<TimelineEntry> {
    // Older logs kept no row summary: the call's arguments give one.
    let mut arguments: HashMap<String, String> = HashMap::new();
    let mut out = Vec::with_capacity(events.len());
    for SessionEvent { seq, item, .. } in events {
        let entry = match item {
            EventItem::User(m) => TimelineEntry::User {
                seq,
                text: m.text,
                images: images(&m.images),
            },
            EventItem::Steer(m) => TimelineEntry::Steer {
                seq,
                text: m.text,
                images: images(&m.images),
            },
            EventItem::Assistant(a) => {
                for call in a.tool_calls {
                    arguments.insert(call.id, call.arguments_json);
                }
                TimelineEntry::Assistant {
                    seq,
                    text: a.text,
                    thinking: a.thinking,
                    model_ref: a.model_ref,
                }
            }
            // A rewound range is gone from the session's story.
            EventItem::Rewind(r) => {
                out.retain(|e: &TimelineEntry| e.seq() < r.from_seq);
                continue;
            }
            EventItem::ToolResult(t) if t.silent => continue,
            EventItem::ToolResult(t) => {
                let args = arguments.remove(&t.tool_call_id);
                tool_row(seq, t, args.as_deref())
            }
            EventItem::Summary(s) => TimelineEntry::Summary {
                seq,
                text: s.text,
                from_seq: s.from_seq,
                to_seq: s.to_seq,
            },
            EventItem::Runtime(r) if r.kind == NOTICE_KIND => {
                TimelineEntry::Notice { seq, text: r.text }
            }
            EventItem::Runtime(r) => TimelineEntry::Runtime {
                seq,
                note: r.kind,
                text: r.text,
            },
            EventItem::Hook(h) => TimelineEntry::Hook {
                seq,
                event: h.event,
                command: h.command,
                source: h.source,
                call_id: h.call_id,
                tool: h.tool,
                exit_code: h.exit_code,
                duration_ms: h.duration_ms,
                decision: h.decision,
                message: h.message,
            },
            EventItem::Terminal(t) => TimelineEntry::End {
                seq,
                status: end_status(t.status).to_string(),
                text: t.text,
            },
        };
        out.push(entry);
    }
    out
}

/// The wire name of how a turn ended (the terminal events' names).
pub fn end_status(status: TerminalStatus) -> &'static str {
    match status {
        TerminalStatus::Finished => "done",
        TerminalStatus::Aborted => "cancelled",
        TerminalStatus::Interrupted => "interrupted",
        TerminalStatus::Failed => "failed",
    }
}

fn tool_row(seq: u64, t: ToolResult, arguments: Option<&str>) -> TimelineEntry {
    let summary = t.summary.unwrap_or_else(|| {
        arguments
            .and_then(|a| serde_json::from_str(a).ok())
            .map(|v| seekclaw_agent::call_summary(&v))
            .unwrap_or_default()
    });
    TimelineEntry::Tool {
        seq,
        call_id: t.tool_call_id,
        name: t.tool_name,
        summary,
        success: t.success,
        duration_ms: t.duration_ms,
        diff: t.diff,
    }
}

fn images(images: &[ImageAttachment]) -> Vec<TimelineImage> {
    images
        .iter()
        .map(|i| TimelineImage {
            name: i.name.clone(),
            size_bytes: i.size_bytes,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use seekclaw_store::{AssistantMessage, RuntimeNotice, ToolCall, TurnTerminal, UserMessage};

    fn ev(seq: u64, item: EventItem) -> SessionEvent {
        SessionEvent {
            seq,
            unix_ms: 0,
            turn: None,
            item,
        }
    }

    #[test]
    fn rows_notices_and_ends_are_what_the_turn_showed() {
        let events = vec![
            ev(
                1,
                EventItem::User(UserMessage {
                    text: "hi".into(),
                    images: Vec::new(),
                }),
            ),
            ev(
                2,
                EventItem::Assistant(AssistantMessage {
                    tool_calls: vec![
                        ToolCall {
                            id: "old".into(),
                            name: "read_file".into(),
                            arguments_json: r#"{"path":"a.py"}"#.into(),
                        },
                        ToolCall {
                            id: "new".into(),
                            name: "bash".into(),
                            arguments_json: r#"{"command":"ls"}"#.into(),
                        },
                    ],
                    ..Default::default()
                }),
            ),
            // A log written before rows were kept: the call's arguments.
            ev(
                3,
                EventItem::ToolResult(ToolResult {
                    tool_call_id: "old".into(),
                    tool_name: "read_file".into(),
                    success: true,
                    output: "1def add(a, b):".into(),
                    ..Default::default()
                }),
            ),
            ev(
                4,
                EventItem::ToolResult(ToolResult {
                    tool_call_id: "new".into(),
                    tool_name: "bash".into(),
                    success: false,
                    output: "boom".into(),
                    summary: Some("exit 1".into()),
                    duration_ms: Some(12),
                    ..Default::default()
                }),
            ),
            ev(
                5,
                EventItem::ToolResult(ToolResult {
                    tool_call_id: "f".into(),
                    tool_name: "finish".into(),
                    silent: true,
                    ..Default::default()
                }),
            ),
            ev(
                6,
                EventItem::Runtime(RuntimeNotice {
                    kind: "notice".into(),
                    text: "job bg-1 ended".into(),
                }),
            ),
            ev(
                7,
                EventItem::Terminal(TurnTerminal {
                    status: TerminalStatus::Aborted,
                    text: String::new(),
                }),
            ),
        ];
        let t = timeline(events);
        assert_eq!(t.len(), 6, "the silent finish result has no row: {t:?}");
        assert!(
            matches!(&t[2], TimelineEntry::Tool { summary, duration_ms: None, .. } if summary == "path: a.py")
        );
        assert!(
            matches!(&t[3], TimelineEntry::Tool { summary, duration_ms: Some(12), success: false, .. } if summary == "exit 1")
        );
        assert!(matches!(&t[4], TimelineEntry::Notice { text, .. } if text == "job bg-1 ended"));
        assert!(matches!(&t[5], TimelineEntry::End { status, .. } if status == "cancelled"));
        let wire = serde_json::to_value(&t[3]).unwrap();
        assert_eq!(wire["kind"], "tool");
        assert_eq!(wire["durationMs"], 12);
        assert_eq!(wire["callId"], "new");
    }
}
