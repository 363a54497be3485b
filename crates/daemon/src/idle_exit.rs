//! The on-demand daemon's end: a daemon a front end started for itself
//! (`seekclaw daemon --on-demand`) exits once no client has been connected
//! for the idle delay and nothing is left running (a turn, a scheduled run,
//! a background job, a schedule due within the notice horizon), so neither
//! a quitting nor a killed terminal UI stops the daemon under other windows
//! or leaves it behind.
//!
//! Event-driven: while a client is connected the watcher sleeps on the
//! connection count and costs no wake-up; only an unattended daemon with
//! work left re-checks, once per idle delay.

use std::time::Duration;

use chrono::Utc;
use seekclaw_store::format_iso;

use crate::ctx::Ctx;

/// A schedule due this soon keeps an unattended daemon up to run it (the
/// horizon of `schedule.upcoming` notices).
const DUE_HORIZON: Duration = Duration::from_secs(60);

/// Starts the watcher: after `delay` with no client and nothing running, the
/// daemon shuts down as if asked to.
pub fn start(daemon: &Ctx, delay: Duration) {
    let daemon = daemon.clone();
    tokio::spawn(async move {
        tokio::select! {
            _ = daemon.shutdown.cancelled() => {}
            why = wait_until_idle(&daemon, delay) => {
                tracing::info!(idle = ?delay, "on-demand daemon: {why}; exiting");
                daemon.shutdown.cancel();
            }
        }
    });
}

/// Returns once no client has been connected for `delay` and nothing runs.
async fn wait_until_idle(daemon: &Ctx, delay: Duration) -> &'static str {
    let mut clients = daemon.connections.watch_count();
    loop {
        // Parked here (no timer, no wake-up) while anyone is connected.
        if clients.wait_for(|n| *n == 0).await.is_err() {
            // The sender lives as long as the daemon: never happens.
            return "the connection registry closed";
        }
        tokio::select! {
            _ = tokio::time::sleep(delay) => {}
            // Someone connected: wait for them to leave, then a whole delay.
            _ = clients.wait_for(|n| *n > 0) => continue,
        }
        match busy(daemon).await {
            None => return "no client connected and nothing running",
            Some(what) => tracing::debug!(what, "on-demand daemon stays up"),
        }
    }
}

/// What keeps an unattended daemon up, if anything.
async fn busy(daemon: &Ctx) -> Option<&'static str> {
    if daemon.engine.turns.count() > 0 {
        return Some("a turn is running");
    }
    if daemon.scheduler.running_count() > 0 {
        return Some("a scheduled run is in progress");
    }
    if daemon.engine.jobs.running_count() > 0 {
        return Some("a background job is running");
    }
    let horizon = chrono::Duration::from_std(DUE_HORIZON).unwrap_or_default();
    let until = format_iso(Utc::now() + horizon);
    match daemon.db(move |s| s.schedules_due_by(&until)).await {
        Ok(due) if due.is_empty() => None,
        Ok(_) => Some("a scheduled task is due"),
        // Unsure what is due: staying up is the safe side.
        Err(_) => Some("the schedule could not be read"),
    }
}
