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
    let rows = crate::support::squeezed_lines(&text);
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
    let rows = crate::support::squeezed_lines(&models);
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
        crate::support::squeezed_lines(&models)
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
        "session.search",
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

#[test]
fn protocol_schema_serve_prints_the_openseek_protocol() {
    let tmp = tempfile::tempdir().unwrap();
    let out = seekclaw(tmp.path(), &["protocol", "schema", "--serve"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["$ref"], "#/$defs/EventLine");
    assert!(doc["$defs"]["Command"].is_object());
    assert!(doc.get("x-methods").is_none(), "not the daemon's document");
    assert_eq!(doc["x-levels"]["turn_failed"], "ERROR");
    assert_eq!(doc["x-levels"]["agent_step"], "INFO");
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
    let ws = crate::support::project_dir(tmp.path(), "proj");
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
