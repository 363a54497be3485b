//! What the engine's session policy did by itself, shown on the daemon (the
//! engine's [`seekclaw_engine::Announce`] seam): a background-job notice
//! that went into an idle session's log is sent, as `background_notice`, to
//! the connection that last ran a turn on the session; a goal continuation
//! and a spent `auto` budget are broadcast as `goal_updated`; a checkpoint
//! taken outside a turn goes to the session's watchers as `checkpoint`.

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
        bus: engine.bus.clone(),
    }))
}

struct DaemonAnnouncer {
    connections: Arc<Connections>,
    owners: Arc<Owners>,
    bus: Arc<seekclaw_engine::TurnBus>,
}

impl Announce for DaemonAnnouncer {
    fn announce(&self, what: &Announcement) {
        match what {
            // Outside a turn (a job's end, a rewind): to the session's
            // watchers, as a turn's own checkpoints reach them.
            Announcement::Checkpoint { session_id, note } => {
                let ev = seekclaw_agent::AgentEvent::Checkpoint(note.clone());
                self.bus.event(session_id, None, &ev);
            }
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
