//! Turns that call tools: round trip, verify-and-repair, cancel during a command,
//! read-only refusals, write locks.

use std::time::{Duration, Instant};

use seekclaw_testkit::{ProviderServer, Reply, StartOptions, wait_until};
use serde_json::json;

use crate::support::project_dir;
use crate::support::turns::{chat, events, setup, strings};

#[test]
fn a_tool_call_round_trip() {
    let server = ProviderServer::start().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let ws = project_dir(tmp.path(), "proj");
    std::fs::write(ws.join("notes.txt"), "alpha\nbeta\n").unwrap();
    server.enqueue(Reply::new().tool_call("call_1", "read_file", r#"{"path":"notes.txt"}"#));
    server.enqueue(Reply::plain("The file says alpha and beta."));
    let d = setup(&server, StartOptions::default());
    let mut c = d.connect().unwrap();
    let w = ws.display().to_string();
    let all = chat(
        &mut c,
        json!({"message": "What is in notes.txt?", "workspace": w}),
    );
    let start = &events(&all, "tool_start")[0];
    assert_eq!(
        (start["data"].as_str(), start["details"]["callId"].as_str()),
        (Some("read_file"), Some("call_1"))
    );
    assert_eq!(start["details"]["summary"], "path: notes.txt");
    let done = &events(&all, "tool_done")[0];
    assert_eq!(
        (
            done["details"]["callId"].as_str(),
            done["details"]["success"].as_bool()
        ),
        (Some("call_1"), Some(true))
    );
    let model_steps: Vec<u64> = events(&all, "model_start")
        .iter()
        .map(|e| e["details"]["step"].as_u64().unwrap())
        .collect();
    assert_eq!(model_steps, [1, 2]);
    assert_eq!(all.last().unwrap()["data"], "The file says alpha and beta.");
    let second = &server.requests()[1].body;
    let msgs = second["messages"].as_array().unwrap();
    let tool = msgs.iter().find(|m| m["role"] == "tool").unwrap();
    assert_eq!(tool["tool_call_id"], "call_1");
    assert!(tool["content"].as_str().unwrap().contains("alpha"));
    let sid = all[0]["sessionId"].as_str().unwrap();
    let s = c
        .ok_json("session.get", json!({"id": sid, "workspace": w}))
        .unwrap();
    let roles: Vec<&str> = s["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, ["user", "assistant", "tool", "assistant"]);
    assert_eq!(
        s["messages"][1]["toolCalls"],
        json!([{"id": "call_1", "name": "read_file"}])
    );
    assert_eq!(
        (
            s["messages"][2]["toolName"].as_str(),
            s["messages"][2]["toolSuccess"].as_bool()
        ),
        (Some("read_file"), Some(true))
    );
    assert_eq!(s["executionSteps"], 2);
}

#[test]
fn a_failed_verification_is_repaired() {
    let server = ProviderServer::start().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let ws = project_dir(tmp.path(), "fixme");
    std::fs::create_dir_all(ws.join(".seekclaw")).unwrap();
    std::fs::write(
        ws.join(".seekclaw/config.json"),
        r#"{"verifyCommand": "test -f ok.txt || (echo 'ok.txt is missing'; exit 1)"}"#,
    )
    .unwrap();
    server.enqueue(Reply::new().tool_call(
        "c1",
        "write_file",
        r#"{"path":"bad.txt","content":"x"}"#,
    ));
    server.enqueue(Reply::plain("Done, I think."));
    server.enqueue(Reply::new().tool_call(
        "c2",
        "write_file",
        r#"{"path":"ok.txt","content":"fine"}"#,
    ));
    server.enqueue(Reply::plain("Fixed."));
    let d = setup(&server, StartOptions::default());
    let mut c = d.connect().unwrap();
    let all = chat(
        &mut c,
        json!({"message": "make it pass", "workspace": ws.display().to_string()}),
    );
    let flow = strings(&all, "workflow", &["details", "kind"]);
    let verify_at = flow.iter().position(|k| k == "verify").expect("verified");
    assert_eq!(flow[verify_at + 1], "repair", "{flow:?}");
    assert_eq!(
        flow.iter().filter(|k| *k == "verify").count(),
        2,
        "{flow:?}"
    );
    assert_eq!(flow.last().map(String::as_str), Some("done"));
    assert_eq!(all.last().unwrap()["data"], "Fixed.");
    let diffs = events(&all, "file_diff");
    assert_eq!(diffs.len(), 2);
    assert_eq!(diffs[1]["data"], "ok.txt");
    assert!(
        diffs[1]["details"]["diff"]
            .as_str()
            .unwrap()
            .contains("+fine")
    );
    let third = &server.requests()[2].body;
    let repair = third["messages"]
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .find(|m| m["role"] == "user")
        .unwrap();
    assert!(
        repair["content"]
            .as_str()
            .unwrap()
            .contains("ok.txt is missing")
    );
    assert!(ws.join("ok.txt").is_file());
}

#[test]
fn cancel_stops_a_running_shell_command() {
    let server = ProviderServer::start().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let ws = project_dir(tmp.path(), "shell");
    let marker = format!(
        "sleep {}.{}",
        40 + std::process::id() % 50,
        std::process::id() % 997
    );
    server.enqueue(Reply::new().tool_call("c1", "bash", json!({"command": marker}).to_string()));
    let d = setup(&server, StartOptions::default());
    let mut c = d.connect().unwrap();
    let chat_id = c
        .send(
            "chat",
            json!({"message": "run it", "workspace": ws.display().to_string()}),
        )
        .unwrap();
    c.wait_for("tool_start").unwrap();
    let running = || {
        std::process::Command::new("pgrep")
            .args(["-f", &marker])
            .output()
            .map(|o| o.status.success())
            .unwrap_or(false)
    };
    wait_until("the command to run", Duration::from_secs(20), running);
    let t = Instant::now();
    c.send("agent.cancel", json!({})).unwrap();
    let all = c.collect(chat_id).unwrap();
    assert_eq!(all.last().unwrap()["event"], "cancelled");
    assert!(t.elapsed() < Duration::from_secs(2), "{:?}", t.elapsed());
    // Killed with its whole process group: gone at once, not in 40 s.
    wait_until(
        "the whole process group to be killed",
        Duration::from_secs(2),
        || !running(),
    );
}

#[test]
fn readonly_mode_refuses_mutating_tools() {
    let server = ProviderServer::start().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let ws = project_dir(tmp.path(), "ro");
    server.enqueue(Reply::new().tool_call(
        "c1",
        "write_file",
        r#"{"path":"x.txt","content":"no"}"#,
    ));
    server.enqueue(Reply::plain("I can't write in this mode."));
    let d = setup(
        &server,
        StartOptions {
            cwd: Some(ws.clone()),
            ..Default::default()
        },
    );
    let mut c = d.connect().unwrap();
    assert_eq!(
        c.ok("agent.mode.switch", json!({"mode": "readonly"}))
            .unwrap(),
        "readonly"
    );
    let all = chat(
        &mut c,
        json!({"message": "write x", "workspace": ws.display().to_string()}),
    );
    let done = &events(&all, "tool_done")[0];
    assert_eq!(
        (
            done["details"]["success"].as_bool(),
            done["details"]["durationMs"].as_f64()
        ),
        (Some(false), Some(0.0))
    );
    assert!(
        done["data"].as_str().unwrap().contains("not allowed"),
        "{done}"
    );
    assert!(!ws.join("x.txt").exists());
    let offered: Vec<String> = server.requests()[0].body["tools"]
        .as_array()
        .map(|t| {
            t.iter()
                .map(|x| x["function"]["name"].as_str().unwrap().to_string())
                .collect()
        })
        .unwrap_or_default();
    assert!(offered.iter().any(|n| n == "read_file"), "{offered:?}");
    assert!(
        !offered.iter().any(|n| n == "write_file" || n == "bash"),
        "{offered:?}"
    );
    let sorted = {
        let mut s = offered.clone();
        s.sort();
        s
    };
    assert_eq!(offered, sorted, "tools are sorted by name");
}

#[test]
fn write_locks_are_released_and_the_file_written() {
    let server = ProviderServer::start().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let ws = project_dir(tmp.path(), "locks");
    // The file is written, then a slow second step; `lock.list` is empty afterwards.
    server.enqueue(Reply::new().tool_call("c1", "write_file", r#"{"path":"a.txt","content":"1"}"#));
    let mut slow = Reply::new().chunk_delay(Duration::from_millis(100));
    for _ in 0..5 {
        slow = slow.text(".");
    }
    server.enqueue(slow);
    let d = setup(&server, StartOptions::default());
    let mut c = d.connect().unwrap();
    let mut other = d.connect().unwrap();
    let chat_id = c
        .send(
            "chat",
            json!({"message": "w", "workspace": ws.display().to_string()}),
        )
        .unwrap();
    let all = c.collect(chat_id).unwrap();
    assert_eq!(all.last().unwrap()["event"], "done");
    // Locks are released when the call (and at the latest the turn) ends.
    assert_eq!(other.ok_json("lock.list", json!({})).unwrap(), json!([]));
    assert_eq!(std::fs::read_to_string(ws.join("a.txt")).unwrap(), "1");
}

/// Reference §3: `file_diff` only for a write that changed content; calls
/// whose arguments do not fit report `durationMs` 0; tool nodes carry no detail.
#[test]
fn an_unchanged_write_has_no_diff_and_bad_arguments_take_no_time() {
    let server = ProviderServer::start().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let ws = project_dir(tmp.path(), "proj");
    std::fs::write(ws.join("notes.txt"), "same\n").unwrap();
    server.enqueue(
        Reply::new()
            .text("Let me rewrite it.")
            .tool_call(
                "w1",
                "write_file",
                r#"{"path":"notes.txt","content":"same\n"}"#,
            )
            .tool_call("r1", "read_file", r#"{"path":5}"#),
    );
    server.enqueue(Reply::plain("Done."));
    let d = setup(&server, StartOptions::default());
    let mut c = d.connect().unwrap();
    let w = ws.display().to_string();
    let all = chat(&mut c, json!({"message": "rewrite it", "workspace": w}));
    assert!(events(&all, "file_diff").is_empty(), "{all:?}");
    // One per call, text before them or not (the original's StatusEvent).
    let preparing = strings(&all, "status", &["data"])
        .into_iter()
        .filter(|s| s == "Preparing tool call")
        .count();
    assert_eq!(preparing, 2);
    let done = events(&all, "tool_done");
    let bad = done
        .iter()
        .find(|e| e["details"]["callId"] == "r1")
        .unwrap();
    assert_eq!(
        (
            bad["details"]["success"].as_bool(),
            bad["details"]["durationMs"].as_f64()
        ),
        (Some(false), Some(0.0))
    );
    for node in events(&all, "workflow") {
        if node["details"]["kind"] == "tool" {
            assert!(node["details"]["detail"].is_null(), "{node}");
        }
    }
    let sid = all[0]["sessionId"].as_str().unwrap();
    let s = c
        .ok_json("session.get", json!({"id": sid, "workspace": w}))
        .unwrap();
    let write = s["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["toolName"] == "write_file")
        .unwrap();
    assert!(write["toolDiff"].is_null(), "{write}");
}
