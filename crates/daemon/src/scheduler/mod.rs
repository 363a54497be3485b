//! The scheduler: a tick loop that starts due scheduled tasks as agent turns.
//!
//! A tick reads only the tasks due within the notice horizon (an index range
//! scan), announces occurrences less than a minute away once, and starts due
//! ones as their own tasks: the loop never awaits a run. Each occurrence is
//! claimed in the database before it runs (see `seekclaw_store::Claim`), so a
//! restart or a second daemon on the same database never runs it twice. The
//! loop sleeps until the next tick or the nearest known occurrence, whichever
//! comes first, and is woken early by edits and finished runs.

pub mod cron;
mod cron_syntax;
mod run;

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use chrono::{DateTime, Utc};
use seekclaw_config::Config;
use seekclaw_protocol::events::ScheduleUpcomingDetails;
use seekclaw_protocol::{Envelope, MethodError};
use seekclaw_store::{ScheduleSlot, format_iso};
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::daemon::Daemon;
use seekclaw_engine::sync::Locked;

pub use run::{CancelReason, start_manual};

/// Occurrences closer than this get a `schedule.upcoming` notice.
const NOTICE: Duration = Duration::from_secs(60);
/// Finished claims older than this are dropped at start-up.
const CLAIM_HISTORY_DAYS: i64 = 30;
/// How long shutdown waits for cancelled runs to record their outcome.
const STOP_GRACE: Duration = Duration::from_secs(5);

/// Limits read from the config at every tick, so edits apply without a restart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Settings {
    pub tick: Duration,
    pub max_concurrent: usize,
    pub turn_timeout: Duration,
}

impl Settings {
    /// `agent.scheduledTurnTimeoutSeconds` is clamped to 60..=86400 s; the floor
    /// drops to 1 s only with the hidden `daemon.allowShortScheduledTimeouts`.
    pub fn from_config(config: &Config) -> Settings {
        let floor = if config.daemon.allow_short_scheduled_timeouts {
            1
        } else {
            60
        };
        Settings {
            tick: Duration::from_millis(
                config
                    .daemon
                    .scheduler_tick_milliseconds
                    .clamp(10, 3_600_000),
            ),
            max_concurrent: config.agent.max_concurrent_scheduled_turns.max(1) as usize,
            turn_timeout: Duration::from_secs(
                config
                    .agent
                    .scheduled_turn_timeout_seconds
                    .clamp(floor, 86_400),
            ),
        }
    }
}

/// A run in progress.
struct Running {
    cancel: CancellationToken,
    reason: Arc<Mutex<Option<CancelReason>>>,
}

#[derive(Default)]
struct State {
    /// By task id: a task never runs twice at once.
    running: HashMap<String, Running>,
    /// `(task id, occurrence)` pairs already announced.
    announced: HashSet<(String, String)>,
}

/// What one tick did (for the loop and the benchmark).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TickReport {
    /// Tasks read (due or within the notice horizon).
    pub read: usize,
    pub started: usize,
    /// Due but left for a later tick: the concurrency limit was reached.
    pub deferred: usize,
    pub announced: usize,
    /// The nearest future occurrence seen.
    pub next_occurrence: Option<DateTime<Utc>>,
}

/// The daemon's scheduler state; the loop itself runs in [`start`].
pub struct Scheduler {
    state: Mutex<State>,
    wake: Notify,
    runs: TaskTracker,
    /// Stops the loop and cancels every run (daemon shutdown).
    stop: CancellationToken,
}

impl Scheduler {
    pub fn new(stop: CancellationToken) -> Scheduler {
        Scheduler {
            state: Mutex::new(State::default()),
            wake: Notify::new(),
            runs: TaskTracker::new(),
            stop,
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        // The state holds no invariant a panic could break halfway.
        self.state.locked()
    }

    /// Makes the loop tick now (a task was created, edited or finished).
    pub fn wake(&self) {
        self.wake.notify_one();
    }

    pub fn is_running(&self, task_id: &str) -> bool {
        self.state().running.contains_key(task_id)
    }

    pub fn running_count(&self) -> usize {
        self.state().running.len()
    }

    /// Cancels the task's run, if any, recording `reason`.
    pub fn cancel(&self, task_id: &str, reason: CancelReason) -> bool {
        let state = self.state();
        let Some(run) = state.running.get(task_id) else {
            return false;
        };
        run.reason.locked().get_or_insert(reason);
        run.cancel.cancel();
        true
    }

    /// Registers a run of `task_id` unless one is in progress; the returned
    /// token and reason slot belong to the new run.
    fn reserve(
        &self,
        task_id: &str,
    ) -> Option<(CancellationToken, Arc<Mutex<Option<CancelReason>>>)> {
        let mut state = self.state();
        if state.running.contains_key(task_id) {
            return None;
        }
        let cancel = self.stop.child_token();
        let reason = Arc::new(Mutex::new(None));
        state.running.insert(
            task_id.to_string(),
            Running {
                cancel: cancel.clone(),
                reason: reason.clone(),
            },
        );
        Some((cancel, reason))
    }

    fn release(&self, task_id: &str) {
        self.state().running.remove(task_id);
        self.wake();
    }

    /// Stops ticking and cancels every run.
    pub fn stop(&self) {
        self.stop.cancel();
        self.runs.close();
    }

    /// After [`Scheduler::stop`]: waits (bounded) until the cancelled runs have
    /// recorded their outcome.
    pub async fn wait_stopped(&self) {
        if tokio::time::timeout(STOP_GRACE, self.runs.wait())
            .await
            .is_err()
        {
            tracing::warn!("scheduled runs still busy after the shutdown grace");
        }
    }
}

/// Starts the scheduler loop (after the listener is bound).
pub fn start(daemon: &Arc<Daemon>) {
    let daemon = daemon.clone();
    tokio::spawn(async move {
        recover(&daemon).await;
        tick_loop(&daemon).await;
    });
}

/// Closes runs a crashed daemon left open and trims old claim history.
async fn recover(daemon: &Daemon) {
    let before = format_iso(Utc::now() - chrono::Duration::days(CLAIM_HISTORY_DAYS));
    match daemon
        .db(move |s| {
            Ok((
                s.recover_unfinished_runs()?,
                s.prune_schedule_claims(&before)?,
            ))
        })
        .await
    {
        Ok((0, _)) => {}
        Ok((n, _)) => tracing::warn!(
            runs = n,
            "marked scheduled runs interrupted by a previous stop"
        ),
        Err(e) => tracing::error!(error = %e.message, "cannot recover scheduled runs"),
    }
}

async fn tick_loop(daemon: &Arc<Daemon>) {
    let scheduler = &daemon.scheduler;
    while !scheduler.stop.is_cancelled() {
        let settings = Settings::from_config(&daemon.engine.config.load());
        let report = match tick(daemon, &settings).await {
            Ok(r) => r,
            Err(e) => {
                tracing::error!(error = %e.message, "scheduler tick failed");
                TickReport::default()
            }
        };
        let mut sleep = settings.tick;
        if let Some(at) = report.next_occurrence {
            // A little past the occurrence, so the next tick sees it due.
            let until = (at - Utc::now()).to_std().unwrap_or_default() + Duration::from_millis(2);
            sleep = sleep.min(until);
        }
        tokio::select! {
            _ = scheduler.stop.cancelled() => break,
            _ = tokio::time::sleep(sleep) => {}
            _ = scheduler.wake.notified() => {}
        }
    }
    tracing::debug!("scheduler stopped");
}

/// One pass: start what is due (up to the concurrency limit), announce what
/// is less than a minute away. Never waits for a run.
pub async fn tick(daemon: &Arc<Daemon>, settings: &Settings) -> Result<TickReport, MethodError> {
    let now = Utc::now();
    // Reading as far as the next tick lets the loop wake exactly on time.
    let horizon = now
        + chrono::Duration::from_std(NOTICE.max(settings.tick))
            .unwrap_or_else(|_| chrono::Duration::minutes(1));
    let until = format_iso(horizon);
    let slots = daemon.db(move |s| s.schedules_due_by(&until)).await?;
    let now_iso = format_iso(now);
    let notice_until = format_iso(now + chrono::Duration::seconds(NOTICE.as_secs() as i64));
    let mut report = TickReport {
        read: slots.len(),
        ..TickReport::default()
    };
    let mut notices = Vec::new();
    let mut due = Vec::new();
    {
        let mut state = daemon.scheduler.state();
        for slot in slots {
            if slot.next_run_at <= now_iso {
                due.push(slot);
                continue;
            }
            if report.next_occurrence.is_none() {
                report.next_occurrence = parse_iso(&slot.next_run_at);
            }
            if slot.next_run_at <= notice_until
                && state
                    .announced
                    .insert((slot.id.clone(), slot.next_run_at.clone()))
            {
                notices.push(slot);
            }
        }
        // Announced occurrences in the past can never be announced again.
        state.announced.retain(|(_, at)| *at > now_iso);
    }
    for slot in due {
        if daemon.scheduler.is_running(&slot.id) {
            // A run of this task is still going; the schedule continues from
            // its end (the occurrence it overlaps is skipped, as in the original).
            continue;
        }
        if daemon.scheduler.running_count() >= settings.max_concurrent {
            report.deferred += 1;
            continue;
        }
        if run::start_scheduled(daemon, slot, settings) {
            report.started += 1;
        }
    }
    report.announced = notices.len();
    for slot in notices {
        daemon.connections.broadcast(&upcoming(&slot));
    }
    Ok(report)
}

/// `schedule.upcoming` (reference §3): data is the display name.
fn upcoming(slot: &ScheduleSlot) -> Envelope {
    Envelope::event(
        0,
        slot.display_name.clone(),
        &ScheduleUpcomingDetails {
            task_id: slot.id.clone(),
            name: slot.display_name.clone(),
            run_at: slot.next_run_at.clone(),
        },
    )
}

fn parse_iso(s: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(s)
        .ok()
        .map(|t| t.with_timezone(&Utc))
}

/// What a task's runs do with calls that need approval: nobody is there to
/// answer, so the task decides (`reject` unless it says `allow`).
pub(crate) fn approvals_of(task: &seekclaw_store::ScheduledTask) -> seekclaw_agent::Approvals {
    use seekclaw_agent::{Approvals, Unattended};
    if task.approval.as_deref() == Some("allow") {
        return Approvals::unattended(Unattended::Allow);
    }
    Approvals::unattended(Unattended::Reject(
        "scheduled runs do not wait for a person (the task's `approval` is `reject`)".into(),
    ))
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod bench;
