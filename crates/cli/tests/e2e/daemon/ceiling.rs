//! Turns bounded by the context window: at the hard ceiling no tool batch
//! starts, at the soft one the batch runs; either way the turn checkpoints (a
//! summary appended over the log) and ends `done` after `context_yield`.

use seekclaw_testkit::{ProviderServer, Reply, StartOptions};
use serde_json::{Value, json};

use crate::support::turns::{chat, events, setup};

const CEILING: &str = "[context ceiling]";

fn small_window(server: &ProviderServer) -> seekclaw_testkit::DaemonProcess {
    let d = setup(server, StartOptions::default());
    let mut c = d.connect().unwrap();
    // 10,000 tokens: soft ceiling 7,000, hard 8,000.
    c.ok(
        "provider.upsert",
        json!({"id": "tk", "kind": "openai", "baseUrl": server.base_url(), "apiKey": "sk-tk",
               "models": [{"id": "m1", "contextWindow": 10000, "maxOutput": 1000}]}),
    )
    .unwrap();
    d
}

#[test]
fn the_hard_ceiling_closes_the_batch_unrun_and_yields_with_a_checkpoint() {
    let server = ProviderServer::start().unwrap();
    let d = small_window(&server);
    let mut c = d.connect().unwrap();
    let ws = tempfile::tempdir().unwrap();
    let path = ws.path().to_str().unwrap();
    server.enqueue(
        Reply::new()
            .text("Writing it.")
            .tool_call("w1", "write_file", r#"{"path":"out.txt","content":"x"}"#)
            .usage(8500, 0, 100),
    );
    server.enqueue(Reply::plain("SUMMARY: was about to write out.txt"));
    let all = chat(
        &mut c,
        json!({"message": "write out.txt", "workspace": path}),
    );
    let done = all.last().unwrap();
    assert_eq!(done["event"], "done", "{all:?}");
    assert!(
        done["data"].as_str().unwrap().starts_with(CEILING),
        "{done}"
    );
    assert!(
        !ws.path().join("out.txt").exists(),
        "no tool ran at the hard ceiling"
    );
    let tool_done = events(&all, "tool_done");
    assert_eq!(tool_done.len(), 1);
    assert_eq!(tool_done[0]["details"]["success"], false);
    let yielded = events(&all, "context_yield");
    assert_eq!(yielded.len(), 1, "{all:?}");
    assert_eq!(yielded[0]["data"], done["data"]);
    let to_seq = yielded[0]["details"]["toSeq"].as_u64().unwrap();
    assert!(to_seq >= 3, "user, assistant, skipped result: {to_seq}");

    // The next turn starts from the checkpoint, with the closed call in it.
    let sid = done["sessionId"].as_str().unwrap();
    server.enqueue(Reply::plain("continuing"));
    let next = chat(
        &mut c,
        json!({"message": "go on", "sessionId": sid, "workspace": path}),
    );
    assert_eq!(next.last().unwrap()["data"], "continuing");
    let body = server.requests()[2].body.to_string();
    assert!(
        body.contains("SUMMARY: was about to write out.txt"),
        "{body}"
    );
    assert!(
        !body.contains(CEILING),
        "the ceiling answer is not the model's own: {body}"
    );
    assert!(
        !body.contains("Writing it."),
        "covered events are not resent: {body}"
    );
}

#[test]
fn the_soft_ceiling_runs_the_batch_then_yields() {
    let server = ProviderServer::start().unwrap();
    let d = small_window(&server);
    let mut c = d.connect().unwrap();
    let ws = tempfile::tempdir().unwrap();
    let path = ws.path().to_str().unwrap();
    server.enqueue(
        Reply::new()
            .tool_call("w1", "write_file", r#"{"path":"out.txt","content":"x"}"#)
            .usage(7200, 0, 10),
    );
    server.enqueue(Reply::plain("SUMMARY: wrote out.txt"));
    let all = chat(
        &mut c,
        json!({"message": "write out.txt", "workspace": path}),
    );
    let done = all.last().unwrap();
    assert!(
        done["data"].as_str().unwrap().starts_with(CEILING),
        "{all:?}"
    );
    assert!(
        ws.path().join("out.txt").exists(),
        "the batch ran below the hard ceiling"
    );
    assert_eq!(events(&all, "tool_done")[0]["details"]["success"], true);
    // Below the soft ceiling nothing yields.
    server.enqueue(
        Reply::new()
            .tool_call("r1", "read_file", r#"{"path":"out.txt"}"#)
            .usage(100, 0, 10),
    );
    server.enqueue(Reply::plain("read it"));
    let all: Vec<Value> = chat(&mut c, json!({"message": "read it", "workspace": path}));
    assert_eq!(all.last().unwrap()["data"], "read it");
    assert!(events(&all, "context_yield").is_empty());
    let info = c.ok_json("protocol.info", json!({})).unwrap();
    assert!(
        info["capabilities"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c == "context-yield")
    );
}

#[test]
fn a_turn_finishing_in_the_soft_band_checkpoints_for_the_next() {
    let server = ProviderServer::start().unwrap();
    let d = small_window(&server);
    let mut c = d.connect().unwrap();
    server.enqueue(Reply::new().text("the answer").usage(7500, 0, 10));
    server.enqueue(Reply::plain("SUMMARY: asked, answered"));
    let all = chat(&mut c, json!({"message": "question one", "global": true}));
    let done = all.last().unwrap();
    assert_eq!(done["data"], "the answer", "a normal answer: {all:?}");
    assert!(events(&all, "context_yield").is_empty());
    let sid = done["sessionId"].as_str().unwrap();
    server.enqueue(Reply::plain("two"));
    chat(
        &mut c,
        json!({"message": "question two", "sessionId": sid, "global": true}),
    );
    let body = server.requests()[2].body.to_string();
    assert!(body.contains("SUMMARY: asked, answered"), "{body}");
    assert!(
        body.contains("the answer"),
        "the answer follows the summary: {body}"
    );
    assert!(!body.contains("question one"), "covered: {body}");
}
