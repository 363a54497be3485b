//! SQLite store of the seekclaw daemon: sessions with their append-only
//! event logs, content-addressed image blobs, projects, and the tables the
//! scheduler and usage accounting use.
//!
//! The API is synchronous; the daemon calls it from `spawn_blocking`.
//! [`Store`] is cheap to clone and shares one writer connection plus a small
//! pool of read-only connections over a WAL database.
#![warn(missing_docs)]
#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used))]

mod approvals;
mod blobs;
mod budgets;
mod checkpointer;
mod children;
mod conversation;
mod error;
mod event_log;
mod fork;
mod items;
mod model;
mod projection;
mod projects;
mod schedules;
mod schema;
mod search;
mod session_file;
mod session_model;
mod session_prompt;
mod sessions;
mod store;
mod stored;
mod summary_range;
mod time;
mod transfer;
mod turns;
mod usage;

pub use approvals::{ApprovalRule, SessionApprovals};
pub use budgets::{BudgetOwner, OwnBudget, Spent};
pub use conversation::Conversation;
pub use error::{Result, StoreError};
pub use items::{
    AssistantMessage, EventItem, HookRecord, ImageAttachment, RewindMarker, RuntimeNotice,
    SessionEvent, StepUsage, Summary, TerminalStatus, ToolCall, ToolResult, TurnTerminal,
    UserMessage, ViewedImage,
};
pub use model::{ForkedFrom, NewSession, Project, SessionHeader, SessionPatch, StoreStats};
pub use projection::{
    CONTEXT_CEILING, Message, SUMMARY_PREFIX, ToolCallRef, closes_answer, project,
    replays_as_answer,
};
pub use schedules::{
    Claim, ClaimRow, DEFAULT_TASK_NAME, INTERRUPTED_RUN, MANUAL_OCCURRENCE_PREFIX, RunRecord,
    RunStatus, ScheduleDraft, ScheduleSlot, ScheduledTask, display_name,
};
pub use schema::LATEST_VERSION as SCHEMA_VERSION;
pub use search::{MATCH_END, MATCH_START, MAX_SEARCH_LIMIT, SearchHit, fts_query};
pub use session_file::{
    SESSION_FILE_VERSION, SessionFile, SessionFileError, encode_session_file, event_line,
    header_line, is_valid_session_id, parse_session_file,
};
pub use session_prompt::{ContextRecord, TurnContext};
pub use sessions::HeaderRow;
pub use store::Store;
pub use summary_range::summary_range_error;
pub use time::{format_iso, now_iso};
pub use transfer::ListedSession;
pub use turns::TurnEnd;
pub use usage::{Spend, TurnUsage, UsageRecord, UsageSummary};

#[cfg(test)]
pub(crate) mod testutil {
    use crate::model::NewSession;
    use crate::store::Store;

    /// A store in a fresh temp dir; keep the dir alive as long as the store.
    pub fn temp_store() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("seekclaw.db")).unwrap();
        (dir, store)
    }

    /// A user message without images.
    pub fn user(text: &str) -> crate::items::EventItem {
        crate::items::EventItem::User(crate::items::UserMessage {
            text: text.into(),
            images: Vec::new(),
        })
    }

    pub fn new_session(scope: &str, id: &str) -> NewSession {
        NewSession {
            scope: scope.into(),
            id: id.into(),
            workspace: None,
            title: None,
            reasoning_level: "high".into(),
            network_enabled: true,
        }
    }
}

#[cfg(test)]
mod tests {
    //! Timing checks for the open and projection budgets. Ignored by default
    //! (slow to populate); run with
    //! `cargo test -p seekclaw-store --release -- --ignored --nocapture`.

    use std::time::Instant;

    use base64::Engine as _;
    use base64::engine::general_purpose::STANDARD;

    use crate::items::*;
    use crate::store::Store;
    use crate::testutil::new_session;

    fn assistant(i: usize) -> EventItem {
        EventItem::Assistant(AssistantMessage {
            text: format!("answer {i} {}", "lorem ipsum ".repeat(20)),
            thinking: Some("thinking about it".into()),
            model_ref: Some("p/m".into()),
            tool_calls: vec![ToolCall {
                id: format!("c{i}"),
                name: "read_file".into(),
                arguments_json: r#"{"path":"src/main.rs"}"#.into(),
            }],
            ..Default::default()
        })
    }

    #[test]
    #[ignore = "slow: populates 1,000,000 events"]
    fn open_and_projection_budgets() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("seekclaw.db");
        let t = Instant::now();
        {
            let store = Store::open(&path).unwrap();
            let batch: Vec<EventItem> = (0..100).map(assistant).collect();
            for s in 0..10_000 {
                let id = format!("s{s}");
                store.create_session(&new_session("g", &id)).unwrap();
                store.append_events("g", &id, None, &batch).unwrap();
            }
            // One big session: 5,000 messages, some with a repeated image.
            store.create_session(&new_session("g", "big")).unwrap();
            let img = ImageAttachment {
                id: "i".into(),
                name: "i.png".into(),
                media_type: "image/png".into(),
                data: STANDARD.encode(vec![1u8; 200_000]),
                size_bytes: 200_000,
            };
            let mut items = Vec::new();
            for i in 0..2_500 {
                let images = if i % 50 == 0 {
                    vec![img.clone()]
                } else {
                    Vec::new()
                };
                items.push(EventItem::User(UserMessage {
                    text: format!("question {i}"),
                    images,
                }));
                items.push(assistant(i));
            }
            store.append_events("g", "big", None, &items).unwrap();
            store.checkpoint().unwrap();
        }
        eprintln!("populate: {:?}", t.elapsed());

        let t = Instant::now();
        let store = Store::open(&path).unwrap();
        let open = t.elapsed();
        let t = Instant::now();
        let first = store.list_sessions("g", false).unwrap();
        let list = t.elapsed();
        let t = Instant::now();
        let msgs = store.messages("g", "big").unwrap();
        let project = t.elapsed();
        eprintln!(
            "open {open:?}, list {} sessions {list:?}, messages {} in {project:?}",
            first.len(),
            msgs.len()
        );
        for _ in 0..3 {
            let t = Instant::now();
            let again = store.messages("g", "big").unwrap();
            eprintln!("messages again: {:?}", t.elapsed());
            assert_eq!(again.len(), msgs.len());
            let t = Instant::now();
            let events = store.events("g", "big").unwrap();
            eprintln!("events: {:?}", t.elapsed());
            assert_eq!(events.len(), msgs.len());
        }
        assert_eq!(msgs.len(), 5_000);
        assert_eq!(store.stats().unwrap().events, 1_005_000);
    }
}
