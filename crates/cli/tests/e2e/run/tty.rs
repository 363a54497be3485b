//! `seekclaw run` on a terminal (tmux) prints the chat's look: rendered
//! Markdown, ✓ tool rows with durations, diffs and a closing usage line;
//! piped, the same turn prints the plain answer as before.

use std::process::Command;

use seekclaw_testkit::{ProviderServer, Reply};
use serde_json::json;

use crate::support::bin;
use crate::support::screen::{Screen, row};

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

/// A braille spinner glyph (`print_live::FRAMES`).
fn is_spinner(c: char) -> bool {
    ('\u{2800}'..='\u{28ff}').contains(&c)
}

#[test]
fn run_on_a_terminal_streams_text_as_it_arrives_with_a_spinner_and_visible_retries() {
    let server = ProviderServer::start().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let config = json!({
        "routing": {"retry": {"baseDelaySeconds": 0.3, "maxDelaySeconds": 0.5}},
        "providers": [{"id": "tk", "kind": "openai", "baseUrl": server.base_url(), "models": [{"id": "m1"}]}]
    });
    std::fs::write(home.join("config.json"), config.to_string()).unwrap();
    server.enqueue(Reply::http_error(
        500,
        json!({"error": {"message": "overloaded"}}),
        None,
    ));
    // Silent for a while, then one paragraph word by word, then a list.
    let words = (0..8).fold(
        Reply::new()
            .header_delay(std::time::Duration::from_millis(1500))
            .chunk_delay(std::time::Duration::from_millis(250))
            .text("**Loud** start"),
        |r, i| r.text(format!(" w{i}")),
    );
    server.enqueue(words.text("\n\n- last item\n"));
    let screen = Screen::exiting(&home, &["run", "go", "--global"]);
    let waiting = screen.wait_for("waiting for tk/m1");
    let spinner = row(&waiting, "waiting for tk/m1");
    assert!(spinner.starts_with(is_spinner), "{waiting}");
    assert!(spinner.ends_with(" s"), "the wait is timed: {waiting}");
    let retried = screen.wait_for("retrying 2/3 after HTTP 500");
    assert!(!retried.contains("[exit"), "{retried}");
    // The spinner keeps turning and counting while the model is silent.
    let later = screen.wait_for("waiting for tk/m1 · 1.");
    assert!(
        row(&later, "waiting for").starts_with(is_spinner),
        "{later}"
    );
    // The paragraph shows raw while it streams, before its block ends.
    let streaming = screen.wait_for("w2");
    assert!(!streaming.contains("w7"), "{streaming}");
    assert!(streaming.contains("**Loud** start w0 w1 w2"), "{streaming}");
    assert!(!streaming.contains("waiting for"), "{streaming}");
    // Ended, it is settled as Markdown.
    let done = screen.wait_for("[exit 0]");
    assert!(
        done.contains("Loud start w0 w1 w2 w3 w4 w5 w6 w7"),
        "{done}"
    );
    assert!(!done.contains("**"), "{done}");
    assert!(row(&done, "last item").starts_with("• last item"), "{done}");
    assert!(!done.contains("waiting for"), "the spinner is gone: {done}");
    assert!(row(&done, "retrying").contains("tk/m1"), "{done}");
}
