//! A broken `config.json` never costs the user their providers (issue 26,
//! item 2): the file stays byte for byte, with or without a daemon; a file
//! that is not JSON is named with its line and column and refuses turns and
//! writes (a running daemon keeps the configuration it read before); a
//! wrongly typed field falls back alone and is reported by name.

use std::path::Path;
use std::process::{Command, Output, Stdio};

use seekclaw_testkit::{DaemonProcess, ProviderServer, Reply, StartOptions};
use serde_json::{Value, json};

use crate::support::bin;

/// A config whose only provider is the testkit server, as a user's file.
fn good_config(server: &ProviderServer) -> String {
    let config = json!({
        "activeProfile": "default",
        "providers": [{
            "id": "tk", "kind": "openai", "baseUrl": server.base_url(), "apiKey": "sk-tk",
            "models": [{"id": "m1", "contextWindow": 128000, "maxOutput": 4096}]
        }],
        "routing": {"retry": {"baseDelaySeconds": 0.01, "maxDelaySeconds": 0.05}},
        "agent": {"reasoningLevel": "medium"}
    });
    serde_json::to_string_pretty(&config).unwrap()
}

/// `text` with the comma after `"activeProfile": "default"` taken out: line 2, column 3 is wrong.
fn without_comma(text: &str) -> String {
    let broken = text.replacen(
        "\"activeProfile\": \"default\",",
        "\"activeProfile\": \"default\"",
        1,
    );
    assert_ne!(broken, text);
    broken
}

fn seekclaw(home: &Path, cwd: &Path, args: &[&str]) -> Output {
    Command::new(bin())
        .args(args)
        .env("SEEKCLAW_HOME", home)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// No `config.json.bad-*` or other stray file beside it.
fn home_files(home: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(home)
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("config.json"))
        .collect();
    names.sort();
    names
}

#[test]
fn without_a_daemon_a_broken_config_stays_and_every_command_names_line_and_column() {
    let server = ProviderServer::start().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let broken = without_comma(&good_config(&server));
    std::fs::write(home.join("config.json"), &broken).unwrap();
    let where_ = format!(
        "{}: line 3, column 3: expected comma",
        home.join("config.json").display()
    );
    for args in [
        &["provider", "list"][..],
        &["model", "list"],
        &["provider", "add", "kimi", "--api-key", "sk-new"],
        &["provider", "remove", "tk"],
        &["run", "hello"],
    ] {
        let out = seekclaw(&home, tmp.path(), args);
        let stderr = text(&out.stderr);
        assert!(
            !out.status.success(),
            "{args:?} succeeded: {}",
            text(&out.stdout)
        );
        assert!(stderr.contains(&where_), "{args:?}: {stderr}");
        assert!(
            out.stdout.is_empty() || !text(&out.stdout).contains("kimi"),
            "{args:?}"
        );
        assert_eq!(
            std::fs::read_to_string(home.join("config.json")).unwrap(),
            broken
        );
    }
    assert_eq!(home_files(&home), ["config.json"]);
    assert!(server.requests().is_empty(), "no turn ran on defaults");

    // Fixed, the user's providers are all there.
    std::fs::write(home.join("config.json"), good_config(&server)).unwrap();
    let out = seekclaw(&home, tmp.path(), &["provider", "list"]);
    assert!(out.status.success());
    assert!(
        crate::support::squeezed_lines(&text(&out.stdout))
            .iter()
            .any(|l| l.trim_start_matches("* ").starts_with("tk openai ")),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn a_daemon_does_not_start_on_a_broken_config_and_starts_once_it_is_fixed() {
    let server = ProviderServer::start().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let broken = without_comma(&good_config(&server));
    std::fs::write(home.join("config.json"), &broken).unwrap();

    // Issue 36, item 4: it says why and exits, rather than serving defaults
    // (a chat would offer to add providers it could not save).
    let out = seekclaw(&home, tmp.path(), &["daemon"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains(&format!(
            "cannot read the configuration: {}: line 3, column 3: expected comma",
            home.join("config.json").display()
        )),
        "{stderr}"
    );
    assert!(!home.join("daemon.sock").exists());
    assert_eq!(
        std::fs::read_to_string(home.join("config.json")).unwrap(),
        broken
    );
    assert_eq!(home_files(&home), ["config.json"]);
    assert!(server.requests().is_empty(), "no turn on defaults");

    // Fixed on disk, the daemon starts and runs turns.
    std::fs::write(home.join("config.json"), good_config(&server)).unwrap();
    let d = DaemonProcess::spawn(bin(), &home, &StartOptions::default()).unwrap();
    let mut c = d.connect().unwrap();
    server.enqueue(Reply::plain("hi"));
    let id = c
        .send("chat", json!({"message": "hello", "global": true}))
        .unwrap();
    let all = c.collect(id).unwrap();
    assert_eq!(all.last().unwrap()["event"], "done", "{all:?}");
}

#[test]
fn a_running_daemon_keeps_its_last_good_config_when_the_file_goes_bad() {
    let server = ProviderServer::start().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(home.join("config.json"), good_config(&server)).unwrap();
    let d = DaemonProcess::spawn(bin(), &home, &StartOptions::default()).unwrap();
    let mut c = d.connect().unwrap();
    assert_eq!(
        c.ok_json("model.list", json!({})).unwrap(),
        json!(["tk/m1"])
    );

    let broken = without_comma(&good_config(&server));
    std::fs::write(home.join("config.json"), &broken).unwrap();
    let status = c.ok_json("config.status", json!({})).unwrap();
    assert_eq!(status["usingLastGood"], true, "{status}");
    assert!(
        status["files"][0]["error"]
            .as_str()
            .unwrap()
            .contains("expected comma")
    );

    // Turns run on the configuration read before.
    server.enqueue(Reply::plain("still here"));
    let id = c
        .send("chat", json!({"message": "hello", "global": true}))
        .unwrap();
    let all = c.collect(id).unwrap();
    assert_eq!(all.last().unwrap()["event"], "done", "{all:?}");
    assert_eq!(
        c.ok_json("model.list", json!({})).unwrap(),
        json!(["tk/m1"])
    );

    // Config-writing methods are refused; nothing is written.
    for (method, params) in [
        (
            "provider.upsert",
            json!({"id": "new", "baseUrl": "http://x", "models": ["m"]}),
        ),
        ("provider.remove", json!({"id": "tk"})),
        ("routing.set", json!({"failoverEnabled": false})),
    ] {
        let refused = c.err(method, params).unwrap();
        assert_eq!(
            refused["details"]["code"], "config_invalid",
            "{method}: {refused}"
        );
        assert!(
            refused["data"]
                .as_str()
                .unwrap()
                .contains("keeps the configuration it last read")
        );
    }
    assert_eq!(
        std::fs::read_to_string(home.join("config.json")).unwrap(),
        broken
    );

    let checks = c.ok_json("doctor.run", json!({})).unwrap();
    let row = checks
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "Config File config.json")
        .unwrap()
        .clone();
    assert_eq!(
        (row["ok"].as_bool(), row["level"].as_str()),
        (Some(false), Some("fail"))
    );
    assert!(
        row["detail"]
            .as_str()
            .unwrap()
            .contains("keeps the configuration it read before"),
        "{row}"
    );

    // The CLI lists what the daemon uses and says why the file is not used.
    let out = seekclaw(&home, tmp.path(), &["provider", "list"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        crate::support::squeezed_lines(&text(&out.stdout))
            .iter()
            .any(|l| l.trim_start_matches("* ").starts_with("tk openai ")),
        "{}",
        text(&out.stdout)
    );
    assert!(
        text(&out.stderr).contains("line 3, column 3: expected comma"),
        "{}",
        text(&out.stderr)
    );
    let out = seekclaw(
        &home,
        tmp.path(),
        &["provider", "add", "kimi", "--api-key", "sk-new"],
    );
    assert!(!out.status.success());
    assert_eq!(
        std::fs::read_to_string(home.join("config.json")).unwrap(),
        broken
    );
    // The log says it once, not per read.
    let log = d.stderr();
    assert_eq!(
        log.matches("config.json is not valid JSON").count(),
        1,
        "{log}"
    );
}

#[test]
fn a_wrongly_typed_field_falls_back_alone_and_edits_keep_it_verbatim() {
    let server = ProviderServer::start().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let mut config: Value = serde_json::from_str(&good_config(&server)).unwrap();
    config["agent"]["maxSteps"] = json!("forty");
    config["agent"]["maxStep"] = json!(12);
    std::fs::write(
        home.join("config.json"),
        serde_json::to_string_pretty(&config).unwrap(),
    )
    .unwrap();
    let warning = r#"agent.maxSteps: expected a whole number (0 or more), found "forty""#;

    // Without a daemon: listed, warned once, the field kept by an edit.
    let out = seekclaw(&home, tmp.path(), &["provider", "list"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        crate::support::squeezed_lines(&text(&out.stdout))
            .iter()
            .any(|l| l.trim_start_matches("* ").starts_with("tk openai ")),
        "{}",
        text(&out.stdout)
    );
    let stderr = text(&out.stderr);
    assert_eq!(stderr.matches(warning).count(), 1, "{stderr}");
    assert!(stderr.contains("agent.maxStep: unknown field"), "{stderr}");
    let out = seekclaw(
        &home,
        tmp.path(),
        &[
            "provider",
            "add",
            "other",
            "--base-url",
            "http://127.0.0.1:9/v1",
            "--model",
            "m",
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let saved: Value =
        serde_json::from_slice(&std::fs::read(home.join("config.json")).unwrap()).unwrap();
    assert_eq!(saved["agent"]["maxSteps"], "forty");
    assert_eq!(saved["agent"]["maxStep"], 12);
    assert_eq!(saved["providers"][0]["id"], "tk");
    assert_eq!(saved["providers"][1]["id"], "other");

    // With a daemon: the rest of the file applies, the field is named.
    let d = DaemonProcess::spawn(bin(), &home, &StartOptions::default()).unwrap();
    let mut c = d.connect().unwrap();
    let id = c.ok("session.new", json!({"global": true})).unwrap();
    let got = c
        .ok_json("session.get", json!({"id": id, "global": true}))
        .unwrap();
    assert_eq!(got["reasoningLevel"], "medium");
    let checks = c.ok_json("doctor.run", json!({})).unwrap();
    let row = checks
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "Config File config.json")
        .unwrap()
        .clone();
    assert_eq!(row["level"], "warn");
    assert!(row["detail"].as_str().unwrap().contains(warning), "{row}");
    assert!(
        d.stderr()
            .contains("expected a whole number (0 or more), found \"forty\""),
        "{}",
        d.stderr()
    );
    c.ok("provider.remove", json!({"id": "other"})).unwrap();
    let saved: Value =
        serde_json::from_slice(&std::fs::read(home.join("config.json")).unwrap()).unwrap();
    assert_eq!(saved["agent"]["maxSteps"], "forty");
    assert_eq!(saved["providers"].as_array().unwrap().len(), 1);
    server.enqueue(Reply::plain("hi"));
    let id = c
        .send("chat", json!({"message": "hello", "global": true}))
        .unwrap();
    let all = c.collect(id).unwrap();
    assert_eq!(all.last().unwrap()["event"], "done", "{all:?}");
}
