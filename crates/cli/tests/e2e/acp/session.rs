//! A full ACP session driven by `@agentclientprotocol/sdk`'s client
//! (`js/driver.mjs`), every agent message validated against the ACP v1 JSON
//! schema of the same package; here the provider's replies are scripted and
//! what the model was sent is checked afterwards.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use seekclaw_testkit::{ProviderServer, Reply, capability_missing};
use serde_json::json;

use crate::support::bin;
use crate::support::serve::home_with;

/// The driver's folder, with its `node_modules` (`.ci/run` installs them).
pub(super) fn js_dir() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/e2e/acp/js")
}

/// Why the driver cannot run here, if it cannot.
pub(super) fn node_missing() -> Option<String> {
    if let Some(why) = seekclaw_testkit::program_missing("node") {
        return Some(why);
    }
    let sdk = js_dir().join("node_modules/@agentclientprotocol/sdk/package.json");
    (!sdk.is_file()).then(|| {
        format!(
            "{} is missing: run `npm ci --prefix {}`",
            sdk.display(),
            js_dir().display()
        )
    })
}

fn script(server: &ProviderServer) {
    let call = |id: &str, name: &str, args: serde_json::Value| {
        Reply::new().tool_call(id, name, args.to_string())
    };
    server.enqueue(
        Reply::new()
            .reasoning("look first")
            .text("Reading.")
            .tool_call("c1", "read_file", r#"{"path":"notes.txt"}"#),
    );
    server.enqueue(Reply::new().text("The word ").text("is plover."));
    server.enqueue(call(
        "c2",
        "write_file",
        json!({"path": "out.txt", "content": "hello\n"}),
    ));
    server.enqueue(Reply::plain("Written."));
    server.enqueue(call(
        "c3",
        "write_file",
        json!({"path": "notes.txt", "content": "gone\n"}),
    ));
    server.enqueue(Reply::plain("OK, I left it."));
    let steps = json!({"steps": [{"step": "write it", "status": "in_progress"}, {"step": "check it", "status": "pending"}]});
    server.enqueue(call("c4", "plan", steps).tool_call(
        "c5",
        "write_file",
        json!({"path": "auto.txt", "content": "auto\n"}).to_string(),
    ));
    server.enqueue(Reply::plain("Planned and written."));
    let slow = (0..80).fold(
        Reply::new().chunk_delay(Duration::from_millis(100)),
        |r, i| r.text(format!("w{i} ")),
    );
    server.enqueue(slow);
    server.enqueue(Reply::plain("B answer"));
    server.enqueue(Reply::plain("yes, still here"));
}

#[test]
fn the_official_client_runs_a_full_session() {
    if capability_missing("node", node_missing()) {
        return;
    }
    let server = ProviderServer::start().unwrap();
    let (_tmp, home) = home_with(&server);
    full_session(&server, &home);
}

/// The same session with a daemon running: `seekclaw acp` hands the
/// connection to it, and everything (fs delegation, permissions, cancel,
/// load, modes) works the same through the daemon.
#[test]
fn the_official_client_runs_a_full_session_through_the_daemon() {
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
    full_session(&server, &d.home);
    // The daemon served it: its log names the upgraded connection.
    assert!(
        d.stderr().contains("connection upgraded protocol=\"acp\""),
        "{}",
        d.stderr()
    );
}

fn full_session(server: &ProviderServer, home: &Path) {
    let ws = tempfile::tempdir().unwrap();
    let ws_path = ws.path().canonicalize().unwrap();
    std::fs::write(ws_path.join("notes.txt"), "the disk copy\n").unwrap();
    script(server);
    let out = Command::new("node")
        .arg(js_dir().join("driver.mjs"))
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
    assert!(stdout.contains("\"ok\":true"), "{stdout}");
    eprintln!("driver: {stdout}");
    let requests = server.requests();
    let body = |i: usize| requests[i].raw_body.clone();
    // The model read the editor's unsaved buffer, not the disk.
    assert!(body(1).contains("plover (unsaved)"), "{}", body(1));
    assert!(!body(1).contains("the disk copy"));
    // The rejection's reason reached the model.
    assert!(body(5).contains("keep my notes"), "{}", body(5));
    // The disk was left alone: the editor holds the writes.
    assert_eq!(
        std::fs::read_to_string(ws_path.join("notes.txt")).unwrap(),
        "the disk copy\n"
    );
    assert!(!ws_path.join("auto.txt").exists());
    // The loaded session's turn continued the stored conversation.
    let last = body(requests.len() - 1);
    assert!(
        last.contains("still there?") && last.contains("is plover."),
        "{last}"
    );
}
