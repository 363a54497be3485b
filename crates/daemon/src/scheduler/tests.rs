//! The scheduler over a real store in a temp home and a real (testkit) provider
//! server: claims, concurrency, timeouts, shutdown, notices.

use std::path::Path;
use std::time::{Duration, Instant};

use chrono::Utc;
use seekclaw_config::{Config, Home};
use seekclaw_store::{ScheduleDraft, ScheduledTask, Store, format_iso};
use seekclaw_testkit::{ProviderServer, Reply};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use super::*;
use crate::outbox::{Outbox, Queue};

pub(super) fn config(server: &ProviderServer, extra: Value) -> Value {
    let mut c = json!({
        "providers": [{
            "id": "tk", "kind": "openai", "baseUrl": server.base_url(), "apiKey": "sk-tk",
            "timeoutSeconds": 30,
            "models": [{"id": "m1", "contextWindow": 128000, "maxOutput": 4096}]
        }],
        "routing": {"retry": {"baseDelaySeconds": 0.01, "maxDelaySeconds": 0.05}},
        "agent": {"autoVerify": false},
        "daemon": {"schedulerTickMilliseconds": 50, "allowShortScheduledTimeouts": true}
    });
    if let (Some(base), Value::Object(more)) = (c.as_object_mut(), extra) {
        for (k, v) in more {
            match (base.get_mut(&k), v) {
                (Some(Value::Object(into)), Value::Object(fields)) => into.extend(fields),
                (_, v) => {
                    base.insert(k, v);
                }
            }
        }
    }
    c
}

/// The daemon's context (nothing listening) over `home`, with `config` written first.
pub(super) fn daemon_at(home: &Path, config: &Value) -> Ctx {
    let home = Home::at(home);
    home.ensure().unwrap();
    std::fs::write(
        home.config_path(),
        serde_json::to_vec_pretty(config).unwrap(),
    )
    .unwrap();
    let store = Store::open(&home.db_path()).unwrap();
    let cwd = home.root().to_path_buf();
    Ctx::open(home, cwd, store)
}

pub(super) fn task(d: &Ctx, id: &str, cron: &str, next: Option<String>) -> ScheduledTask {
    d.engine
        .store
        .upsert_schedule(&ScheduleDraft {
            id: id.into(),
            name: format!("job {id}"),
            workspace: None,
            prompt: format!("prompt of {id}"),
            cron: cron.into(),
            enabled: true,
            next_run_at: next,
            approval: None,
        })
        .unwrap()
}

fn ago(secs: i64) -> Option<String> {
    Some(format_iso(Utc::now() - chrono::Duration::seconds(secs)))
}

fn ahead(secs: i64) -> Option<String> {
    Some(format_iso(Utc::now() + chrono::Duration::seconds(secs)))
}

/// Polls `f` until it yields a value (or panics after `limit`).
pub(super) async fn until<T>(limit: Duration, mut f: impl FnMut() -> Option<T>) -> T {
    let start = Instant::now();
    loop {
        if let Some(v) = f() {
            return v;
        }
        assert!(
            start.elapsed() < limit,
            "condition not met within {limit:?}"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

pub(super) async fn finished(d: &Ctx, id: &str) -> ScheduledTask {
    until(Duration::from_secs(20), || {
        d.engine
            .store
            .schedule(id)
            .unwrap()
            .filter(|t| t.last_status.is_some())
    })
    .await
}

/// Waits (without blocking a runtime thread) for the provider to get `n` requests.
pub(super) async fn requests_at_least(server: &ProviderServer, n: usize) {
    until(Duration::from_secs(20), || {
        (server.requests().len() >= n).then_some(())
    })
    .await;
}

/// A fake client: every broadcast line lands in the returned receiver.
fn listen(d: &Ctx, conn: u64) -> Queue {
    let (outbox, rx) = Outbox::new(Duration::from_secs(5), CancellationToken::new());
    d.connections.insert(conn, outbox);
    rx
}

async fn next_broadcast(rx: &mut Queue) -> Value {
    let line = tokio::time::timeout(Duration::from_secs(20), rx.recv())
        .await
        .expect("a broadcast in time")
        .expect("open");
    serde_json::from_slice(&line).unwrap()
}

fn settings() -> Settings {
    Settings {
        tick: Duration::from_millis(50),
        max_concurrent: 4,
        turn_timeout: Duration::from_secs(60),
    }
}

#[test]
fn settings_clamp_the_timeout_unless_short_ones_are_allowed() {
    let mut c = Config::default();
    let s = Settings::from_config(&c);
    assert_eq!(
        (s.tick, s.max_concurrent, s.turn_timeout),
        (Duration::from_secs(10), 4, Duration::from_secs(1800))
    );
    c.agent.scheduled_turn_timeout_seconds = 2;
    c.agent.max_concurrent_scheduled_turns = 0;
    c.daemon.scheduler_tick_milliseconds = 0;
    let s = Settings::from_config(&c);
    assert_eq!(s.turn_timeout, Duration::from_secs(60));
    assert_eq!(s.max_concurrent, 1);
    assert_eq!(s.tick, Duration::from_millis(10));
    c.daemon.allow_short_scheduled_timeouts = true;
    assert_eq!(
        Settings::from_config(&c).turn_timeout,
        Duration::from_secs(2)
    );
    c.agent.scheduled_turn_timeout_seconds = 1_000_000;
    assert_eq!(
        Settings::from_config(&c).turn_timeout,
        Duration::from_secs(86_400)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missed_occurrence_runs_once_in_a_new_session_and_the_schedule_continues() {
    let server = ProviderServer::start().unwrap();
    server.set_default(Reply::plain("all done"));
    let dir = tempfile::tempdir().unwrap();
    let d = daemon_at(dir.path(), &config(&server, json!({})));
    // Every minute, last due three hours ago: 180 occurrences were missed.
    task(&d, "a", "* * * * *", ago(3 * 3600));
    let mut rx = listen(&d, 1);
    start(&d);
    let t = finished(&d, "a").await;
    assert_eq!(t.last_status.as_deref(), Some("success"));
    assert_eq!(t.last_output.as_deref(), Some("all done"));
    assert_eq!(t.last_error, None);
    let next = t.next_run_at.clone().unwrap();
    assert!(next > format_iso(Utc::now()), "continues from now: {next}");
    let sid = t.last_session_id.clone().unwrap();
    let session = d
        .engine
        .store
        .session(seekclaw_config::GLOBAL_SCOPE, &sid)
        .unwrap()
        .expect("a global session");
    assert_eq!(session.title.as_deref(), Some("job a（计划任务）"));
    assert_eq!(session.active_turn, None);
    let msgs = d
        .engine
        .store
        .messages(seekclaw_config::GLOBAL_SCOPE, &sid)
        .unwrap();
    assert_eq!(msgs[0].text, "prompt of a");
    // The next occurrence (under a minute away) may be announced first.
    let mut ev = next_broadcast(&mut rx).await;
    while ev["event"] == "schedule.upcoming" {
        ev = next_broadcast(&mut rx).await;
    }
    assert_eq!(ev["event"], "schedule.updated");
    assert_eq!(ev["id"], 0);
    assert_eq!(ev["data"], "a");
    assert_eq!(
        ev["details"],
        json!({"taskId": "a", "name": "job a", "status": "success", "sessionId": sid})
    );
    // A few more ticks: nothing else runs (the next occurrence is up to a minute away).
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(server.requests().len(), 1);
    assert_eq!(d.engine.store.schedule_claims("a").unwrap().len(), 1);
    d.scheduler.stop();
    d.scheduler.wait_stopped().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_in_a_workspace_uses_its_scope_and_a_missing_one_falls_back_to_global() {
    let server = ProviderServer::start().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("proj");
    std::fs::create_dir_all(ws.join("src")).unwrap();
    std::fs::write(ws.join("Cargo.toml"), "[package]\nname = \"x\"\n").unwrap();
    let d = daemon_at(&dir.path().join("home"), &config(&server, json!({})));
    for (id, path) in [("in-ws", ws.join("src")), ("gone", dir.path().join("nope"))] {
        d.engine
            .store
            .upsert_schedule(&ScheduleDraft {
                id: id.into(),
                name: id.into(),
                workspace: Some(path.display().to_string()),
                prompt: "p".into(),
                cron: "0 0 1 1 *".into(),
                enabled: true,
                next_run_at: None,
                approval: None,
            })
            .unwrap();
        start_manual(&d, id).await.unwrap();
    }
    let root = seekclaw_config::detect_root(&ws, &d.engine.home);
    let in_ws = finished(&d, "in-ws").await;
    let scope = seekclaw_config::scope_key_workspace(&root);
    let s = d
        .engine
        .store
        .session(&scope, in_ws.last_session_id.as_deref().unwrap())
        .unwrap()
        .expect("session in the workspace scope");
    assert_eq!(s.workspace, Some(root.display().to_string()));
    let gone = finished(&d, "gone").await;
    assert_eq!(gone.last_status.as_deref(), Some("success"));
    assert!(
        d.engine
            .store
            .session(
                seekclaw_config::GLOBAL_SCOPE,
                gone.last_session_id.as_deref().unwrap()
            )
            .unwrap()
            .is_some()
    );
    d.scheduler.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hanging_task_never_delays_the_others_and_the_limit_holds() {
    let server = ProviderServer::start().unwrap();
    server.enqueue(Reply::new().text("thinking…").stall_after(1));
    let dir = tempfile::tempdir().unwrap();
    let d = daemon_at(
        dir.path(),
        &config(
            &server,
            json!({"agent": {"maxConcurrentScheduledTurns": 2}}),
        ),
    );
    task(&d, "hang", "0 0 1 1 *", None);
    start_manual(&d, "hang").await.unwrap();
    requests_at_least(&server, 1).await;
    for i in 0..4 {
        task(&d, &format!("t{i}"), "0 0 1 1 *", ago(1));
    }
    let s = Settings {
        max_concurrent: 2,
        ..settings()
    };
    // One slot is taken by the hanging run: one due task starts, three wait.
    let report = tick(&d, &s).await.unwrap();
    assert_eq!((report.started, report.deferred), (1, 3));
    // Tick by hand (the loop would do the same) until every task ran.
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        assert!(d.scheduler.running_count() <= 2, "the limit holds");
        let report = tick(&d, &s).await.unwrap();
        if report.read == 0 {
            break;
        }
        assert!(Instant::now() < deadline, "tasks still due: {report:?}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    for i in 0..4 {
        let t = finished(&d, &format!("t{i}")).await;
        assert_eq!(t.last_status.as_deref(), Some("success"));
    }
    assert!(d.scheduler.is_running("hang"), "still hanging");
    assert!(
        d.engine
            .store
            .schedule("hang")
            .unwrap()
            .unwrap()
            .last_status
            .is_none()
    );
    d.scheduler.stop();
    d.scheduler.wait_stopped().await;
    let hang = d.engine.store.schedule("hang").unwrap().unwrap();
    assert_eq!(hang.last_status.as_deref(), Some("cancelled"));
    assert_eq!(
        hang.last_error.as_deref(),
        Some(
            crate::presentation::run_cancelled(CancelReason::Shutdown, Default::default()).as_str()
        )
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_wall_clock_limit_cancels_a_run() {
    let server = ProviderServer::start().unwrap();
    server.set_default(Reply::new().text("partial").stall_after(1));
    let dir = tempfile::tempdir().unwrap();
    let d = daemon_at(
        dir.path(),
        &config(
            &server,
            json!({"agent": {"scheduledTurnTimeoutSeconds": 1}}),
        ),
    );
    task(&d, "slow", "0 0 1 1 *", None);
    let started = Instant::now();
    start_manual(&d, "slow").await.unwrap();
    let t = finished(&d, "slow").await;
    let took = started.elapsed();
    assert!(
        took >= Duration::from_secs(1) && took < Duration::from_secs(8),
        "{took:?}"
    );
    assert_eq!(t.last_status.as_deref(), Some("cancelled"));
    assert_eq!(
        t.last_error.as_deref(),
        Some(
            crate::presentation::run_cancelled(
                CancelReason::Timeout(Duration::from_secs(1)),
                Default::default()
            )
            .as_str()
        )
    );
    let sid = t.last_session_id.unwrap();
    let s = d
        .engine
        .store
        .session(seekclaw_config::GLOBAL_SCOPE, &sid)
        .unwrap()
        .unwrap();
    assert_eq!(s.active_turn, None, "the turn recorded its end");
    // The slot is freed right after the run is recorded.
    until(Duration::from_secs(5), || {
        (!d.scheduler.is_running("slow")).then_some(())
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deleting_a_running_task_cancels_its_run() {
    let server = ProviderServer::start().unwrap();
    server.set_default(Reply::new().text("x").stall_after(1));
    let dir = tempfile::tempdir().unwrap();
    let d = daemon_at(dir.path(), &config(&server, json!({})));
    let mut rx = listen(&d, 7);
    task(&d, "doomed", "0 0 1 1 *", None);
    start_manual(&d, "doomed").await.unwrap();
    requests_at_least(&server, 1).await;
    assert!(d.scheduler.cancel("doomed", CancelReason::Deleted));
    let ev = next_broadcast(&mut rx).await;
    assert_eq!(ev["details"]["status"], "cancelled");
    assert_eq!(
        ev["details"]["error"],
        crate::presentation::run_cancelled(CancelReason::Deleted, Default::default())
    );
    until(Duration::from_secs(5), || {
        (!d.scheduler.is_running("doomed")).then_some(())
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_turn_is_an_error_outcome() {
    let server = ProviderServer::start().unwrap();
    server.set_default(Reply::http_error(
        401,
        json!({"error": {"message": "Invalid API key supplied"}}),
        None,
    ));
    let dir = tempfile::tempdir().unwrap();
    let d = daemon_at(dir.path(), &config(&server, json!({})));
    task(&d, "e", "0 0 1 1 *", None);
    start_manual(&d, "e").await.unwrap();
    let t = finished(&d, "e").await;
    assert_eq!(t.last_status.as_deref(), Some("error"));
    assert!(
        t.last_error.as_deref().unwrap().contains("401"),
        "{:?}",
        t.last_error
    );
    assert!(t.next_run_at.is_some(), "the schedule continues");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn manual_run_of_a_running_or_missing_task() {
    let server = ProviderServer::start().unwrap();
    server.set_default(Reply::new().text("x").stall_after(1));
    let dir = tempfile::tempdir().unwrap();
    let d = daemon_at(dir.path(), &config(&server, json!({})));
    let err = start_manual(&d, "missing").await.unwrap_err();
    assert_eq!(err.message, "Scheduled task not found: missing");
    assert!(!d.scheduler.is_running("missing"));
    task(&d, "t", "0 0 1 1 *", None);
    start_manual(&d, "t").await.unwrap();
    // Already running: accepted, nothing new starts.
    start_manual(&d, "t").await.unwrap();
    requests_at_least(&server, 1).await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(server.requests().len(), 1);
    assert_eq!(d.engine.store.schedule_claims("t").unwrap().len(), 1);
    d.scheduler.stop();
    d.scheduler.wait_stopped().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn upcoming_is_announced_once_per_occurrence_to_every_client() {
    let server = ProviderServer::start().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let d = daemon_at(dir.path(), &config(&server, json!({})));
    let (mut a, mut b) = (listen(&d, 1), listen(&d, 2));
    let soon = ahead(30).unwrap();
    task(&d, "soon", "0 0 1 1 *", Some(soon.clone()));
    task(&d, "later", "0 0 1 1 *", ahead(3600));
    let mut off = task(&d, "off", "0 0 1 1 *", ahead(10));
    off = d
        .engine
        .store
        .set_schedule_enabled(&off.id, false, |_| None)
        .unwrap()
        .unwrap();
    assert!(!off.enabled);
    let first = tick(&d, &settings()).await.unwrap();
    assert_eq!((first.read, first.announced, first.started), (1, 1, 0));
    assert_eq!(first.next_occurrence, parse_iso(&soon));
    let again = tick(&d, &settings()).await.unwrap();
    assert_eq!(again.announced, 0, "once per occurrence");
    for rx in [&mut a, &mut b] {
        let ev = next_broadcast(rx).await;
        assert_eq!(
            ev,
            json!({"id": 0, "event": "schedule.upcoming", "data": "job soon",
                   "details": {"taskId": "soon", "name": "job soon", "runAt": soon}})
        );
        assert!(rx.try_recv().is_err(), "nothing else");
    }
    // A new occurrence of the same task is announced again.
    let next = ahead(40).unwrap();
    task(&d, "soon", "0 0 1 1 *", Some(next));
    assert_eq!(tick(&d, &settings()).await.unwrap().announced, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_occurrence_fires_on_time_not_on_the_next_tick() {
    let server = ProviderServer::start().unwrap();
    let dir = tempfile::tempdir().unwrap();
    // A slow tick: only the wake-up for the known occurrence can be on time.
    let d = daemon_at(
        dir.path(),
        &config(
            &server,
            json!({"daemon": {"schedulerTickMilliseconds": 30000}}),
        ),
    );
    let at = Utc::now() + chrono::Duration::milliseconds(700);
    task(&d, "t", "0 0 1 1 *", Some(format_iso(at)));
    start(&d);
    requests_at_least(&server, 1).await;
    let late = Utc::now() - at;
    assert!(
        late < chrono::Duration::seconds(2),
        "fired {late} after its time"
    );
    let claims = d.engine.store.schedule_claims("t").unwrap();
    assert_eq!(claims[0].occurrence, format_iso(at));
    d.scheduler.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_daemons_on_one_database_run_each_occurrence_once() {
    let server = ProviderServer::start().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(
        &server,
        json!({"agent": {"maxConcurrentScheduledTurns": 8}}),
    );
    let a = daemon_at(dir.path(), &cfg);
    let b = daemon_at(dir.path(), &cfg);
    start(&a);
    start(&b);
    // Start-up recovery assumes one daemon per database (the daemon lock's
    // job); let both finish it before anything runs.
    tokio::time::sleep(Duration::from_millis(200)).await;
    for i in 0..12 {
        task(&a, &format!("t{i}"), "0 0 1 1 *", ago(5));
    }
    a.scheduler.wake();
    b.scheduler.wake();
    for i in 0..12 {
        let t = finished(&a, &format!("t{i}")).await;
        assert_eq!(t.last_status.as_deref(), Some("success"));
        assert_eq!(a.engine.store.schedule_claims(&t.id).unwrap().len(), 1);
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(server.requests().len(), 12, "each occurrence ran once");
    a.scheduler.stop();
    b.scheduler.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn start_up_closes_runs_a_crashed_daemon_left_open() {
    let server = ProviderServer::start().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let d = daemon_at(dir.path(), &config(&server, json!({})));
    let occ = ago(30).unwrap();
    task(&d, "t", "0 0 1 1 *", Some(occ.clone()));
    // What a crash leaves: the claim (the schedule already moved on), no outcome.
    d.engine
        .store
        .claim_occurrence("t", &occ, |_| ahead(3600))
        .unwrap();
    start(&d);
    let t = finished(&d, "t").await;
    assert_eq!(t.last_status.as_deref(), Some("cancelled"));
    assert_eq!(
        t.last_error.as_deref(),
        Some(seekclaw_store::INTERRUPTED_RUN)
    );
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(
        server.requests().is_empty(),
        "the claimed occurrence is not re-run"
    );
    d.scheduler.stop();
}
