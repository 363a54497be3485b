//! A turn and the connection that started it: a closing connection cancels
//! its turns, except a detached chat's (`chat {detach: true}`) and one whose
//! session another client watches; those run to their end and are stored,
//! and `agent.cancel {sessionId}` still stops them from anywhere. A detached
//! turn's approvals wait for a returning client (`agent.approvalTimeoutSeconds`).

use std::time::{Duration, Instant};

use seekclaw_testkit::{Client, ProviderServer, Reply, StartOptions};
use serde_json::{Value, json};

use crate::support::turns::setup;

/// An answer that streams for about a second.
fn slow() -> (Reply, String) {
    let mut r = Reply::new().chunk_delay(Duration::from_millis(100));
    let mut text = String::new();
    for i in 0..10 {
        r = r.text(format!("{i} "));
        text.push_str(&format!("{i} "));
    }
    (r, text)
}

/// The session's last stored turn end (`session.timeline`), waited for.
fn stored_end(c: &mut Client, sid: &str) -> Value {
    let start = Instant::now();
    loop {
        let t = c
            .ok_json("session.timeline", json!({"id": sid, "global": true}))
            .unwrap();
        let ends: Vec<Value> = t["entries"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["kind"] == "end")
            .cloned()
            .collect();
        if let Some(end) = ends.last() {
            return end.clone();
        }
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "the turn never ended: {t}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A connection with a chat on a new global session that has begun to
/// stream; the session id.
fn streaming(c: &mut Client, extra: Value) -> String {
    let sid = c.ok("session.new", json!({"global": true})).unwrap();
    // Its own watch of the session, as the terminal UI keeps one: it does
    // not keep the turn alive.
    c.send("session.watch", json!({"id": sid, "global": true}))
        .unwrap();
    let mut params = json!({"message": "long", "sessionId": sid, "global": true});
    for (k, v) in extra.as_object().unwrap() {
        params[k] = v.clone();
    }
    c.send("chat", params).unwrap();
    c.wait_for("delta").unwrap();
    sid
}

#[test]
fn a_detached_chat_runs_to_its_end_after_its_connection_closes() {
    let server = ProviderServer::start().unwrap();
    let (reply, text) = slow();
    server.enqueue(reply);
    let d = setup(&server, StartOptions::default());
    let mut gone = d.connect().unwrap();
    let sid = streaming(&mut gone, json!({"detach": true}));
    drop(gone);
    let mut c = d.connect().unwrap();
    let end = stored_end(&mut c, &sid);
    assert_eq!(
        (end["status"].as_str(), end["text"].as_str()),
        (Some("done"), Some(text.as_str())),
        "{end}"
    );
    let s = c
        .ok_json("session.get", json!({"id": sid, "global": true}))
        .unwrap();
    assert_eq!(s["messages"][1]["text"], text.as_str(), "{s}");
}

#[test]
fn without_detach_a_closing_connection_cancels_its_turn_unless_another_client_watches() {
    let server = ProviderServer::start().unwrap();
    let d = setup(&server, StartOptions::default());

    // Nobody else watches: the turn ends with its connection (as before).
    let (reply, _) = slow();
    server.enqueue(reply);
    let mut gone = d.connect().unwrap();
    let sid = streaming(&mut gone, json!({}));
    drop(gone);
    let mut c = d.connect().unwrap();
    assert_eq!(stored_end(&mut c, &sid)["status"], "cancelled");

    // Another client watches: the turn runs on to its end, and the watcher
    // sees that end.
    let (reply, text) = slow();
    server.enqueue(reply);
    let mut a = d.connect().unwrap();
    let sid = a.ok("session.new", json!({"global": true})).unwrap();
    let mut w = d.connect().unwrap();
    let watch = w
        .send("session.watch", json!({"id": sid, "global": true}))
        .unwrap();
    a.send(
        "chat",
        json!({"message": "long", "sessionId": sid, "global": true}),
    )
    .unwrap();
    // The watcher has the turn (so its watch is registered) before `a` leaves.
    loop {
        let env = w.next_envelope().unwrap();
        if env["id"] == watch && env["event"] == "delta" {
            break;
        }
    }
    a.wait_for("delta").unwrap();
    drop(a);
    let end = loop {
        let env = w.next_envelope().unwrap();
        if env["id"] == watch && env["event"] == "turn_end" {
            break env;
        }
    };
    assert_eq!(
        (end["details"]["outcome"].as_str(), end["data"].as_str()),
        (Some("done"), Some(text.as_str())),
        "{end}"
    );
    assert_eq!(stored_end(&mut c, &sid)["status"], "done");
}

#[test]
fn agent_cancel_by_session_stops_a_turn_its_client_left_running() {
    let server = ProviderServer::start().unwrap();
    let mut long = Reply::new().chunk_delay(Duration::from_millis(100));
    for i in 0..200 {
        long = long.text(format!("{i} "));
    }
    server.enqueue(long);
    let d = setup(&server, StartOptions::default());
    let mut c = d.connect().unwrap();
    assert_eq!(
        c.ok(
            "agent.cancel",
            json!({"sessionId": "20200101-000000-abcdef"})
        )
        .unwrap(),
        "no active turn"
    );
    let mut gone = d.connect().unwrap();
    let sid = streaming(&mut gone, json!({"detach": true}));
    drop(gone);
    let cancelled = c
        .request("agent.cancel", json!({"sessionId": sid}))
        .unwrap();
    assert_eq!(
        (cancelled["data"].as_str(), cancelled["sessionId"].as_str()),
        (
            Some(format!("cancellation requested for {sid}").as_str()),
            Some(sid.as_str())
        )
    );
    assert_eq!(stored_end(&mut c, &sid)["status"], "cancelled");
}

#[test]
fn a_detached_turn_left_alone_waits_for_a_returning_client_only_as_long_as_an_approval_waits() {
    let server = ProviderServer::start().unwrap();
    server.enqueue(Reply::new().tool_call(
        "w1",
        "write_file",
        r#"{"path":"a.txt","content":"two\n"}"#,
    ));
    server.enqueue(Reply::plain("Could not write it."));
    let d = setup(
        &server,
        StartOptions {
            config: Some(
                json!({"agent": {"approvalPolicy": "on-request", "approvalTimeoutSeconds": 1}}),
            ),
            ..StartOptions::default()
        },
    );
    let mut gone = d.connect().unwrap();
    let sid = gone.ok("session.new", json!({"global": true})).unwrap();
    gone.send(
        "chat",
        json!({"message": "edit", "sessionId": sid, "global": true,
               "approvals": true, "detach": true}),
    )
    .unwrap();
    gone.wait_for("approval_request").unwrap();
    drop(gone);
    let mut c = d.connect().unwrap();
    let end = stored_end(&mut c, &sid);
    assert_eq!(
        (end["status"].as_str(), end["text"].as_str()),
        (Some("done"), Some("Could not write it.")),
        "{end}"
    );
    let body = &server.requests()[1].body;
    let tool = body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .find(|m| m["role"] == "tool")
        .unwrap();
    assert!(
        tool["content"]
            .as_str()
            .unwrap()
            .contains("Nobody approved this call within 1 s"),
        "{tool}"
    );
}
