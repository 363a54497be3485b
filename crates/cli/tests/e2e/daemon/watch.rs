//! `session.watch`: every turn on a session, whoever started it, streams to
//! the watcher on the watch request's id until `session.unwatch`.

use std::time::Duration;

use seekclaw_testkit::{ProviderServer, Reply, StartOptions};
use serde_json::{Value, json};

use crate::support::turns::{chat, setup};

/// The watch's envelopes up to and including the `turn_end` of one turn.
fn one_turn(w: &mut seekclaw_testkit::Client, watch: i64) -> Vec<Value> {
    let mut seen = Vec::new();
    loop {
        let env = w.next_envelope().unwrap();
        if env["id"] != watch {
            continue;
        }
        let end = env["event"] == "turn_end";
        seen.push(env);
        if end {
            return seen;
        }
    }
}

#[test]
fn a_watcher_sees_other_clients_turns_and_the_daemons_own() {
    let server = ProviderServer::start().unwrap();
    let d = setup(&server, StartOptions::default());
    let mut a = d.connect().unwrap();
    let mut w = d.connect().unwrap();
    server.enqueue(Reply::plain("first"));
    let first = chat(&mut a, json!({"message": "hello", "global": true}));
    let sid = first.last().unwrap()["sessionId"]
        .as_str()
        .unwrap()
        .to_string();
    let missing = w
        .err("session.watch", json!({"id": "nope", "global": true}))
        .unwrap();
    assert_eq!(missing["details"]["code"], "not_found");

    let watch = w
        .send("session.watch", json!({"id": sid, "global": true}))
        .unwrap();
    // The one ordering sleep left: `session.watch` acknowledges nothing
    // until it ends, so nothing on the wire says it is registered yet.
    std::thread::sleep(Duration::from_millis(200));
    server.enqueue(Reply::new().text("watched ").text("answer"));
    let turn = chat(
        &mut a,
        json!({"message": "again", "sessionId": sid, "global": true}),
    );
    assert_eq!(turn.last().unwrap()["event"], "done");
    let seen = one_turn(&mut w, watch);
    let start = &seen[0];
    assert_eq!(start["event"], "turn_start", "{seen:?}");
    assert_eq!(
        (start["data"].as_str(), start["details"]["origin"].as_str()),
        (Some("again"), Some("chat"))
    );
    assert!(seen.iter().all(|e| e["sessionId"] == sid.as_str()));
    let deltas: String = seen
        .iter()
        .filter(|e| e["event"] == "delta")
        .map(|e| e["data"].as_str().unwrap())
        .collect();
    assert_eq!(deltas, "watched answer");
    let end = seen.last().unwrap();
    assert_eq!(
        (end["data"].as_str(), end["details"]["outcome"].as_str()),
        (Some("watched answer"), Some("done"))
    );

    // A turn the daemon starts itself (an `auto` goal's continuation) is seen too.
    server.enqueue(Reply::new().tool_call(
        "g1",
        "goal",
        r#"{"status":"continuing","remaining":"more"}"#,
    ));
    server.enqueue(Reply::plain("client turn"));
    server.enqueue(Reply::new().tool_call("g2", "goal", r#"{"status":"met"}"#));
    server.enqueue(Reply::plain("goal met"));
    a.ok(
        "goal.set",
        json!({"id": sid, "global": true, "text": "finish", "auto": true}),
    )
    .unwrap();
    let t = chat(
        &mut a,
        json!({"message": "work", "sessionId": sid, "global": true}),
    );
    assert_eq!(t.last().unwrap()["data"], "client turn", "{t:?}");
    let seen = one_turn(&mut w, watch);
    assert_eq!(seen[0]["details"]["origin"], "chat");
    let seen = one_turn(&mut w, watch);
    assert_eq!(seen[0]["details"]["origin"], "goal", "{seen:?}");
    assert_eq!(seen.last().unwrap()["data"], "goal met");

    let unwatched = w.ok("session.unwatch", json!({"id": sid})).unwrap();
    assert_eq!(unwatched, "1");
    let end = loop {
        let env = w.next_envelope().unwrap();
        if env["id"] == watch && env["event"] == "result" {
            break env;
        }
    };
    assert_eq!(end["data"], "unwatched");
    let info = a.ok_json("protocol.info", json!({})).unwrap();
    for m in ["session.watch", "session.unwatch"] {
        assert!(
            info["methods"].as_array().unwrap().iter().any(|x| x == m),
            "{m}"
        );
    }
}
