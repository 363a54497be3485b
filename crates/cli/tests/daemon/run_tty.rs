//! `seekclaw run` on a terminal (tmux) prints the chat's look: rendered
//! Markdown, ✓ tool rows with durations, diffs and a closing usage line;
//! piped, the same turn prints the plain answer as before.

use std::process::Command;

use seekclaw_testkit::{ProviderServer, Reply};
use serde_json::json;

use crate::bin;
use crate::tui::{Screen, row};

const ANSWER: &str = "Here is **bold** and `code`.\n\n- one item\n";

/// A home whose provider is `server`, with prices so the run has a cost.
fn home_with_prices(server: &ProviderServer) -> (tempfile::TempDir, std::path::PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let config = json!({"providers": [{
        "id": "tk", "kind": "openai", "baseUrl": server.base_url(),
        "models": [{"id": "m1", "inputPricePerMTok": 2.0, "outputPricePerMTok": 10.0}]
    }]});
    std::fs::write(home.join("config.json"), config.to_string()).unwrap();
    (tmp, home)
}

fn enqueue_turn(server: &ProviderServer) {
    server.enqueue(
        Reply::new()
            .tool_call(
                "c1",
                "write_file",
                r#"{"path":"notes.txt","content":"hello run\n"}"#,
            )
            .usage(1000, 0, 100),
    );
    server.enqueue(Reply::new().text(ANSWER).usage(2000, 0, 200));
}

#[test]
fn run_on_a_terminal_renders_markdown_tool_rows_diffs_and_usage() {
    let server = ProviderServer::start().unwrap();
    let (_tmp, home) = home_with_prices(&server);
    enqueue_turn(&server);
    let screen = Screen::exiting(&home, &["run", "write the notes", "--global"]);
    let done = screen.wait_for("[exit 0]");
    let tool = row(&done, "write_file");
    assert!(tool.starts_with("✓ write_file"), "{done}");
    assert!(tool.ends_with(" ms)") || tool.ends_with(" s)"), "{done}");
    assert!(done.contains("  +hello run"), "the diff: {done}");
    assert!(done.contains("Here is bold and code."), "{done}");
    assert!(!done.contains("**"), "Markdown markers are gone: {done}");
    assert!(row(&done, "one item").starts_with("• one item"), "{done}");
    // (2 × 3000 + 10 × 300) / 1e6 = $0.009 over the two steps.
    let usage = row(&done, "tokens ↑");
    assert!(
        usage.starts_with("tokens ↑3000 ↓300 · $0.0090 · 2 steps · "),
        "{done}"
    );
}

#[test]
fn run_piped_prints_the_plain_answer() {
    let server = ProviderServer::start().unwrap();
    let (_tmp, home) = home_with_prices(&server);
    enqueue_turn(&server);
    let out = Command::new(bin())
        .args(["run", "write the notes", "--global"])
        .env("SEEKCLAW_HOME", &home)
        .output()
        .unwrap();
    assert!(out.status.success());
    // The answer as the model wrote it, the tool call on stderr, no styling.
    assert_eq!(String::from_utf8_lossy(&out.stdout), format!("{ANSWER}\n"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("[write_file] "), "{stderr}");
    assert!(!stderr.contains('\x1b'), "{stderr}");
}
