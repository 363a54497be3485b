//! `schedule.*`: scheduled tasks (reference §2.4 and §7.1). Edits wake the
//! scheduler so a changed next run is honoured at once.

use std::path::Path;

use chrono::Utc;
use seekclaw_config::normalize_path;
use seekclaw_protocol::{Envelope, MethodError, Params, method};
use seekclaw_store::{ScheduleDraft, ScheduledTask, format_iso};

use super::Reply;
use crate::ctx::Ctx;
use crate::scheduler::CancelReason;
use crate::scheduler::cron::{CronSchedule, next_run_iso};

fn not_found(id: &str) -> MethodError {
    MethodError::not_found(format!("Scheduled task not found: {id}"))
}

/// `schedule.list`: every task, newest first, compact.
pub async fn list(daemon: &Ctx, id: i64) -> Reply {
    let tasks = daemon.db(|s| s.list_schedules()).await?;
    Ok(Envelope::json_result(id, &tasks))
}

/// `schedule.create` and `schedule.update`: upsert by id (an unknown id creates
/// the task with that id). The next run is strictly after now, in UTC.
pub async fn upsert(daemon: &Ctx, id: i64, p: &Params) -> Reply {
    // `schedule.update` reads the same params (one handler: upsert by id).
    let params = p.read::<method::ScheduleCreate>()?;
    let non_blank = |s: Option<String>| {
        s.as_deref()
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    };
    let (name, prompt, cron_text) = (
        params.name.trimmed(),
        params.prompt.into_inner(),
        params.cron.trimmed(),
    );
    let enabled = params.enabled.unwrap_or(true);
    // Absent keeps what the task had (a client that knows no approvals
    // does not reset it); only `reject` and `allow` are kept.
    let approval = match non_blank(params.approval) {
        None => None,
        Some(a) if matches!(a.trim().to_ascii_lowercase().as_str(), "reject" | "allow") => {
            Some(a.trim().to_ascii_lowercase())
        }
        Some(a) => {
            return Err(MethodError::invalid_param(
                "approval",
                format!("Invalid approval: {a} (expected reject or allow)"),
            ));
        }
    };
    let cron = CronSchedule::parse(&cron_text)
        .map_err(|e| MethodError::invalid_param("cron", e.to_string()))?;
    let workspace = match non_blank(params.workspace) {
        Some(raw) if raw.contains('\0') => {
            return Err(MethodError::invalid_param(
                "workspace",
                format!("Invalid workspace path: {raw}"),
            ));
        }
        // Kept as given (made absolute): a missing folder means the global
        // scope at run time, as in the original, not an error now.
        Some(raw) => Some(
            normalize_path(Path::new(&raw), daemon.cwd())
                .display()
                .to_string(),
        ),
        None => None,
    };
    let next_run_at = if enabled {
        cron.next_after(Utc::now()).map(format_iso)
    } else {
        None
    };
    let draft = ScheduleDraft {
        id: non_blank(params.id).unwrap_or_else(|| uuid::Uuid::new_v4().to_string()),
        name,
        workspace,
        prompt,
        cron: cron_text,
        enabled,
        next_run_at,
        approval,
    };
    let task = daemon.db(move |s| s.upsert_schedule(&draft)).await?;
    daemon.scheduler.wake();
    Ok(answer(daemon, id, &task))
}

/// A task as answered, with the on-demand warning when it applies.
fn answer(daemon: &Ctx, id: i64, task: &ScheduledTask) -> Envelope {
    let Some(warning) = on_demand_warning(daemon, task.enabled) else {
        return Envelope::json_result(id, task);
    };
    match serde_json::to_value(task) {
        Ok(mut value) => {
            value["warning"] = warning.into();
            Envelope::json_result(id, &value)
        }
        Err(_) => Envelope::json_result(id, task),
    }
}

/// An enabled task on a daemon that leaves once idle runs only while it is
/// up: what to do to have it run with no window open.
fn on_demand_warning(daemon: &Ctx, enabled: bool) -> Option<String> {
    let idle = daemon.idle_exit.filter(|_| enabled)?;
    Some(format!(
        "this daemon was started on demand and exits once no client has been connected \
         for {} s and nothing is due within a minute: the task runs only while a daemon is \
         up. To run schedules with no window open, keep one running: `seekclaw daemon` \
         (e.g. the systemd user unit contrib/systemd/seekclaw.service; see docs/daemon.md, \
         \"On demand, or always on\")",
        idle.as_secs()
    ))
}

/// `schedule.toggle`: disabling clears the next run, enabling recomputes it.
pub async fn toggle(daemon: &Ctx, id: i64, p: &Params) -> Reply {
    let params = p.read::<method::ScheduleToggle>()?;
    let task_id = params.id.trimmed();
    let (tid, enabled) = (task_id.clone(), params.enabled.into_inner());
    let task = daemon
        .db(move |s| s.set_schedule_enabled(&tid, enabled, |t| next_run_iso(&t.cron, Utc::now())))
        .await?
        .ok_or_else(|| not_found(&task_id))?;
    daemon.scheduler.wake();
    Ok(answer(daemon, id, &task))
}

/// `schedule.delete`: `ok` whether or not the task existed; a run in progress
/// is cancelled.
pub async fn delete(daemon: &Ctx, id: i64, p: &Params) -> Reply {
    let tid = p.read::<method::ScheduleDelete>()?.id.trimmed();
    daemon.scheduler.cancel(&tid, CancelReason::Deleted);
    let key = tid.clone();
    daemon.db(move |s| s.delete_schedule(&key)).await?;
    daemon.scheduler.wake();
    Ok(Envelope::result(id, "ok"))
}

/// `schedule.run`: starts a run now and answers `started` without waiting.
pub async fn run(daemon: &Ctx, id: i64, p: &Params) -> Reply {
    let tid = p.read::<method::ScheduleRun>()?.id.trimmed();
    crate::scheduler::start_manual(daemon, &tid).await?;
    Ok(Envelope::result(id, "started"))
}
