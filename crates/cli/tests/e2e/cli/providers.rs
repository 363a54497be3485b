//! `seekclaw provider …` / `seekclaw model list` with and without a running
//! daemon: one edit path, no edit lost to a concurrent one, keys never shown.

use std::path::Path;
use std::process::{Child, Command, Output, Stdio};

use seekclaw_testkit::{DaemonProcess, StartOptions};
use serde_json::{Value, json};

use crate::support::{bin, squeezed_lines, start};

const KEY: &str = "sk-cli-never-shown-4711";

fn command(home: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(bin());
    cmd.args(args)
        .env("SEEKCLAW_HOME", home)
        .env("RUST_LOG", "debug")
        // Its log lines on the (piped) stderr too, where the key check reads.
        .env("SEEKCLAW_LOG", "stderr")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd
}

fn seekclaw(home: &Path, args: &[&str]) -> Output {
    command(home, args).output().unwrap()
}

/// Runs `seekclaw` and returns its stdout; fails the test on a non-zero exit
/// or on the key appearing anywhere in its output.
fn ok(home: &Path, args: &[&str]) -> String {
    checked(seekclaw(home, args), args)
}

fn checked(out: Output, args: &[&str]) -> String {
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(out.status.success(), "{args:?}: {stderr}");
    assert!(
        !stdout.contains(KEY) && !stderr.contains(KEY),
        "{args:?} showed the key"
    );
    stdout
}

fn spawn_add(home: &Path, id: &str) -> Child {
    command(
        home,
        &[
            "provider",
            "add",
            id,
            "--base-url",
            "http://127.0.0.1:9/v1",
            "--model",
            "m",
            "--api-key",
            KEY,
        ],
    )
    .spawn()
    .unwrap()
}

fn ids(list: &Value) -> Vec<String> {
    let mut ids: Vec<String> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["id"].as_str().unwrap().to_string())
        .collect();
    ids.sort();
    ids
}

fn file_ids(home: &Path) -> Vec<String> {
    let config: Value =
        serde_json::from_slice(&std::fs::read(home.join("config.json")).unwrap()).unwrap();
    ids(&config["providers"])
}

fn expected(prefixes: &[&str], n: usize) -> Vec<String> {
    let mut all: Vec<String> = prefixes
        .iter()
        .flat_map(|p| (0..n).map(move |i| format!("{p}{i}")))
        .collect();
    all.sort();
    all
}

#[test]
fn with_a_daemon_the_cli_edits_through_it_and_no_edit_is_lost() {
    let d = start();
    let home = d.home.clone();
    let mut c = d.connect().unwrap();

    // A preset with a chosen model list: the preset's full entry for the model
    // it knows, defaults for the other; the first provider becomes active.
    let args = [
        "provider",
        "add",
        "deepseek",
        "--api-key",
        KEY,
        "--model",
        "deepseek-reasoner",
        "--model",
        "extra",
    ];
    let out = ok(&home, &args);
    assert!(out.contains("through the running daemon"), "{out}");
    let listed = c.ok_json("provider.list", json!({})).unwrap();
    let p = &listed[0];
    assert_eq!(
        (&p["id"], &p["models"], &p["apiKeyConfigured"], &p["active"]),
        (
            &json!("deepseek"),
            &json!(["deepseek-reasoner", "extra"]),
            &json!(true),
            &json!(true)
        )
    );
    let catalog = c.ok_json("model.catalog", json!({})).unwrap();
    let entry = |r: &str| {
        catalog
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["ref"] == r)
            .unwrap_or_else(|| panic!("{r} in {catalog}"))
            .clone()
    };
    let reasoner = entry("deepseek/deepseek-reasoner");
    assert_eq!(
        (
            &reasoner["maxOutput"],
            &reasoner["capabilities"]["thinking"]
        ),
        (&json!(64_000), &json!(true))
    );
    assert_eq!(entry("deepseek/extra")["contextWindow"], 128_000);

    // CLI processes and a socket client edit at the same time: every edit stays.
    let children: Vec<Child> = (0..6)
        .map(|i| spawn_add(&home, &format!("cli{i}")))
        .collect();
    for i in 0..6 {
        c.ok_json(
            "provider.upsert",
            json!({"id": format!("sock{i}"), "baseUrl": "http://127.0.0.1:9", "models": ["m"]}),
        )
        .unwrap();
    }
    for child in children {
        let out = checked(child.wait_with_output().unwrap(), &["provider", "add"]);
        assert!(out.contains("through the running daemon"), "{out}");
    }
    let mut want = expected(&["cli", "sock"], 6);
    want.push("deepseek".into());
    want.sort();
    assert_eq!(ids(&c.ok_json("provider.list", json!({})).unwrap()), want);
    assert_eq!(file_ids(&home), want);

    // Reads go through the daemon too, and never show a key.
    let list = squeezed_lines(&ok(&home, &["provider", "list"]));
    assert_eq!(list[0], "ID KIND BASE URL STATE KEY MODELS", "{list:?}");
    assert!(
        list.iter()
            .any(|l| l.trim_start_matches("* ")
                == "cli0 openai http://127.0.0.1:9/v1 enabled key set m"),
        "{list:?}"
    );
    assert!(
        list.iter()
            .any(|l| l.trim_start_matches("* ").starts_with("sock0 ") && l.contains(" no key "))
    );
    let models = squeezed_lines(&ok(&home, &["model", "list"]));
    assert!(models[0].starts_with("MODEL CONTEXT PRICE"), "{models:?}");
    assert!(
        models
            .iter()
            .any(|l| l.trim_start_matches("* ").starts_with("deepseek/extra ")),
        "{models:?}"
    );
    // Exactly one model is marked as the one a new turn uses.
    assert_eq!(
        models.iter().filter(|l| l.starts_with("* ")).count(),
        1,
        "{models:?}"
    );

    let out = ok(&home, &["provider", "remove", "CLI0"]);
    assert_eq!(out.trim(), "provider CLI0 removed");
    assert!(!ids(&c.ok_json("provider.list", json!({})).unwrap()).contains(&"cli0".to_string()));
    let again = seekclaw(&home, &["provider", "remove", "cli0"]);
    assert!(!again.status.success());
    assert!(
        String::from_utf8_lossy(&again.stderr).contains("Provider not found: cli0"),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    // Probes run in the daemon; an unreachable provider fails the command.
    let test = seekclaw(&home, &["provider", "test", "cli1"]);
    assert!(!test.status.success());
    assert!(String::from_utf8_lossy(&test.stdout).starts_with("[FAIL] cli1:"));
    assert!(!d.stderr().contains(KEY), "the daemon logged a key");
}

#[test]
fn without_a_daemon_concurrent_cli_edits_are_all_kept() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let children: Vec<Child> = (0..8).map(|i| spawn_add(&home, &format!("p{i}"))).collect();
    for child in children {
        let out = checked(child.wait_with_output().unwrap(), &["provider", "add"]);
        assert!(out.contains("saved to"), "{out}");
    }
    assert_eq!(file_ids(&home), expected(&["p"], 8));
    let config: Value =
        serde_json::from_slice(&std::fs::read(home.join("config.json")).unwrap()).unwrap();
    let active = config["profiles"]["default"]["provider"].as_str().unwrap();
    assert!(
        active.starts_with('p'),
        "the first to land is active: {active}"
    );

    let list = ok(&home, &["provider", "list"]);
    let rows: Vec<String> = squeezed_lines(&list)
        .into_iter()
        .filter(|l| l.contains(" openai "))
        .collect();
    assert_eq!(rows.len(), 8, "{list}");
    assert!(rows.iter().all(|l| l.contains(" key set ")), "{list}");
    assert_eq!(
        rows.iter().filter(|l| l.starts_with("* ")).count(),
        1,
        "{list}"
    );
    assert_eq!(
        ok(&home, &["provider", "remove", "p3"]).trim(),
        "provider p3 removed"
    );
    let again = seekclaw(&home, &["provider", "remove", "p3"]);
    assert!(!again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("Provider not found: p3"));
    assert_eq!(file_ids(&home).len(), 7);
}

/// A daemon starting while CLI processes edit, and socket clients editing
/// once it is up: nothing written by one is overwritten by another.
#[test]
fn edits_made_while_a_daemon_starts_are_kept() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let early: Vec<Child> = (0..6)
        .map(|i| spawn_add(&home, &format!("early{i}")))
        .collect();
    let mut d = DaemonProcess::spawn_nowait(bin(), &home, &StartOptions::default()).unwrap();
    let late: Vec<Child> = (0..6)
        .map(|i| spawn_add(&home, &format!("late{i}")))
        .collect();
    d.wait_ready(std::time::Duration::from_secs(20)).unwrap();
    let mut c = d.connect().unwrap();
    for i in 0..6 {
        c.ok_json(
            "provider.upsert",
            json!({"id": format!("sock{i}"), "baseUrl": "http://127.0.0.1:9", "models": ["m"]}),
        )
        .unwrap();
    }
    for child in early.into_iter().chain(late) {
        checked(child.wait_with_output().unwrap(), &["provider", "add"]);
    }
    let want = expected(&["early", "late", "sock"], 6);
    assert_eq!(ids(&c.ok_json("provider.list", json!({})).unwrap()), want);
    assert_eq!(file_ids(&home), want);
}

/// A daemon killed with its socket left behind does not answer: the CLI edits
/// the file, and the next daemon sees the edit.
#[test]
fn a_dead_daemons_socket_falls_back_to_the_file() {
    let mut d = start();
    let home = d.home.clone();
    d.kill9().unwrap();
    assert!(home.join("daemon.sock").exists(), "the socket stays behind");
    let out = ok(&home, &["provider", "add", "ollama"]);
    assert!(out.contains("saved to"), "{out}");
    let d2 = DaemonProcess::spawn(bin(), &home, &StartOptions::default()).unwrap();
    let mut c = d2.connect().unwrap();
    assert_eq!(
        ids(&c.ok_json("provider.list", json!({})).unwrap()),
        ["ollama"]
    );
    assert_eq!(
        ok(&home, &["provider", "remove", "ollama"]).trim(),
        "provider ollama removed"
    );
    assert_eq!(c.ok_json("provider.list", json!({})).unwrap(), json!([]));
}

/// `provider add` off a terminal: the key from stdin, URLs checked, and a
/// custom provider without `--model` told the endpoint's models; empty
/// lists say what to do.
#[test]
fn provider_add_reads_the_key_from_stdin_and_checks_what_it_is_given() {
    use std::io::Write;
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");

    for list in [["provider", "list"], ["model", "list"]] {
        let out = ok(&home, &list);
        assert!(
            out.contains("configured. Add one with `seekclaw provider add deepseek`"),
            "{list:?}: {out}"
        );
    }

    let mut child = command(&home, &["provider", "add", "deepseek", "--api-key-stdin"])
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(format!("{KEY}\n").as_bytes())
        .unwrap();
    checked(child.wait_with_output().unwrap(), &["provider", "add"]);
    let config: Value =
        serde_json::from_slice(&std::fs::read(home.join("config.json")).unwrap()).unwrap();
    assert_eq!(config["providers"][0]["apiKey"], KEY);
    let before = std::fs::read(home.join("config.json")).unwrap();

    let bad = seekclaw(
        &home,
        &[
            "provider",
            "add",
            "mine",
            "--base-url",
            "localhost:8080/v1",
            "--model",
            "m",
        ],
    );
    assert_eq!(bad.status.code(), Some(1));
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(
        err.contains("--base-url must start with http:// or https://"),
        "{err}"
    );

    let server = seekclaw_testkit::ProviderServer::start().unwrap();
    server.set_models(["beta", "alpha"]);
    let url = format!("{}/v1", server.base_url());
    let unpicked = seekclaw(&home, &["provider", "add", "mine", "--base-url", &url]);
    assert_eq!(unpicked.status.code(), Some(1));
    let err = String::from_utf8_lossy(&unpicked.stderr);
    assert!(
        err.contains("lists these models: alpha, beta; name the ones to use with --model"),
        "{err}"
    );
    let dead = seekclaw(
        &home,
        &[
            "provider",
            "add",
            "gone",
            "--base-url",
            "http://127.0.0.1:9/v1",
        ],
    );
    let err = String::from_utf8_lossy(&dead.stderr);
    assert!(
        err.contains("cannot list the models of http://127.0.0.1:9/v1/models"),
        "{err}"
    );
    assert_eq!(
        std::fs::read(home.join("config.json")).unwrap(),
        before,
        "a refused add writes nothing"
    );
}
