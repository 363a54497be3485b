//! Scheduled tasks and the per-occurrence claims that make each occurrence run
//! once, even across restarts and with two daemons on one database.
//!
//! The store knows nothing about cron: callers pass the next run time, or a
//! closure computing it from the row as read inside the write transaction, so
//! a concurrent edit (new cron, disabled) is never overwritten by a stale value.

use rusqlite::{OptionalExtension, Row, Transaction, params};
use serde::Serialize;

use crate::error::Result;
use crate::store::Store;
use crate::time::now_iso;

/// Name shown for a task stored without one (the original's default).
pub const DEFAULT_TASK_NAME: &str = "未命名任务";

/// A scheduled task; serializes as the wire task JSON (reference §7.1):
/// compact key order, nulls omitted, plus the computed `displayName`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ScheduledTask {
    /// Task id.
    pub id: String,
    /// Name as the user gave it (may be empty).
    pub name: String,
    /// Workspace the runs work in.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workspace: Option<String>,
    /// What each run asks the agent.
    pub prompt: String,
    /// Cron expression of the schedule.
    pub cron: String,
    /// Whether the scheduler runs it.
    pub enabled: bool,
    /// When the last run started.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_run_at: Option<String>,
    /// UTC, in the `now_iso` format (fixed width, so it sorts as text).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_run_at: Option<String>,
    /// How the last run ended.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_status: Option<String>,
    /// Error of the last run, if it failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_error: Option<String>,
    /// Output of the last run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_output: Option<String>,
    /// The session of the last run (a superset of the reference shape).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_session_id: Option<String>,
    /// Creation time (ISO 8601, UTC).
    pub created_at: String,
    /// Last change (ISO 8601, UTC).
    pub updated_at: String,
    /// The name, or a default when it is empty (see [`display_name`]).
    pub display_name: String,
    /// What runs do with calls that need approval: `reject` (when unset) or `allow`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub approval: Option<String>,
}

/// What `schedule.create` / `schedule.update` write.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ScheduleDraft {
    /// Task id.
    pub id: String,
    /// Name as the user gave it.
    pub name: String,
    /// Workspace the runs work in.
    pub workspace: Option<String>,
    /// What each run asks the agent.
    pub prompt: String,
    /// Cron expression of the schedule.
    pub cron: String,
    /// Whether the scheduler runs it.
    pub enabled: bool,
    /// Next due time, computed by the caller from `cron`.
    pub next_run_at: Option<String>,
    /// `reject` or `allow` (see [`ScheduledTask::approval`]).
    pub approval: Option<String>,
}

/// An enabled task whose next occurrence is near: what one scheduler tick reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScheduleSlot {
    /// Task id.
    pub id: String,
    /// Name shown for the task.
    pub display_name: String,
    /// The due time.
    pub next_run_at: String,
}

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunStatus {
    /// The run finished.
    Success,
    /// The run failed.
    Error,
    /// The run was cancelled.
    Cancelled,
}

impl RunStatus {
    /// The name stored in `last_status` and claim rows.
    pub fn as_str(self) -> &'static str {
        match self {
            RunStatus::Success => "success",
            RunStatus::Error => "error",
            RunStatus::Cancelled => "cancelled",
        }
    }
}

/// The outcome of one run, written back to its claim and its task.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunRecord {
    /// When the run started.
    pub started_at: String,
    /// How it ended.
    pub status: RunStatus,
    /// The error, if it failed.
    pub error: Option<String>,
    /// The agent's final output.
    pub output: Option<String>,
    /// Session the run wrote to.
    pub session_id: Option<String>,
}

/// The answer to a claim.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Claim {
    /// This caller owns the occurrence and must run it; the task as updated.
    Claimed(Box<ScheduledTask>),
    /// Someone else claimed it first (another daemon, or before a restart).
    Taken,
    /// The task is gone, disabled, or no longer scheduled for that occurrence.
    Stale,
}

/// One claimed occurrence and what became of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClaimRow {
    /// The scheduled time (UTC, store format), or a `manual:` key.
    pub occurrence: String,
    /// When it was claimed.
    pub claimed_at: String,
    /// When the run finished, if it did.
    pub finished_at: Option<String>,
    /// How the run ended ([`RunStatus::as_str`]), once finished.
    pub status: Option<String>,
    /// Session the run wrote to.
    pub session_id: Option<String>,
}

/// Prefix of the occurrence key of a manual (`schedule.run`) run.
pub const MANUAL_OCCURRENCE_PREFIX: &str = "manual:";

/// Message recorded for runs a daemon left unfinished (crash, `kill -9`).
pub const INTERRUPTED_RUN: &str = "The daemon stopped before this run finished.";

macro_rules! task_cols {
    () => {
        "id, name, workspace, prompt, cron, enabled, last_run_at, next_run_at, last_status, \
         last_error, last_output, last_session_id, created_at, updated_at, approval"
    };
}

/// The name shown for a task: its own, or the default when blank.
pub fn display_name(name: &str) -> String {
    let trimmed = name.trim();
    if trimmed.is_empty() {
        DEFAULT_TASK_NAME.to_string()
    } else {
        trimmed.to_string()
    }
}

fn task_from_row(r: &Row<'_>) -> rusqlite::Result<ScheduledTask> {
    let name: String = r.get::<_, Option<String>>(1)?.unwrap_or_default();
    Ok(ScheduledTask {
        id: r.get(0)?,
        display_name: display_name(&name),
        name: if name.trim().is_empty() {
            DEFAULT_TASK_NAME.to_string()
        } else {
            name
        },
        workspace: r.get(2)?,
        prompt: r.get::<_, Option<String>>(3)?.unwrap_or_default(),
        cron: r.get::<_, Option<String>>(4)?.unwrap_or_default(),
        enabled: r.get::<_, Option<bool>>(5)?.unwrap_or(true),
        last_run_at: r.get(6)?,
        next_run_at: r.get(7)?,
        last_status: r.get(8)?,
        last_error: r.get(9)?,
        last_output: r.get(10)?,
        last_session_id: r.get(11)?,
        created_at: r.get::<_, Option<String>>(12)?.unwrap_or_default(),
        updated_at: r.get::<_, Option<String>>(13)?.unwrap_or_default(),
        approval: r.get(14)?,
    })
}

fn task_in(tx: &Transaction<'_>, id: &str) -> Result<Option<ScheduledTask>> {
    Ok(tx
        .prepare_cached(concat!(
            "SELECT ",
            task_cols!(),
            " FROM scheduled_tasks WHERE id = ?1"
        ))?
        .query_row([id], task_from_row)
        .optional()?)
}

fn set_next(tx: &Transaction<'_>, id: &str, next: Option<&str>) -> Result<()> {
    tx.prepare_cached("UPDATE scheduled_tasks SET next_run_at = ?2 WHERE id = ?1")?
        .execute(params![id, next])?;
    Ok(())
}

impl Store {
    /// Creates the task, or replaces its definition when `id` exists (its
    /// `created_at` and last-run fields are kept).
    pub fn upsert_schedule(&self, d: &ScheduleDraft) -> Result<ScheduledTask> {
        self.write(|tx| {
            let now = now_iso();
            let task = tx
                .prepare_cached(concat!(
                    "INSERT INTO scheduled_tasks (id, name, workspace, prompt, cron, enabled, \
                     next_run_at, created_at, updated_at, approval) \
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?8, ?9) \
                     ON CONFLICT (id) DO UPDATE SET name = excluded.name, \
                     workspace = excluded.workspace, prompt = excluded.prompt, cron = excluded.cron, \
                     enabled = excluded.enabled, next_run_at = excluded.next_run_at, \
                     updated_at = excluded.updated_at, \
                     approval = COALESCE(excluded.approval, approval) RETURNING ",
                    task_cols!()
                ))?
                .query_row(
                    params![
                        d.id,
                        d.name,
                        d.workspace,
                        d.prompt,
                        d.cron,
                        d.enabled,
                        d.next_run_at,
                        now,
                        d.approval
                    ],
                    task_from_row,
                )?;
            Ok(task)
        })
    }

    /// The task with this id, if any.
    pub fn schedule(&self, id: &str) -> Result<Option<ScheduledTask>> {
        self.read(|tx| task_in(tx, id))
    }

    /// Every task, newest first.
    pub fn list_schedules(&self) -> Result<Vec<ScheduledTask>> {
        self.read(|tx| {
            let mut stmt = tx.prepare_cached(concat!(
                "SELECT ",
                task_cols!(),
                " FROM scheduled_tasks ORDER BY created_at DESC, id"
            ))?;
            let rows = stmt
                .query_map([], task_from_row)?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            Ok(rows)
        })
    }

    /// Enables or disables a task. Disabling clears `next_run_at`; enabling
    /// sets it to `next(task)` (computed from the stored cron). `None` when
    /// the task does not exist.
    pub fn set_schedule_enabled(
        &self,
        id: &str,
        enabled: bool,
        next: impl FnOnce(&ScheduledTask) -> Option<String>,
    ) -> Result<Option<ScheduledTask>> {
        self.write(|tx| {
            let Some(task) = task_in(tx, id)? else {
                return Ok(None);
            };
            let next_run = if enabled { next(&task) } else { None };
            let updated = tx
                .prepare_cached(concat!(
                    "UPDATE scheduled_tasks SET enabled = ?2, next_run_at = ?3, updated_at = ?4 \
                     WHERE id = ?1 RETURNING ",
                    task_cols!()
                ))?
                .query_row(params![id, enabled, next_run, now_iso()], task_from_row)?;
            Ok(Some(updated))
        })
    }

    /// Deletes a task and its claims; `false` when it did not exist.
    pub fn delete_schedule(&self, id: &str) -> Result<bool> {
        self.write(|tx| {
            tx.prepare_cached("DELETE FROM schedule_claims WHERE task_id = ?1")?
                .execute([id])?;
            let n = tx
                .prepare_cached("DELETE FROM scheduled_tasks WHERE id = ?1")?
                .execute([id])?;
            Ok(n > 0)
        })
    }

    /// Enabled tasks whose next run is at or before `until`, soonest first.
    /// Walks the `(enabled, next_run_at)` index, so far-off tasks cost nothing.
    pub fn schedules_due_by(&self, until: &str) -> Result<Vec<ScheduleSlot>> {
        self.read(|tx| {
            let mut stmt = tx.prepare_cached(
                "SELECT id, name, next_run_at FROM scheduled_tasks INDEXED BY scheduled_tasks_due \
                 WHERE enabled = 1 AND next_run_at IS NOT NULL AND next_run_at <= ?1 \
                 ORDER BY next_run_at",
            )?;
            let rows = stmt
                .query_map([until], |r| {
                    Ok(ScheduleSlot {
                        id: r.get(0)?,
                        display_name: display_name(
                            &r.get::<_, Option<String>>(1)?.unwrap_or_default(),
                        ),
                        next_run_at: r.get(2)?,
                    })
                })?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            Ok(rows)
        })
    }

    /// Claims the scheduled occurrence `occurrence` (the task's `next_run_at`)
    /// and, in the same transaction, moves `next_run_at` on to `next(task)`.
    ///
    /// Whoever inserts the claim row runs the occurrence; everyone else gets
    /// `Taken`. The schedule moves on either way, so an occurrence claimed by a
    /// process that died never blocks the task.
    pub fn claim_occurrence(
        &self,
        id: &str,
        occurrence: &str,
        next: impl FnOnce(&ScheduledTask) -> Option<String>,
    ) -> Result<Claim> {
        self.write(|tx| {
            let Some(mut task) = task_in(tx, id)? else {
                return Ok(Claim::Stale);
            };
            if !task.enabled || task.next_run_at.as_deref() != Some(occurrence) {
                return Ok(Claim::Stale);
            }
            let inserted = insert_claim(tx, id, occurrence)?;
            task.next_run_at = next(&task);
            set_next(tx, id, task.next_run_at.as_deref())?;
            Ok(if inserted {
                Claim::Claimed(Box::new(task))
            } else {
                Claim::Taken
            })
        })
    }

    /// Claims a manual run (`schedule.run`); its occurrence key is returned
    /// with the task. `None` when the task does not exist.
    pub fn claim_manual_run(&self, id: &str) -> Result<Option<(ScheduledTask, String)>> {
        self.write(|tx| {
            let Some(task) = task_in(tx, id)? else {
                return Ok(None);
            };
            // Unique per run: the clock has 100 ns resolution and a random tail
            // rules out two runs started within the same tick.
            let key = format!("{MANUAL_OCCURRENCE_PREFIX}{}:{:08x}", now_iso(), rand_u32());
            insert_claim(tx, id, &key)?;
            Ok(Some((task, key)))
        })
    }

    /// Links a claimed occurrence to the session its run created.
    pub fn set_claim_session(&self, id: &str, occurrence: &str, session_id: &str) -> Result<()> {
        self.write(|tx| {
            tx.prepare_cached(
                "UPDATE schedule_claims SET session_id = ?3 WHERE task_id = ?1 AND occurrence = ?2",
            )?
            .execute(params![id, occurrence, session_id])?;
            Ok(())
        })
    }

    /// Records a run's outcome on its claim and its task, and sets the task's
    /// `next_run_at` to `next(task)` (cleared when the task is disabled).
    /// `None` when the task was deleted meanwhile.
    pub fn finish_run(
        &self,
        id: &str,
        occurrence: &str,
        run: &RunRecord,
        next: impl FnOnce(&ScheduledTask) -> Option<String>,
    ) -> Result<Option<ScheduledTask>> {
        self.write(|tx| {
            let now = now_iso();
            tx.prepare_cached(
                "UPDATE schedule_claims SET finished_at = ?3, status = ?4, \
                 session_id = COALESCE(?5, session_id) WHERE task_id = ?1 AND occurrence = ?2",
            )?
            .execute(params![
                id,
                occurrence,
                now,
                run.status.as_str(),
                run.session_id
            ])?;
            let Some(task) = task_in(tx, id)? else {
                return Ok(None);
            };
            let next_run = if task.enabled { next(&task) } else { None };
            let updated = tx
                .prepare_cached(concat!(
                    "UPDATE scheduled_tasks SET last_run_at = ?2, last_status = ?3, last_error = ?4, \
                     last_output = ?5, last_session_id = ?6, next_run_at = ?7 WHERE id = ?1 RETURNING ",
                    task_cols!()
                ))?
                .query_row(
                    params![
                        id,
                        run.started_at,
                        run.status.as_str(),
                        run.error,
                        run.output,
                        run.session_id,
                        next_run
                    ],
                    task_from_row,
                )?;
            Ok(Some(updated))
        })
    }

    /// Closes claims a previous daemon left open (it crashed mid-run): they are
    /// marked `cancelled`, and so is their task's last run when it is the
    /// latest. Call only while no other daemon uses this database. Returns the
    /// number of claims closed.
    pub fn recover_unfinished_runs(&self) -> Result<usize> {
        self.write(|tx| {
            let open: Vec<(String, String, Option<String>, Option<String>)> = {
                let mut stmt = tx.prepare_cached(
                    "SELECT task_id, occurrence, claimed_at, session_id FROM schedule_claims \
                     INDEXED BY schedule_claims_open WHERE finished_at IS NULL",
                )?;
                stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?
                    .collect::<rusqlite::Result<_>>()?
            };
            let now = now_iso();
            for (task_id, occurrence, claimed_at, session_id) in &open {
                tx.prepare_cached(
                    "UPDATE schedule_claims SET finished_at = ?3, status = 'cancelled' \
                     WHERE task_id = ?1 AND occurrence = ?2",
                )?
                .execute(params![task_id, occurrence, now])?;
                tx.prepare_cached(
                    "UPDATE scheduled_tasks SET last_run_at = ?2, last_status = 'cancelled', \
                     last_error = ?3, last_output = NULL, last_session_id = ?4 \
                     WHERE id = ?1 AND (last_run_at IS NULL OR last_run_at <= ?2)",
                )?
                .execute(params![
                    task_id,
                    claimed_at,
                    INTERRUPTED_RUN,
                    session_id
                ])?;
            }
            Ok(open.len())
        })
    }

    /// Drops finished claims older than `before` (history only: a task's
    /// `next_run_at` never points that far back). Returns how many went.
    pub fn prune_schedule_claims(&self, before: &str) -> Result<usize> {
        self.write(|tx| {
            let n = tx
                .prepare_cached(
                    "DELETE FROM schedule_claims WHERE finished_at IS NOT NULL AND claimed_at < ?1",
                )?
                .execute([before])?;
            Ok(n)
        })
    }

    /// Claim rows of one task, oldest first (history, tests, diagnostics).
    pub fn schedule_claims(&self, id: &str) -> Result<Vec<ClaimRow>> {
        self.read(|tx| {
            let mut stmt = tx.prepare_cached(
                "SELECT occurrence, claimed_at, finished_at, status, session_id \
                 FROM schedule_claims WHERE task_id = ?1 ORDER BY claimed_at, occurrence",
            )?;
            let rows = stmt
                .query_map([id], |r| {
                    Ok(ClaimRow {
                        occurrence: r.get(0)?,
                        claimed_at: r.get::<_, Option<String>>(1)?.unwrap_or_default(),
                        finished_at: r.get(2)?,
                        status: r.get(3)?,
                        session_id: r.get(4)?,
                    })
                })?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            Ok(rows)
        })
    }
}

/// `true` when this call inserted the claim row.
fn insert_claim(tx: &Transaction<'_>, id: &str, occurrence: &str) -> Result<bool> {
    let n = tx
        .prepare_cached(
            "INSERT INTO schedule_claims (task_id, occurrence, claimed_at) VALUES (?1, ?2, ?3) \
             ON CONFLICT (task_id, occurrence) DO NOTHING",
        )?
        .execute(params![id, occurrence, now_iso()])?;
    Ok(n > 0)
}

/// A few random bits without a dependency: the std hasher is randomly keyed.
fn rand_u32() -> u32 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0),
    );
    h.finish() as u32
}

#[cfg(test)]
#[path = "schedules_tests.rs"]
mod tests;
