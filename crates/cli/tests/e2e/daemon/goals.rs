//! `goal.*`: a session's standing goal over the daemon protocol — markers in
//! the log, the `goal` tool in turns, `auto` continuation, broadcasts.

use std::time::Duration;

use seekclaw_testkit::{ProviderServer, Reply, StartOptions};
use serde_json::json;

use crate::support::turns::{chat, events, setup};

#[test]
fn goals_are_set_reported_by_the_model_and_continued_automatically() {
    let server = ProviderServer::start().unwrap();
    let d = setup(&server, StartOptions::default());
    let mut c = d.connect().unwrap();
    let mut watcher = d.connect().unwrap();
    server.enqueue(Reply::plain("hello"));
    let first = chat(&mut c, json!({"message": "hi", "global": true}));
    let sid = first.last().unwrap()["sessionId"]
        .as_str()
        .unwrap()
        .to_string();

    let err = c
        .err("goal.set", json!({"id": sid, "global": true, "text": "  "}))
        .unwrap();
    assert_eq!(err["details"]["param"], "text", "{err}");
    let err = c
        .err("goal.get", json!({"id": "nope", "global": true}))
        .unwrap();
    assert_eq!(err["details"]["code"], "not_found", "{err}");
    let none = c
        .ok_json("goal.get", json!({"id": sid, "global": true}))
        .unwrap();
    assert!(none["goal"].is_null() && none["auto"] == false, "{none}");

    let set = c
        .ok_json(
            "goal.set",
            json!({"id": sid, "global": true, "text": "ship it", "auto": true}),
        )
        .unwrap();
    assert_eq!(set["goal"], "ship it");
    assert_eq!(
        (set["auto"].as_bool(), set["autoTurnsLeft"].as_u64()),
        (Some(true), Some(20))
    );
    let broadcast = watcher.wait_for("goal_updated").unwrap();
    assert_eq!(broadcast["id"], 0);
    assert_eq!(broadcast["data"], "ship it");
    assert_eq!(broadcast["details"]["status"], "set");
    assert_eq!(broadcast["details"]["sessionId"], sid.as_str());

    // The client's turn is reminded of the goal and reports progress; after
    // it ends `done` the daemon continues on its own, and the continuation
    // reports the goal met, which ends the continuations.
    server.enqueue(Reply::new().tool_call(
        "g1",
        "goal",
        r#"{"status":"continuing","remaining":"the release notes"}"#,
    ));
    server.enqueue(Reply::plain("working on it"));
    server.enqueue(Reply::new().tool_call("g2", "goal", r#"{"status":"met"}"#));
    server.enqueue(Reply::plain("shipped"));
    let turn = chat(
        &mut c,
        json!({"message": "work", "sessionId": sid, "global": true}),
    );
    assert_eq!(turn.last().unwrap()["event"], "done", "{turn:?}");
    let reminder = events(&turn, "reminder");
    assert_eq!(reminder[0]["details"]["kind"], "goal", "{turn:?}");
    assert!(reminder[0]["data"].as_str().unwrap().contains("ship it"));
    let cont = watcher.wait_for("goal_updated").unwrap();
    assert_eq!(cont["details"]["status"], "continue", "{cont}");
    server.wait_requests(5, Duration::from_secs(20)).unwrap();
    let requests = server.requests();
    assert!(
        requests[3]
            .body
            .to_string()
            .contains("Continue working toward the standing goal")
    );
    // The continuation ends; the goal is met and cleared.
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    let view = loop {
        let v = c
            .ok_json("goal.get", json!({"id": sid, "global": true}))
            .unwrap();
        if v["goal"].is_null() || std::time::Instant::now() > deadline {
            break v;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(view["goal"].is_null(), "{view}");
    assert_eq!(view["auto"], false);
    // A quiet window, not an ordering: that no continuation starts can only
    // be seen over time.
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(server.requests().len(), 5, "a met goal is not continued");
    let detail = c
        .ok_json("session.get", json!({"id": sid, "global": true}))
        .unwrap();
    let texts: Vec<&str> = detail["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["text"].as_str())
        .collect();
    assert!(texts.contains(&"[goal]\nship it"), "{texts:?}");
    assert!(texts.contains(&"[goal cleared]"), "{texts:?}");

    // Clearing with no goal is fine; set without auto does not continue.
    c.ok_json(
        "goal.set",
        json!({"id": sid, "global": true, "text": "later"}),
    )
    .unwrap();
    let cleared = c
        .ok_json("goal.clear", json!({"id": sid, "global": true}))
        .unwrap();
    assert!(cleared["goal"].is_null());
    let info = c.ok_json("protocol.info", json!({})).unwrap();
    for m in ["goal.get", "goal.set", "goal.clear", "session.compact"] {
        assert!(
            info["methods"].as_array().unwrap().iter().any(|x| x == m),
            "{m}"
        );
    }
    assert!(
        info["capabilities"]
            .as_array()
            .unwrap()
            .iter()
            .any(|x| x == "goal")
    );
}
