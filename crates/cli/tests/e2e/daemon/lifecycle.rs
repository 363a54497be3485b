use std::os::unix::fs::PermissionsExt;
use std::time::{Duration, Instant};

use seekclaw_testkit::{DaemonProcess, StartOptions};
use serde_json::json;

use crate::support::{bin, start};

fn mode(path: &std::path::Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[test]
fn home_is_0700_and_socket_is_0600() {
    let d = start();
    assert_eq!(mode(&d.home), 0o700);
    assert_eq!(mode(&d.socket), 0o600);
    assert!(
        d.home.join("config.json").is_file(),
        "defaults written on first run"
    );
    assert!(d.home.join("seekclaw.db").is_file());
}

#[test]
fn second_daemon_on_same_home_exits_and_first_keeps_serving() {
    let d = start();
    let mut second = DaemonProcess::spawn_nowait(bin(), &d.home, &StartOptions::default()).unwrap();
    let status = second.wait_exit(Duration::from_secs(20)).unwrap();
    assert!(!status.success());
    let msg = second.stderr();
    assert!(
        msg.contains(&format!("another daemon is running (pid {})", d.pid())),
        "stderr: {msg}"
    );
    let mut c = d.connect().unwrap();
    assert_eq!(c.request("ping", json!({})).unwrap()["event"], "pong");
}

#[test]
fn stale_socket_is_replaced() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    // A socket file with nobody listening, as a crashed daemon leaves it.
    drop(std::os::unix::net::UnixListener::bind(home.join("daemon.sock")).unwrap());
    assert!(home.join("daemon.sock").exists());
    let d = DaemonProcess::spawn(bin(), &home, &StartOptions::default()).unwrap();
    let mut c = d.connect().unwrap();
    assert_eq!(c.request("ping", json!({})).unwrap()["event"], "pong");
}

#[test]
fn shutdown_answers_bye_then_exits_zero_and_removes_socket() {
    let mut d = start();
    let mut c = d.connect().unwrap();
    let line_id = c.send("shutdown", json!({})).unwrap();
    let env = c.collect(line_id).unwrap().pop().unwrap();
    assert_eq!(env, json!({"id": line_id, "event": "bye", "data": ""}));
    let status = d.wait_exit(Duration::from_secs(15)).unwrap();
    assert!(status.success(), "exit status {status}");
    assert!(!d.socket.exists());
}

#[test]
fn sigterm_and_sigint_exit_zero_and_remove_socket() {
    for sig in [15, 2] {
        let mut d = start();
        let _idle = d.connect().unwrap();
        d.signal(sig).unwrap();
        let status = d.wait_exit(Duration::from_secs(15)).unwrap();
        assert!(status.success(), "signal {sig}: {status}");
        assert!(!d.socket.exists(), "signal {sig}");
    }
}

#[test]
fn kill9_during_writes_loses_no_acknowledged_session_and_db_stays_intact() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let ws = crate::support::project_dir(tmp.path(), "ws");
    let mut d = DaemonProcess::spawn(bin(), &home, &StartOptions::default()).unwrap();
    let mut writers = Vec::new();
    for _ in 0..4 {
        let mut c = d.connect().unwrap();
        let ws = ws.display().to_string();
        writers.push(std::thread::spawn(move || {
            let mut acked = Vec::new();
            loop {
                let Ok(id) = c.ok("session.new", json!({"workspace": ws})) else {
                    break;
                };
                if c.ok(
                    "session.update",
                    json!({"id": id, "workspace": ws, "title": "t"}),
                )
                .is_err()
                {
                    acked.push(id);
                    break;
                }
                acked.push(id);
            }
            acked
        }));
    }
    // The crash lands at an arbitrary point of the writes: the timing is the test.
    std::thread::sleep(Duration::from_millis(700));
    d.kill9().unwrap();
    let acked: Vec<String> = writers
        .into_iter()
        .flat_map(|w| w.join().unwrap())
        .collect();
    assert!(
        acked.len() > 10,
        "writes happened before the kill: {}",
        acked.len()
    );

    let db = rusqlite::Connection::open(home.join("seekclaw.db")).unwrap();
    let check: String = db
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(check, "ok");
    drop(db);

    let d2 = DaemonProcess::spawn(bin(), &home, &StartOptions::default()).unwrap();
    let mut c = d2.connect().unwrap();
    let list = c
        .ok_json(
            "session.list",
            json!({"workspace": ws.display().to_string()}),
        )
        .unwrap();
    let ids: Vec<&str> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["id"].as_str().unwrap())
        .collect();
    for id in &acked {
        assert!(ids.contains(&id.as_str()), "acknowledged session {id} lost");
    }
}

/// A daemon whose shutdown drains slowly: one client started a long streamed
/// answer and reads nothing, so its connection holds the drain for the grace.
fn daemon_with_a_stuck_reader() -> (
    seekclaw_testkit::ProviderServer,
    DaemonProcess,
    seekclaw_testkit::Client,
) {
    use seekclaw_testkit::{ProviderServer, Reply};
    let server = ProviderServer::start().unwrap();
    let mut long = Reply::new();
    let piece = "x".repeat(1024);
    for _ in 0..4096 {
        long = long.text(piece.clone());
    }
    server.enqueue(long.finish("stop"));
    let d = crate::support::turns::setup(
        &server,
        StartOptions {
            config: Some(json!({"daemon": {"slowClientTimeoutSeconds": 60}})),
            ..StartOptions::default()
        },
    );
    let mut stuck = d.connect().unwrap();
    stuck
        .send("chat", json!({"message": "say a lot", "global": true}))
        .unwrap();
    // Once the answer streams, it fills buffers nobody reads.
    stuck.wait_for("delta").unwrap();
    // Time for the unread answer to fill them: what the callers test.
    std::thread::sleep(Duration::from_millis(1000));
    (server, d, stuck)
}

/// Connecting to the socket fails cleanly (no file, or refused).
fn assert_refused(socket: &std::path::Path, when: &str) {
    match std::os::unix::net::UnixStream::connect(socket) {
        Ok(_) => panic!("{when}: a connection was accepted by a daemon that is stopping"),
        Err(e) => assert!(
            matches!(
                e.kind(),
                std::io::ErrorKind::NotFound | std::io::ErrorKind::ConnectionRefused
            ),
            "{when}: {e}"
        ),
    }
}

#[test]
fn a_daemon_that_said_bye_or_got_sigterm_accepts_no_one_and_a_new_one_starts_after_its_drain() {
    for how in ["shutdown", "SIGTERM", "SIGINT"] {
        let (_server, mut d, _stuck) = daemon_with_a_stuck_reader();
        match how {
            "shutdown" => {
                let mut c = d.connect().unwrap();
                assert_eq!(c.request("shutdown", json!({})).unwrap()["event"], "bye");
                // From `bye` on, nobody is accepted.
                assert!(
                    !d.socket.exists(),
                    "{how}: the socket is removed with `bye`"
                );
                assert_refused(&d.socket, how);
            }
            _ => {
                d.signal(if how == "SIGTERM" { 15 } else { 2 }).unwrap();
                let start = Instant::now();
                while d.socket.exists() {
                    assert!(
                        start.elapsed() < Duration::from_secs(5),
                        "{how}: socket kept"
                    );
                    std::thread::sleep(Duration::from_millis(5));
                }
            }
        }
        for _ in 0..20 {
            assert_refused(&d.socket, how);
            std::thread::sleep(Duration::from_millis(25));
        }
        assert!(
            d.try_wait().unwrap().is_none(),
            "{how}: the drain was still running while clients were refused: {}",
            d.stderr()
        );

        // A daemon started now (as the desktop starts one when it finds none)
        // waits for the old one's drain, then serves.
        let mut next =
            DaemonProcess::spawn_nowait(bin(), &d.home, &StartOptions::default()).unwrap();
        // A window, not an ordering: it must still be waiting (not have exited).
        std::thread::sleep(Duration::from_millis(300));
        assert!(
            next.try_wait().unwrap().is_none(),
            "{how}: {}",
            next.stderr()
        );
        next.wait_ready(Duration::from_secs(30)).unwrap();
        let status = d.wait_exit(Duration::from_secs(1)).unwrap();
        assert!(
            status.success(),
            "{how}: the old daemon exits cleanly: {status}"
        );
        let mut c = next.connect().unwrap();
        assert_eq!(c.request("ping", json!({})).unwrap()["event"], "pong");
        let lock = std::fs::read_to_string(d.home.join("daemon.lock")).unwrap();
        assert_eq!(lock.trim(), next.pid().to_string(), "{how}");
    }
}

/// `seekclaw daemon --on-demand --idle-exit SECS` with the testkit provider.
fn on_demand(server: &seekclaw_testkit::ProviderServer, secs: u64) -> DaemonProcess {
    crate::support::turns::setup(
        server,
        StartOptions {
            args: vec!["--on-demand".into(), format!("--idle-exit={secs}")],
            ..StartOptions::default()
        },
    )
}

/// Waits (up to `limit`) for the daemon to exit; its status.
fn exits_within(d: &mut DaemonProcess, limit: Duration) -> std::process::ExitStatus {
    d.wait_exit(limit)
        .unwrap_or_else(|e| panic!("{e}; the daemon's log:\n{}", d.stderr()))
}

#[test]
fn a_user_started_daemon_never_idle_exits() {
    let mut d = crate::support::start_with(StartOptions {
        env: vec![("SEEKCLAW_IDLE_EXIT".into(), "1".into())],
        ..StartOptions::default()
    });
    drop(d.connect().unwrap());
    // Idle-exit timing is the thing under test: three idle periods pass.
    std::thread::sleep(Duration::from_secs(3));
    assert!(d.try_wait().unwrap().is_none(), "{}", d.stderr());
    let mut c = d.connect().unwrap();
    assert_eq!(c.request("ping", json!({})).unwrap()["event"], "pong");
}

#[test]
fn an_on_demand_daemon_stays_while_a_client_is_connected_and_exits_after_the_idle_delay() {
    let server = seekclaw_testkit::ProviderServer::start().unwrap();
    let mut d = on_demand(&server, 1);
    let mut c = d.connect().unwrap();
    // Idle-exit timing is the thing under test: well past the idle period.
    std::thread::sleep(Duration::from_millis(2500));
    assert!(d.try_wait().unwrap().is_none(), "{}", d.stderr());
    assert_eq!(c.request("ping", json!({})).unwrap()["event"], "pong");
    // A daemon of one's own cannot start beside it, and is told why.
    let mut own = DaemonProcess::spawn_nowait(bin(), &d.home, &StartOptions::default()).unwrap();
    assert!(!own.wait_exit(Duration::from_secs(20)).unwrap().success());
    let said = own.stderr();
    assert!(
        said.contains(&format!("another daemon is running (pid {})", d.pid()))
            && said.contains("started on demand"),
        "{said}"
    );
    // A second client leaving does not end the first one's daemon.
    drop(d.connect().unwrap());
    // Idle-exit timing is the thing under test: past the idle period.
    std::thread::sleep(Duration::from_millis(1500));
    assert!(d.try_wait().unwrap().is_none(), "{}", d.stderr());
    let left = Instant::now();
    drop(c);
    let status = exits_within(&mut d, Duration::from_secs(10));
    assert!(status.success(), "{status}");
    assert!(
        left.elapsed() >= Duration::from_millis(900),
        "exited before the idle delay"
    );
    assert!(!d.socket.exists());
    assert!(
        d.stderr()
            .contains("no client connected and nothing running")
    );
}

#[test]
fn an_unattended_on_demand_daemon_waits_for_its_background_job() {
    let server = seekclaw_testkit::ProviderServer::start().unwrap();
    let mut d = on_demand(&server, 1);
    let mut c = d.connect().unwrap();
    let ws = tempfile::tempdir().unwrap();
    let args = json!({"command": "exec sleep 3.0333", "run_in_background": true});
    server.enqueue(seekclaw_testkit::Reply::new().tool_call("b1", "bash", args.to_string()));
    server.enqueue(seekclaw_testkit::Reply::plain("started it"));
    let turn = crate::support::turns::chat(
        &mut c,
        json!({"message": "start a job", "workspace": ws.path().to_str().unwrap()}),
    );
    assert_eq!(turn.last().unwrap()["data"], "started it", "{turn:?}");
    let job = crate::support::wait_marker("sleep 3.0333");
    let left = Instant::now();
    drop(c);
    // Idle-exit timing is the thing under test: past the idle period.
    std::thread::sleep(Duration::from_millis(1800));
    assert!(
        d.try_wait().unwrap().is_none(),
        "exited under a running job: {}",
        d.stderr()
    );
    assert!(seekclaw_testkit::process_alive(job));
    let status = exits_within(&mut d, Duration::from_secs(10));
    assert!(status.success(), "{status}");
    assert!(
        left.elapsed() >= Duration::from_secs(3),
        "{:?}",
        left.elapsed()
    );
}
