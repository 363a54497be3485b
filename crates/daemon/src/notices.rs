//! Background-job notices on the daemon: a job that ends on its own reaches
//! the model at the next step of the session's running turn; when the
//! session is idle, the notice is appended to its log (the next turn reads
//! it) and sent, as `background_notice`, to the connection that last ran a
//! turn on the session.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use seekclaw_protocol::Envelope;
use seekclaw_protocol::events::BackgroundNoticeDetails;
use seekclaw_store::{EventItem, RuntimeNotice};

use crate::daemon::Daemon;
use crate::outbox::Outbox;
use seekclaw_engine::SessionNotice;
use seekclaw_engine::sync::Locked;

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

/// How often, and how far apart, a notice waits for a busy session.
const NOTICE_RETRIES: u32 = 300;
const NOTICE_RETRY_DELAY: std::time::Duration = std::time::Duration::from_millis(100);

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
    let sid = n.session_id;
    let text = n.notice.text;
    let id = sid.clone();
    let scope = match daemon.db(move |s| s.scopes_of_session(&id)).await {
        Ok(scopes) => match scopes.into_iter().next() {
            Some(scope) => scope,
            None => return,
        },
        Err(_) => return,
    };
    let engine = &daemon.engine;
    // A turn that is finishing takes no more guidance but still holds the
    // session: wait for it (briefly) rather than lose the notice.
    let mut tries = 0;
    loop {
        if engine.notify_running(&sid, &text) {
            return;
        }
        let item = EventItem::Runtime(RuntimeNotice {
            kind: "notice".into(),
            text: text.clone(),
        });
        match engine.append_idle(&scope, &sid, item).await {
            Ok(_) => break,
            Err(_) if tries < NOTICE_RETRIES && !daemon.shutdown.is_cancelled() => {
                tries += 1;
                tokio::time::sleep(NOTICE_RETRY_DELAY).await;
            }
            Err(e) => {
                tracing::warn!(session = %sid, error = %e.message, "background notice not recorded");
                return;
            }
        }
    }
    if let Some(outbox) = daemon.session_owners.get(&sid) {
        let details = BackgroundNoticeDetails {
            job_id: n.notice.job_id,
        };
        let env = Envelope::event(0, text, &details).with_session(Some(sid));
        outbox.send(&env).await;
    }
}
