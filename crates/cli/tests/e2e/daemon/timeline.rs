//! `session.timeline`: the log as a front end redraws it (tool rows with
//! their summaries and durations, steers, engine notices, how each turn
//! ended, a turn killed with the daemon as interrupted); engine notices are
//! `notice` events, never `steer`s, and stay out of `session.get`'s user
//! messages.

use std::time::Duration;

use seekclaw_testkit::{DaemonProcess, ProviderServer, Reply, StartOptions};
use serde_json::{Value, json};

use crate::support::turns::{chat, events, setup};

fn timeline(c: &mut seekclaw_testkit::Client, sid: &str) -> Vec<Value> {
    let t = c
        .ok_json("session.timeline", json!({"id": sid, "global": true}))
        .unwrap();
    assert_eq!(t["id"], sid);
    t["entries"].as_array().unwrap().clone()
}

fn kinds(entries: &[Value]) -> Vec<&str> {
    entries
        .iter()
        .map(|e| e["kind"].as_str().unwrap())
        .collect()
}

#[test]
fn the_timeline_keeps_tool_rows_steers_and_how_turns_ended() {
    let server = ProviderServer::start().unwrap();
    server.enqueue(Reply::new().tool_call("c1", "bash", r#"{"command":"echo hi"}"#));
    server.enqueue(Reply::plain("ran it"));
    // The steer enters when the first slow step ends; the second is cancelled.
    for step in 0..2 {
        let mut slow = Reply::new().chunk_delay(Duration::from_millis(100));
        for i in 0..12 {
            slow = slow.text(format!("s{step}p{i} "));
        }
        server.enqueue(slow);
    }
    server.enqueue(Reply::http_error(
        400,
        json!({"error": {"message": "no such thing"}}),
        None,
    ));
    let d = setup(&server, StartOptions::default());
    let mut c = d.connect().unwrap();
    let sid = c.ok("session.new", json!({"global": true})).unwrap();
    let first = chat(
        &mut c,
        json!({"message": "run", "sessionId": sid, "global": true}),
    );
    let live_done = &events(&first, "tool_done")[0];

    // A steer, then a cancel.
    let turn = c
        .send(
            "chat",
            json!({"message": "slow", "sessionId": sid, "global": true}),
        )
        .unwrap();
    c.wait_for("delta").unwrap();
    c.send(
        "agent.steer",
        json!({"message": "use tabs", "requestId": turn, "sessionId": sid}),
    )
    .unwrap();
    c.wait_for("steer").unwrap();
    c.wait_for("delta").unwrap();
    c.send("agent.cancel", json!({"requestId": turn})).unwrap();
    c.wait_for("cancelled").unwrap();

    let failed = chat(
        &mut c,
        json!({"message": "fail", "sessionId": sid, "global": true}),
    );
    let live_error = failed.last().unwrap()["data"].as_str().unwrap().to_string();

    let entries = timeline(&mut c, &sid);
    let tool = entries.iter().find(|e| e["kind"] == "tool").unwrap();
    assert_eq!(tool["name"], "bash");
    assert_eq!(tool["callId"], "c1");
    assert_eq!(tool["success"], true);
    // The row the live turn drew: its summary, not the raw output.
    assert_eq!(tool["summary"], live_done["data"], "{tool}");
    assert!(tool["summary"].as_str().unwrap() != "hi", "{tool}");
    assert!(tool["durationMs"].is_u64(), "{tool}");
    assert!(tool.get("output").is_none(), "{tool}");
    let steer = entries.iter().find(|e| e["kind"] == "steer").unwrap();
    assert_eq!(steer["text"], "use tabs");
    let ends: Vec<(&str, &str)> = entries
        .iter()
        .filter(|e| e["kind"] == "end")
        .map(|e| (e["status"].as_str().unwrap(), e["text"].as_str().unwrap()))
        .collect();
    assert_eq!(ends.len(), 3, "{entries:?}");
    assert_eq!(ends[0], ("done", "ran it"));
    assert_eq!(ends[1].0, "cancelled");
    assert_eq!(ends[2], ("failed", live_error.as_str()));
    assert_eq!(
        kinds(&entries)[..5],
        ["user", "assistant", "tool", "assistant", "end"]
    );

    // Unknown sessions are not found, as with session.get.
    let err = c
        .err("session.timeline", json!({"id": "nope", "global": true}))
        .unwrap();
    assert_eq!(err["details"]["code"], "not_found");
    let info = c.ok_json("protocol.info", json!({})).unwrap();
    assert!(
        info["methods"]
            .as_array()
            .unwrap()
            .contains(&json!("session.timeline"))
    );
}

#[test]
fn a_turn_killed_with_the_daemon_reads_as_interrupted() {
    let server = ProviderServer::start().unwrap();
    let mut slow = Reply::new().chunk_delay(Duration::from_millis(200));
    for i in 0..30 {
        slow = slow.text(format!("{i} "));
    }
    server.enqueue(slow);
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let opts = StartOptions {
        config: Some(json!({
            "providers": [{"id": "tk", "kind": "openai", "baseUrl": server.base_url(), "models": [{"id": "m1"}]}]
        })),
        ..Default::default()
    };
    let mut d = DaemonProcess::spawn(crate::support::bin(), &home, &opts).unwrap();
    let mut c = d.connect().unwrap();
    let sid = c.ok("session.new", json!({"global": true})).unwrap();
    c.send(
        "chat",
        json!({"message": "long", "sessionId": sid, "global": true}),
    )
    .unwrap();
    c.wait_for("delta").unwrap();
    d.kill9().unwrap();
    let d2 = DaemonProcess::spawn(crate::support::bin(), &home, &StartOptions::default()).unwrap();
    let mut c = d2.connect().unwrap();
    let entries = timeline(&mut c, &sid);
    let last = entries.last().unwrap();
    assert_eq!(last["kind"], "end", "{entries:?}");
    assert_eq!(last["status"], "interrupted");
    assert!(
        last["text"].as_str().unwrap().contains("daemon stopped"),
        "{last}"
    );
}

#[test]
fn a_job_ending_mid_turn_is_a_notice_not_a_steer_and_not_a_user_message() {
    let server = ProviderServer::start().unwrap();
    server.enqueue(Reply::new().tool_call(
        "b1",
        "bash",
        r#"{"command":"sleep 0.3; echo bgdone","run_in_background":true}"#,
    ));
    // The job ends while this step streams; the notice enters at the next
    // boundary, together with the user's own steer.
    let mut slow = Reply::new().chunk_delay(Duration::from_millis(100));
    for i in 0..10 {
        slow = slow.text(format!("w{i} "));
    }
    server.enqueue(slow.tool_call("b2", "bash", r#"{"command":"true"}"#));
    server.enqueue(Reply::plain("all done"));
    let d = setup(&server, StartOptions::default());
    let mut c = d.connect().unwrap();
    let ws = tempfile::tempdir().unwrap();
    let path = ws.path().to_str().unwrap();
    let turn = c
        .send("chat", json!({"message": "start a job", "workspace": path}))
        .unwrap();
    c.wait_for("delta").unwrap();
    c.send(
        "agent.steer",
        json!({"message": "my own words", "requestId": turn}),
    )
    .unwrap();
    let all = c.collect(turn).unwrap();
    assert_eq!(all.last().unwrap()["event"], "done", "{all:?}");
    let steers = crate::support::turns::strings(&all, "steer", &["data"]);
    assert_eq!(steers, ["my own words"], "one steer: the user's");
    let notices = events(&all, "notice");
    assert_eq!(notices.len(), 1, "{all:?}");
    let notice = notices[0]["data"].as_str().unwrap().to_string();
    assert!(notice.contains("bg-1 finished"), "{notice}");
    let sid = all.last().unwrap()["sessionId"]
        .as_str()
        .unwrap()
        .to_string();
    // The model read it.
    let requests = server.requests();
    assert!(requests[2].raw_body.contains("bg-1 finished"));

    // A reload shows no words the user never typed.
    let detail = c
        .ok_json("session.get", json!({"id": sid, "workspace": path}))
        .unwrap();
    let users: Vec<&str> = detail["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "user")
        .map(|m| m["text"].as_str().unwrap())
        .collect();
    assert_eq!(users, ["start a job", "my own words"], "{detail}");
    // The timeline keeps it, as a notice.
    let t = c
        .ok_json("session.timeline", json!({"id": sid, "workspace": path}))
        .unwrap();
    let entries = t["entries"].as_array().unwrap();
    assert!(
        entries
            .iter()
            .any(|e| e["kind"] == "notice" && e["text"] == notice.as_str()),
        "{entries:?}"
    );
}
