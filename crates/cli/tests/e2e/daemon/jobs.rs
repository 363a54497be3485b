//! Background jobs outlive their turn: a job that ends on its own is
//! announced (to the running turn, or into the log and to the connection that
//! owns the session), and jobs die with their session and with the daemon.

use std::time::{Duration, Instant};

use seekclaw_testkit::{ProviderServer, Reply, StartOptions, process_alive};
use serde_json::json;

use crate::support::turns::{chat, setup};
use crate::support::wait_marker;

fn dead_within(pid: u32, limit: Duration) {
    let start = Instant::now();
    while process_alive(pid) {
        assert!(start.elapsed() < limit, "{pid} still alive after {limit:?}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn an_idle_sessions_job_notice_reaches_its_log_and_its_connection() {
    let server = ProviderServer::start().unwrap();
    let d = setup(&server, StartOptions::default());
    let mut c = d.connect().unwrap();
    let ws = tempfile::tempdir().unwrap();
    let path = ws.path().to_str().unwrap();
    server.enqueue(Reply::new().tool_call(
        "b1",
        "bash",
        r#"{"command":"sleep 0.5; echo bgdone","run_in_background":true}"#,
    ));
    server.enqueue(Reply::plain("started it"));
    let turn = chat(&mut c, json!({"message": "start a job", "workspace": path}));
    assert_eq!(turn.last().unwrap()["data"], "started it");
    let sid = turn.last().unwrap()["sessionId"]
        .as_str()
        .unwrap()
        .to_string();
    let notice = c.wait_for("background_notice").unwrap();
    assert_eq!(notice["id"], 0);
    assert_eq!(notice["sessionId"], sid.as_str());
    assert_eq!(notice["details"]["jobId"], "bg-1");
    let text = notice["data"].as_str().unwrap().to_string();
    assert!(
        text.starts_with("background job bg-1 finished (exit=0)"),
        "{text}"
    );
    // In the log, so the next turn reads it (and the job's output is still there).
    server.enqueue(Reply::new().tool_call(
        "o1",
        "bash_output",
        r#"{"job_id":"bg-1","wait_ms":1000}"#,
    ));
    server.enqueue(Reply::plain("it printed bgdone"));
    let next = chat(
        &mut c,
        json!({"message": "and?", "sessionId": sid, "workspace": path}),
    );
    assert_eq!(next.last().unwrap()["event"], "done", "{next:?}");
    let requests = server.requests();
    assert!(
        requests[2]
            .body
            .to_string()
            .contains("bg-1 finished (exit=0)")
    );
    let output = requests[3].body.to_string();
    assert!(output.contains("bgdone"), "{output}");
}

#[test]
fn jobs_die_with_their_session_and_with_the_daemon() {
    let server = ProviderServer::start().unwrap();
    let d = setup(&server, StartOptions::default());
    let mut c = d.connect().unwrap();
    let ws = tempfile::tempdir().unwrap();
    let path = ws.path().to_str().unwrap();
    for (i, secs) in ["60.0111", "60.0222"].iter().enumerate() {
        let args = json!({"command": format!("exec sleep {secs}"), "run_in_background": true});
        server.enqueue(Reply::new().tool_call(format!("b{i}"), "bash", args.to_string()));
        server.enqueue(Reply::plain("running"));
    }
    let first = chat(&mut c, json!({"message": "one", "workspace": path}));
    let one = first.last().unwrap()["sessionId"]
        .as_str()
        .unwrap()
        .to_string();
    let pid_one = wait_marker("sleep 60.0111");
    c.ok("session.new", json!({"workspace": path})).unwrap();
    let second = chat(&mut c, json!({"message": "two", "workspace": path}));
    assert_ne!(second.last().unwrap()["sessionId"], one.as_str());
    let pid_two = wait_marker("sleep 60.0222");
    // A window, not an ordering: the turns have ended; a kill tied to their
    // end would land in it.
    std::thread::sleep(Duration::from_millis(300));
    assert!(
        process_alive(pid_one) && process_alive(pid_two),
        "jobs outlive their turns"
    );

    c.ok("session.delete", json!({"id": one, "workspace": path}))
        .unwrap();
    dead_within(pid_one, Duration::from_secs(2));
    assert!(
        process_alive(pid_two),
        "another session's job is not touched"
    );
    c.request("shutdown", json!({})).unwrap();
    dead_within(pid_two, Duration::from_secs(10));
}
