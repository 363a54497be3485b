//! Background-job notices on the daemon: the engine delivers each (to the
//! session's running turn, else into its log, see
//! [`seekclaw_engine::Engine::deliver_notice`]); one that went into the log
//! is sent, as `background_notice`, to the connection that last ran a turn
//! on the session.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use seekclaw_protocol::Envelope;
use seekclaw_protocol::events::BackgroundNoticeDetails;

use crate::daemon::Daemon;
use crate::outbox::Outbox;
use seekclaw_engine::sync::Locked;
use seekclaw_engine::{NoticeDelivery, SessionNotice};

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

    fn get(&self, session_id: &str) -> Option<Outbox> {
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

/// Delivers the notices of the daemon's sessions until it stops.
pub fn start(daemon: &Arc<Daemon>) {
    let Some(mut notices) = daemon.engine.jobs.take_notices() else {
        return;
    };
    let daemon = daemon.clone();
    tokio::spawn(async move {
        while let Some(n) = notices.recv().await {
            deliver(&daemon, n).await;
        }
    });
}

async fn deliver(daemon: &Daemon, n: SessionNotice) {
    match daemon.engine.deliver_notice(&n, &daemon.shutdown).await {
        Ok(NoticeDelivery::ToTurn) => return,
        Ok(NoticeDelivery::Logged) => {}
        Err(e) => {
            tracing::warn!(session = %n.session_id, error = %e.message, "background notice not recorded");
            return;
        }
    }
    if let Some(outbox) = daemon.session_owners.get(&n.session_id) {
        let details = BackgroundNoticeDetails {
            job_id: n.notice.job_id,
        };
        let env = Envelope::event(0, n.notice.text, &details).with_session(Some(n.session_id));
        outbox.send(&env).await;
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
