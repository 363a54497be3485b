//! Scheduled tasks against the real daemon: the `schedule.*` methods, runs
//! with the testkit provider, broadcasts, restarts, time zones and the CLI.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use seekclaw_testkit::{Client, DaemonProcess, ProviderServer, Reply, StartOptions};
use serde_json::{Value, json};

use crate::support::schedule::{create, options, setup, wait_event};
use crate::support::{bin, project_dir, start, start_with};

/// Creates a task and returns its id.
fn create_id(c: &mut Client, params: Value) -> String {
    create(c, params)["id"].as_str().unwrap().to_string()
}

fn list(c: &mut Client) -> Vec<Value> {
    c.ok_json("schedule.list", json!({}))
        .unwrap()
        .as_array()
        .unwrap()
        .clone()
}

fn find(c: &mut Client, id: &str) -> Value {
    list(c)
        .into_iter()
        .find(|t| t["id"] == id)
        .unwrap_or_else(|| panic!("task {id} listed"))
}

/// Polls `schedule.list` until the task has a `lastStatus`.
fn wait_finished(c: &mut Client, id: &str) -> Value {
    let start = Instant::now();
    loop {
        let t = find(c, id);
        if t.get("lastStatus").is_some() {
            return t;
        }
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "{id} never finished"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn wait_requests(server: &ProviderServer, n: usize) {
    server.wait_requests(n, Duration::from_secs(20)).unwrap();
}

fn parse(t: &Value) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(t.as_str().unwrap())
        .unwrap()
        .with_timezone(&Utc)
}

/// The store's UTC format.
fn iso(t: DateTime<Utc>) -> String {
    format!("{}.0000000+00:00", t.format("%Y-%m-%dT%H:%M:%S"))
}

/// Edits the database of a stopped daemon.
fn sql(home: &Path, statement: &str, params: &[&str]) {
    let c = rusqlite::Connection::open(home.join("seekclaw.db")).unwrap();
    c.execute(statement, rusqlite::params_from_iter(params))
        .unwrap();
}

fn claims(home: &Path, id: &str) -> Vec<(String, Option<String>)> {
    let c = rusqlite::Connection::open(home.join("seekclaw.db")).unwrap();
    let mut stmt = c
        .prepare("SELECT occurrence, status FROM schedule_claims WHERE task_id = ?1")
        .unwrap();
    stmt.query_map([id], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

fn stop(d: &mut DaemonProcess) {
    let mut c = d.connect().unwrap();
    assert_eq!(c.request("shutdown", json!({})).unwrap()["event"], "bye");
    assert!(d.wait_exit(Duration::from_secs(20)).unwrap().success());
}

#[test]
fn create_update_toggle_delete_and_their_errors() {
    let d = start();
    let mut c = d.connect().unwrap();
    let before = Utc::now();
    let t = create(
        &mut c,
        json!({"name": " Triage ", "prompt": "triage new issues", "cron": "0 9 * * 1-5"}),
    );
    let id = t["id"].as_str().unwrap().to_string();
    assert_eq!(id.len(), 36, "a GUID: {id}");
    let keys: Vec<&str> = t.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "id",
            "name",
            "prompt",
            "cron",
            "enabled",
            "nextRunAt",
            "createdAt",
            "updatedAt",
            "displayName"
        ],
        "compact, nulls omitted: {t}"
    );
    assert_eq!(
        (t["name"].as_str(), t["displayName"].as_str()),
        (Some("Triage"), Some("Triage"))
    );
    assert_eq!(t["enabled"], true);
    let next = parse(&t["nextRunAt"]);
    assert!(next > before, "strictly after now");
    assert!(
        t["nextRunAt"]
            .as_str()
            .unwrap()
            .ends_with(":00:00.0000000+00:00")
    );

    let err = c
        .err(
            "schedule.create",
            json!({"name": "x", "prompt": "p", "cron": "61 * * * *"}),
        )
        .unwrap();
    let msg = err["data"].as_str().unwrap();
    assert!(msg.starts_with("Invalid cron expression: "), "{msg}");
    assert!(msg.contains("61"), "says why: {msg}");
    assert_eq!(err["details"]["code"], "invalid_request");
    let err = c
        .err(
            "schedule.create",
            json!({"name": "x", "prompt": "p", "cron": "* * * *"}),
        )
        .unwrap();
    assert!(
        err["data"].as_str().unwrap().contains("expected 5 fields"),
        "{err}"
    );
    for (params, text) in [
        (
            json!({"prompt": "p", "cron": "* * * * *"}),
            "params.name is required",
        ),
        (
            json!({"name": "n", "cron": "* * * * *"}),
            "params.prompt is required",
        ),
        (
            json!({"name": "n", "prompt": "p"}),
            "params.cron is required",
        ),
    ] {
        assert_eq!(c.err("schedule.create", params).unwrap()["data"], text);
    }

    // update = upsert by id: the definition changes, created_at stays.
    let u = c
        .ok_json(
            "schedule.update",
            json!({"id": id, "name": "Triage", "prompt": "p2", "cron": "30 8 * * *"}),
        )
        .unwrap();
    assert_eq!(
        (u["cron"].as_str(), u["prompt"].as_str()),
        (Some("30 8 * * *"), Some("p2"))
    );
    assert_eq!(u["createdAt"], t["createdAt"]);
    // An unknown id creates the task with that id.
    let mine = c
        .ok_json(
            "schedule.update",
            json!({"id": "my-task", "name": "Mine", "prompt": "p", "cron": "* * * * *", "enabled": false}),
        )
        .unwrap();
    assert_eq!(
        (mine["id"].as_str(), mine["enabled"].as_bool()),
        (Some("my-task"), Some(false))
    );
    assert!(mine.get("nextRunAt").is_none(), "disabled: no next run");
    let ids: Vec<Value> = list(&mut c).into_iter().map(|t| t["id"].clone()).collect();
    assert_eq!(ids, [json!("my-task"), json!(id)], "newest first");

    // Disabling clears the next run; enabling computes it from now.
    let off = c
        .ok_json("schedule.toggle", json!({"id": id, "enabled": false}))
        .unwrap();
    assert_eq!(off["enabled"], false);
    assert!(off.get("nextRunAt").is_none(), "{off}");
    assert!(find(&mut c, &id).get("nextRunAt").is_none());
    let on = c
        .ok_json("schedule.toggle", json!({"id": id, "enabled": true}))
        .unwrap();
    assert!(parse(&on["nextRunAt"]) > Utc::now());
    assert_eq!(
        c.err("schedule.toggle", json!({"id": id})).unwrap()["data"],
        "params.enabled (boolean) is required"
    );
    assert_eq!(
        c.err("schedule.toggle", json!({"id": "nope", "enabled": true}))
            .unwrap()["data"],
        "Scheduled task not found: nope"
    );
    assert_eq!(
        c.err("schedule.run", json!({"id": "nope"})).unwrap()["data"],
        "Scheduled task not found: nope"
    );

    assert_eq!(
        c.ok("schedule.delete", json!({"id": "my-task"})).unwrap(),
        "ok"
    );
    assert_eq!(
        c.ok("schedule.delete", json!({"id": "my-task"})).unwrap(),
        "ok",
        "deleting a missing id is not an error"
    );
    assert_eq!(list(&mut c).len(), 1);
}

#[test]
fn run_now_answers_started_and_both_clients_see_the_outcome() {
    let server = ProviderServer::start().unwrap();
    server.set_default(Reply::plain("Triaged 3 issues."));
    let tmp = tempfile::tempdir().unwrap();
    let ws = project_dir(tmp.path(), "proj");
    let d = setup(&server, json!({}));
    let (mut a, mut b) = (d.connect().unwrap(), d.connect().unwrap());
    let t = create(
        &mut a,
        json!({"name": "Triage", "prompt": "triage new issues", "cron": "0 9 * * *",
               "workspace": ws.join("src").display().to_string()}),
    );
    let id = t["id"].as_str().unwrap().to_string();
    let asked = Instant::now();
    assert_eq!(a.ok("schedule.run", json!({"id": id})).unwrap(), "started");
    assert!(asked.elapsed() < Duration::from_secs(5));
    for c in [&mut a, &mut b] {
        let ev = wait_event(c, "schedule.updated");
        assert_eq!(
            (ev["id"].as_i64(), ev["data"].as_str()),
            (Some(0), Some(id.as_str()))
        );
        assert!(
            ev.get("sessionId").is_none(),
            "broadcasts carry no session: {ev}"
        );
        let det = &ev["details"];
        assert_eq!(
            (
                det["taskId"].as_str(),
                det["name"].as_str(),
                det["status"].as_str()
            ),
            (Some(id.as_str()), Some("Triage"), Some("success"))
        );
        assert!(det.get("error").is_none());
    }
    let t = find(&mut a, &id);
    assert_eq!(t["lastStatus"], "success");
    assert_eq!(t["lastOutput"], "Triaged 3 issues.");
    assert!(t.get("lastError").is_none());
    assert!(parse(&t["lastRunAt"]) <= Utc::now());
    assert!(
        t.get("nextRunAt").is_some(),
        "a manual run keeps the schedule"
    );
    let sid = t["lastSessionId"].as_str().unwrap();
    // The run's session lives in the task's workspace (its project root).
    let w = ws.display().to_string();
    let sessions = a.ok_json("session.list", json!({"workspace": w})).unwrap();
    let s = sessions
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == sid)
        .expect("the run's session in the workspace");
    assert_eq!(s["title"], "Triage（计划任务）");
    let full = a
        .ok_json("session.get", json!({"id": sid, "workspace": w}))
        .unwrap();
    let texts: Vec<&str> = full["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["text"].as_str().unwrap())
        .collect();
    assert_eq!(texts, ["triage new issues", "Triaged 3 issues."]);

    // A run whose turn fails keeps what it said before failing as its output.
    server.enqueue(Reply::new().text("Looking at the notes first.").tool_call(
        "c1",
        "read_file",
        r#"{"path": "Cargo.toml"}"#,
    ));
    server.enqueue(Reply::http_error(
        400,
        json!({"error": {"message": "bad request here"}}),
        None,
    ));
    assert_eq!(a.ok("schedule.run", json!({"id": id})).unwrap(), "started");
    let ev = wait_event(&mut a, "schedule.updated");
    assert_eq!(ev["details"]["status"], "error", "{ev}");
    let t = find(&mut a, &id);
    assert_eq!(
        (
            t["lastStatus"].as_str(),
            t["lastError"].as_str(),
            t["lastOutput"].as_str()
        ),
        (
            Some("error"),
            Some("tk returned HTTP 400: bad request here"),
            Some("Looking at the notes first.")
        )
    );
}

#[test]
fn an_occurrence_fires_on_time_after_an_upcoming_notice_to_both_clients() {
    // Not in the last seconds of a minute: the notice must precede the run.
    let second = Utc::now().timestamp() % 60;
    if second >= 55 {
        std::thread::sleep(Duration::from_secs((61 - second) as u64));
    }
    let server = ProviderServer::start().unwrap();
    let d = setup(&server, json!({}));
    let (mut a, mut b) = (d.connect().unwrap(), d.connect().unwrap());
    for c in [&a, &b] {
        c.set_read_timeout(Duration::from_secs(90)).unwrap();
    }
    let t = create(
        &mut a,
        json!({"name": "Every minute", "prompt": "tick", "cron": "* * * * *"}),
    );
    let id = t["id"].as_str().unwrap().to_string();
    let run_at = t["nextRunAt"].as_str().unwrap().to_string();
    assert!(
        run_at.ends_with(":00.0000000+00:00"),
        "a minute boundary: {run_at}"
    );
    for c in [&mut a, &mut b] {
        let notice = wait_event(c, "schedule.upcoming");
        assert_eq!(
            notice,
            json!({"id": 0, "event": "schedule.upcoming", "data": "Every minute",
                   "details": {"taskId": id, "name": "Every minute", "runAt": run_at}})
        );
        let done = wait_event(c, "schedule.updated");
        assert_eq!(done["details"]["status"], "success");
    }
    let t = find(&mut a, &id);
    let late = parse(&t["lastRunAt"]) - parse(&json!(run_at));
    assert!(
        // Generous for a loaded CI box; the daemon's unit tests and the
        // benchmark measure the real lateness (a few ms).
        late >= chrono::Duration::zero() && late < chrono::Duration::seconds(5),
        "ran {late} after its time"
    );
    assert!(parse(&t["nextRunAt"]) > parse(&json!(run_at)));
    assert_eq!(claims(&d.home, &id)[0].0, run_at);
    a.ok("schedule.toggle", json!({"id": id, "enabled": false}))
        .unwrap();
}

#[test]
fn a_run_over_its_time_limit_is_cancelled() {
    let server = ProviderServer::start().unwrap();
    server.set_default(Reply::new().text("working").stall_after(1));
    let d = setup(
        &server,
        json!({"agent": {"scheduledTurnTimeoutSeconds": 1},
               "daemon": {"allowShortScheduledTimeouts": true}}),
    );
    let mut c = d.connect().unwrap();
    let id = create_id(
        &mut c,
        json!({"name": "Slow", "prompt": "p", "cron": "0 0 1 1 *"}),
    );
    let started = Instant::now();
    c.ok("schedule.run", json!({"id": id})).unwrap();
    let ev = wait_event(&mut c, "schedule.updated");
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!(ev["details"]["status"], "cancelled");
    let err = ev["details"]["error"].as_str().unwrap();
    assert_eq!(err, "任务执行超过 1 秒，已中止");
    let t = find(&mut c, &id);
    assert_eq!(
        (t["lastStatus"].as_str(), t["lastError"].as_str()),
        (Some("cancelled"), Some(err))
    );
}

#[test]
fn shutdown_cancels_a_running_task() {
    let server = ProviderServer::start().unwrap();
    server.set_default(Reply::new().text("working").stall_after(1));
    let mut d = setup(&server, json!({}));
    let home = d.home.clone();
    let _tmp = d.take_tempdir();
    let mut c = d.connect().unwrap();
    let id = create_id(
        &mut c,
        json!({"name": "Long", "prompt": "p", "cron": "0 0 1 1 *"}),
    );
    c.ok("schedule.run", json!({"id": id})).unwrap();
    wait_requests(&server, 1);
    stop(&mut d);
    let d2 = DaemonProcess::spawn(bin(), &home, &StartOptions::default()).unwrap();
    let mut c = d2.connect().unwrap();
    let t = find(&mut c, &id);
    assert_eq!(t["lastStatus"], "cancelled");
    assert!(t["lastError"] == "任务已取消", "{t}");
    assert_eq!(claims(&home, &id).len(), 1);
    assert_eq!(claims(&home, &id)[0].1.as_deref(), Some("cancelled"));
}

#[test]
fn a_missed_occurrence_runs_once_and_the_schedule_continues_from_now() {
    let server = ProviderServer::start().unwrap();
    let mut d = setup(&server, json!({}));
    let home = d.home.clone();
    let _tmp = d.take_tempdir();
    let mut c = d.connect().unwrap();
    let id = create_id(
        &mut c,
        json!({"name": "Often", "prompt": "p", "cron": "*/5 * * * *"}),
    );
    stop(&mut d);
    // Down for three hours: 36 occurrences were missed.
    let missed = iso(Utc::now() - chrono::Duration::hours(3));
    sql(
        &home,
        "UPDATE scheduled_tasks SET next_run_at = ?2 WHERE id = ?1",
        &[&id, &missed],
    );
    let d2 = DaemonProcess::spawn(bin(), &home, &StartOptions::default()).unwrap();
    let mut c = d2.connect().unwrap();
    let t = wait_finished(&mut c, &id);
    assert_eq!(t["lastStatus"], "success");
    // A quiet window (8 scheduler ticks), not an ordering: no second run.
    std::thread::sleep(Duration::from_millis(800));
    assert_eq!(server.requests().len(), 1, "ran once, not 36 times");
    assert_eq!(claims(&home, &id), [(missed, Some("success".to_string()))]);
    let next = parse(&find(&mut c, &id)["nextRunAt"]);
    assert!(next > Utc::now() && next <= Utc::now() + chrono::Duration::minutes(5));
}

#[test]
fn a_restart_never_runs_a_claimed_occurrence_again() {
    let server = ProviderServer::start().unwrap();
    server.set_default(Reply::new().text("working").stall_after(1));
    let mut d = setup(&server, json!({}));
    let home = d.home.clone();
    let _tmp = d.take_tempdir();
    let mut c = d.connect().unwrap();
    let id = create_id(
        &mut c,
        json!({"name": "Once", "prompt": "p", "cron": "0 0 1 1 *"}),
    );
    stop(&mut d);
    let due = iso(Utc::now() - chrono::Duration::seconds(30));
    sql(
        &home,
        "UPDATE scheduled_tasks SET next_run_at = ?2 WHERE id = ?1",
        &[&id, &due],
    );
    // The daemon claims the occurrence, starts it, and dies mid-run.
    let mut crashed = DaemonProcess::spawn(bin(), &home, &StartOptions::default()).unwrap();
    wait_requests(&server, 1);
    crashed.kill9().unwrap();
    server.set_default(Reply::plain("ok"));
    let d3 = DaemonProcess::spawn(bin(), &home, &StartOptions::default()).unwrap();
    let mut c = d3.connect().unwrap();
    let t = wait_finished(&mut c, &id);
    // A quiet window (8 scheduler ticks), not an ordering: no second run.
    std::thread::sleep(Duration::from_millis(800));
    assert_eq!(
        server.requests().len(),
        1,
        "not run again after the restart"
    );
    assert_eq!(claims(&home, &id), [(due, Some("cancelled".to_string()))]);
    assert_eq!(t["lastStatus"], "cancelled");
    assert_eq!(
        t["lastError"],
        "The daemon stopped before this run finished."
    );
    assert!(parse(&t["nextRunAt"]) > Utc::now(), "the schedule moved on");
}

/// `TZ` is honoured: the next run of `cron` is `want` in that zone's wall clock.
fn next_run_in_zone(tz: &str, cron: &str) -> (String, String) {
    let server = ProviderServer::start().unwrap();
    let d = start_with(options(&server, json!({}), vec![("TZ".into(), tz.into())]));
    let mut c = d.connect().unwrap();
    let t = create(&mut c, json!({"name": "z", "prompt": "p", "cron": cron}));
    let next = t["nextRunAt"].as_str().unwrap().to_string();
    // Read back on that zone's wall clock with the system's own tz database.
    let utc = next[..19].replace('T', " ");
    let out = Command::new("date")
        .env("TZ", tz)
        .args(["-d", &format!("{utc} UTC"), "+%a %H:%M"])
        .output()
        .unwrap();
    (
        next,
        String::from_utf8(out.stdout).unwrap().trim().to_string(),
    )
}

#[test]
fn cron_fields_are_local_time_of_the_daemon_zone() {
    let (next, wall) = next_run_in_zone("Asia/Shanghai", "0 9 * * *");
    assert!(
        next.contains("T01:00:00.0000000+00:00"),
        "UTC+8, no DST: {next}"
    );
    assert!(wall.ends_with("09:00"), "{wall}");
    let (_, wall) = next_run_in_zone("Asia/Shanghai", "30 7 * * MON");
    assert_eq!(wall, "Mon 07:30");
    let (next, wall) = next_run_in_zone("America/New_York", "0 9 * * *");
    assert!(
        next.contains("T13:00:00") || next.contains("T14:00:00"),
        "EDT or EST: {next}"
    );
    assert!(wall.ends_with("09:00"), "{wall}");
}

fn seekclaw(home: &Path, args: &[&str]) -> std::process::Output {
    Command::new(bin())
        .args(args)
        .env("SEEKCLAW_HOME", home)
        .output()
        .unwrap()
}

fn stdout(out: &std::process::Output) -> String {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone()).unwrap()
}

#[test]
fn the_cli_manages_schedules_through_the_daemon() {
    let server = ProviderServer::start().unwrap();
    server.set_default(Reply::plain("cli run done"));
    let d = setup(&server, json!({}));
    let h = d.home.as_path();
    let added = stdout(&seekclaw(
        h,
        &[
            "schedule",
            "add",
            "--name",
            "Nightly",
            "--cron",
            "0 2 * * *",
            "--prompt",
            "tidy up",
            "--id",
            "nightly",
            "--global",
        ],
    ));
    assert!(
        added.starts_with("added nightly (Nightly) in the global scope, next run: 20"),
        "{added}"
    );
    let listed = stdout(&seekclaw(h, &["schedule", "list"]));
    let lines: Vec<&str> = listed.lines().collect();
    assert_eq!(lines.len(), 2, "{listed}");
    let cols = |l: &str| {
        l.split("  ")
            .map(str::trim)
            .filter(|c| !c.is_empty())
            .map(String::from)
            .collect::<Vec<_>>()
    };
    assert_eq!(
        cols(lines[0]),
        ["ID", "STATE", "CRON", "NEXT RUN", "LAST RUN", "NAME"]
    );
    let row = cols(lines[1]);
    assert_eq!(row[..3], ["nightly", "enabled", "0 2 * * *"], "{listed}");
    assert!(row[3].starts_with("20"), "{listed}");
    assert_eq!(row[4..], ["never ran", "Nightly"], "{listed}");
    // A unique prefix names the task.
    assert_eq!(
        stdout(&seekclaw(h, &["schedule", "disable", "night"])),
        "disabled nightly\n"
    );
    let listed = stdout(&seekclaw(h, &["schedule", "list"]));
    let row = cols(listed.lines().nth(1).unwrap());
    assert_eq!(row[1..4], ["disabled", "0 2 * * *", "-"], "{listed}");
    assert!(
        stdout(&seekclaw(h, &["schedule", "enable", "nightly"]))
            .starts_with("enabled nightly, next run: 20")
    );
    assert_eq!(
        stdout(&seekclaw(h, &["schedule", "run", "nightly"])),
        "started nightly\n"
    );
    let start = Instant::now();
    let task = loop {
        let json: Value =
            serde_json::from_str(&stdout(&seekclaw(h, &["schedule", "list", "--json"]))).unwrap();
        if json[0].get("lastStatus").is_some() {
            break json[0].clone();
        }
        assert!(start.elapsed() < Duration::from_secs(20));
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(
        (task["lastStatus"].as_str(), task["lastOutput"].as_str()),
        (Some("success"), Some("cli run done"))
    );
    let bad = seekclaw(
        h,
        &[
            "schedule", "add", "--name", "x", "--cron", "nope", "--prompt", "p", "--global",
        ],
    );
    assert_eq!(bad.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("Invalid cron expression: "));
    let bad_hour = seekclaw(
        h,
        &[
            "schedule",
            "add",
            "--name",
            "x",
            "--cron",
            "0 25 * * *",
            "--prompt",
            "p",
            "--global",
        ],
    );
    let err = String::from_utf8_lossy(&bad_hour.stderr);
    assert!(err.contains("the hour field \"25\" is invalid"), "{err}");
    let missing = seekclaw(h, &["schedule", "run", "ghost"]);
    assert_eq!(missing.status.code(), Some(1));
    let err = String::from_utf8_lossy(&missing.stderr);
    assert!(
        err.contains("no scheduled task with an id starting with \"ghost\""),
        "{err}"
    );
    assert_eq!(
        stdout(&seekclaw(h, &["schedule", "remove", "nightly"])),
        "removed nightly\n"
    );
    assert!(
        stdout(&seekclaw(h, &["schedule", "list"]))
            .starts_with("no scheduled tasks; add one with `seekclaw schedule add")
    );
}

#[test]
fn the_cli_says_clearly_when_no_daemon_runs() {
    let tmp = tempfile::tempdir().unwrap();
    // `list` reads the store (issue 36, item 11); what changes a task needs the daemon.
    let out = seekclaw(tmp.path(), &["schedule", "list"]);
    assert!(stdout(&out).starts_with("no scheduled tasks"));
    let out = seekclaw(tmp.path(), &["schedule", "run", "x"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no seekclaw daemon is running"), "{err}");
    assert!(err.contains("seekclaw daemon"), "{err}");
    assert!(err.contains("contrib/systemd/seekclaw.service"), "{err}");
}

/// A job a scheduled run started that ends after the run reaches the
/// session's log, and the next turn on the session reads it.
#[test]
fn a_scheduled_runs_job_ending_later_reaches_the_log_and_the_next_turn() {
    let server = ProviderServer::start().unwrap();
    server.enqueue(Reply::new().tool_call(
        "b1",
        "bash",
        r#"{"command":"sleep 0.5; echo bgdone","run_in_background":true}"#,
    ));
    server.enqueue(Reply::plain("started it"));
    let tmp = tempfile::tempdir().unwrap();
    let ws = project_dir(tmp.path(), "proj");
    let d = setup(&server, json!({}));
    let mut a = d.connect().unwrap();
    let t = create(
        &mut a,
        json!({"name": "Jobs", "prompt": "start a job", "cron": "0 9 * * *",
               "workspace": ws.display().to_string()}),
    );
    let id = t["id"].as_str().unwrap().to_string();
    assert_eq!(a.ok("schedule.run", json!({"id": id})).unwrap(), "started");
    let ev = wait_event(&mut a, "schedule.updated");
    assert_eq!(ev["details"]["status"], "success", "{ev}");
    let t = find(&mut a, &id);
    let sid = t["lastSessionId"].as_str().unwrap().to_string();
    let w = ws.display().to_string();
    crate::support::wait_in_log(
        &d.home,
        &sid,
        &["--workspace", &w],
        "bg-1 finished (exit=0)",
    );
    server.enqueue(Reply::plain("it finished"));
    let next = crate::support::turns::chat(
        &mut a,
        json!({"message": "and?", "sessionId": sid, "workspace": w}),
    );
    assert_eq!(next.last().unwrap()["event"], "done", "{next:?}");
    let last = server.requests().last().unwrap().body.to_string();
    assert!(last.contains("bg-1 finished (exit=0)"), "{last}");
}
