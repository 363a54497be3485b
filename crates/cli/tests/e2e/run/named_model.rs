//! What the user names is what runs (issue 26, item 4): an unknown `--model`
//! (or `chat {model}`) is an error listing the configured models; a pinned
//! model never fails over; an unpinned failover is announced on every front
//! end; an empty prompt is refused everywhere. Two providers: `myllm`
//! (priority 0, its port closed: connection refused) and `other` (the
//! testkit server).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use seekclaw_testkit::{ProviderServer, Reply, StartOptions};
use serde_json::{Value, json};

use crate::support::serve::Serve;
use crate::support::{bin, start_with};

/// A port nothing listens on (bound, then released).
fn closed_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

/// `myllm/m1` refuses connections, `other/m2` is `server`; one attempt per
/// model unless `attempts` says otherwise, with tiny backoffs.
fn two_providers(server: &ProviderServer, attempts: u32) -> Value {
    json!({
        "routing": {"retry": {"maxAttempts": attempts, "baseDelaySeconds": 0.01, "maxDelaySeconds": 0.05}},
        "providers": [
            {"id": "myllm", "kind": "openai", "baseUrl": format!("http://127.0.0.1:{}", closed_port()),
             "priority": 0, "timeoutSeconds": 5, "models": [{"id": "m1"}]},
            {"id": "other", "kind": "openai", "baseUrl": server.base_url(),
             "priority": 1, "timeoutSeconds": 5, "models": [{"id": "m2"}]}
        ]
    })
}

/// A home holding `config`.
fn home_with(config: &Value) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(home.join("config.json"), config.to_string()).unwrap();
    (tmp, home)
}

/// `seekclaw ARGS` on `home`, run from `cwd`.
fn seekclaw(home: &Path, cwd: &Path, args: &[&str]) -> Output {
    Command::new(bin())
        .args(args)
        .env("SEEKCLAW_HOME", home)
        .current_dir(cwd)
        .output()
        .unwrap()
}

/// Every scope's sessions, read through the CLI (the store directly).
fn all_sessions(home: &Path) -> Value {
    let out = seekclaw(home, home, &["sessions", "list", "--all", "--json"]);
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn an_unknown_model_is_an_error_listing_the_configured_ones_in_run_serve_and_chat() {
    let server = ProviderServer::start().unwrap();
    server.set_default(Reply::plain("the wrong model answered"));
    let (_tmp, home) = home_with(&two_providers(&server, 1));

    let out = seekclaw(&home, &home, &["run", "--global", "--model", "gtp-5", "hi"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("Unknown model \"gtp-5\""), "{stderr}");
    assert!(stderr.contains("myllm/m1, other/m2"), "{stderr}");
    assert!(out.stdout.is_empty(), "nobody answered");

    let out = seekclaw(
        &home,
        &home,
        &["run", "--global", "--events", "--model", "gtp-5", "hi"],
    );
    let first: Value =
        serde_json::from_slice(out.stdout.split(|b| *b == b'\n').next().unwrap()).unwrap();
    assert_eq!(first["event"], "agent_setup_failed", "{first}");
    assert!(first["error"].as_str().unwrap().contains("other/m2"));
    assert_eq!(out.status.code(), Some(1));

    // serve refuses at once, before reading a command.
    let serve = Serve::start(&home, &["--global", "--model", "gtp-5"]);
    let (events, code) = serve.finish();
    assert_eq!(code, Some(1));
    assert_eq!(events[0]["event"], "agent_setup_failed", "{events:?}");
    assert!(
        events[0]["error"]
            .as_str()
            .unwrap()
            .contains("Configured models: myllm/m1, other/m2")
    );

    // The socket's chat takes a model too (additive) and checks it.
    let d = start_with(StartOptions {
        config: Some(two_providers(&server, 1)),
        ..StartOptions::default()
    });
    let mut c = d.connect().unwrap();
    let err = c
        .err(
            "chat",
            json!({"message": "hi", "global": true, "model": "gtp-5"}),
        )
        .unwrap();
    assert_eq!(err["details"]["code"], "invalid_request", "{err}");
    assert_eq!(err["details"]["param"], "model", "{err}");
    assert!(err["data"].as_str().unwrap().contains("myllm/m1, other/m2"));
    // Nothing was asked, and the failed starts left no session behind.
    assert_eq!(server.requests().len(), 0);
    let sessions = c.ok_json("session.list", json!({"global": true})).unwrap();
    assert_eq!(sessions, json!([]));
    drop(c);
    drop(d);
    assert_eq!(all_sessions(&home), json!([]));
}

#[test]
fn a_pinned_model_never_fails_over_its_failure_is_the_error() {
    let server = ProviderServer::start().unwrap();
    server.set_default(Reply::plain("the other model answered"));
    let (_tmp, home) = home_with(&two_providers(&server, 2));

    let out = seekclaw(
        &home,
        &home,
        &["run", "--global", "--model", "myllm/m1", "hi"],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("myllm connection failed"), "{stderr}");
    assert!(
        stderr.contains("retrying 2/2 after a connection failure"),
        "the retry is shown: {stderr}"
    );
    assert!(!stderr.contains("answered by"), "{stderr}");
    assert!(
        !String::from_utf8_lossy(&out.stdout).contains("other model"),
        "another provider never answers a pinned model"
    );
    assert_eq!(server.requests().len(), 0);

    // The same through the socket: `chat {model}` pins it for the turn.
    let d = start_with(StartOptions {
        config: Some(two_providers(&server, 1)),
        ..StartOptions::default()
    });
    let mut c = d.connect().unwrap();
    let id = c
        .send(
            "chat",
            json!({"message": "hi", "global": true, "model": "myllm/m1"}),
        )
        .unwrap();
    let all = c.collect(id).unwrap();
    let end = all.last().unwrap();
    assert_eq!(end["event"], "error", "{all:?}");
    assert!(end["data"].as_str().unwrap().contains("myllm"), "{end}");
    assert!(all.iter().all(|e| e["event"] != "failover"), "{all:?}");
    assert_eq!(server.requests().len(), 0);
}

#[test]
fn an_unpinned_failover_is_announced_on_the_socket_run_and_events() {
    let server = ProviderServer::start().unwrap();
    server.set_default(Reply::plain("answered by m2"));
    let config = two_providers(&server, 1);

    let d = start_with(StartOptions {
        config: Some(config.clone()),
        ..StartOptions::default()
    });
    let mut c = d.connect().unwrap();
    let id = c
        .send("chat", json!({"message": "hi", "global": true}))
        .unwrap();
    let all = c.collect(id).unwrap();
    assert_eq!(all.last().unwrap()["event"], "done", "{all:?}");
    let failover = all
        .iter()
        .find(|e| e["event"] == "failover")
        .unwrap_or_else(|| panic!("no failover event in {all:?}"));
    let data = failover["data"].as_str().unwrap();
    assert!(
        data.starts_with("myllm/m1 failed: myllm connection failed"),
        "{data}"
    );
    // Nothing was chosen: priority order over every provider, the crossing said.
    assert!(
        data.ends_with(" — answered by other/m2 (another provider)"),
        "{data}"
    );
    assert_eq!(failover["details"]["failed"], "myllm/m1");
    assert_eq!(failover["details"]["to"], "other/m2");
    assert!(failover["sessionId"].is_string(), "{failover}");

    let (_tmp, home) = home_with(&config);
    let out = seekclaw(&home, &home, &["run", "--global", "hi"]);
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout), "answered by m2\n");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("[myllm/m1 failed: myllm connection failed"),
        "{stderr}"
    );
    assert!(
        stderr.contains("— answered by other/m2 (another provider)]"),
        "{stderr}"
    );

    let out = seekclaw(&home, &home, &["run", "--global", "--events", "hi"]);
    assert!(out.status.success());
    let events: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let ev = events
        .iter()
        .find(|e| e["event"] == "model_failover")
        .unwrap_or_else(|| panic!("{events:?}"));
    assert_eq!(ev["level"], "WARN");
    assert_eq!(
        (ev["failed"].as_str(), ev["to"].as_str()),
        (Some("myllm/m1"), Some("other/m2"))
    );
    assert!(
        ev["content"]
            .as_str()
            .unwrap()
            .contains("answered by other/m2")
    );
}

#[test]
fn an_empty_prompt_is_refused_by_run_serve_and_chat() {
    let server = ProviderServer::start().unwrap();
    let (_tmp, home) = home_with(&two_providers(&server, 1));
    for prompt in ["", "   \n"] {
        let out = seekclaw(&home, &home, &["run", "--global", prompt]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{stderr}");
        assert!(stderr.contains("The prompt is empty"), "{stderr}");
        let out = seekclaw(&home, &home, &["chat", "--global", prompt]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{stderr}");
        assert!(stderr.contains("the prompt is empty"), "{stderr}");
    }
    let mut serve = Serve::start(&home, &["--global"]);
    serve.send(r#"{"command":"prompt","text":"  "}"#);
    let (events, code) = serve.finish();
    assert_eq!(code, Some(0));
    let errors: Vec<&Value> = events
        .iter()
        .filter(|e| e["event"] == "command_error")
        .collect();
    assert_eq!(errors.len(), 1, "{events:?}");
    assert_eq!(errors[0]["error"], "the text is empty: say what to do");
    assert_eq!(server.requests().len(), 0);
    assert_eq!(all_sessions(&home), json!([]));
}

#[test]
fn the_terminal_ui_shows_a_failover_as_a_notice_line() {
    let server = ProviderServer::start().unwrap();
    server.set_default(Reply::plain("answered by m2"));
    let d = start_with(StartOptions {
        config: Some(two_providers(&server, 1)),
        ..StartOptions::default()
    });
    let screen = crate::support::screen::Screen::exiting(&d.home, &["chat", "--global", "hi"]);
    let shown = screen.wait_for("answered by m2");
    let notice = crate::support::screen::row(&shown, "myllm/m1 failed:");
    assert!(notice.contains("myllm connection failed"), "{shown}");
    assert!(shown.contains("answered by other/m2"), "{shown}");
}
