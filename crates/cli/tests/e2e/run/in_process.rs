//! `seekclaw run`: a turn in process (no daemon), MCP tools, Ctrl-C, and
//! the workspace it runs in.

use std::process::Command;

use serde_json::Value;

use crate::support::bin;

fn seekclaw(home: &std::path::Path, args: &[&str]) -> std::process::Output {
    Command::new(bin())
        .args(args)
        .env("SEEKCLAW_HOME", home)
        .env("DEEPSEEK_API_KEY", "sk-from-env-must-be-ignored")
        .output()
        .unwrap()
}

/// A home whose only provider is the testkit `server` (model `tk/m1`).
fn home_with_testkit(
    server: &seekclaw_testkit::ProviderServer,
) -> (tempfile::TempDir, std::path::PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let config = serde_json::json!({"providers": [{"id": "tk", "kind": "openai", "baseUrl": server.base_url(), "models": [{"id": "m1"}]}]});
    std::fs::write(home.join("config.json"), config.to_string()).unwrap();
    (tmp, home)
}

#[test]
fn run_executes_a_turn_in_process() {
    use seekclaw_testkit::{ProviderServer, Reply};
    let server = ProviderServer::start().unwrap();
    let (_tmp, home) = home_with_testkit(&server);
    server.enqueue(Reply::new().text("Hello ").text("there"));
    let out = seekclaw(&home, &["run", "greet me", "--global"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "Hello there");

    server.enqueue(Reply::plain("json mode"));
    let out = seekclaw(&home, &["run", "again", "--global", "--json"]);
    assert!(out.status.success());
    let lines: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.first().unwrap()["event"], "workflow");
    assert_eq!(
        (
            lines.last().unwrap()["event"].as_str(),
            lines.last().unwrap()["data"].as_str()
        ),
        (Some("done"), Some("json mode"))
    );

    server.enqueue(Reply::http_error(
        400,
        serde_json::json!({"error": {"message": "bad request body"}}),
        None,
    ));
    let out = seekclaw(&home, &["run", "fail", "--global"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("tk returned HTTP 400: bad request body")
    );
}

/// `seekclaw run` uses the same MCP servers as the daemon, and ends them with the run.
#[test]
fn run_calls_mcp_tools_in_process() {
    use seekclaw_testkit::mcp_servers;
    use seekclaw_testkit::{ProviderServer, Reply};
    let server = ProviderServer::start().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let config = serde_json::json!({
        "providers": [{"id": "tk", "kind": "openai", "baseUrl": server.base_url(), "models": [{"id": "m1"}]}],
        "mcp": {"servers": {"fx": mcp_servers::fixture_stdio().unwrap().config()}}
    });
    std::fs::write(home.join("config.json"), config.to_string()).unwrap();
    server.enqueue(Reply::new().tool_call("m1", "mcp__fx__whoami", "{}"));
    server.enqueue(Reply::plain("finished"));
    let out = seekclaw(&home, &["run", "who are you", "--global"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "finished");
    let second = &server.requests()[1].body;
    let tool = second["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "tool")
        .unwrap();
    let text = tool["content"].as_str().unwrap();
    let pid: u32 = text.split_whitespace().next().unwrap().parse().unwrap();
    // Global scope: the server ran in the global scratch directory.
    assert!(text.ends_with("/global"), "{text}");
    assert!(
        !seekclaw_testkit::process_alive(pid),
        "the MCP server outlived `seekclaw run`"
    );
}

/// Ctrl-C during `seekclaw run` cancels the turn: exit 130, a `cancelled`
/// terminal with the text so far, and that text kept in the session's log.
#[test]
fn ctrl_c_cancels_a_run_and_keeps_its_partial_answer() {
    use seekclaw_testkit::{ProviderServer, Reply};
    use std::io::BufRead;
    use std::time::Duration;
    let server = ProviderServer::start().unwrap();
    let (_tmp, home) = home_with_testkit(&server);
    let mut slow = Reply::new().chunk_delay(Duration::from_millis(100));
    for i in 0..100 {
        slow = slow.text(format!("w{i} "));
    }
    server.enqueue(slow);
    let mut child = Command::new(crate::support::bin())
        .args(["run", "count slowly", "--global", "--json"])
        .env("SEEKCLAW_HOME", &home)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let (tx, rx) = std::sync::mpsc::channel::<Value>();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if tx.send(serde_json::from_str(&line).unwrap()).is_err() {
                break;
            }
        }
    });
    let next = || rx.recv_timeout(Duration::from_secs(20)).unwrap();
    let mut envelope = next();
    while envelope["event"] != "delta" {
        envelope = next();
    }
    let session = envelope["sessionId"].as_str().unwrap().to_string();
    // Two deltas in: the turn is streaming and Ctrl-C is handled.
    while envelope["data"] != "w1 " {
        envelope = next();
    }
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGINT) }, 0);
    let mut streamed = String::new();
    let terminal = loop {
        let envelope = next();
        match envelope["event"].as_str() {
            Some("delta") => streamed.push_str(envelope["data"].as_str().unwrap()),
            Some("cancelled" | "done" | "error") => break envelope,
            _ => {}
        }
    };
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130), "exit after Ctrl-C");
    assert_eq!(terminal["event"], "cancelled", "{terminal}");
    let partial = terminal["data"].as_str().unwrap();
    assert!(partial.starts_with("w0 w1 "), "{partial}");
    assert!(partial.len() < 500, "the stream was cut: {partial}");

    // The next turn of the session is sent the partial answer as history.
    server.enqueue(Reply::plain("resumed"));
    let out = seekclaw(&home, &["run", "go on", "--global", "--session", &session]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "resumed");
    let last = server.requests().last().unwrap().raw_body.clone();
    assert!(
        last.contains(partial.trim_end()),
        "history lacks the partial answer: {last}"
    );
}

/// `seekclaw run --workspace DIR` works in that folder (its tools read there);
/// a missing folder or an unknown `--session` is an error with exit code 1.
#[test]
fn run_works_in_the_given_workspace_and_rejects_bad_targets() {
    use seekclaw_testkit::{ProviderServer, Reply};
    let server = ProviderServer::start().unwrap();
    let (tmp, home) = home_with_testkit(&server);
    let ws = tmp.path().join("project");
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::write(ws.join("notes.txt"), "the secret word is heliotrope\n").unwrap();
    server.enqueue(Reply::new().tool_call("call_1", "read_file", r#"{"path":"notes.txt"}"#));
    server.enqueue(Reply::plain("It is heliotrope."));
    let ws_arg = ws.to_str().unwrap();
    let out = seekclaw(&home, &["run", "what is the word?", "--workspace", ws_arg]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        "It is heliotrope."
    );
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    assert!(
        requests[1].raw_body.contains("heliotrope"),
        "the tool read the workspace's file: {}",
        requests[1].raw_body
    );

    let missing = tmp.path().join("nowhere");
    let out = seekclaw(
        &home,
        &["run", "hi", "--workspace", missing.to_str().unwrap()],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("Workspace directory not found"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = seekclaw(
        &home,
        &["run", "hi", "--workspace", ws_arg, "--session", "nope"],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("Session nope not found"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        server.requests().len(),
        2,
        "no model request for a bad target"
    );
}

/// A background job `run` leaves running dies with the process: the log
/// says so, and the session's next turn reads it (nothing is lost silently).
#[test]
fn a_job_run_stops_at_exit_reaches_the_log_and_the_next_turn() {
    use seekclaw_testkit::{ProviderServer, Reply};
    let server = ProviderServer::start().unwrap();
    let (_tmp, home) = home_with_testkit(&server);
    server.enqueue(Reply::new().tool_call(
        "b1",
        "bash",
        r#"{"command":"exec sleep 60.0371","run_in_background":true}"#,
    ));
    server.enqueue(Reply::plain("started it"));
    let out = seekclaw(&home, &["run", "start a job", "--global", "--events"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let first: Value =
        serde_json::from_str(String::from_utf8_lossy(&out.stdout).lines().next().unwrap()).unwrap();
    let sid = first["session"].as_str().unwrap().to_string();
    let log =
        crate::support::wait_in_log(&home, &sid, &["--global"], "bg-1 was stopped unfinished");
    assert!(log.contains("exec sleep 60.0371"), "{log}");
    server.enqueue(Reply::plain("noted"));
    let out = seekclaw(
        &home,
        &["run", "and the job?", "--global", "--session", &sid],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let next = server.requests().last().unwrap().body.to_string();
    assert!(next.contains("bg-1 was stopped unfinished"), "{next}");
}
