//! What the engine's session policy did by itself, shown on the daemon (the
//! engine's [`seekclaw_engine::Announce`] seam): a background-job notice
//! that went into an idle session's log is sent, as `background_notice`, to
//! the connection that last ran a turn on the session; a goal continuation
//! and a spent `auto` budget are broadcast as `goal_updated`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use seekclaw_engine::sync::Locked;
use seekclaw_engine::{Announce, AnnounceGuard, Announcement, Engine};
use seekclaw_protocol::Envelope;
use seekclaw_protocol::events::BackgroundNoticeDetails;

use crate::connections::Connections;
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

/// Shows the engine's announcements until the guard is dropped.
pub fn listen(
    engine: &Engine,
    connections: &Arc<Connections>,
    owners: &Arc<Owners>,
) -> AnnounceGuard {
    engine.announcers.listen(Arc::new(DaemonAnnouncer {
        connections: connections.clone(),
        owners: owners.clone(),
    }))
}

struct DaemonAnnouncer {
    connections: Arc<Connections>,
    owners: Arc<Owners>,
}

impl Announce for DaemonAnnouncer {
    fn announce(&self, what: &Announcement) {
        match what {
            Announcement::NoticeLogged {
                session_id,
                job_id,
                text,
            } => {
                let Some(outbox) = self.owners.get(session_id) else {
                    return;
                };
                let details = BackgroundNoticeDetails {
                    job_id: job_id.clone(),
                };
                let env = Envelope::event(0, text.clone(), &details)
                    .with_session(Some(session_id.clone()));
                tokio::spawn(async move { outbox.send(&env).await });
            }
            Announcement::GoalContinues {
                session_id,
                goal,
                remaining,
            } => crate::goals::broadcast(
                &self.connections,
                session_id,
                "continue",
                Some(goal),
                None,
                *remaining > 0,
            ),
            Announcement::GoalBudgetExhausted {
                session_id, goal, ..
            } => crate::goals::broadcast(
                &self.connections,
                session_id,
                "budget_exhausted",
                Some(goal),
                None,
                false,
            ),
        }
    }
}
