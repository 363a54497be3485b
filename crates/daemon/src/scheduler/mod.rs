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
pub mod state;

use std::time::Duration;

use chrono::{DateTime, Utc};
use seekclaw_protocol::events::ScheduleUpcomingDetails;
use seekclaw_protocol::{Envelope, MethodError};
use seekclaw_store::{ScheduleSlot, format_iso};

use crate::ctx::Ctx;

pub use run::{CancelReason, start_manual};
pub use state::Settings;

/// Occurrences closer than this get a `schedule.upcoming` notice.
const NOTICE: Duration = Duration::from_secs(60);
/// Finished claims older than this are dropped at start-up.
const CLAIM_HISTORY_DAYS: i64 = 30;

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

/// Starts the scheduler loop (after the listener is bound).
pub fn start(daemon: &Ctx) {
    let daemon = daemon.clone();
    tokio::spawn(async move {
        recover(&daemon).await;
        tick_loop(&daemon).await;
    });
}

/// Closes runs a crashed daemon left open and trims old claim history.
async fn recover(daemon: &Ctx) {
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

async fn tick_loop(daemon: &Ctx) {
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
pub async fn tick(daemon: &Ctx, settings: &Settings) -> Result<TickReport, MethodError> {
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

#[cfg(test)]
mod tests;

#[cfg(test)]
mod bench;
