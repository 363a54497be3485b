//! Background-job notices on the daemon: the engine delivers each (to the
//! session's running turn, else into its log, see
//! [`seekclaw_engine::Engine::deliver_notice`]); one that went into the log
//! is sent, as `background_notice`, to the connection that last ran a turn
//! on the session.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use seekclaw_protocol::Envelope;
use seekclaw_protocol::events::BackgroundNoticeDetails;

use crate::outbox::Outbox;
use seekclaw_engine::sync::Locked;
use seekclaw_engine::{Engine, NoticeDelivery, SessionNotice};
use tokio_util::sync::CancellationToken;

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

/// Delivers the notices of the daemon's sessions until it stops.
pub fn start(engine: &Engine, owners: &Arc<Owners>, shutdown: &CancellationToken) {
    let Some(mut notices) = engine.jobs.take_notices() else {
        return;
    };
    let (engine, owners, shutdown) = (engine.clone(), owners.clone(), shutdown.clone());
    tokio::spawn(async move {
        while let Some(n) = notices.recv().await {
            deliver((&engine, &owners, &shutdown), n).await;
        }
    });
}

async fn deliver(
    (engine, owners, shutdown): (&Engine, &Owners, &CancellationToken),
    n: SessionNotice,
) {
    match engine.deliver_notice(&n, shutdown).await {
        Ok(NoticeDelivery::ToTurn) => return,
        Ok(NoticeDelivery::Logged) => {}
        Err(e) => {
            tracing::warn!(session = %n.session_id, error = %e.message, "background notice not recorded");
            return;
        }
    }
    if let Some(outbox) = owners.get(&n.session_id) {
        let details = BackgroundNoticeDetails {
            job_id: n.notice.job_id,
        };
        let env = Envelope::event(0, n.notice.text, &details).with_session(Some(n.session_id));
        outbox.send(&env).await;
    }
}
