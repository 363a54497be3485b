//! The connection that last ran a turn on each session: it gets the
//! session's idle-time background-job notices.

use std::collections::HashMap;
use std::sync::Mutex;

use seekclaw_engine::sync::Locked;

use crate::outbox::Outbox;

/// The connection that owns each session's idle-time notices.
#[derive(Default)]
pub struct Owners {
    by_session: Mutex<HashMap<String, Outbox>>,
}

impl Owners {
    /// `outbox`'s connection ran a turn on `session_id`.
    pub fn set(&self, session_id: &str, outbox: Outbox) {
        self.by_session
            .locked()
            .insert(session_id.to_lowercase(), outbox);
    }

    pub(crate) fn get(&self, session_id: &str) -> Option<Outbox> {
        self.by_session
            .locked()
            .get(&session_id.to_lowercase())
            .cloned()
    }

    /// Forgets the session (deleted).
    pub fn forget(&self, session_id: &str) {
        self.by_session.locked().remove(&session_id.to_lowercase());
    }
}
