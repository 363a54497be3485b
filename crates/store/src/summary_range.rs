//! Whether a summary written by hand may cover a range of a log
//! (`seekclaw sessions compact ID --file F --from A --to B`, as OpenSeek's
//! `sessions compact`): the model view replaces the range with the summary,
//! so the range must exist and must not part a tool call from its result
//! (the model would be sent an answer to a call it never made, or a call
//! without its answer).

use std::collections::HashMap;

use crate::items::{EventItem, SessionEvent};

/// Why `from..=to` cannot be summarized in `events` (a whole log, seqs from
/// 1), or `None` when it can.
pub fn summary_range_error(events: &[SessionEvent], from: u64, to: u64) -> Option<String> {
    let last = events.last().map_or(0, |e| e.seq);
    if last == 0 {
        return Some("the session has no events to summarize".into());
    }
    if from == 0 || from > to {
        return Some(format!(
            "invalid range {from}..{to}: it must run from 1 or later up to an equal or later event"
        ));
    }
    if to > last {
        return Some(format!(
            "invalid range {from}..{to}: the log ends at event {last}"
        ));
    }
    // Where each tool call is made.
    let mut call_at: HashMap<&str, u64> = HashMap::new();
    for e in events {
        match &e.item {
            EventItem::Assistant(a) => {
                for c in &a.tool_calls {
                    call_at.insert(c.id.as_str(), e.seq);
                }
            }
            EventItem::ToolResult(r) => {
                let Some(&at) = call_at.get(r.tool_call_id.as_str()) else {
                    continue;
                };
                let inside = |seq: u64| (from..=to).contains(&seq);
                if inside(at) != inside(e.seq) {
                    return Some(format!(
                        "invalid range {from}..{to}: it parts tool call {} (event {at}) from its result (event {})",
                        r.tool_call_id, e.seq
                    ));
                }
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::items::{AssistantMessage, ToolCall, ToolResult};
    use crate::testutil::user;

    fn log() -> Vec<SessionEvent> {
        let items = [
            user("one"),
            EventItem::Assistant(AssistantMessage {
                tool_calls: vec![ToolCall {
                    id: "c1".into(),
                    name: "read".into(),
                    arguments_json: "{}".into(),
                }],
                ..Default::default()
            }),
            EventItem::ToolResult(ToolResult {
                tool_call_id: "c1".into(),
                tool_name: "read".into(),
                ..Default::default()
            }),
            user("two"),
        ];
        items
            .into_iter()
            .enumerate()
            .map(|(i, item)| SessionEvent {
                seq: i as u64 + 1,
                unix_ms: 0,
                turn: None,
                item,
            })
            .collect()
    }

    #[test]
    fn ranges_are_checked_against_the_log() {
        let log = log();
        assert_eq!(summary_range_error(&log, 1, 4), None);
        assert_eq!(summary_range_error(&log, 1, 3), None);
        assert_eq!(summary_range_error(&log, 4, 4), None);
        let err = |from, to| summary_range_error(&log, from, to).unwrap();
        assert!(err(0, 2).contains("must run from 1"), "{}", err(0, 2));
        assert!(err(3, 2).contains("must run from 1"));
        assert_eq!(err(2, 5), "invalid range 2..5: the log ends at event 4");
        assert_eq!(
            err(1, 2),
            "invalid range 1..2: it parts tool call c1 (event 2) from its result (event 3)"
        );
        assert!(err(3, 4).contains("parts tool call c1"));
        assert_eq!(
            summary_range_error(&[], 1, 1).unwrap(),
            "the session has no events to summarize"
        );
    }
}
