//! Log lines never break into what `run` prints: on a terminal and piped
//! they go to `$SEEKCLAW_HOME/logs/seekclaw.log`; `SEEKCLAW_LOG=stderr`
//! sends them to a stderr that is not a terminal. A pinned model's failure
//! is logged as what it is, not as a failover.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::json;

use crate::support::bin;
use crate::support::screen::Screen;

/// A home whose only model, `down/m1`, refuses connections (two attempts,
/// tiny backoff).
fn home_with_a_dead_model() -> (tempfile::TempDir, PathBuf) {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let config = json!({
        "routing": {"retry": {"maxAttempts": 2, "baseDelaySeconds": 0.01, "maxDelaySeconds": 0.05}},
        "providers": [{"id": "down", "kind": "openai", "baseUrl": format!("http://127.0.0.1:{port}"),
            "timeoutSeconds": 5, "models": [{"id": "m1"}]}]
    });
    std::fs::write(home.join("config.json"), config.to_string()).unwrap();
    (tmp, home)
}

fn log_file(home: &Path) -> String {
    std::fs::read_to_string(home.join("logs").join("seekclaw.log")).unwrap_or_default()
}

/// What a tracing line looks like, whatever its target.
fn has_log_lines(text: &str) -> bool {
    text.contains(" WARN ") || text.contains("ERROR ") || text.contains("seekclaw_")
}

const ARGS: [&str; 5] = ["run", "--global", "--model", "down/m1", "hi"];

#[test]
fn run_logs_to_the_home_log_file_not_into_its_output() {
    let (_tmp, home) = home_with_a_dead_model();
    let run = |log: Option<&str>| {
        let mut cmd = Command::new(bin());
        cmd.args(ARGS)
            .env("SEEKCLAW_HOME", &home)
            .env_remove("SEEKCLAW_LOG");
        if let Some(log) = log {
            cmd.env("SEEKCLAW_LOG", log);
        }
        cmd.output().unwrap()
    };
    let out = run(None);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("down connection failed"), "{stderr}");
    assert!(!has_log_lines(&stderr), "log lines on stderr: {stderr}");
    let log = log_file(&home);
    assert!(
        log.contains("model failed (the only candidate: no failover)"),
        "{log}"
    );
    assert!(
        !log.contains("failing over"),
        "a pinned model fails over to nothing: {log}"
    );

    // Asked for, on a stderr that is not a terminal: there.
    let out = run(Some("stderr"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(has_log_lines(&stderr), "{stderr}");
    assert!(stderr.contains("no failover"), "{stderr}");
}

#[test]
fn run_on_a_terminal_draws_no_log_lines() {
    let (_tmp, home) = home_with_a_dead_model();
    let screen = Screen::exiting(&home, &ARGS);
    let done = screen.wait_for("[exit 1]");
    assert!(done.contains("down connection failed"), "{done}");
    assert!(!has_log_lines(&done), "log lines on the screen: {done}");
    assert!(log_file(&home).contains("no failover"));
}
