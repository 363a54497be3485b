//! The socket `chat` method: streaming, cancel, steer, images, concurrency,
//! failover, a killed daemon, compaction and reasoning levels.

use std::time::{Duration, Instant};

use seekclaw_testkit::{Client, DaemonProcess, ProviderServer, Reply, StartOptions};
use serde_json::json;

use crate::support::start_with;
use crate::support::turns::{chat, events, setup, strings};

#[test]
fn a_turn_streams_events_in_order_and_is_persisted() {
    let server = ProviderServer::start().unwrap();
    server.enqueue(
        Reply::new()
            .reasoning("Let me think")
            .text("Hello ")
            .text("world")
            .usage(120, 20, 7),
    );
    let d = setup(&server, StartOptions::default());
    let mut c = d.connect().unwrap();
    let sid = c.ok("session.new", json!({"global": true})).unwrap();
    let all = chat(
        &mut c,
        json!({"message": "Say hello", "sessionId": sid, "global": true}),
    );
    let names: Vec<&str> = all.iter().map(|e| e["event"].as_str().unwrap()).collect();
    assert_eq!(names.first(), Some(&"workflow"), "{names:?}");
    assert_eq!(all[0]["details"]["kind"], "start");
    assert!(
        all.iter().all(|e| e["sessionId"] == sid.as_str()),
        "every event carries the session"
    );
    let pos = |n: &str| {
        names
            .iter()
            .position(|x| *x == n)
            .unwrap_or_else(|| panic!("{n} missing in {names:?}"))
    };
    assert!(
        pos("model_start") < pos("thinking")
            && pos("thinking") < pos("delta")
            && pos("delta") < pos("usage")
    );
    let ms = &events(&all, "model_start")[0];
    assert_eq!(
        (ms["data"].as_str(), ms["details"]["step"].as_u64()),
        (Some("tk/m1"), Some(1))
    );
    let text: String = events(&all, "delta")
        .iter()
        .map(|e| e["data"].as_str().unwrap())
        .collect();
    assert_eq!(text, "Hello world");
    let usage = &events(&all, "usage")[0]["details"];
    assert_eq!(
        (
            usage["totalInputTokens"].as_u64(),
            usage["cachedInputTokens"].as_u64(),
            usage["outputTokens"].as_u64()
        ),
        (Some(120), Some(20), Some(7))
    );
    let flow = strings(&all, "workflow", &["details", "kind"]);
    assert_eq!(flow, ["start", "think", "done"]);
    let done = all.last().unwrap();
    assert_eq!(
        (done["event"].as_str(), done["data"].as_str()),
        (Some("done"), Some("Hello world"))
    );

    let s = c
        .ok_json("session.get", json!({"id": sid, "global": true}))
        .unwrap();
    let msgs = s["messages"].as_array().unwrap();
    assert_eq!(msgs.len(), 2);
    assert_eq!(
        (msgs[0]["role"].as_str(), msgs[0]["text"].as_str()),
        (Some("user"), Some("Say hello"))
    );
    assert_eq!(
        (msgs[1]["role"].as_str(), msgs[1]["text"].as_str()),
        (Some("assistant"), Some("Hello world"))
    );
    assert_eq!(msgs[1]["thinking"], "Let me think");
    assert_eq!(msgs[1]["modelRef"], "tk/m1");
    assert_eq!(
        (s["llmRounds"].as_i64(), s["outputTokens"].as_i64()),
        (Some(1), Some(7))
    );
    assert_eq!(s["title"], "Say hello");
    let req = &server.requests()[0];
    assert_eq!(
        req.body["messages"].as_array().unwrap().last().unwrap()["content"],
        "Say hello"
    );
    assert_eq!(req.body["messages"][0]["role"], "system");
    let usage = c.ok_json("usage.get", json!({})).unwrap();
    assert_eq!(usage[0]["calls"], 1);
}

#[test]
fn cancel_mid_stream_ends_with_the_partial_text() {
    let server = ProviderServer::start().unwrap();
    let mut slow = Reply::new().chunk_delay(Duration::from_millis(150));
    for i in 0..40 {
        slow = slow.text(format!("part{i} "));
    }
    server.enqueue(slow);
    let d = setup(&server, StartOptions::default());
    let mut c = d.connect().unwrap();
    let chat_id = c
        .send("chat", json!({"message": "long answer", "global": true}))
        .unwrap();
    c.wait_for("delta").unwrap();
    let t = Instant::now();
    let cancel_id = c
        .send("agent.cancel", json!({"requestId": chat_id}))
        .unwrap();
    let cancel_result = c.collect(cancel_id).unwrap().pop();
    let terminal = c.collect(chat_id).unwrap().pop();
    assert_eq!(
        cancel_result.unwrap()["data"],
        format!("cancellation requested for {chat_id}")
    );
    let terminal = terminal.unwrap();
    assert_eq!(terminal["event"], "cancelled");
    assert!(terminal["data"].as_str().unwrap().starts_with("part0 "));
    assert!(
        t.elapsed() < Duration::from_secs(2),
        "cancel took {:?}",
        t.elapsed()
    );
    assert_eq!(c.ok("agent.cancel", json!({})).unwrap(), "no active turn");
}

#[test]
fn steer_reaches_the_next_model_request_and_busy_is_reported() {
    let server = ProviderServer::start().unwrap();
    server.enqueue(
        Reply::new()
            .chunk_delay(Duration::from_millis(100))
            .text("first ")
            .text("answer ")
            .text("slowly"),
    );
    server.enqueue(Reply::plain("Adjusted answer."));
    let d = setup(&server, StartOptions::default());
    let mut c = d.connect().unwrap();
    let sid = c.ok("session.new", json!({"global": true})).unwrap();
    let chat_id = c
        .send(
            "chat",
            json!({"message": "go", "sessionId": sid, "global": true}),
        )
        .unwrap();
    c.wait_for("model_start").unwrap();
    let mut other = d.connect().unwrap();
    let busy = other
        .err(
            "chat",
            json!({"message": "again", "sessionId": sid, "global": true}),
        )
        .unwrap();
    assert_eq!(busy["details"]["code"], "busy");
    assert!(busy["data"].as_str().unwrap().contains("agent.steer"));
    let steer = other
        .request(
            "agent.steer",
            json!({"sessionId": sid, "message": "Also mention the edge cases"}),
        )
        .unwrap();
    assert_eq!(
        (
            steer["event"].as_str(),
            steer["data"].as_str(),
            steer["sessionId"].as_str()
        ),
        (Some("result"), Some("guidance queued"), Some(sid.as_str()))
    );
    let all = c.collect(chat_id).unwrap();
    assert_eq!(
        events(&all, "steer")[0]["data"],
        "Also mention the edge cases"
    );
    assert_eq!(all.last().unwrap()["data"], "Adjusted answer.");
    let second = &server.requests()[1].body;
    let last_user = second["messages"]
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .find(|m| m["role"] == "user")
        .unwrap();
    assert_eq!(last_user["content"], "Also mention the edge cases");
    let err = c
        .err("agent.steer", json!({"sessionId": sid, "message": "late"}))
        .unwrap();
    assert_eq!(err["data"], "No active turn found for this session");
}

#[test]
fn image_rules_and_an_image_only_turn() {
    let server = ProviderServer::start().unwrap();
    server.enqueue(Reply::plain("A red pixel."));
    let d = setup(&server, StartOptions::default());
    let mut c = d.connect().unwrap();
    let png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
    let bad = c.err("chat", json!({"global": true, "images": [{"name": "x.svg", "mediaType": "image/svg+xml", "data": png}]})).unwrap();
    assert!(
        bad["data"]
            .as_str()
            .unwrap()
            .starts_with("Unsupported image type")
    );
    assert!(server.requests().is_empty(), "no turn started");
    let all = chat(
        &mut c,
        json!({"global": true, "images": [{"id": "img1", "name": "dot.png", "mediaType": "image/png", "data": png}]}),
    );
    let view = &events(&all, "image_view")[0];
    assert_eq!(
        (view["data"].as_str(), view["details"]["imageId"].as_str()),
        (Some("dot.png"), Some("img1"))
    );
    assert_eq!(
        events(&all, "model_start")[0]["data"],
        "tk/eyes",
        "vision routing"
    );
    assert_eq!(all.last().unwrap()["event"], "done");
    let req = &server.requests()[0].body;
    assert_eq!(req["stream"], false);
    let parts = req["messages"].as_array().unwrap().last().unwrap()["content"]
        .as_array()
        .unwrap()
        .clone();
    assert!(parts.iter().any(|p| {
        p["image_url"]["url"]
            .as_str()
            .unwrap_or("")
            .starts_with("data:image/png;base64,")
    }));
    let sid = all[0]["sessionId"].as_str().unwrap();
    let s = c
        .ok_json("session.get", json!({"id": sid, "global": true}))
        .unwrap();
    assert_eq!(s["messages"][0]["images"][0]["data"], png);
    assert_eq!(s["messages"][1]["viewedImages"][0]["id"], "img1");
}

#[test]
fn two_sessions_run_concurrently_and_a_disconnect_cancels() {
    let server = ProviderServer::start().unwrap();
    let slow = || {
        let mut r = Reply::new().chunk_delay(Duration::from_millis(100));
        for i in 0..8 {
            r = r.text(format!("{i}"));
        }
        r
    };
    server.set_default(slow());
    let d = setup(&server, StartOptions::default());
    let mut c = d.connect().unwrap();
    let a = c.ok("session.new", json!({"global": true})).unwrap();
    let b = c.ok("session.new", json!({"global": true})).unwrap();
    let t = Instant::now();
    let ia = c
        .send(
            "chat",
            json!({"message": "a", "sessionId": a, "global": true}),
        )
        .unwrap();
    let ib = c
        .send(
            "chat",
            json!({"message": "b", "sessionId": b, "global": true}),
        )
        .unwrap();
    let ra = c.collect(ia).unwrap();
    let rb = c.collect(ib).unwrap();
    assert_eq!(ra.last().unwrap()["data"], "01234567");
    assert_eq!(rb.last().unwrap()["sessionId"], b.as_str());
    assert!(
        t.elapsed() < Duration::from_millis(1600),
        "ran one after the other: {:?}",
        t.elapsed()
    );

    // A client that disconnects mid-turn cancels it; the session is free again.
    let mut gone = d.connect().unwrap();
    let _ = gone
        .send(
            "chat",
            json!({"message": "bye", "sessionId": a, "global": true}),
        )
        .unwrap();
    gone.wait_for("delta").unwrap();
    drop(gone);
    let deadline = Instant::now() + Duration::from_secs(5);
    server.set_default(Reply::plain("fine"));
    loop {
        let env = c
            .request(
                "chat",
                json!({"message": "again", "sessionId": a, "global": true}),
            )
            .unwrap();
        if env["event"] == "done" {
            break;
        }
        assert_eq!(env["details"]["code"], "busy");
        assert!(
            Instant::now() < deadline,
            "the disconnected turn never ended"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn provider_failure_and_failover_surface_as_reference() {
    let server = ProviderServer::start().unwrap();
    let d = setup(&server, StartOptions::default());
    let mut c = d.connect().unwrap();
    server.enqueue(Reply::http_error(
        401,
        json!({"error": {"message": "Invalid API key supplied"}}),
        None,
    ));
    let all = chat(&mut c, json!({"message": "x", "global": true}));
    let last = all.last().unwrap();
    assert_eq!(
        (last["event"].as_str(), last["data"].as_str()),
        (
            Some("error"),
            Some("tk returned HTTP 401: Invalid API key supplied")
        )
    );
    assert_eq!(events(&all, "error").len(), 1, "no early error event");
    let flow = strings(&all, "workflow", &["details", "kind"]);
    assert_eq!(flow.last().map(String::as_str), Some("error"), "{flow:?}");

    let backup = ProviderServer::start().unwrap();
    backup.enqueue(Reply::plain("rescued"));
    c.ok_json(
        "provider.upsert",
        json!({"id": "zz", "baseUrl": backup.base_url(), "models": ["b1"], "priority": 5}),
    )
    .unwrap();
    server.set_default(Reply::http_error(
        503,
        json!({"error": {"message": "overloaded"}}),
        None,
    ));
    let all = chat(&mut c, json!({"message": "y", "global": true}));
    let starts = strings(&all, "model_start", &["data"]);
    assert_eq!(starts.first().map(String::as_str), Some("tk/m1"));
    assert_eq!(starts.last().map(String::as_str), Some("zz/b1"));
    assert_eq!(all.last().unwrap()["data"], "rescued");
}

#[test]
fn kill_9_mid_turn_leaves_an_interrupted_turn_and_a_usable_session() {
    let server = ProviderServer::start().unwrap();
    let mut slow = Reply::new().chunk_delay(Duration::from_millis(200));
    for i in 0..30 {
        slow = slow.text(format!("{i} "));
    }
    server.enqueue(slow);
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let config = json!({
        "providers": [{"id": "tk", "kind": "openai", "baseUrl": server.base_url(), "models": [{"id": "m1"}]}]
    });
    let opts = StartOptions {
        config: Some(config),
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
    let db = rusqlite::Connection::open(home.join("seekclaw.db")).unwrap();
    let terminal: String = db
        .query_row(
            "SELECT payload FROM session_events WHERE kind = 'terminal' ORDER BY seq DESC LIMIT 1",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert!(terminal.contains("interrupted"), "{terminal}");
    let active: Option<String> = db
        .query_row(
            "SELECT active_turn FROM sessions WHERE id = ?1",
            [&sid],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(active, None);
    server.set_default(Reply::plain("back"));
    let mut c = d2.connect().unwrap();
    let env = c
        .request(
            "chat",
            json!({"message": "again", "sessionId": sid, "global": true}),
        )
        .unwrap();
    assert_eq!(env["data"], "back");
}

#[test]
fn no_provider_and_bad_params_fail_before_a_turn() {
    let d = crate::support::start();
    let mut c = d.connect().unwrap();
    let env = c
        .request("chat", json!({"message": "hi", "global": true}))
        .unwrap();
    assert_eq!(env["event"], "error");
    assert!(
        env["data"]
            .as_str()
            .unwrap()
            .starts_with("No models configured")
    );
    assert_eq!(
        c.err("chat", json!({"global": true})).unwrap()["data"],
        "params.message or params.images is required"
    );
    assert_eq!(
        c.err("chat", json!({"message": 5})).unwrap()["details"]["param"],
        "message"
    );
    // Nothing can answer: that is said before the session is looked up
    // (a session that exists is tested with a provider below).
    assert!(
        c.err(
            "chat",
            json!({"message": "x", "sessionId": "nope", "global": true})
        )
        .unwrap()["data"]
            .as_str()
            .unwrap()
            .starts_with("No models configured")
    );
    assert_eq!(
        c.err(
            "agent.runTurn",
            json!({"message": "x", "reasoningLevel": "huge"})
        )
        .unwrap()["details"]["param"],
        "reasoningLevel"
    );
    assert_eq!(
        c.err(
            "agent/runTurn",
            json!({"message": "x", "global": true, "images": "no"})
        )
        .unwrap()["details"]["param"],
        "images"
    );
}

#[test]
fn a_long_session_is_compacted_into_an_appended_summary() {
    let server = ProviderServer::start().unwrap();
    server.set_default(Reply::plain("noted. ".repeat(300)));
    let config = json!({
        "providers": [{"id": "tk", "kind": "openai", "baseUrl": server.base_url(),
                       "models": [{"id": "small", "contextWindow": 8000, "maxOutput": 1000}]}]
    });
    let d = start_with(StartOptions {
        config: Some(config),
        ..Default::default()
    });
    let mut c = d.connect().unwrap();
    let sid = c.ok("session.new", json!({"global": true})).unwrap();
    let mut compacted = None;
    for i in 0..12 {
        let all = chat(
            &mut c,
            json!({"message": format!("message {i}: {}", "lorem ipsum ".repeat(250)), "sessionId": sid, "global": true}),
        );
        assert_eq!(all.last().unwrap()["event"], "done", "{:?}", all.last());
        if all
            .iter()
            .any(|e| e["event"] == "workflow" && e["details"]["kind"] == "compact")
        {
            compacted = Some(all);
            break;
        }
    }
    let all = compacted.expect("the session was compacted");
    let statuses = strings(&all, "status", &["data"]);
    assert!(
        statuses.iter().any(|s| s == "Compacting context"),
        "{statuses:?}"
    );
    assert!(
        statuses.iter().any(|s| s == "Context compacted"),
        "{statuses:?}"
    );
    let reqs = server.requests();
    let summary_req = reqs
        .iter()
        .rev()
        .find(|r| {
            r.body.get("tools").is_none() && r.body["messages"].as_array().unwrap().len() == 2
        })
        .unwrap();
    assert!(
        summary_req.body["messages"][1]["content"]
            .as_str()
            .unwrap()
            .contains("message 0")
    );
    let last = &reqs.last().unwrap().body;
    let first_user = last["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "user")
        .unwrap();
    assert!(
        first_user["content"]
            .as_str()
            .unwrap()
            .starts_with(">>> [Context compaction]")
    );
    // The log keeps every original message; the summary is appended, not rewritten.
    let s = c
        .ok_json("session.get", json!({"id": sid, "global": true}))
        .unwrap();
    let msgs = s["messages"].as_array().unwrap();
    assert!(msgs[0]["text"].as_str().unwrap().starts_with("message 0"));
    assert!(msgs.iter().any(|m| {
        m["text"]
            .as_str()
            .unwrap_or("")
            .starts_with(">>> [Context compaction]")
    }));
}

#[test]
fn a_chats_reasoning_level_sticks_to_its_session_and_unknown_sessions_stay_unknown() {
    let server = ProviderServer::start().unwrap();
    server.set_default(Reply::plain("ok"));
    let d = setup(&server, StartOptions::default());
    let mut c = d.connect().unwrap();
    let level = |c: &mut Client, sid: &str| {
        c.ok_json("session.get", json!({"id": sid, "global": true}))
            .unwrap()["reasoningLevel"]
            .clone()
    };
    // Named session: claimed, patched and read in one go.
    let sid = c.ok("session.new", json!({"global": true})).unwrap();
    let env = c
        .request(
            "chat",
            json!({"message": "a", "sessionId": sid, "global": true, "reasoningLevel": "low"}),
        )
        .unwrap();
    assert_eq!(env["event"], "done", "{env}");
    assert_eq!(level(&mut c, &sid), "low");
    // No session named: the connection's current one gets the level.
    let env = c
        .request(
            "chat",
            json!({"message": "b", "global": true, "reasoningLevel": "xhigh"}),
        )
        .unwrap();
    assert_eq!(env["sessionId"], sid.as_str());
    assert_eq!(level(&mut c, &sid), "xhigh");
    // Both turns are in the log, in order.
    let got = c
        .ok_json("session.get", json!({"id": sid, "global": true}))
        .unwrap();
    let texts: Vec<&str> = got["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["text"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(texts, ["a", "ok", "b", "ok"]);
    // An unknown session is never left claimed.
    for _ in 0..2 {
        let err = c
            .err(
                "chat",
                json!({"message": "x", "sessionId": "nope", "global": true}),
            )
            .unwrap();
        assert_eq!(err["data"], "Session nope not found");
    }
}
