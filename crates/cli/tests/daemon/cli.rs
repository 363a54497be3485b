use std::process::Command;

use serde_json::Value;

use crate::bin;

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
fn provider_and_model_commands_edit_config_json() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let out = seekclaw(
        &home,
        &["provider", "add", "deepseek", "--api-key", "sk-cli-123"],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let config: Value =
        serde_json::from_slice(&std::fs::read(home.join("config.json")).unwrap()).unwrap();
    let p = &config["providers"][0];
    assert_eq!(
        (
            p["id"].as_str(),
            p["baseUrl"].as_str(),
            p["apiKey"].as_str()
        ),
        (
            Some("deepseek"),
            Some("https://api.deepseek.com"),
            Some("sk-cli-123")
        )
    );
    let models: Vec<&str> = p["models"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_str().unwrap())
        .collect();
    assert_eq!(models, ["deepseek-chat", "deepseek-reasoner"]);
    assert_eq!(p["models"][1]["capabilities"]["thinking"], true);
    assert!(p["models"][0]["inputPricePerMTok"].as_f64().unwrap() > 0.0);
    assert_eq!(config["profiles"]["default"]["provider"], "deepseek");

    // Re-adding without a key keeps the stored one; a second preset joins.
    assert!(
        seekclaw(&home, &["provider", "add", "deepseek"])
            .status
            .success()
    );
    assert!(
        seekclaw(
            &home,
            &["provider", "add", "anthropic", "--api-key", "sk-ant"]
        )
        .status
        .success()
    );
    let list = seekclaw(&home, &["provider", "list"]);
    let text = String::from_utf8_lossy(&list.stdout);
    let rows = crate::squeezed_lines(&text);
    assert!(
        rows.iter().any(|l| l.trim_start_matches("* ") == "deepseek openai https://api.deepseek.com enabled key set deepseek-chat, deepseek-reasoner"),
        "{text}"
    );
    assert!(
        rows.iter().any(|l| l
            .trim_start_matches("* ")
            .starts_with("anthropic anthropic ")),
        "{text}"
    );
    assert!(
        !text.contains("sk-cli-123") && !text.contains("sk-ant"),
        "keys are never printed"
    );
    let models = String::from_utf8_lossy(&seekclaw(&home, &["model", "list"]).stdout).to_string();
    let rows = crate::squeezed_lines(&models);
    assert!(
        rows.iter().any(|l| l
            .trim_start_matches("* ")
            .starts_with("deepseek/deepseek-chat 128k ")),
        "{models}"
    );
    assert!(
        rows.iter().any(|l| l
            .trim_start_matches("* ")
            .starts_with("anthropic/claude-sonnet-4-5 ")),
        "{models}"
    );
    assert_eq!(
        rows.iter().filter(|l| l.starts_with("* ")).count(),
        1,
        "{models}"
    );
    // The default for new sessions is an explicit choice.
    let used = seekclaw(&home, &["model", "use", "deepseek/deepseek-reasoner"]);
    assert!(
        used.status.success(),
        "{}",
        String::from_utf8_lossy(&used.stderr)
    );
    let models = String::from_utf8_lossy(&seekclaw(&home, &["model", "list"]).stdout).to_string();
    assert!(
        crate::squeezed_lines(&models)
            .iter()
            .any(|l| l.starts_with("* deepseek/deepseek-reasoner ")),
        "{models}"
    );
    let typo = seekclaw(&home, &["model", "use", "anthropic/claude-sonet"]);
    assert!(!typo.status.success());
    let err = String::from_utf8_lossy(&typo.stderr);
    assert!(
        err.contains("Unknown model anthropic/claude-sonet; configured: ")
            && err.contains("anthropic/claude-sonnet-4-5"),
        "{err}"
    );

    let custom = seekclaw(
        &home,
        &[
            "provider",
            "add",
            "local",
            "--base-url",
            "http://127.0.0.1:9/v1",
            "--model",
            "m",
        ],
    );
    assert!(custom.status.success());
    let bad = seekclaw(&home, &["provider", "add", "nosuchpreset"]);
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("unknown preset"));
    assert!(
        seekclaw(&home, &["provider", "remove", "local"])
            .status
            .success()
    );
    assert!(
        !seekclaw(&home, &["provider", "remove", "local"])
            .status
            .success()
    );
    // An unreachable provider fails its probe with a non-zero exit.
    assert!(
        seekclaw(
            &home,
            &[
                "provider",
                "add",
                "dead",
                "--base-url",
                "http://127.0.0.1:9",
                "--model",
                "x"
            ]
        )
        .status
        .success()
    );
    let test = seekclaw(&home, &["provider", "test", "dead"]);
    assert!(!test.status.success());
    assert!(String::from_utf8_lossy(&test.stdout).starts_with("[FAIL] dead:"));
    let config: Value =
        serde_json::from_slice(&std::fs::read(home.join("config.json")).unwrap()).unwrap();
    assert!(
        !config.to_string().contains("sk-from-env"),
        "no key is taken from the environment"
    );
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
    let mut child = Command::new(crate::bin())
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

#[test]
fn protocol_schema_prints_the_whole_table() {
    let tmp = tempfile::tempdir().unwrap();
    let out = seekclaw(tmp.path(), &["protocol", "schema"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        doc["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    let methods = doc["x-methods"].as_object().unwrap();
    for name in [
        "ping",
        "chat",
        "session.get",
        "session.truncate",
        "schedule.run",
    ] {
        assert!(methods.contains_key(name), "{name}");
    }
    assert_eq!(
        methods["session.list"]["reply"]["data"]["contentMediaType"],
        "application/json"
    );
    assert!(doc["x-events"]["schedule.updated"]["details"].is_object());
}

/// The harness's check is on (the `schema-check` feature): what the daemon
/// would never send is rejected.
#[test]
fn the_harness_rejects_envelopes_off_the_schema() {
    use seekclaw_testkit::check_envelope;
    let ok = r#"{"id":1,"event":"result","data":"[]"}"#;
    check_envelope(ok, Some("session.list")).unwrap();
    let mode = r#"{"id":1,"event":"result","data":"edit","details":{"mode":"edit","approvalPolicy":"never","sandbox":"off"}}"#;
    check_envelope(mode, Some("agent.mode.get")).unwrap();
    for (line, method) in [
        (
            r#"{"id":1,"event":"result","data":"{}"}"#,
            Some("session.list"),
        ),
        (
            r#"{"id":1,"event":"result","data":"x"}"#,
            Some("agent.mode.get"),
        ),
        (r#"{"id":1,"event":"done","data":""}"#, Some("ping")),
        (
            r#"{"id":1,"event":"result","data":"ok","details":{}}"#,
            Some("schedule.delete"),
        ),
        (
            r#"{"id":1,"event":"result","data":"edit"}"#,
            Some("agent.mode.get"),
        ),
        (
            r#"{"id":1,"event":"result","data":"edit","details":{"mode":"edit"}}"#,
            Some("agent.mode.get"),
        ),
        (r#"{"id":0,"event":"thinking","data":"x"}"#, None),
    ] {
        assert!(check_envelope(line, method).is_err(), "{line}");
    }
}

/// `seekclaw mcp`: every server of the merged configuration is connected in
/// process, its tools listed under the names turns use; a server that fails
/// is reported with its cause and the exit code says so.
#[test]
fn mcp_check_connects_lists_tools_and_reports_failures() {
    use seekclaw_testkit::mcp_servers;
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let ws = crate::project_dir(tmp.path(), "proj");
    let config = serde_json::json!({
        "mcp": {"servers": {"fx": mcp_servers::fixture_stdio().unwrap().config()}}
    });
    std::fs::write(home.join("config.json"), config.to_string()).unwrap();
    let ws_arg = ws.display().to_string();
    let out = seekclaw(&home, &["mcp", "list", "--workspace", &ws_arg]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{text} {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("fx (global, stdio"), "{text}");
    assert!(text.contains("connected,"), "{text}");
    assert!(text.contains("  mcp__fx__add\n"), "{text}");

    // A workspace server whose program does not exist.
    std::fs::create_dir_all(ws.join(".seekclaw/mcp")).unwrap();
    std::fs::write(
        ws.join(".seekclaw/mcp/servers.json"),
        serde_json::json!({"servers": {"gone": {"command": "/nonexistent/mcp-server"}}})
            .to_string(),
    )
    .unwrap();
    let out = seekclaw(&home, &["mcp", "check", "--workspace", &ws_arg]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("gone (workspace, stdio /nonexistent/mcp-server): failed: "),
        "{text}"
    );
    assert!(!text.contains("fx ("), "check lists only failures: {text}");

    let out = seekclaw(&home, &["mcp", "--json", "--workspace", &ws_arg]);
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let servers = v["servers"].as_array().unwrap();
    let fx = servers.iter().find(|s| s["name"] == "fx").unwrap();
    assert_eq!(fx["connected"], true);
    assert!(
        fx["tools"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t == "mcp__fx__whoami")
    );
    let gone = servers.iter().find(|s| s["name"] == "gone").unwrap();
    assert_eq!(gone["connected"], false);
    assert!(
        gone["error"].as_str().is_some_and(|e| !e.is_empty()),
        "{gone}"
    );

    // The global configuration alone is healthy.
    let out = seekclaw(&home, &["mcp", "check", "--global"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("all 1 enabled MCP servers connected"));
}

#[test]
fn mcp_check_without_servers_says_so_in_one_line() {
    let tmp = tempfile::tempdir().unwrap();
    for args in [["mcp", "check", "--global"], ["mcp", "list", "--global"]] {
        let out = seekclaw(tmp.path(), &args);
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(text.lines().count(), 1, "{args:?}: {text}");
        assert!(
            text.starts_with("no MCP servers configured (add them under"),
            "{text}"
        );
    }
}

#[test]
fn a_deleted_working_directory_gets_a_clear_message() {
    let tmp = tempfile::tempdir().unwrap();
    let gone = tmp.path().join("gone");
    for args in ["run hi", "sessions list", "mcp check"] {
        std::fs::create_dir(&gone).unwrap();
        let out = Command::new("sh")
            .arg("-c")
            .arg(format!(
                "cd '{}' && rmdir '{}' && exec '{}' {args}",
                gone.display(),
                gone.display(),
                bin().display()
            ))
            .env("SEEKCLAW_HOME", tmp.path().join("home"))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{args}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("the current directory no longer exists (deleted or moved?)"),
            "{args}: {err}"
        );
    }
}

#[test]
fn a_closed_pipe_ends_a_listing_quietly() {
    use std::io::{BufRead, BufReader};
    let tmp = tempfile::tempdir().unwrap();
    let mut child = Command::new(bin())
        .args(["protocol", "schema"])
        .env("SEEKCLAW_HOME", tmp.path())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // `| head -1`: one line read, then the pipe closes.
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert_eq!(first.trim(), "{");
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.is_empty(), "a closed pipe printed: {err}");
    assert_ne!(out.status.code(), Some(101), "it panicked");
}
