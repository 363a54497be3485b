//! Steering and cancelling a running turn: requests written right behind the
//! chat, guidance left when a turn is cut short, images brought by guidance.

use std::time::Duration;

use seekclaw_testkit::{Client, ProviderServer, Reply, StartOptions};
use serde_json::{Value, json};

use crate::support::turns::{events, setup, strings};

const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

fn line(id: i64, method: &str, params: Value) -> String {
    format!(
        "{}\n",
        json!({"id": id, "method": method, "params": params})
    )
}

fn slow_reply(parts: usize) -> Reply {
    let mut r = Reply::new().chunk_delay(Duration::from_millis(100));
    for i in 0..parts {
        r = r.text(format!("part{i} "));
    }
    r
}

/// A chat on a new global session, once its first delta is in: (session, chat id).
fn streaming_chat(c: &mut Client) -> (String, i64) {
    let sid = c.ok("session.new", json!({"global": true})).unwrap();
    let chat_id = c
        .send(
            "chat",
            json!({"message": "go", "sessionId": sid, "global": true}),
        )
        .unwrap();
    c.wait_for("delta").unwrap();
    (sid, chat_id)
}

/// The answer (`event` `result` or `error`) to request `id` and the chat's envelopes.
fn answer_and_turn(c: &mut Client, id: i64, chat_id: i64) -> (Value, Vec<Value>) {
    let mut answer = None;
    let mut turn = Vec::new();
    loop {
        let env = c.next_envelope().unwrap();
        if env["id"] == id {
            answer = Some(env);
        } else if env["id"] == chat_id {
            let terminal = matches!(env["event"].as_str(), Some("done" | "cancelled" | "error"));
            turn.push(env);
            if terminal {
                break;
            }
        }
    }
    while answer.is_none() {
        let env = c.next_envelope().unwrap();
        if env["id"] == id {
            answer = Some(env);
        }
    }
    (answer.unwrap(), turn)
}

#[test]
fn a_cancel_or_steer_written_right_behind_its_chat_finds_it() {
    let server = ProviderServer::start().unwrap();
    let d = setup(&server, StartOptions::default());
    let mut c = d.connect().unwrap();
    // The spec's own example, both lines in one write, several times over.
    // (A turn cancelled this early mostly never asks the model: no queued reply.)
    server.set_default(slow_reply(30));
    for round in 0..5 {
        let sid = c.ok("session.new", json!({"global": true})).unwrap();
        let (chat_id, cancel_id) = (1000 + round * 2, 1001 + round * 2);
        let both = line(
            chat_id,
            "chat",
            json!({"message": "Fix the tests", "sessionId": sid, "global": true}),
        ) + &line(cancel_id, "agent.cancel", json!({"requestId": chat_id}));
        c.send_raw(both.as_bytes()).unwrap();
        let (answer, turn) = answer_and_turn(&mut c, cancel_id, chat_id);
        assert_eq!(
            answer["data"],
            format!("cancellation requested for {chat_id}"),
            "round {round}"
        );
        let terminal = turn.last().unwrap();
        assert_eq!(terminal["event"], "cancelled", "round {round}: {terminal}");
        assert_eq!(terminal["sessionId"], sid.as_str());
    }

    // Steers by request id and by session id (in other case) sent right
    // behind the chat both reach its model requests (the first, or the next
    // one when the first was already on its way).
    server.enqueue(Reply::plain("Noted."));
    server.enqueue(Reply::plain("Noted."));
    let sid = c.ok("session.new", json!({"global": true})).unwrap();
    let lines = line(
        50,
        "chat",
        json!({"message": "Start steering-check", "sessionId": sid, "global": true}),
    ) + &line(
        51,
        "agent.steer",
        json!({"requestId": 50, "message": "by id"}),
    ) + &line(
        52,
        "agent.steer",
        json!({"sessionId": sid.to_uppercase(), "message": "by session"}),
    );
    c.send_raw(lines.as_bytes()).unwrap();
    let mut all = Vec::new();
    let mut answers = Vec::new();
    while all.last().is_none_or(|e: &Value| e["event"] != "done") || answers.len() < 2 {
        let env = c.next_envelope().unwrap();
        if env["id"] == 50 {
            all.push(env);
        } else {
            answers.push(env);
        }
    }
    for a in &answers {
        assert_eq!(
            (a["data"].as_str(), a["sessionId"].as_str()),
            (Some("guidance queued"), Some(sid.as_str())),
            "{a}"
        );
    }
    assert_eq!(all[0]["details"]["label"], "开始任务");
    let start = all[0]["details"].as_object().unwrap();
    assert_eq!(start.get("detail"), Some(&Value::Null), "{start:?}");
    let mut steered = strings(&all, "steer", &["data"]);
    steered.sort();
    assert_eq!(steered, ["by id", "by session"]);
    // This turn's requests (a cancelled round's may be recorded late).
    let requests: Vec<String> = server
        .requests()
        .into_iter()
        .map(|r| r.raw_body)
        .filter(|b| b.contains("Start steering-check"))
        .collect();
    assert!((1..=2).contains(&requests.len()), "{}", requests.len());
    let body = requests.last().unwrap().clone();
    assert!(
        body.contains("by id") && body.contains("by session"),
        "{body}"
    );
}

#[test]
fn guidance_left_when_a_turn_is_cancelled_is_announced_and_kept() {
    let server = ProviderServer::start().unwrap();
    let mut reply = Reply::new()
        .chunk_delay(Duration::from_millis(100))
        .reasoning("pondering");
    for i in 0..40 {
        reply = reply.text(format!("part{i} "));
    }
    server.enqueue(reply);
    let d = setup(&server, StartOptions::default());
    let mut c = d.connect().unwrap();
    let (sid, chat_id) = streaming_chat(&mut c);
    assert_eq!(
        c.ok(
            "agent.steer",
            json!({"requestId": chat_id, "message": "left over"})
        )
        .unwrap(),
        "guidance queued"
    );
    // Without a request id every turn of the connection, counted (one here).
    assert_eq!(
        c.ok("agent.cancel", json!({})).unwrap(),
        "cancellation requested for 1 active turns"
    );
    let all = c.collect(chat_id).unwrap();
    let terminal = all.last().unwrap();
    assert_eq!(terminal["event"], "cancelled");
    assert_eq!(strings(&all, "steer", &["data"]), ["left over"]);
    let session = c
        .ok_json("session.get", json!({"id": sid, "global": true}))
        .unwrap();
    let messages = session["messages"].as_array().unwrap();
    let assistant = messages
        .iter()
        .find(|m| m["role"] == "assistant")
        .expect("the partial answer is kept");
    assert_eq!(assistant["text"], terminal["data"]);
    assert_eq!(assistant["modelRef"], "tk/m1", "{assistant}");
    assert!(
        messages.iter().any(|m| m["text"] == "left over"),
        "the guidance is in the transcript: {messages:?}"
    );
}

#[test]
fn guidance_with_images_moves_the_next_step_to_a_vision_model() {
    let server = ProviderServer::start().unwrap();
    server.enqueue(slow_reply(5));
    server.enqueue(Reply::plain("I see the dot."));
    let d = setup(&server, StartOptions::default());
    let mut c = d.connect().unwrap();
    let chat_id = c
        .send("chat", json!({"message": "describe", "global": true}))
        .unwrap();
    c.wait_for("delta").unwrap();
    let queued = c
        .ok(
            "agent.steer",
            json!({"requestId": chat_id, "message": "also this",
                   "images": [{"id": "dot1", "name": "dot.png", "mediaType": "image/png", "data": PNG}]}),
        )
        .unwrap();
    assert_eq!(queued, "guidance queued");
    let all = c.collect(chat_id).unwrap();
    assert_eq!(all.last().unwrap()["data"], "I see the dot.");
    assert_eq!(
        strings(&all, "model_start", &["data"]),
        ["tk/eyes"],
        "step 2 carries an image"
    );
    let view = &events(&all, "image_view")[0];
    assert_eq!(
        (view["data"].as_str(), view["details"]["imageId"].as_str()),
        (Some("dot.png"), Some("dot1"))
    );
    let requests = server.requests();
    assert_eq!(
        (
            requests[0].body["model"].as_str(),
            requests[1].body["model"].as_str()
        ),
        (Some("m1"), Some("eyes"))
    );
    assert!(requests[1].raw_body.contains(PNG), "the image is sent");
}

#[test]
fn a_turn_no_model_can_answer_is_refused_before_it_starts_and_leaves_no_session() {
    let server = ProviderServer::start().unwrap();
    let d = setup(&server, StartOptions::default());
    let mut c = d.connect().unwrap();
    // An image when no model left can see images (the vision model is removed).
    c.ok_json(
        "provider.upsert",
        json!({"id": "tk", "baseUrl": server.base_url(), "models": ["m1"]}),
    )
    .unwrap();
    let all = crate::support::turns::chat(
        &mut c,
        json!({"global": true, "images": [{"name": "dot.png", "mediaType": "image/png", "data": PNG}]}),
    );
    let last = all.last().unwrap();
    assert_eq!(last["event"], "error", "{last}");
    assert_eq!(last["details"]["code"], "no_model", "{last}");
    // Refused before the turn starts (issue 26, item 6): no flowchart, no session.
    assert_eq!(all.len(), 1, "{all:?}");
    assert!(server.requests().is_empty());
    assert_eq!(
        c.ok_json("session.list", json!({"global": true})).unwrap(),
        json!([])
    );
}

#[test]
fn a_broken_stream_keeps_its_partial_answer_and_guidance_before_the_error_node() {
    let server = ProviderServer::start().unwrap();
    let mut broken = Reply::new().chunk_delay(Duration::from_millis(100));
    for i in 0..20 {
        broken = broken.text(format!("part{i} "));
    }
    server.set_default(broken.reset_after(4));
    let d = setup(&server, StartOptions::default());
    let mut c = d.connect().unwrap();
    let (sid, chat_id) = streaming_chat(&mut c);
    c.ok(
        "agent.steer",
        json!({"requestId": chat_id, "message": "mind the tests"}),
    )
    .unwrap();
    let all = c.collect(chat_id).unwrap();
    let names: Vec<&str> = all.iter().map(|e| e["event"].as_str().unwrap()).collect();
    let n = names.len();
    assert_eq!(&names[n - 3..], ["steer", "workflow", "error"], "{names:?}");
    assert_eq!(all[n - 2]["details"]["kind"], "error");
    let session = c
        .ok_json("session.get", json!({"id": sid, "global": true}))
        .unwrap();
    let messages = session["messages"].as_array().unwrap();
    let partial = messages
        .iter()
        .find(|m| m["role"] == "assistant")
        .expect("partial kept");
    assert!(
        partial["text"].as_str().unwrap().starts_with("part0 "),
        "{partial}"
    );
    assert_eq!(partial["modelRef"], "tk/m1");
    assert!(messages.iter().any(|m| m["text"] == "mind the tests"));
}

/// A client that stops reading mid-stream holds its own turn still (the
/// engine polls a turn only when its events were taken) and loses nothing;
/// other sessions and connections go on meanwhile.
#[test]
fn a_client_that_stops_reading_holds_its_turn_and_loses_nothing() {
    let server = ProviderServer::start().unwrap();
    let d = setup(&server, StartOptions::default());
    let mut text = String::new();
    let mut reply = Reply::new();
    for i in 0..60_000 {
        let piece = format!("w{i} ");
        text.push_str(&piece);
        reply = reply.text(piece);
    }
    server.enqueue(reply);
    let mut slow = d.connect().unwrap();
    let sid = slow.ok("session.new", json!({"global": true})).unwrap();
    let chat_id = slow
        .send(
            "chat",
            json!({"message": "long", "sessionId": sid, "global": true}),
        )
        .unwrap();
    let first = slow.wait_for("delta").unwrap();
    let mut answer = first["data"].as_str().unwrap().to_string();
    // The slow client stops reading; another connection runs a whole turn.
    server.enqueue(Reply::plain("meanwhile"));
    let mut other = d.connect().unwrap();
    let other_sid = other.ok("session.new", json!({"global": true})).unwrap();
    let started = std::time::Instant::now();
    let id = other
        .send(
            "chat",
            json!({"message": "short", "sessionId": other_sid, "global": true}),
        )
        .unwrap();
    let turn = other.collect(id).unwrap();
    assert_eq!(turn.last().unwrap()["event"], "done", "{turn:?}");
    assert_eq!(turn.last().unwrap()["data"], "meanwhile");
    assert!(started.elapsed() < Duration::from_secs(10));
    // The reader stays stopped a while longer: what the test holds still.
    std::thread::sleep(Duration::from_millis(500));
    // Reading again: every delta, in order, then `done` with the whole text.
    let rest = slow.collect(chat_id).unwrap();
    for env in &rest {
        if env["event"] == "delta" {
            answer.push_str(env["data"].as_str().unwrap());
        }
    }
    let done = rest.last().unwrap();
    assert_eq!(done["event"], "done", "{done}");
    assert_eq!(done["data"].as_str().unwrap(), text);
    assert_eq!(answer, text);
}
