//! What the engine's session policy did by itself, shown on the daemon (the
//! engine's [`seekclaw_engine::Announce`] seam): a background-job notice
//! that went into an idle session's log is sent, as `background_notice`, to
//! the connection that last ran a turn on the session; a goal continuation
//! and a spent `auto` budget are broadcast as `goal_updated`.

use std::sync::Arc;

use seekclaw_engine::{Announce, AnnounceGuard, Announcement, Engine};
use seekclaw_protocol::Envelope;
use seekclaw_protocol::events::BackgroundNoticeDetails;

use crate::connections::Connections;
use crate::owners::Owners;

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
            // Shown by the checkpoint surfaces (h-wire).
            Announcement::Checkpoint { .. } => {}
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
