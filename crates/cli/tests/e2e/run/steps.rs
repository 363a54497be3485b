//! `seekclaw run`'s text output between steps and at its end: piped, each
//! model step's text is a paragraph of its own and a tool call that failed
//! or was refused is marked on stderr; on a terminal, Ctrl-C says
//! `(cancelled)`.

use std::process::Command;
use std::time::Duration;

use seekclaw_testkit::{ProviderServer, Reply};
use serde_json::json;

use crate::support::bin;
use crate::support::screen::Screen;

fn home_for(server: &ProviderServer) -> (tempfile::TempDir, std::path::PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let config = json!({"providers": [{
        "id": "tk", "kind": "openai", "baseUrl": server.base_url(), "models": [{"id": "m1"}]
    }]});
    std::fs::write(home.join("config.json"), config.to_string()).unwrap();
    (tmp, home)
}

#[test]
fn piped_steps_are_paragraphs_and_failed_or_refused_calls_are_marked() {
    let server = ProviderServer::start().unwrap();
    let (_tmp, home) = home_for(&server);
    server.enqueue(Reply::new().text("Step one.").tool_call(
        "c1",
        "read_file",
        r#"{"path":"missing.txt"}"#,
    ));
    server.enqueue(Reply::new().text("Step two.").tool_call(
        "c2",
        "write_file",
        r#"{"path":"out.txt","content":"x\n"}"#,
    ));
    server.enqueue(Reply::new().tool_call("c3", "list_dir", r#"{"path":"."}"#));
    server.enqueue(Reply::plain("Step three done."));
    // `untrusted` asks before a write, which `run` cannot: it is refused.
    let out = Command::new(bin())
        .args(["run", "go", "--global", "--approval", "untrusted"])
        .env("SEEKCLAW_HOME", &home)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "Step one.\n\nStep two.\n\nStep three done.\n"
    );
    let lines: Vec<&str> = stderr.lines().filter(|l| l.starts_with('[')).collect();
    assert_eq!(lines[0], "[read_file] path: missing.txt", "{stderr}");
    assert!(lines[1].starts_with("[read_file] failed: "), "{stderr}");
    assert!(
        lines[2].starts_with("[write_file] path: out.txt"),
        "{stderr}"
    );
    assert!(
        lines[3].starts_with("[write_file] refused (not run): This call needs approval"),
        "{stderr}"
    );
    // A call that worked has its one line and no mark.
    assert!(lines[4].starts_with("[list_dir] "), "{stderr}");
    assert_eq!(lines.len(), 5, "{stderr}");
}

#[test]
fn ctrl_c_on_a_terminal_run_says_cancelled() {
    let server = ProviderServer::start().unwrap();
    let (_tmp, home) = home_for(&server);
    let mut slow = Reply::new().chunk_delay(Duration::from_millis(100));
    for i in 0..100 {
        slow = slow.text(format!("bit{i} "));
    }
    server.enqueue(slow);
    let screen = Screen::exiting(&home, &["run", "go slowly", "--global"]);
    screen.wait_for("bit2");
    screen.keys(&["C-c"]);
    let done = screen.wait_for("[exit 130]");
    assert!(done.contains("(cancelled)"), "{done}");
    assert!(!done.contains("bit99"), "{done}");
    assert!(done.contains("tokens ↑"), "the closing line: {done}");
}
