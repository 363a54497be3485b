//! `session/fork` driven by the official client's unstable entrypoint
//! (`js/fork.mjs`): the fork carries the whole conversation (the model is
//! sent it on the fork's first prompt), names its source, and the source is
//! left as it was.

use std::process::Command;

use seekclaw_testkit::{ProviderServer, Reply, capability_missing};
use serde_json::Value;

use super::session::{js_dir, node_missing};
use crate::support::bin;
use crate::support::serve::home_with;

#[test]
fn the_official_client_forks_a_session_with_its_whole_conversation() {
    if capability_missing("node", node_missing()) {
        return;
    }
    let server = ProviderServer::start().unwrap();
    let (_tmp, home) = home_with(&server);
    forks(&server, &home);
}

/// The same through a running daemon (the connection is upgraded to it).
#[test]
fn the_official_client_forks_a_session_through_the_daemon() {
    if capability_missing("node", node_missing()) {
        return;
    }
    let server = ProviderServer::start().unwrap();
    let (_tmp, home) = home_with(&server);
    let config = std::fs::read_to_string(home.join("config.json")).unwrap();
    let d = crate::support::start_with(seekclaw_testkit::StartOptions {
        config: Some(serde_json::from_str(&config).unwrap()),
        ..Default::default()
    });
    forks(&server, &d.home);
    assert!(
        d.stderr().contains("connection upgraded protocol=\"acp\""),
        "{}",
        d.stderr()
    );
}

fn forks(server: &ProviderServer, home: &std::path::Path) {
    let ws = tempfile::tempdir().unwrap();
    let ws_path = ws.path().canonicalize().unwrap();
    server.enqueue(Reply::plain("Noted: plover."));
    server.enqueue(Reply::plain("Still plover."));
    let out = Command::new("node")
        .arg(js_dir().join("fork.mjs"))
        .arg(bin())
        .arg(home)
        .arg(&ws_path)
        .current_dir(js_dir())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "driver failed\nstdout: {stdout}\nstderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let result: Value = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
    assert_eq!(result["ok"], true, "{stdout}");
    // The fork's first prompt carried the source's whole exchange.
    let requests = server.requests();
    let fork_body = &requests.last().unwrap().raw_body;
    assert!(
        fork_body.contains("remember the word plover"),
        "{fork_body}"
    );
    assert!(fork_body.contains("Noted: plover."), "{fork_body}");
    assert!(
        fork_body.contains("which word, in the fork?"),
        "{fork_body}"
    );
    // Listed as a fork of its source; the source holds only its own turn.
    let listed = Command::new(bin())
        .args(["sessions", "list", "--json", "--workspace"])
        .arg(&ws_path)
        .env("SEEKCLAW_HOME", home)
        .output()
        .unwrap();
    let listed: Value = serde_json::from_slice(&listed.stdout).unwrap();
    let fork = listed
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == result["fork"])
        .unwrap_or_else(|| panic!("{listed}"));
    assert_eq!(fork["forkedFrom"]["sessionId"], result["source"], "{fork}");
    assert_eq!(requests.len(), 2, "one turn each");
}
