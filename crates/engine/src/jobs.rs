//! Background jobs per session: each session has one job table, shared by
//! its turns, so a job outlives the turn that started it. A job that ends on
//! its own becomes a notice the front end delivers (to the running turn, or
//! into the log and to whoever owns the session). Tables are torn down
//! (whole process groups killed) when their session closes and when the
//! engine stops.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use seekclaw_tools::{JobNotice, Jobs};
use tokio::sync::mpsc::{self, UnboundedReceiver, UnboundedSender};

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
    tx: UnboundedSender<SessionNotice>,
    rx: Mutex<Option<UnboundedReceiver<SessionNotice>>>,
}

impl Default for SessionJobs {
    fn default() -> Self {
        let (tx, rx) = mpsc::unbounded_channel();
        SessionJobs {
            tables: Mutex::new(HashMap::new()),
            tx,
            rx: Mutex::new(Some(rx)),
        }
    }
}

impl SessionJobs {
    /// The session's table (created on first use).
    pub fn of(&self, session_id: &str) -> Arc<Jobs> {
        let key = session_id.to_lowercase();
        let mut tables = self.tables.locked();
        tables
            .entry(key)
            .or_insert_with(|| {
                let (tx, sid) = (self.tx.clone(), session_id.to_string());
                Arc::new(Jobs::with_notify(Arc::new(move |notice| {
                    let _ = tx.send(SessionNotice {
                        session_id: sid.clone(),
                        notice,
                    });
                })))
            })
            .clone()
    }

    /// A turn on the session ended: its table is forgotten when it holds no
    /// job and no other turn holds it, so a session that never starts a
    /// background job keeps nothing between turns (a daemon sees thousands).
    pub fn release(&self, session_id: &str) {
        let key = session_id.to_lowercase();
        let mut tables = self.tables.locked();
        // Clones are only made under this lock (`of`): the count is exact.
        if tables
            .get(&key)
            .is_some_and(|t| Arc::strong_count(t) == 1 && t.is_empty())
        {
            tables.remove(&key);
        }
    }

    /// Whether the session has a job table (jobs that may still end and
    /// send a notice, or a turn running).
    pub fn holds(&self, session_id: &str) -> bool {
        self.tables
            .locked()
            .contains_key(&session_id.to_lowercase())
    }

    /// The notices of every session, for the one front end that delivers
    /// them (taken once).
    pub fn take_notices(&self) -> Option<UnboundedReceiver<SessionNotice>> {
        self.rx.locked().take()
    }

    /// Background jobs still running, over every session.
    pub fn running_count(&self) -> usize {
        let tables: Vec<Arc<Jobs>> = self.tables.locked().values().cloned().collect();
        tables
            .iter()
            .map(|jobs| jobs.list().iter().filter(|j| j.running).count())
            .sum()
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

impl crate::engine::Engine {
    /// Delivers a background job's notice: to the session's running turn, or
    /// into its log when idle. A turn that is finishing takes no more
    /// guidance but still holds the session: the notice waits for it
    /// (briefly, until `stop`) rather than be lost.
    pub async fn deliver_notice(
        &self,
        notice: &SessionNotice,
        stop: &tokio_util::sync::CancellationToken,
    ) -> Result<NoticeDelivery, seekclaw_protocol::MethodError> {
        let (sid, text) = (&notice.session_id, &notice.notice.text);
        let id = sid.clone();
        let scope = self
            .db(move |s| s.scopes_of_session(&id))
            .await?
            .into_iter()
            .next()
            .ok_or_else(|| {
                seekclaw_protocol::MethodError::not_found(format!("Session {sid} not found"))
            })?;
        let mut tries = 0;
        loop {
            if self.notify_running(sid, text) {
                return Ok(NoticeDelivery::ToTurn);
            }
            let item = seekclaw_store::EventItem::Runtime(seekclaw_store::RuntimeNotice {
                kind: "notice".into(),
                text: text.clone(),
            });
            match self.append_idle(&scope, sid, item).await {
                Ok(_) => return Ok(NoticeDelivery::Logged),
                Err(_) if tries < NOTICE_RETRIES && !stop.is_cancelled() => {
                    tries += 1;
                    tokio::time::sleep(NOTICE_RETRY_DELAY).await;
                }
                Err(e) => return Err(e),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_left_without_jobs_is_forgotten_when_its_turn_ends() {
        let jobs = SessionJobs::default();
        let table = jobs.of("Sess");
        jobs.release("sess");
        assert!(jobs.holds("SESS"), "kept while the turn holds it");
        drop(table);
        jobs.release("sess");
        assert!(!jobs.holds("sess"));
        assert!(jobs.tables.locked().is_empty());
        // Another session's table is not touched.
        let other = jobs.of("other");
        jobs.release("sess");
        assert!(jobs.holds("other"));
        drop(other);
    }
}
