//! `--reasoning` (issue 37, item 4: one set of turn flags): the level the
//! turn runs at reaches the provider and stays with the session, so a
//! `--continue` without the flag keeps it.

use std::path::Path;
use std::process::Command;

use seekclaw_testkit::{ProviderServer, Reply};

fn seekclaw(home: &Path, args: &[&str]) -> std::process::Output {
    Command::new(crate::support::bin())
        .args(args)
        .env("SEEKCLAW_HOME", home)
        .output()
        .unwrap()
}

/// The `reasoning_effort` of the last model request.
fn last_effort(server: &ProviderServer) -> Option<String> {
    let requests = server.requests();
    let last = requests.last().expect("a model request");
    last.body["reasoning_effort"].as_str().map(str::to_string)
}

#[test]
fn run_reasoning_reaches_the_model_and_stays_with_the_session() {
    let server = ProviderServer::start().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let config = serde_json::json!({"providers": [{"id": "tk", "kind": "openai",
        "baseUrl": server.base_url(),
        "models": [{"id": "m1", "capabilities": {"reasoning": true, "maxReasoningLevel": "max"}}]}]});
    std::fs::write(home.join("config.json"), config.to_string()).unwrap();

    server.enqueue(Reply::plain("default"));
    let out = seekclaw(&home, &["run", "hi", "--global"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(last_effort(&server).as_deref(), Some("high"));

    server.enqueue(Reply::plain("low"));
    let out = seekclaw(&home, &["run", "hi", "--global", "--reasoning", "low"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(last_effort(&server).as_deref(), Some("low"));

    server.enqueue(Reply::plain("still low"));
    let out = seekclaw(&home, &["run", "again", "--global", "--continue"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(last_effort(&server).as_deref(), Some("low"));

    let out = seekclaw(&home, &["run", "hi", "--global", "--reasoning", "lots"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("unknown reasoning level \"lots\""),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
