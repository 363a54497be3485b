//! Background jobs per session: each session has one job table, shared by
//! its turns, so a job outlives the turn that started it. A job that ends on
//! its own becomes a notice the engine delivers itself, for every front end:
//! to the session's running turn, else into its log (the next turn reads
//! it), announced to the front ends that show it ([`crate::Announce`]).
//! Tables are torn down (whole process groups killed) when their session
//! closes and when the engine stops; a job still running then is recorded in
//! its session's log as stopped unfinished.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use seekclaw_tools::{JobInfo, JobNotice, Jobs};

use crate::sync::Locked;

/// A job of `session_id` ended on its own.
#[derive(Debug, Clone)]
pub struct SessionNotice {
    /// The session whose job it was.
    pub session_id: String,
    /// What ended, as the model reads it.
    pub notice: JobNotice,
}

/// Hands a notice to whoever delivers it (the engine's notice policy).
pub(crate) type Deliver = Arc<dyn Fn(SessionNotice) + Send + Sync>;

/// The job tables of an engine's sessions.
pub struct SessionJobs {
    tables: Mutex<HashMap<String, Arc<Jobs>>>,
    deliver: Deliver,
}

impl SessionJobs {
    /// Tables whose jobs' notices go to `deliver`.
    pub(crate) fn new(deliver: Deliver) -> SessionJobs {
        SessionJobs {
            tables: Mutex::new(HashMap::new()),
            deliver,
        }
    }

    /// The session's table (created on first use).
    pub fn of(&self, session_id: &str) -> Arc<Jobs> {
        let key = session_id.to_lowercase();
        let mut tables = self.tables.locked();
        tables
            .entry(key)
            .or_insert_with(|| {
                let (deliver, sid) = (self.deliver.clone(), session_id.to_string());
                Arc::new(Jobs::with_notify(Arc::new(move |notice| {
                    deliver(SessionNotice {
                        session_id: sid.clone(),
                        notice,
                    })
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

    /// Background jobs still running, over every session.
    pub fn running_count(&self) -> usize {
        self.running().iter().map(|(_, jobs)| jobs.len()).sum()
    }

    /// Each session's background jobs still running.
    pub(crate) fn running(&self) -> Vec<(String, Vec<JobInfo>)> {
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

/// Where a background job's notice went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoticeDelivery {
    /// To the session's running turn, which reads it at its next step.
    ToTurn,
    /// Into the idle session's log, for its next turn: the front end tells
    /// whoever owns the session.
    Logged,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_left_without_jobs_is_forgotten_when_its_turn_ends() {
        let jobs = SessionJobs::new(Arc::new(|_| {}));
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
