//! Background jobs per session: each session has one job table, shared by
//! its turns, so a job outlives the turn that started it. A job that ends on
//! its own becomes a notice the engine delivers itself, for every front end:
//! to the session's running turn, else into its log (the next turn reads
//! it), announced to the front ends that show it ([`crate::Announce`]).
//! Tables are torn down (whole process groups killed) when their session
//! closes and when the engine stops; a job still running then is recorded in
//! its session's log as stopped unfinished.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};

use seekclaw_tools::{JobInfo, JobNotice, Jobs};

use crate::announce::Announcement;
use crate::engine::{Engine, Services};
use crate::sync::Locked;

/// A job of `session_id` ended on its own.
#[derive(Debug, Clone)]
pub struct SessionNotice {
    /// The session whose job it was.
    pub session_id: String,
    /// What ended, as the model reads it.
    pub notice: JobNotice,
}

/// The job tables of an engine's sessions.
pub struct SessionJobs {
    tables: Mutex<HashMap<String, Arc<Jobs>>>,
    /// Whom a job's notice goes to (weak: the tables live in the services).
    services: Weak<Services>,
}

impl SessionJobs {
    /// The tables of the engine whose services `services` reaches.
    pub(crate) fn new(services: Weak<Services>) -> SessionJobs {
        SessionJobs {
            tables: Mutex::new(HashMap::new()),
            services,
        }
    }

    /// The session's table (created on first use).
    pub fn of(&self, session_id: &str) -> Arc<Jobs> {
        let key = session_id.to_lowercase();
        let mut tables = self.tables.locked();
        tables
            .entry(key)
            .or_insert_with(|| {
                let (services, sid) = (self.services.clone(), session_id.to_string());
                // Jobs end on the runtime's tasks; the handle also covers a
                // notice raised off it.
                let runtime = tokio::runtime::Handle::try_current().ok();
                Arc::new(Jobs::with_notify(Arc::new(move |notice| {
                    let notice = SessionNotice {
                        session_id: sid.clone(),
                        notice,
                    };
                    deliver_later(&services, runtime.as_ref(), notice);
                })))
            })
            .clone()
    }

    /// Background jobs still running, over every session.
    pub fn running_count(&self) -> usize {
        self.running().iter().map(|(_, jobs)| jobs.len()).sum()
    }

    /// Each session's background jobs still running.
    fn running(&self) -> Vec<(String, Vec<JobInfo>)> {
        let tables: Vec<(String, Arc<Jobs>)> = self
            .tables
            .locked()
            .iter()
            .map(|(sid, jobs)| (sid.clone(), jobs.clone()))
            .collect();
        tables
            .into_iter()
            .map(|(sid, jobs)| {
                let running = jobs.list().into_iter().filter(|j| j.running).collect();
                (sid, running)
            })
            .filter(|(_, running): &(String, Vec<JobInfo>)| !running.is_empty())
            .collect()
    }

    /// Kills the session's jobs and forgets its table.
    pub fn close(&self, session_id: &str) {
        let table = self.tables.locked().remove(&session_id.to_lowercase());
        if let Some(jobs) = table {
            jobs.kill_all();
        }
    }

    /// Kills every session's jobs (the engine stops).
    pub fn close_all(&self) {
        let tables: Vec<Arc<Jobs>> = self.tables.locked().drain().map(|(_, j)| j).collect();
        for jobs in tables {
            jobs.kill_all();
        }
    }
}

impl Drop for SessionJobs {
    fn drop(&mut self) {
        self.close_all();
    }
}

/// Delivers `notice` on the engine's runtime (the engine is gone: nobody is
/// left to read it).
fn deliver_later(
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

/// Where a background job's notice went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoticeDelivery {
    /// To the session's running turn, which reads it at its next step.
    ToTurn,
    /// Into the idle session's log, for its next turn: the front end tells
    /// whoever owns the session.
    Logged,
}

/// How often, and how far apart, a notice waits for a finishing turn.
const NOTICE_RETRIES: u32 = 300;
const NOTICE_RETRY_DELAY: std::time::Duration = std::time::Duration::from_millis(100);

impl Engine {
    /// Delivers a background job's notice and tells the front ends when it
    /// went into the log.
    async fn deliver_and_announce(&self, n: SessionNotice) {
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
                Err(_) if tries < NOTICE_RETRIES && !self.stopping.is_cancelled() => {
                    tries += 1;
                    tokio::time::sleep(NOTICE_RETRY_DELAY).await;
                }
                Err(e) => return Err(e),
            }
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
                if let Err(e) = self.log_notice(&sid, &text).await {
                    tracing::warn!(session = %sid, error = %e.message, "stopped job not recorded");
                }
            }
        }
    }

    /// Writes a notice into an idle session's log (once: no waiting).
    async fn log_notice(&self, sid: &str, text: &str) -> Result<u64, crate::error::EngineError> {
        let id = sid.to_string();
        let Some(scope) = self
            .db(move |s| s.scopes_of_session(&id))
            .await?
            .into_iter()
            .next()
        else {
            return Ok(0);
        };
        let item = seekclaw_store::EventItem::Runtime(seekclaw_store::RuntimeNotice {
            kind: "notice".into(),
            text: text.to_string(),
        });
        self.append_idle(&scope, sid, item).await
    }
}
