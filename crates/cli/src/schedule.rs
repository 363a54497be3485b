//! `seekclaw schedule …`: scheduled tasks, managed through the running daemon
//! (it owns the scheduler, so edits take effect at once).

use std::path::PathBuf;

use anyhow::{Context, Result};
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
                println!("no scheduled tasks");
            }
            for t in &tasks {
                println!("{}", row(t));
            }
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
            daemon.call("schedule.run", json!({"id": id}))?;
            println!("started {id}");
        }
        ScheduleCommand::Enable { id } => toggle(&mut daemon, &id, true)?,
        ScheduleCommand::Disable { id } => toggle(&mut daemon, &id, false)?,
        ScheduleCommand::Remove { id } => {
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

/// `id  state  cron  next  last  name`, tab-separated.
fn row(t: &Value) -> String {
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
    format!(
        "{}\t{state}\t{}\tnext: {}\tlast: {last}\t{}",
        text(t, "id"),
        text(t, "cron"),
        when(&t["nextRunAt"]),
        text(t, "displayName"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_and_times() {
        let t = json!({"id": "a", "enabled": true, "cron": "0 9 * * *",
            "nextRunAt": "2026-05-04T01:00:00.0000000+00:00", "displayName": "Triage"});
        let r = row(&t);
        assert!(
            r.starts_with("a\tenabled\t0 9 * * *\tnext: 2026-05-0"),
            "{r}"
        );
        assert!(r.ends_with("\tlast: never ran\tTriage"), "{r}");
        assert_eq!(when(&Value::Null), "-");
        let done = json!({"id": "b", "enabled": false, "cron": "* * * * *", "lastStatus": "success",
            "lastRunAt": "2026-05-04T01:00:00.0000000+00:00", "displayName": "x"});
        let r = row(&done);
        assert!(
            r.contains("\tdisabled\t") && r.contains("last: success at 2026-05-0"),
            "{r}"
        );
    }
}
