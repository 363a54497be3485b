//! `seekclaw schedule …`: scheduled tasks, managed through the running daemon
//! (it owns the scheduler, so edits take effect at once).

use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use chrono::{DateTime, Local};
use clap::Subcommand;
use seekclaw_config::Home;
use serde_json::{Value, json};

use crate::client::DaemonClient;

#[derive(Subcommand)]
pub enum ScheduleCommand {
    /// List scheduled tasks, newest first.
    List {
        /// Print the daemon's JSON instead of a table.
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
        /// Project the runs work in (default: the global scope).
        #[arg(long)]
        workspace: Option<PathBuf>,
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
    let mut daemon = DaemonClient::connect(home)?;
    match cmd {
        ScheduleCommand::List { json } => {
            let tasks = daemon.call_json("schedule.list", json!({}))?;
            if json {
                println!("{}", serde_json::to_string_pretty(&tasks)?);
                return Ok(());
            }
            let tasks = tasks.as_array().cloned().unwrap_or_default();
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
        }
        ScheduleCommand::Add {
            name,
            cron,
            prompt,
            workspace,
            disabled,
            id,
        } => {
            // The daemon resolves relative paths against its own directory.
            let workspace = match workspace {
                Some(w) => Some(
                    std::path::absolute(&w)
                        .with_context(|| format!("bad workspace path {}", w.display()))?
                        .display()
                        .to_string(),
                ),
                None => None,
            };
            let mut params =
                json!({"name": name, "cron": cron, "prompt": prompt, "enabled": !disabled});
            if let Some(w) = workspace {
                params["workspace"] = json!(w);
            }
            if let Some(id) = id {
                params["id"] = json!(id);
            }
            let task = daemon.call_json("schedule.create", params)?;
            println!(
                "added {} ({}), next run: {}",
                text(&task, "id"),
                text(&task, "displayName"),
                when(&task["nextRunAt"])
            );
        }
        ScheduleCommand::Run { id } => {
            let id = resolve_id(&mut daemon, &id)?;
            daemon.call("schedule.run", json!({"id": id}))?;
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
            daemon.call("schedule.delete", json!({"id": id}))?;
            println!("removed {id}");
        }
    }
    Ok(())
}

fn toggle(daemon: &mut DaemonClient, id: &str, enabled: bool) -> Result<()> {
    let task = daemon.call_json("schedule.toggle", json!({"id": id, "enabled": enabled}))?;
    if enabled {
        println!("enabled {id}, next run: {}", when(&task["nextRunAt"]));
    } else {
        println!("disabled {id}");
    }
    Ok(())
}

fn text<'a>(v: &'a Value, key: &str) -> &'a str {
    v[key].as_str().unwrap_or_default()
}

/// A stored UTC time in the local zone, minute precision; `-` when absent.
fn when(v: &Value) -> String {
    v.as_str()
        .and_then(|s| DateTime::parse_from_rfc3339(s).ok())
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
    let tasks = daemon.call_json("schedule.list", json!({}))?;
    let ids: Vec<&str> = tasks
        .as_array()
        .map(|all| all.iter().filter_map(|t| t["id"].as_str()).collect())
        .unwrap_or_default();
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
fn row(t: &Value) -> [String; 6] {
    let state = if t["enabled"].as_bool().unwrap_or(false) {
        "enabled"
    } else {
        "disabled"
    };
    let last = match (t["lastStatus"].as_str(), t["lastRunAt"].as_str()) {
        (Some(status), Some(_)) => format!("{status} at {}", when(&t["lastRunAt"])),
        (Some(status), None) => status.to_string(),
        _ => "never ran".to_string(),
    };
    [
        text(t, "id").to_string(),
        state.to_string(),
        text(t, "cron").to_string(),
        when(&t["nextRunAt"]),
        last,
        text(t, "displayName").to_string(),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_and_times() {
        let t = json!({"id": "a", "enabled": true, "cron": "0 9 * * *",
            "nextRunAt": "2026-05-04T01:00:00.0000000+00:00", "displayName": "Triage"});
        let r = row(&t);
        assert_eq!(r[..3], ["a", "enabled", "0 9 * * *"]);
        assert!(r[3].starts_with("2026-05-0"), "{r:?}");
        assert_eq!(r[4..], ["never ran", "Triage"]);
        assert_eq!(when(&Value::Null), "-");
        let done = json!({"id": "b", "enabled": false, "cron": "* * * * *", "lastStatus": "success",
            "lastRunAt": "2026-05-04T01:00:00.0000000+00:00", "displayName": "x"});
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
