//! `seekclaw acp` line by line: JSON-RPC errors with useful messages, and a
//! connection that survives malformed lines.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use seekclaw_testkit::ProviderServer;
use serde_json::{Value, json};

use crate::support::bin;
use crate::support::serve::home_with;

#[test]
fn bad_lines_get_errors_and_the_connection_goes_on() {
    let server = ProviderServer::start().unwrap();
    let (_tmp, home) = home_with(&server);
    let ws = tempfile::tempdir().unwrap();
    let mut child = Command::new(bin())
        .arg("acp")
        .env("SEEKCLAW_HOME", &home)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let new = json!({"jsonrpc": "2.0", "id": 5, "method": "session/new", "params": {"cwd": ws.path(), "mcpServers": []}});
    let lines = [
        "this is not json".to_string(),
        "[1, 2]".to_string(),
        r#"{"jsonrpc":"2.0","id":1,"method":"session/archive","params":{}}"#.to_string(),
        r#"{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"relative/dir"}}"#.to_string(),
        r#"{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"nope","prompt":[]}}"#.to_string(),
        r#"{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"nope"}}"#.to_string(),
        r#"{"jsonrpc":"2.0","id":4,"method":"initialize","params":{"protocolVersion":7}}"#.to_string(),
        new.to_string(),
    ];
    // Not UTF-8: an error, and reading goes on.
    stdin.write_all(b"\xff\xfe bad bytes\n").unwrap();
    for line in &lines {
        writeln!(stdin, "{line}").unwrap();
    }
    drop(stdin);
    let out: Vec<Value> = BufReader::new(child.stdout.take().unwrap())
        .lines()
        .map(|l| serde_json::from_str(&l.unwrap()).unwrap())
        .collect();
    assert_eq!(
        child.wait().unwrap().code(),
        Some(0),
        "stdin EOF ends it cleanly"
    );
    assert_eq!(out[0]["error"]["code"], -32700, "{}", out[0]);
    let out = &out[1..];
    let error = |i: usize| {
        (
            out[i]["id"].clone(),
            out[i]["error"]["code"].as_i64().unwrap(),
        )
    };
    assert_eq!(error(0), (Value::Null, -32700), "{}", out[0]);
    assert_eq!(error(1), (Value::Null, -32600), "{}", out[1]);
    assert_eq!(error(2), (json!(1), -32601), "{}", out[2]);
    assert!(
        out[2]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("session/archive")
    );
    assert_eq!(error(3), (json!(2), -32602), "{}", out[3]);
    assert!(
        out[3]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("absolute")
    );
    assert_eq!(error(4), (json!(3), -32002), "{}", out[4]);
    assert!(
        out[4]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("nope")
    );
    // Whatever version the client asks, the agent answers the one it speaks.
    assert_eq!(out[5]["id"], 4);
    assert_eq!(out[5]["result"]["protocolVersion"], 1);
    assert_eq!(out[6]["id"], 5);
    let sid = out[6]["result"]["sessionId"].as_str().unwrap();
    assert_eq!(out[7]["method"], "session/update");
    assert_eq!(out[7]["params"]["sessionId"], sid);
    assert_eq!(out.len(), 8, "{out:?}");
}

/// A prompt's `stopReason` follows why the model stopped the answer the turn
/// ended on: cut at the output cap (no continuation left), refused, done.
#[test]
fn stop_reasons_follow_the_final_answer() {
    let server = ProviderServer::start().unwrap();
    let (_tmp, home) = home_with(&server);
    // No continuation of a cut answer: the cut one ends the turn.
    let config = json!({"agent": {"maxRepairAttempts": 0, "maxOutputContinuations": 0},
        "providers": [{"id": "tk", "kind": "openai", "baseUrl": server.base_url(),
        "models": [{"id": "m1", "contextWindow": 100000}]}]});
    std::fs::write(home.join("config.json"), config.to_string()).unwrap();
    let ws = tempfile::tempdir().unwrap();
    let mut child = Command::new(bin())
        .arg("acp")
        .env("SEEKCLAW_HOME", &home)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut call = |id: u64, method: &str, params: Value| -> Value {
        let line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        writeln!(stdin, "{line}").unwrap();
        loop {
            let v: Value = serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap();
            if v["id"] == id {
                return v;
            }
        }
    };
    call(1, "initialize", json!({"protocolVersion": 1}));
    let new = call(
        2,
        "session/new",
        json!({"cwd": ws.path(), "mcpServers": []}),
    );
    let sid = new["result"]["sessionId"].as_str().unwrap().to_string();
    let cases = [
        (
            seekclaw_testkit::Reply::plain("the answer was cut").finish("length"),
            "max_tokens",
        ),
        (
            seekclaw_testkit::Reply::plain("I cannot help").finish("content_filter"),
            "refusal",
        ),
        (seekclaw_testkit::Reply::plain("done"), "end_turn"),
    ];
    for (i, (reply, want)) in cases.into_iter().enumerate() {
        server.enqueue(reply);
        let prompt = json!({"sessionId": sid, "prompt": [{"type": "text", "text": "go"}]});
        let answer = call(10 + i as u64, "session/prompt", prompt);
        assert_eq!(answer["result"]["stopReason"], want, "{answer}");
    }
    let _ = child.kill();
    let _ = child.wait();
}
