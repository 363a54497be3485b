//! `seekclaw schedule …`: scheduled tasks, managed through the running daemon
//! (it owns the scheduler, so edits take effect at once); `list` reads the
//! store directly when no daemon runs.

use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use chrono::{DateTime, Local};
use clap::Subcommand;
use seekclaw_config::Home;
use seekclaw_protocol::api::{
    NoParams, Required, ScheduleIdParams, ScheduleToggleParams, ScheduleUpsertParams,
    ScheduledTaskView, Strict,
};
use seekclaw_protocol::method;
use serde_json::Value;

use crate::client::DaemonClient;

#[derive(Subcommand)]
pub enum ScheduleCommand {
    /// List scheduled tasks, newest first.
    List {
        /// Print the tasks as JSON (as `schedule.list` answers) instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Add a task (or replace the one with --id).
    Add {
        #[arg(long)]
        name: String,
        /// Five fields in local time: minute hour day-of-month month day-of-week,
        /// e.g. "0 9 * * 1-5" for weekdays at 09:00.
        #[arg(long)]
        cron: String,
        /// What the agent is asked at each run.
        #[arg(long)]
        prompt: String,
        /// Project the runs work in (default, as `run` and `chat`: the
        /// project of the current directory).
        #[arg(long, conflicts_with = "global")]
        workspace: Option<PathBuf>,
        /// Runs work in the global scope (no project).
        #[arg(long)]
        global: bool,
        /// Create it disabled.
        #[arg(long)]
        disabled: bool,
        #[arg(long)]
        id: Option<String>,
    },
    /// Run a task now (in the background).
    Run { id: String },
    /// Enable a task; its next run is computed from now.
    Enable { id: String },
    /// Disable a task (clears its next run).
    Disable { id: String },
    /// Remove a task (cancels a run in progress).
    Remove { id: String },
}

pub fn schedule(home: &Home, cmd: ScheduleCommand) -> Result<()> {
    if let ScheduleCommand::List { json } = cmd {
        return list(home, json);
    }
    let mut daemon = DaemonClient::connect(home).map_err(|e| {
        anyhow::anyhow!(
            "{e}; schedules are kept and run by a daemon that keeps running (e.g. the systemd \
             user unit contrib/systemd/seekclaw.service; see docs/daemon.md, \"On demand, \
             or always on\")"
        )
    })?;
    match cmd {
        ScheduleCommand::List { .. } => {}
        ScheduleCommand::Add {
            name,
            cron,
            prompt,
            workspace,
            global,
            disabled,
            id,
        } => {
            let workspace = scope_of(home, workspace, global)?;
            let params = ScheduleUpsertParams {
                id,
                name: Required(name),
                prompt: Required(prompt),
                cron: Required(cron),
                workspace,
                enabled: Some(!disabled),
                approval: None,
            };
            let task = daemon.call::<method::ScheduleCreate>(&params)?;
            println!(
                "added {} ({}) in {}, next run: {}",
                task.id,
                task.display_name,
                task.workspace.as_deref().unwrap_or("the global scope"),
                when(task.next_run_at.as_deref())
            );
            warn(&task);
        }
        ScheduleCommand::Run { id } => {
            let id = resolve_id(&mut daemon, &id)?;
            daemon.call::<method::ScheduleRun>(&ScheduleIdParams {
                id: Required(id.clone()),
            })?;
            println!("started {id}");
        }
        ScheduleCommand::Enable { id } => {
            let id = resolve_id(&mut daemon, &id)?;
            toggle(&mut daemon, &id, true)?;
        }
        ScheduleCommand::Disable { id } => {
            let id = resolve_id(&mut daemon, &id)?;
            toggle(&mut daemon, &id, false)?;
        }
        ScheduleCommand::Remove { id } => {
            let id = resolve_id(&mut daemon, &id)?;
            daemon.call::<method::ScheduleDelete>(&ScheduleIdParams {
                id: Required(id.clone()),
            })?;
            println!("removed {id}");
        }
    }
    Ok(())
}

fn toggle(daemon: &mut DaemonClient, id: &str, enabled: bool) -> Result<()> {
    let params = ScheduleToggleParams {
        id: Required(id.to_string()),
        enabled: Strict::new(enabled),
    };
    let task = daemon.call::<method::ScheduleToggle>(&params)?;
    if enabled {
        println!(
            "enabled {id}, next run: {}",
            when(task.next_run_at.as_deref())
        );
        warn(&task);
    } else {
        println!("disabled {id}");
    }
    Ok(())
}

/// The daemon's warning about a task (an on-demand daemon), on stderr.
fn warn(task: &ScheduledTaskView) {
    if let Some(warning) = &task.warning {
        eprintln!("warning: {warning}");
    }
}

/// Where `schedule add` runs its task: as `run` and `chat` decide it — the
/// project root of `--workspace` or of the current directory (never `/` or
/// the home directory unless named), or the global scope with `--global`.
fn scope_of(home: &Home, workspace: Option<PathBuf>, global: bool) -> Result<Option<String>> {
    if global {
        return Ok(None);
    }
    let cwd = crate::cwd::working_dir()?;
    let root = seekclaw_engine::local_root(home, &cwd, workspace.as_deref())
        .map_err(|e| anyhow::anyhow!(e.message))?;
    if workspace.is_none() {
        seekclaw_engine::refuse_implicit(
            &root,
            "Run it in a project directory, name one with `--workspace DIR`, or use `--global`.",
        )
        .map_err(|e| anyhow::anyhow!(e.message))?;
    }
    Ok(Some(root.display().to_string()))
}

/// `schedule list`: the daemon's tasks, or the store's when none runs (with
/// a note that nothing runs them meanwhile).
fn list(home: &Home, json: bool) -> Result<()> {
    let data = match DaemonClient::running(home) {
        // The daemon's JSON as sent, fields this CLI does not know included.
        Some(mut daemon) => daemon.call_data::<method::ScheduleList>(&NoParams {})?,
        None => {
            let tasks = if home.db_path().exists() {
                seekclaw_store::Store::open(&home.db_path())?.list_schedules()?
            } else {
                Vec::new()
            };
            if tasks.iter().any(|t| t.enabled) {
                eprintln!(
                    "note: no seekclaw daemon is running, so no task runs until one does \
                     (`seekclaw daemon`; the systemd user unit contrib/systemd/seekclaw.service \
                     keeps one running)"
                );
            }
            serde_json::to_string(&tasks)?
        }
    };
    let value: Value = serde_json::from_str(&data)
        .with_context(|| format!("schedule.list answered with data that is not JSON: {data}"))?;
    if json {
        println!("{}", serde_json::to_string_pretty(&value)?);
        return Ok(());
    }
    let tasks: Vec<ScheduledTaskView> = serde_json::from_value(value)
        .context("schedule.list answered with tasks this seekclaw cannot read")?;
    if tasks.is_empty() {
        println!(
            "no scheduled tasks; add one with `seekclaw schedule add --name NAME --cron \"0 9 * * 1-5\" --prompt TEXT`"
        );
        return Ok(());
    }
    let rows: Vec<[String; 6]> = tasks.iter().map(row).collect();
    crate::table::write_table(
        &mut std::io::stdout().lock(),
        ["ID", "STATE", "CRON", "NEXT RUN", "LAST RUN", "NAME"],
        &rows,
    )?;
    Ok(())
}

/// A stored UTC time in the local zone, minute precision; `-` when absent.
fn when(v: Option<&str>) -> String {
    v.and_then(|s| DateTime::parse_from_rfc3339(s).ok())
        .map(|t| {
            t.with_timezone(&Local)
                .format("%Y-%m-%d %H:%M %Z")
                .to_string()
        })
        .unwrap_or_else(|| "-".to_string())
}

/// A task id as given: the task with exactly that id, else the one task whose
/// id starts with it (ids are long; a prefix is what people type).
fn resolve_id(daemon: &mut DaemonClient, given: &str) -> Result<String> {
    let tasks = daemon.call::<method::ScheduleList>(&NoParams {})?;
    let ids: Vec<&str> = tasks.iter().map(|t| t.id.as_str()).collect();
    pick_id(&ids, given.trim())
}

fn pick_id(ids: &[&str], given: &str) -> Result<String> {
    if given.is_empty() {
        bail!("no task id given");
    }
    if let Some(exact) = ids.iter().find(|id| id.eq_ignore_ascii_case(given)) {
        return Ok((*exact).to_string());
    }
    let lower = given.to_ascii_lowercase();
    let matches: Vec<&str> = ids
        .iter()
        .copied()
        .filter(|id| id.to_ascii_lowercase().starts_with(&lower))
        .collect();
    match matches.as_slice() {
        [one] => Ok((*one).to_string()),
        [] => bail!(
            "no scheduled task with an id starting with \"{given}\" (see `seekclaw schedule list`)"
        ),
        many => bail!(
            "\"{given}\" matches {} tasks ({}); give more of the id",
            many.len(),
            many.join(", ")
        ),
    }
}

/// One `schedule list` row: id, state, cron, next run, last run, name.
fn row(t: &ScheduledTaskView) -> [String; 6] {
    let state = if t.enabled { "enabled" } else { "disabled" };
    let last = match (t.last_status.as_deref(), t.last_run_at.as_deref()) {
        (Some(status), Some(at)) => format!("{status} at {}", when(Some(at))),
        (Some(status), None) => status.to_string(),
        _ => "never ran".to_string(),
    };
    [
        t.id.clone(),
        state.to_string(),
        t.cron.clone(),
        when(t.next_run_at.as_deref()),
        last,
        t.display_name.clone(),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A task as `schedule.list` sends it, with `fields` over the defaults.
    fn task(fields: Value) -> ScheduledTaskView {
        let mut t = serde_json::json!({"id": "", "name": "", "prompt": "", "cron": "",
            "enabled": false, "createdAt": "", "updatedAt": "", "displayName": ""});
        for (k, v) in fields.as_object().unwrap() {
            t[k] = v.clone();
        }
        serde_json::from_value(t).unwrap()
    }

    #[test]
    fn rows_and_times() {
        let t = task(
            serde_json::json!({"id": "a", "enabled": true, "cron": "0 9 * * *",
            "nextRunAt": "2026-05-04T01:00:00.0000000+00:00", "displayName": "Triage"}),
        );
        let r = row(&t);
        assert_eq!(r[..3], ["a", "enabled", "0 9 * * *"]);
        assert!(r[3].starts_with("2026-05-0"), "{r:?}");
        assert_eq!(r[4..], ["never ran", "Triage"]);
        assert_eq!(when(None), "-");
        let done = task(
            serde_json::json!({"id": "b", "enabled": false, "cron": "* * * * *", "lastStatus": "success",
            "lastRunAt": "2026-05-04T01:00:00.0000000+00:00", "displayName": "x"}),
        );
        let r = row(&done);
        assert_eq!(r[1], "disabled");
        assert!(r[4].starts_with("success at 2026-05-0"), "{r:?}");
    }

    #[test]
    fn ids_resolve_exactly_or_by_a_unique_prefix() {
        let ids = ["a1b2c3", "a1ffff", "zz"];
        assert_eq!(pick_id(&ids, "zz").unwrap(), "zz");
        assert_eq!(pick_id(&ids, "A1B").unwrap(), "a1b2c3");
        let many = pick_id(&ids, "a1").unwrap_err().to_string();
        assert!(many.contains("matches 2 tasks (a1b2c3, a1ffff)"), "{many}");
        let none = pick_id(&ids, "q").unwrap_err().to_string();
        assert!(none.contains("no scheduled task"), "{none}");
    }
}
