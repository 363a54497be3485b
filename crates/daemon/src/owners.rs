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
        let mut owners = self.by_session.locked();
        // Closed connections own nothing (a turn cut off by its connection
        // never reached the point where its session is forgotten).
        owners.retain(|_, o| !o.is_closed());
        owners.insert(session_id.to_lowercase(), outbox);
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;
    use tokio_util::sync::CancellationToken;

    fn outbox() -> (Outbox, crate::outbox::Queue) {
        Outbox::new(Duration::from_secs(10), CancellationToken::new())
    }

    #[test]
    fn closed_connections_and_forgotten_sessions_own_nothing() {
        let owners = Owners::default();
        let (gone, queue) = outbox();
        owners.set("S1", gone);
        owners.set("S2", outbox().0);
        drop(queue);
        let (live, _queue) = outbox();
        owners.set("s3", live);
        // S1's connection closed; S2's outbox had no writer at all.
        assert!(owners.get("s1").is_none() && owners.get("s2").is_none());
        assert!(owners.get("S3").is_some());
        owners.forget("S3");
        assert!(owners.by_session.locked().is_empty());
    }
}
