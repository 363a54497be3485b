//! The client's `mcpServers` join the session's tools.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use seekclaw_testkit::{ProviderServer, Reply, mcp_servers};
use serde_json::{Value, json};

use crate::support::bin;
use crate::support::serve::home_with;

#[test]
fn a_clients_mcp_server_serves_the_sessions_tool_calls() {
    let server = ProviderServer::start().unwrap();
    let (_tmp, home) = home_with(&server);
    let ws = tempfile::tempdir().unwrap();
    server.enqueue(Reply::new().tool_call("c1", "mcp__fx__add", r#"{"a":2,"b":40}"#));
    server.enqueue(Reply::plain("It is 42."));
    let fx = mcp_servers::fixture_stdio().unwrap();
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
    let send = |stdin: &mut std::process::ChildStdin, v: Value| writeln!(stdin, "{v}").unwrap();
    // Lines up to the answer to `id`; permission requests are allowed once.
    let mut until = |stdin: &mut std::process::ChildStdin, id: u64| -> (Value, Vec<Value>) {
        let mut seen = Vec::new();
        loop {
            let v: Value = serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap();
            if v["method"] == "session/request_permission" {
                let answer = json!({"jsonrpc": "2.0", "id": v["id"], "result": {"outcome": {"outcome": "selected", "optionId": "allow_once"}}});
                send(stdin, answer);
            } else if v["id"] == id && v.get("method").is_none() {
                return (v, seen);
            }
            seen.push(v);
        }
    };
    send(
        &mut stdin,
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}}),
    );
    let (init, _) = until(&mut stdin, 1);
    assert_eq!(
        init["result"]["agentCapabilities"]["mcpCapabilities"]["http"],
        true
    );
    let stdio = json!({"name": "fx", "command": fx.command, "args": fx.args, "env": []});
    send(
        &mut stdin,
        json!({"jsonrpc": "2.0", "id": 2, "method": "session/new", "params": {"cwd": ws.path(), "mcpServers": [stdio]}}),
    );
    let (created, _) = until(&mut stdin, 2);
    let sid = created["result"]["sessionId"].as_str().unwrap().to_string();
    send(
        &mut stdin,
        json!({"jsonrpc": "2.0", "id": 3, "method": "session/prompt", "params": {"sessionId": sid, "prompt": [{"type": "text", "text": "add 2 and 40"}]}}),
    );
    let (done, updates) = until(&mut stdin, 3);
    assert_eq!(done["result"]["stopReason"], "end_turn", "{done}");
    let update = |kind: &str| -> Vec<&Value> {
        updates
            .iter()
            .map(|u| &u["params"]["update"])
            .filter(|u| u["sessionUpdate"] == kind)
            .collect()
    };
    assert_eq!(
        update("tool_call")[0]["title"],
        "mcp__fx__add (a: 2, b: 40)"
    );
    let result = update("tool_call_update")[0];
    assert_eq!(result["status"], "completed", "{result}");
    assert!(
        result["content"][0]["content"]["text"]
            .as_str()
            .unwrap()
            .contains("42")
    );
    let first = &server.requests()[0].raw_body;
    assert!(
        first.contains("mcp__fx__add"),
        "the tool was offered: {first}"
    );
    drop(stdin);
    assert_eq!(child.wait().unwrap().code(), Some(0));
}
