//! `seekclaw mcp serve` driven by the official MCP Python SDK's client (PyPI
//! `mcp`, installed by `scripts/install-test-servers`): tools and their
//! annotations, `run_task` with progress notifications, continuation, the
//! session tools, errors a model can read, and cancellation.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use seekclaw_testkit::{ProviderServer, Reply};
use serde_json::{Value, json};

use super::{counting, workspace};
use crate::support::bin;
use crate::support::serve::home_with;

/// Runs `sdk_client.py` on `scenario` with the SDK client in `mode`
/// (`legacy`: the initialize handshake; `auto`: the SDK's default).
fn sdk(home: &Path, ws: &Path, mode: &str, scenario: &str) -> Value {
    let python = seekclaw_testkit::mcp_servers::sdk_python().unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/e2e/mcp_serve/sdk_client.py");
    let spec = json!({
        "bin": bin(), "home": home, "workspace": ws, "mode": mode, "scenario": scenario,
    });
    let mut child = Command::new(python)
        .arg(script)
        .arg(spec.to_string())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(120);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("the SDK client did not finish within 120 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "SDK client failed: {stderr}");
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("report is not JSON ({e}): {stderr}"))
}

fn text(result: &Value) -> String {
    result["content"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["text"].as_str().unwrap())
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn the_python_sdk_runs_tasks_reads_sessions_and_gets_readable_errors() {
    let server = ProviderServer::start().unwrap();
    let (_tmp, home) = home_with(&server);
    let dir = tempfile::tempdir().unwrap();
    let ws = workspace(dir.path());
    server.enqueue(Reply::new().text("Reading.").tool_call(
        "call_1",
        "read_file",
        r#"{"path":"notes.txt"}"#,
    ));
    server.enqueue(
        Reply::new()
            .chunk_delay(Duration::from_millis(5))
            .text("The word ")
            .text("is plover."),
    );
    server.enqueue(Reply::plain("second answer"));
    let r = sdk(&home, &ws, "legacy", "full");
    assert_eq!(r["protocol"], "2025-11-25", "the initialize handshake");

    let names: Vec<&str> = r["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["run_task", "session_list", "session_get", "session_search"]
    );
    let run = &r["tools"][0];
    assert_eq!(
        run["inputSchema"]["required"],
        json!(["prompt", "workspace"])
    );
    assert_eq!(run["annotations"]["readOnlyHint"], false);
    assert_eq!(run["annotations"]["destructiveHint"], true);
    assert_eq!(run["annotations"]["openWorldHint"], true);
    for t in &r["tools"].as_array().unwrap()[1..] {
        assert_eq!(t["annotations"]["readOnlyHint"], true, "{t}");
        assert!(t["outputSchema"].is_object(), "{t}");
    }

    let first = &r["first"];
    assert_eq!(first["isError"], false, "{first}");
    let sid = first["structuredContent"]["sessionId"].as_str().unwrap();
    assert_eq!(first["structuredContent"]["status"], "done");
    assert_eq!(first["structuredContent"]["answer"], "The word is plover.");
    assert_eq!(first["content"][0]["text"], "The word is plover.");
    assert!(text(first).contains(sid), "the text names the session too");

    // Progress: numbered upwards, a line per step and tool call, and the
    // answer as it streams.
    let progress = r["progress"].as_array().unwrap();
    let values: Vec<f64> = progress.iter().map(|p| p[0].as_f64().unwrap()).collect();
    assert!(values.windows(2).all(|w| w[0] < w[1]), "{values:?}");
    let messages: Vec<&str> = progress.iter().map(|p| p[2].as_str().unwrap()).collect();
    assert_eq!(messages[0], "step 1: asking tk/m1", "{messages:?}");
    for want in ["read_file: ", "read_file done: ", "step 2: ", "answering: "] {
        assert!(
            messages.iter().any(|m| m.starts_with(want)),
            "no progress {want:?} in {messages:?}"
        );
    }

    let second = &r["second"];
    assert_eq!(second["structuredContent"]["answer"], "second answer");
    assert_eq!(second["structuredContent"]["sessionId"], sid, "continued");
    let requests = server.requests();
    assert_eq!(requests.len(), 3);
    assert!(
        requests[2].raw_body.contains("plover"),
        "the continued turn saw the first one"
    );

    let listed = &r["list"]["structuredContent"]["sessions"];
    assert_eq!(listed.as_array().unwrap().len(), 1, "{listed}");
    assert_eq!(listed[0]["sessionId"], sid);
    assert_eq!(listed[0]["turns"], 2);
    assert_eq!(listed[0]["running"], false);
    let got = &r["get"]["structuredContent"];
    assert_eq!(got["session"]["sessionId"], sid);
    assert!(got["totalMessages"].as_u64().unwrap() >= 6, "{got}");
    let msgs = got["messages"].as_array().unwrap();
    assert_eq!(msgs.len(), 3, "lastMessages");
    assert_eq!(msgs[1]["role"], "user");
    assert_eq!(msgs[1]["text"], "and again");
    assert_eq!(msgs[2]["text"], "second answer");
    let hits = r["search"]["structuredContent"]["hits"].as_array().unwrap();
    assert!(!hits.is_empty() && hits.iter().all(|h| h["sessionId"] == sid));
    assert!(
        hits.iter()
            .any(|h| h["snippet"].as_str().unwrap().contains("«plover"))
    );

    let errors = &r["errors"];
    for (key, want) in [
        ("no_workspace", "missing field `workspace`"),
        ("relative", "workspace must be an absolute directory path"),
        ("missing_dir", "Workspace directory not found"),
        ("blank", "prompt is empty"),
        ("bad_mode", "unknown variant `fast`"),
        ("typo", "unknown field `session_id`"),
        ("no_session", "nope not found"),
        ("get_unknown", "Session nope not found"),
        ("search_limit", "limit must be between 1 and 500"),
        ("search_empty", "no word to search for"),
    ] {
        assert_eq!(errors[key]["isError"], true, "{key}: {}", errors[key]);
        let t = text(&errors[key]);
        assert!(t.contains(want), "{key}: {t:?} lacks {want:?}");
    }
    assert_eq!(r["unknown_tool"]["code"], -32602, "{}", r["unknown_tool"]);
    assert!(
        r["unknown_tool"]["message"]
            .as_str()
            .unwrap()
            .contains("\"dance\"")
    );
    assert_eq!(r["after"]["isError"], false, "still serving");
    assert_eq!(
        server.requests().len(),
        3,
        "no bad call reached the provider"
    );
}

#[test]
fn cancelling_a_python_sdk_call_cancels_the_turn() {
    let server = ProviderServer::start().unwrap();
    let (_tmp, home) = home_with(&server);
    let dir = tempfile::tempdir().unwrap();
    let ws = workspace(dir.path());
    // 400 words, 25 ms apart: 10 s unless cancelled.
    server.enqueue(counting(400, Duration::from_millis(25)));
    server.enqueue(Reply::plain("after cancel"));
    let r = sdk(&home, &ws, "auto", "cancel");
    assert_eq!(r["protocol"], "2026-07-28", "the SDK's default: discover");
    assert!(r.get("unexpected_result").is_none(), "{r}");
    let cancel_ms = r["cancel_ms"].as_f64().unwrap();
    assert!(
        cancel_ms < 3000.0,
        "the turn ended {cancel_ms} ms after the cancel"
    );
    let msgs = r["get"]["structuredContent"]["messages"]
        .as_array()
        .unwrap();
    assert_eq!(msgs[0]["text"], "count slowly");
    assert!(
        msgs.iter()
            .all(|m| !m["text"].as_str().unwrap().contains("w399")),
        "the stream was cut short: {msgs:?}"
    );
    let next = &r["next"]["structuredContent"];
    assert_eq!(next["status"], "done", "the session is free again: {next}");
    assert_eq!(next["answer"], "after cancel");
}
