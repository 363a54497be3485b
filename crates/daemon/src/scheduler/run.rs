//! One scheduled run: claim, a fresh session titled `<name>（计划任务）` in the
//! task's workspace (global when it has none or it is gone), one agent turn with
//! the daemon's shared providers, tools and write locks under a wall-clock
//! limit, and the outcome stored on the task and broadcast as `schedule.updated`.

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use chrono::Utc;
use seekclaw_agent::{SteerQueue, TurnOutcome};
use seekclaw_config::ReasoningLevel;
use seekclaw_protocol::events::ScheduleUpdatedDetails;
use seekclaw_protocol::{Envelope, MethodError};
use seekclaw_store::{Claim, RunRecord, RunStatus, ScheduleSlot, ScheduledTask};
use tokio_util::sync::CancellationToken;

use super::cron::next_run_iso;
use super::state::Settings;
use crate::ctx::Ctx;
use crate::scope::Scope;
use seekclaw_engine::create_session;
use seekclaw_engine::sync::Locked;
use seekclaw_engine::{SessionTarget, TurnControls, TurnOrigin, TurnRequest};

/// `last_output` keeps at most this many characters of the final answer.
pub const OUTPUT_LIMIT_CHARS: usize = 4000;
/// After cancelling a turn, how long it may take to wind down and record its end.
const SETTLE_GRACE: Duration = Duration::from_secs(10);

/// Why a run was cancelled, for its `last_error` (worded by `ui.language`).
pub use crate::presentation::RunCancel as CancelReason;

type ReasonSlot = Arc<Mutex<Option<CancelReason>>>;

/// Starts the due occurrence `slot` unless the task is already running:
/// claims it, then runs it. Returns whether a run task was started.
pub(super) fn start_scheduled(daemon: &Ctx, slot: ScheduleSlot, settings: &Settings) -> bool {
    let Some((cancel, reason)) = daemon.scheduler.reserve(&slot.id) else {
        return false;
    };
    let d = daemon.clone();
    let settings = *settings;
    daemon.scheduler.runs.spawn(async move {
        let (id, occurrence) = (slot.id.clone(), slot.next_run_at.clone());
        let claimed = d
            .db(move |s| {
                s.claim_occurrence(&id, &occurrence, |t| next_run_iso(&t.cron, Utc::now()))
            })
            .await;
        match claimed {
            // The run frees its slot itself.
            Ok(Claim::Claimed(task)) => {
                return run_claimed(&d, *task, slot.next_run_at, cancel, reason, settings).await;
            }
            Ok(Claim::Taken) => {
                tracing::info!(task = %slot.id, occurrence = %slot.next_run_at, "occurrence already claimed elsewhere; skipped");
            }
            Ok(Claim::Stale) => {}
            Err(e) => tracing::error!(task = %slot.id, error = %e.message, "cannot claim a scheduled occurrence"),
        }
        d.scheduler.release(&slot.id);
    });
    true
}

/// `schedule.run`: claims a manual run and starts it in the background. A task
/// that is already running is left alone (answered `Ok` all the same).
pub async fn start_manual(daemon: &Ctx, task_id: &str) -> Result<(), MethodError> {
    let Some((cancel, reason)) = daemon.scheduler.reserve(task_id) else {
        return Ok(());
    };
    let id = task_id.to_string();
    let claimed = daemon.db(move |s| s.claim_manual_run(&id)).await;
    let (task, occurrence) = match claimed {
        Ok(Some(found)) => found,
        Ok(None) => {
            daemon.scheduler.release(task_id);
            return Err(MethodError::not_found(format!(
                "Scheduled task not found: {task_id}"
            )));
        }
        Err(e) => {
            daemon.scheduler.release(task_id);
            return Err(e);
        }
    };
    let settings = Settings::from_config(&daemon.engine.config.load());
    let d = daemon.clone();
    daemon.scheduler.runs.spawn(async move {
        run_claimed(&d, task, occurrence, cancel, reason, settings).await;
    });
    Ok(())
}

/// Runs a claimed occurrence to its recorded, broadcast outcome, and frees the
/// task's running slot once the outcome is recorded.
async fn run_claimed(
    daemon: &Ctx,
    task: ScheduledTask,
    occurrence: String,
    cancel: CancellationToken,
    reason: ReasonSlot,
    settings: Settings,
) {
    let started_at = seekclaw_store::now_iso();
    tracing::info!(task = %task.id, name = %task.display_name, occurrence = %occurrence, "scheduled run starts");
    let record = match execute(daemon, &task, &occurrence, &cancel, &reason, &settings).await {
        Ok(Outcome {
            status,
            error,
            output,
            session_id,
        }) => RunRecord {
            started_at,
            status,
            error,
            output,
            session_id,
        },
        Err((message, session_id)) => RunRecord {
            started_at,
            status: RunStatus::Error,
            error: Some(message),
            output: None,
            session_id,
        },
    };
    tracing::info!(task = %task.id, status = record.status.as_str(), "scheduled run ended");
    let (id, occ, rec) = (task.id.clone(), occurrence, record.clone());
    let stored = daemon
        .db(move |s| s.finish_run(&id, &occ, &rec, |t| next_run_iso(&t.cron, Utc::now())))
        .await;
    // Free before the broadcast: a client that reruns the task on
    // `schedule.updated` is not told it is still running.
    daemon.scheduler.release(&task.id);
    let name = match stored {
        Ok(Some(t)) => t.display_name,
        Ok(None) => task.display_name.clone(),
        Err(e) => {
            tracing::error!(task = %task.id, error = %e.message, "cannot record a scheduled run");
            task.display_name.clone()
        }
    };
    daemon
        .connections
        .broadcast(&updated(&task.id, &name, &record));
}

/// `schedule.updated` (reference §3): data is the task id.
fn updated(task_id: &str, name: &str, r: &RunRecord) -> Envelope {
    let details = ScheduleUpdatedDetails {
        task_id: task_id.to_string(),
        name: name.to_string(),
        status: r.status.as_str().to_string(),
        session_id: r.session_id.clone(),
        error: r.error.clone(),
    };
    Envelope::event(0, task_id, &details)
}

struct Outcome {
    status: RunStatus,
    error: Option<String>,
    output: Option<String>,
    session_id: Option<String>,
}

/// The scope a task runs in: its workspace's project root, else global.
fn task_scope(daemon: &Ctx, task: &ScheduledTask) -> Scope {
    match task.workspace.as_deref().map(str::trim) {
        Some(ws) if !ws.is_empty() && Path::new(ws).is_dir() => Scope::of_root(
            &seekclaw_config::detect_root(Path::new(ws), &daemon.engine.home),
        ),
        Some(ws) if !ws.is_empty() => {
            tracing::warn!(task = %task.id, workspace = ws, "workspace not found; running in the global scope");
            Scope::global()
        }
        _ => Scope::global(),
    }
}

async fn execute(
    daemon: &Ctx,
    task: &ScheduledTask,
    occurrence: &str,
    cancel: &CancellationToken,
    reason: &ReasonSlot,
    settings: &Settings,
) -> Result<Outcome, (String, Option<String>)> {
    let scope = task_scope(daemon, task);
    let level = daemon.engine.config.load().agent.reasoning_level;
    let session = run_session(daemon, task, occurrence, &scope, level).await?;
    let sid = session.id.clone();
    if cancel.is_cancelled() {
        let why = reason_of(reason);
        return Ok(cancelled(daemon, why, String::new(), sid));
    }
    // Registered like a client's turn, so `agent.steer` by session id and
    // `doctor` see it.
    let controls = TurnControls {
        cancel: cancel.clone(),
        steer: SteerQueue::new(),
        approvals: approvals_of(task),
    };
    let request = TurnRequest {
        scope: scope.clone(),
        session: SessionTarget::Id(sid.clone()),
        message: task.prompt.clone(),
        images: Vec::new(),
        reasoning: None,
        // Each run has the task's budget (its own, else `budgets.schedule`).
        overrides: seekclaw_engine::TurnOverrides {
            budget: Some(seekclaw_engine::FrontEndBudget {
                usd: None,
                task: Some(task.id.clone()),
            }),
            ..Default::default()
        },
        controls,
        origin: TurnOrigin::new("schedule"),
    };
    let turn = daemon
        .engine
        .start_turn(request)
        .await
        .map_err(|e| (e.message, Some(sid.clone())))?;
    // Nobody reads a scheduled turn live but its session's watchers (the
    // turn bus) and the log.
    let owner = turn.owner().to_string();
    // Boxed so an abandoned turn can be dropped before its end is recorded.
    let mut turn = Box::pin(turn.outcome());
    let mut timed_out = false;
    let outcome = tokio::select! {
        outcome = &mut turn => Some(outcome),
        _ = tokio::time::sleep(settings.turn_timeout) => {
            timed_out = true;
            cancel.cancel();
            tokio::time::timeout(SETTLE_GRACE, &mut turn).await.ok()
        }
        _ = cancel.cancelled() => tokio::time::timeout(SETTLE_GRACE, &mut turn).await.ok(),
    };
    let outcome = match outcome {
        Some(o) => o,
        None => {
            // The turn did not wind down: it is dropped (its locks released,
            // its session freed), so end it in the log here.
            drop(turn);
            tracing::warn!(session = %sid, "scheduled turn ignored cancellation; abandoned");
            let (key, s) = (scope.key.clone(), sid.clone());
            let _ = daemon
                .db(move |st| {
                    st.interrupt_turn(
                        &key,
                        &s,
                        &owner,
                        "The scheduled run did not stop when cancelled.",
                    )
                })
                .await;
            TurnOutcome::Cancelled(String::new())
        }
    };
    // A scheduled run is the session's whole use: its `SessionEnd` runs now.
    daemon.engine.end_session(&scope, &sid, "other").await;
    let why = || {
        if timed_out {
            CancelReason::Timeout(settings.turn_timeout)
        } else {
            reason_of(reason)
        }
    };
    Ok(run_outcome(daemon, &scope, sid, outcome, why).await)
}

/// The run's record of how its turn ended.
async fn run_outcome(
    daemon: &Ctx,
    scope: &Scope,
    sid: String,
    outcome: TurnOutcome,
    why: impl FnOnce() -> CancelReason,
) -> Outcome {
    match outcome {
        TurnOutcome::Done(text) => Outcome {
            status: RunStatus::Success,
            error: None,
            output: Some(cut(&text)),
            session_id: Some(sid),
        },
        TurnOutcome::Failed(failure) => Outcome {
            status: RunStatus::Error,
            error: Some(failure.message),
            output: last_answer(daemon, &scope.key, &sid).await.map(|t| cut(&t)),
            session_id: Some(sid),
        },
        // The run's end is not in its session: it failed, whatever it said.
        TurnOutcome::Unsaved { error, .. } => Outcome {
            status: RunStatus::Error,
            error: Some(seekclaw_protocol::wording::unsaved_message(&error)),
            output: last_answer(daemon, &scope.key, &sid).await.map(|t| cut(&t)),
            session_id: Some(sid),
        },
        TurnOutcome::Cancelled(text) => cancelled(daemon, why(), text, sid),
    }
}

/// A fresh session titled `<name>（计划任务）` (`ui.language`) for the run,
/// recorded on its claim.
async fn run_session(
    daemon: &Ctx,
    task: &ScheduledTask,
    occurrence: &str,
    scope: &Scope,
    level: ReasoningLevel,
) -> Result<seekclaw_store::SessionHeader, (String, Option<String>)> {
    let lang = daemon.engine.config.load().ui.language();
    let title = Some(crate::presentation::scheduled_title(
        &task.display_name,
        lang,
    ));
    let (tid, occ, target) = (task.id.clone(), occurrence.to_string(), scope.clone());
    daemon
        .db(move |s| {
            let header = create_session(s, &target, title, level, true)?;
            s.set_claim_session(&tid, &occ, &header.id)?;
            Ok(header)
        })
        .await
        .map_err(|e| {
            (
                format!("Cannot create the run's session: {}", e.message),
                None,
            )
        })
}

/// The last non-empty assistant text the run's session holds (a failed turn
/// still has what it said before failing: the reference keeps it as output).
async fn last_answer(daemon: &Ctx, scope: &str, sid: &str) -> Option<String> {
    let (key, s) = (scope.to_string(), sid.to_string());
    let events = daemon.db(move |st| st.events(&key, &s)).await.ok()?;
    events.into_iter().rev().find_map(|e| match e.item {
        seekclaw_store::EventItem::Assistant(a) if !a.text.trim().is_empty() => Some(a.text),
        _ => None,
    })
}

fn cancelled(daemon: &Ctx, why: CancelReason, text: String, sid: String) -> Outcome {
    let lang = daemon.engine.config.load().ui.language();
    Outcome {
        status: RunStatus::Cancelled,
        error: Some(crate::presentation::run_cancelled(why, lang)),
        output: (!text.is_empty()).then(|| cut(&text)),
        session_id: Some(sid),
    }
}

/// Whoever cancelled the run left a reason; the daemon stopping is the only
/// other way a scheduled turn gets cancelled.
fn reason_of(reason: &ReasonSlot) -> CancelReason {
    reason.locked().unwrap_or(CancelReason::Shutdown)
}

/// The first [`OUTPUT_LIMIT_CHARS`] characters.
fn cut(text: &str) -> String {
    match text.char_indices().nth(OUTPUT_LIMIT_CHARS) {
        Some((i, _)) => text[..i].to_string(),
        None => text.to_string(),
    }
}

/// What a task's runs do with calls that need approval: nobody is there to
/// answer, so the task decides (`reject` unless it says `allow`).
fn approvals_of(task: &seekclaw_store::ScheduledTask) -> seekclaw_agent::Approvals {
    use seekclaw_agent::{Approvals, Unattended};
    if task.approval.as_deref() == Some("allow") {
        return Approvals::unattended(Unattended::Allow);
    }
    Approvals::unattended(Unattended::Reject(
        "scheduled runs do not wait for a person (the task's `approval` is `reject`)".into(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn output_is_cut_by_characters() {
        let long: String = "é".repeat(OUTPUT_LIMIT_CHARS + 10);
        assert_eq!(cut(&long).chars().count(), OUTPUT_LIMIT_CHARS);
        assert_eq!(cut("short"), "short");
    }

    #[test]
    fn updated_envelope_shape() {
        let r = RunRecord {
            started_at: "t".into(),
            status: RunStatus::Cancelled,
            error: Some("e".into()),
            output: None,
            session_id: Some("s".into()),
        };
        let line = String::from_utf8(updated("id-1", "n", &r).to_line()).unwrap();
        assert_eq!(
            line,
            "{\"id\":0,\"event\":\"schedule.updated\",\"data\":\"id-1\",\"details\":{\"taskId\":\"id-1\",\"name\":\"n\",\"status\":\"cancelled\",\"sessionId\":\"s\",\"error\":\"e\"}}\n"
        );
        let ok = RunRecord {
            status: RunStatus::Success,
            error: None,
            session_id: None,
            ..r
        };
        let v: serde_json::Value =
            serde_json::from_slice(&updated("i", "n", &ok).to_line()).unwrap();
        assert_eq!(
            v["details"],
            json!({"taskId":"i","name":"n","status":"success"})
        );
    }
}
