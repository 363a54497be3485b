//! The scheduler's state: which tasks run now, what was announced, and the
//! limits read from the config; shared by the loop, the runs and the
//! `schedule.*` handlers.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use seekclaw_config::Config;
use seekclaw_engine::sync::Locked;
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::presentation::RunCancel as CancelReason;

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
pub(super) struct State {
    /// By task id: a task never runs twice at once.
    running: HashMap<String, Running>,
    /// `(task id, occurrence)` pairs already announced.
    pub(super) announced: HashSet<(String, String)>,
}

/// The daemon's scheduler state; the loop itself runs in [`super::start`].
pub struct Scheduler {
    state: Mutex<State>,
    pub(super) wake: Notify,
    pub(super) runs: TaskTracker,
    /// Stops the loop and cancels every run (daemon shutdown).
    pub(super) stop: CancellationToken,
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

    pub(super) fn state(&self) -> MutexGuard<'_, State> {
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
    pub(super) fn reserve(
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

    pub(super) fn release(&self, task_id: &str) {
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
