//! SQLite store of the seekclaw daemon: sessions with their append-only
//! event logs, content-addressed image blobs, projects, and the tables the
//! scheduler and usage accounting use.
//!
//! The API is synchronous; the daemon calls it from `spawn_blocking`.
//! [`Store`] is cheap to clone and shares one writer connection plus a small
//! pool of read-only connections over a WAL database.
#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used))]

mod blobs;
mod checkpointer;
mod conversation;
mod error;
mod event_log;
mod items;
mod model;
mod projection;
mod projects;
mod schedules;
mod schema;
mod sessions;
mod store;
mod stored;
mod time;
mod turns;
mod usage;

pub use conversation::Conversation;
pub use error::{Result, StoreError};
pub use items::{
    AssistantMessage, EventItem, ImageAttachment, RuntimeNotice, SessionEvent, Summary,
    TerminalStatus, ToolCall, ToolResult, TurnTerminal, UserMessage, ViewedImage,
};
pub use model::{NewSession, Project, SessionHeader, SessionPatch, StoreStats, UsageDelta};
pub use projection::{Message, SUMMARY_PREFIX, ToolCallRef, project};
pub use schedules::{
    Claim, ClaimRow, DEFAULT_TASK_NAME, INTERRUPTED_RUN, MANUAL_OCCURRENCE_PREFIX, RunRecord,
    RunStatus, ScheduleDraft, ScheduleSlot, ScheduledTask, display_name,
};
pub use schema::LATEST_VERSION as SCHEMA_VERSION;
pub use sessions::HeaderRow;
pub use store::Store;
pub use time::{format_iso, now_iso};
pub use turns::TurnEnd;
pub use usage::{UsageRecord, UsageSummary};

#[cfg(test)]
mod perf_tests;

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
