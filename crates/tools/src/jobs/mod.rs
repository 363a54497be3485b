//! A session's job table: every command `bash` started, and the ids of those
//! that went on in the background. Foreground commands die with their turn
//! ([`Jobs::end_turn`]); background jobs outlive it, until they end, hit their
//! caps (time limit, 30 minutes, 20 MB of output) or the table is torn down
//! (the session closes, the engine stops). A job that ends on its own is
//! announced through the table's [`Notify`].

mod exec;
mod log;

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use tokio::time::Instant;

use crate::sandbox::{SandboxError, SandboxPolicy};
use tokio_util::sync::CancellationToken;

pub(crate) use exec::{EndReason, Execution, ExitInfo, STOP_GRACE};

/// Why a command did not start.
#[derive(Debug, thiserror::Error)]
pub(crate) enum StartError {
    /// The sandbox refused (fail closed) or could not be prepared.
    #[error(transparent)]
    Sandbox(#[from] SandboxError),
    /// The spawn itself failed.
    #[error("Cannot start /bin/bash: {0}")]
    Spawn(#[from] std::io::Error),
}

/// A background job ended on its own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobNotice {
    /// The job's id (`bg-1`, …).
    pub job_id: String,
    /// The notice the model reads (how it ended, how to read its output).
    pub text: String,
}

/// Whom a job table tells about jobs that ended on their own.
pub type Notify = Arc<dyn Fn(JobNotice) + Send + Sync>;

/// A background job as the agent may list it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobInfo {
    /// Job id, as `bash_output` and `bash_stop` take it.
    pub id: String,
    /// The command line.
    pub command: String,
    /// Still running.
    pub running: bool,
}

#[derive(Default)]
struct Table {
    next_id: u64,
    /// Every command of the turn, foreground ones too: their leftover
    /// descendants are killed with the rest.
    all: Vec<Arc<Execution>>,
    background: BTreeMap<String, Arc<Execution>>,
    /// Fired by `kill_all` (and so on drop): every supervisor kills its group.
    /// Replaced after firing, so later calls of the turn still work.
    teardown: CancellationToken,
}

/// The shell commands of a session (or of one turn, when nothing outlives it).
pub struct Jobs {
    table: Mutex<Table>,
    notify: Option<Notify>,
}

impl Default for Jobs {
    fn default() -> Self {
        Jobs::new()
    }
}

impl std::fmt::Debug for Jobs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Jobs")
            .field("background", &self.list())
            .finish()
    }
}

impl Jobs {
    /// An empty table whose jobs end silently.
    pub fn new() -> Self {
        Jobs {
            table: Mutex::new(Table::default()),
            notify: None,
        }
    }

    /// An empty table that calls `notify` when a background job ends on its own.
    pub fn with_notify(notify: Notify) -> Self {
        Jobs {
            table: Mutex::new(Table::default()),
            notify: Some(notify),
        }
    }

    /// A turn ended (its token fired, so its foreground commands and what
    /// they left behind are being killed by their supervisors): forget them;
    /// background jobs go on.
    pub fn end_turn(&self) {
        self.table().all.retain(|e| e.is_detached());
    }

    /// The job table. A panic elsewhere while this lock was held is recovered
    /// from: entries are inserted and removed whole, so the table stays true.
    fn table(&self) -> MutexGuard<'_, Table> {
        self.table.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Kills every command of the turn (whole process groups, SIGKILL, now) and
    /// returns how many were still running. Later `bash` calls still work.
    pub fn kill_all(&self) -> usize {
        let (all, teardown) = {
            let mut table = self.table();
            let teardown = std::mem::take(&mut table.teardown);
            (table.all.clone(), teardown)
        };
        // The teardown is raised before the signal, so a supervisor that
        // sees its child die knows it was torn down, not that it ended on
        // its own (which would be announced as finished).
        teardown.cancel();
        let mut running = 0;
        for exec in &all {
            if exec.exit().is_none() {
                running += 1;
            }
            exec.kill_now();
        }
        running
    }

    /// Whether the table holds no command at all (nothing running, no
    /// background job to report or list).
    pub fn is_empty(&self) -> bool {
        let table = self.table();
        table.all.is_empty() && table.background.is_empty()
    }

    /// Background jobs, by id.
    pub fn list(&self) -> Vec<JobInfo> {
        self.table()
            .background
            .iter()
            .map(|(id, exec)| JobInfo {
                id: id.clone(),
                command: exec.command.clone(),
                running: exec.exit().is_none(),
            })
            .collect()
    }

    /// Starts a command under `sandbox` and records it.
    pub(crate) fn start(
        &self,
        command: &str,
        cwd: &Path,
        sandbox: &SandboxPolicy,
        deadline: Instant,
        cancel: &CancellationToken,
    ) -> Result<Arc<Execution>, StartError> {
        let teardown = self.table().teardown.clone();
        let exec = Execution::spawn(command, cwd, sandbox, deadline, cancel.clone(), teardown)?;
        self.table().all.push(exec.clone());
        Ok(exec)
    }

    /// Gives a running command a job id (`bg-1`, `bg-2`, …).
    pub(crate) fn background(&self, exec: &Arc<Execution>) -> String {
        let mut table = self.table();
        table.next_id += 1;
        let id = format!("bg-{}", table.next_id);
        table.background.insert(id.clone(), exec.clone());
        exec.detach(id.clone(), self.notify.clone());
        id
    }

    pub(crate) fn get(&self, id: &str) -> Option<Arc<Execution>> {
        self.table().background.get(id.trim()).cloned()
    }

    pub(crate) fn ids(&self) -> Vec<String> {
        self.table().background.keys().cloned().collect()
    }
}

impl Drop for Jobs {
    fn drop(&mut self) {
        self.kill_all();
    }
}
