//! Fills a home's database with a big, realistic history through the Store
//! API (the same code path the daemon writes with), so startup and read
//! figures are measured on data the daemon itself would have produced.

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{Result, bail};
use seekclaw_store::{
    AssistantMessage, EventItem, NewSession, Store, ToolCall, ToolResult, UserMessage,
};

/// Every bench session lives in the global scope, so `session.list {"global":true}` lists all.
pub const SCOPE: &str = "global";
/// The session holding the big projected history (`session.get` target).
pub const BIG_SESSION_ID: &str = "20260101-000000-b19b19";
/// Events per `append_events` call (one transaction each) for the big session.
const BIG_BATCH: usize = 1_000;

/// How much history to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HomeShape {
    /// Sessions in total, the big one included.
    pub sessions: usize,
    /// Events in total, the big session's included.
    pub events: usize,
    /// Events (each one projected message) of the big session.
    pub big_messages: usize,
}

impl HomeShape {
    pub const FULL: HomeShape = HomeShape {
        sessions: 10_000,
        events: 1_000_000,
        big_messages: 5_000,
    };

    /// Events of the `i`-th small session (0-based): the rest spread evenly.
    fn small_events(&self, i: usize) -> usize {
        let others = self.sessions.saturating_sub(1).max(1);
        let rest = self.events.saturating_sub(self.big_messages);
        rest / others + usize::from(i < rest % others)
    }
}

/// Writes `shape` into a new database at `db`; returns how long it took.
pub fn populate(db: &Path, shape: HomeShape) -> Result<Duration> {
    if shape.sessions == 0 || shape.big_messages > shape.events {
        bail!(
            "a home needs at least the big session, and it cannot hold more events than the total"
        );
    }
    if shape.sessions == 1 && shape.events != shape.big_messages {
        bail!("with one session every event belongs to the big session");
    }
    let start = Instant::now();
    let store = Store::open(db)?;

    store.create_session(&new_session(BIG_SESSION_ID))?;
    let big: Vec<EventItem> = (0..shape.big_messages).map(|k| event(0, k)).collect();
    for chunk in big.chunks(BIG_BATCH) {
        store.append_events(SCOPE, BIG_SESSION_ID, Some("turn-big"), chunk)?;
    }
    drop(big);

    let mut batch = Vec::new();
    for i in 0..shape.sessions - 1 {
        let id = session_id(i);
        store.create_session(&new_session(&id))?;
        batch.clear();
        batch.extend((0..shape.small_events(i)).map(|k| event(i + 1, k)));
        store.append_events(SCOPE, &id, Some("turn-1"), &batch)?;
        if (i + 1) % 1_000 == 0 {
            eprintln!(
                "  populated {} sessions in {:.1} s",
                i + 1,
                start.elapsed().as_secs_f64()
            );
        }
    }
    // Fold the WAL in, so the daemon starts on a clean file as after a normal shutdown.
    store.checkpoint()?;
    Ok(start.elapsed())
}

/// A realistic-looking session id (`yyyyMMdd-HHmmss-xxxxxx`), unique per index.
pub(crate) fn session_id(i: usize) -> String {
    format!(
        "20260102-{:02}{:02}{:02}-{:06x}",
        (i / 3600) % 24,
        (i / 60) % 60,
        i % 60,
        i
    )
}

fn new_session(id: &str) -> NewSession {
    NewSession {
        scope: SCOPE.into(),
        id: id.into(),
        workspace: None,
        title: None,
        reasoning_level: "high".into(),
        network_enabled: true,
    }
}

const FILLER: &str = "The function reads the configuration, validates every field and \
returns a typed error naming the bad key; callers map it to the wire error code. ";

/// `n` characters of filler prose.
fn filler(n: usize) -> String {
    FILLER.chars().cycle().take(n).collect()
}

/// The `k`-th event of session `s`, in a 4-step turn: user question, assistant
/// with a tool call, tool result, assistant answer. Every one projects to a message.
fn event(s: usize, k: usize) -> EventItem {
    let turn = k / 4;
    match k % 4 {
        0 => EventItem::User(UserMessage {
            text: format!(
                "Session {s}, step {turn}: please look at src/module_{turn}.rs and fix the failing test."
            ),
            images: Vec::new(),
        }),
        1 => EventItem::Assistant(AssistantMessage {
            text: format!("Step {turn}: I will read the file first. {}", filler(150)),
            thinking: Some("Need the file contents before editing.".into()),
            model_ref: Some("deepseek/deepseek-chat".into()),
            tool_calls: vec![ToolCall {
                id: format!("call_{s}_{turn}"),
                name: "read_file".into(),
                arguments_json: format!(r#"{{"path":"src/module_{turn}.rs"}}"#),
            }],
            finish_reason: Some("tool_calls".into()),
            ..Default::default()
        }),
        2 => EventItem::ToolResult(ToolResult {
            tool_call_id: format!("call_{s}_{turn}"),
            tool_name: "read_file".into(),
            success: true,
            output: format!("// src/module_{turn}.rs\n{}", filler(280)),
            diff: None,
            file_path: Some(format!("src/module_{turn}.rs")),
            ..ToolResult::default()
        }),
        _ => EventItem::Assistant(AssistantMessage {
            text: format!("Step {turn} done: the test passes now. {}", filler(160)),
            model_ref: Some("deepseek/deepseek-chat".into()),
            finish_reason: Some("stop".into()),
            ..Default::default()
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_are_spread_exactly() {
        let shape = HomeShape::FULL;
        let total: usize = (0..shape.sessions - 1).map(|i| shape.small_events(i)).sum();
        assert_eq!(total + shape.big_messages, shape.events);
        assert!((99..=100).contains(&shape.small_events(0)));
    }

    #[test]
    fn payloads_are_realistic_sizes() {
        let len = |e: &EventItem| match e {
            EventItem::Assistant(a) => a.text.len(),
            EventItem::ToolResult(t) => t.output.len(),
            EventItem::User(u) => u.text.len(),
            _ => 0,
        };
        assert!((180..260).contains(&len(&event(3, 1))));
        assert!((260..360).contains(&len(&event(3, 2))));
        assert!((180..260).contains(&len(&event(3, 3))));
    }

    #[test]
    fn populates_a_small_home_with_the_real_store() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("seekclaw.db");
        let shape = HomeShape {
            sessions: 7,
            events: 2_600,
            big_messages: 2_050,
        };
        populate(&db, shape).unwrap();
        let store = Store::open(&db).unwrap();
        let stats = store.stats().unwrap();
        assert_eq!((stats.sessions, stats.events), (7, 2_600));
        assert_eq!(store.list_sessions(SCOPE, false).unwrap().len(), 7);
        let msgs = store.messages(SCOPE, BIG_SESSION_ID).unwrap();
        assert_eq!(msgs.len(), 2_050);
        assert_eq!(msgs[2].role, "tool");
        let ids: std::collections::HashSet<String> = (0..10_000).map(session_id).collect();
        assert_eq!(ids.len(), 10_000);
        assert!(!ids.contains(BIG_SESSION_ID));
    }

    #[test]
    fn rejects_impossible_shapes() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("x.db");
        let bad = HomeShape {
            sessions: 1,
            events: 10,
            big_messages: 5,
        };
        assert!(populate(&db, bad).is_err());
    }
}
