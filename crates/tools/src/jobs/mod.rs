//! The turn's job table: every command `bash` started, and the ids of those that
//! went on in the background. Everything in it dies with the turn.

mod exec;
mod log;

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

pub(crate) use exec::{EndReason, Execution, ExitInfo, STOP_GRACE};

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

/// The shell commands of one turn: running and background jobs, killed together when the turn ends.
pub struct Jobs {
    table: Mutex<Table>,
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
    /// An empty table.
    pub fn new() -> Self {
        Jobs {
            table: Mutex::new(Table::default()),
        }
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
        let mut running = 0;
        for exec in &all {
            if exec.exit().is_none() {
                running += 1;
            }
            exec.kill_now();
        }
        teardown.cancel();
        running
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

    /// Starts a command and records it.
    pub(crate) fn start(
        &self,
        command: &str,
        cwd: &Path,
        deadline: Instant,
        cancel: &CancellationToken,
    ) -> std::io::Result<Arc<Execution>> {
        let teardown = self.table().teardown.clone();
        let exec = Execution::spawn(command, cwd, deadline, cancel.clone(), teardown)?;
        self.table().all.push(exec.clone());
        Ok(exec)
    }

    /// Gives a running command a job id (`bg-1`, `bg-2`, …).
    pub(crate) fn background(&self, exec: &Arc<Execution>) -> String {
        let mut table = self.table();
        table.next_id += 1;
        let id = format!("bg-{}", table.next_id);
        table.background.insert(id.clone(), exec.clone());
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
