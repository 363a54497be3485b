//! The engine's background-job notice policy, for every front end: a job
//! that ends on its own is delivered to its session's running turn, else
//! into its log (the next turn reads it) and announced
//! ([`crate::Announcement::NoticeLogged`]); a job still running when the
//! engine closes is recorded as stopped unfinished.

use std::sync::Weak;

use crate::announce::Announcement;
use crate::engine::{Engine, Services};
use crate::jobs::{NoticeDelivery, SessionNotice};

/// How often, and how far apart, a notice waits for a finishing turn.
const NOTICE_RETRIES: u32 = 300;
const NOTICE_RETRY_DELAY: std::time::Duration = std::time::Duration::from_millis(100);
/// While the engine stops, a notice still waits out a short busy spell (a
/// notice being appended beside it) but does not hold the exit up for long.
const STOPPING_RETRIES: u32 = 20;

/// Delivers `notice` on the engine's runtime (the engine is gone: nobody is
/// left to read it).
pub(crate) fn deliver_later(
    services: &Weak<Services>,
    runtime: Option<&tokio::runtime::Handle>,
    notice: SessionNotice,
) {
    let Some(services) = services.upgrade() else {
        return;
    };
    let Some(runtime) = tokio::runtime::Handle::try_current()
        .ok()
        .or(runtime.cloned())
    else {
        tracing::warn!(session = %notice.session_id, "background job notice raised with no runtime");
        return;
    };
    runtime.spawn(async move {
        Engine::from_services(services)
            .deliver_and_announce(notice)
            .await;
    });
}

impl Engine {
    /// Delivers a background job's notice and tells the front ends when it
    /// went into the log.
    async fn deliver_and_announce(&self, n: SessionNotice) {
        // What the job changed is kept before anyone reads that it ended.
        self.checkpoint_job_end(&n.session_id).await;
        match self.deliver_notice(&n.session_id, &n.notice.text).await {
            Ok(NoticeDelivery::ToTurn) => {}
            Ok(NoticeDelivery::Logged) => self.announcers.announce(Announcement::NoticeLogged {
                session_id: n.session_id,
                job_id: n.notice.job_id,
                text: n.notice.text,
            }),
            Err(e) => {
                tracing::warn!(session = %n.session_id, error = %e.message, "background job notice not recorded");
            }
        }
    }

    /// Delivers a notice: to the session's running turn, or into its log
    /// when idle. A turn that is finishing takes no more guidance but still
    /// holds the session: the notice waits for it (briefly, until the engine
    /// stops) rather than be lost.
    pub(crate) async fn deliver_notice(
        &self,
        sid: &str,
        text: &str,
    ) -> Result<NoticeDelivery, crate::error::EngineError> {
        let id = sid.to_string();
        let scope = self
            .db(move |s| s.scopes_of_session(&id))
            .await?
            .into_iter()
            .next()
            .ok_or_else(|| {
                crate::error::EngineError::not_found(format!("Session {sid} not found"))
            })?;
        let mut tries = 0;
        loop {
            if self.notify_running(sid, text) {
                return Ok(NoticeDelivery::ToTurn);
            }
            let item = seekclaw_store::EventItem::Runtime(seekclaw_store::RuntimeNotice {
                kind: "notice".into(),
                text: text.to_string(),
            });
            match self.append_idle(&scope, sid, item).await {
                Ok(_) => return Ok(NoticeDelivery::Logged),
                Err(_) if tries < self.notice_retries() => {
                    tries += 1;
                    tokio::time::sleep(NOTICE_RETRY_DELAY).await;
                }
                Err(e) => return Err(e),
            }
        }
    }

    fn notice_retries(&self) -> u32 {
        if self.stopping.is_cancelled() {
            STOPPING_RETRIES
        } else {
            NOTICE_RETRIES
        }
    }

    /// Kills every background job; one still running is recorded in its
    /// session's log as stopped unfinished, so the next turn (here, or in
    /// the process that continues the session) knows it is gone.
    pub(crate) async fn stop_jobs(&self) {
        let unfinished = self.jobs.running();
        self.jobs.close_all();
        for (sid, jobs) in unfinished {
            for job in jobs {
                let text = seekclaw_protocol::wording::job_stopped_at_exit(&job.id, &job.command);
                // The engine is stopping: no turn runs, and the write is
                // retried only briefly.
                if let Err(e) = self.deliver_notice(&sid, &text).await {
                    tracing::warn!(session = %sid, error = %e.message, "stopped job not recorded");
                }
            }
        }
    }
}
