//! Hook runs in the inspector (issue 39): `seekclaw run` turns with the
//! user's hooks (one that passes, one that blocks with a message) make hook
//! rows in the store; the page in a real headless Chromium shows them (event,
//! command, exit, duration, decision, message; the block highlighted), and a
//! turn appended while the page is open shows its hook rows without a reload.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use seekclaw_testkit::{ProviderServer, Reply};
use serde_json::{Value, json};

use crate::support::webdriver::Browser;
use crate::support::{bin, project_dir};

fn seekclaw(cwd: &Path, home: &Path, args: &[&str]) -> String {
    let out = Command::new(bin())
        .args(args)
        .current_dir(cwd)
        .env("SEEKCLAW_HOME", home)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "seekclaw {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// `seekclaw inspect --port 0` in its own process group, killed on drop.
struct Inspect(Child);

impl Drop for Inspect {
    fn drop(&mut self) {
        // SAFETY: a signal to the process group this test started.
        unsafe { libc::kill(-(self.0.id() as i32), libc::SIGKILL) };
        let _ = self.0.wait();
    }
}

fn inspect(home: &Path) -> (Inspect, String) {
    use std::os::unix::process::CommandExt;
    let mut child = Command::new(bin())
        .args(["inspect", "--port", "0"])
        .env("SEEKCLAW_HOME", home)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    (Inspect(child), line.trim().to_string())
}

/// A turn calling `bash` once, then answering `answer`.
fn shell_turn(server: &ProviderServer, id: &str, answer: &str) {
    server.enqueue(Reply::new().tool_call(id, "bash", json!({"command": "echo hi"}).to_string()));
    server.enqueue(Reply::plain(answer));
}

#[test]
fn hook_rows_show_in_the_timeline_and_the_live_tail() {
    if seekclaw_testkit::capability_missing(
        "chromium",
        seekclaw_testkit::program_missing("chromedriver"),
    ) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let server = ProviderServer::start().unwrap();
    let home = dir.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    // The user's own hooks: a formatter stand-in that passes after every
    // call, and a guard that blocks `bash` the second time (a marker file).
    let marker = dir.path().join("seen");
    let guard = format!(
        "if [ -e '{m}' ]; then echo 'no shell today' >&2; exit 2; fi; touch '{m}'",
        m = marker.display()
    );
    let config = json!({
        "providers": [{"id": "tk", "kind": "openai", "baseUrl": server.base_url(), "models": [{"id": "m1"}]}],
        "hooks": {
            "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": guard}]}],
            "PostToolUse": [{"hooks": [{"type": "command", "command": "true"}]}],
        },
    });
    std::fs::write(home.join("config.json"), config.to_string()).unwrap();
    let ws = project_dir(dir.path(), "ws");
    let ws_arg = ws.to_str().unwrap();
    shell_turn(&server, "c1", "Ran it.");
    seekclaw(&ws, &home, &["run", "say hi", "--workspace", ws_arg]);
    let listed: Value = serde_json::from_str(&seekclaw(
        &ws,
        &home,
        &["sessions", "list", "--json", "--workspace", ws_arg],
    ))
    .unwrap();
    let id = listed[0]["id"].as_str().unwrap().to_string();

    let (_inspect, url) = inspect(&home);
    let browser = Browser::start(&dir.path().join("webdriver-profile"));
    browser.goto(&format!("{url}&session={id}"));
    let hooks = "document.querySelectorAll('#view .event.k-hook')";
    browser.wait_for(
        &format!("return {hooks}.length === 2"),
        Duration::from_secs(20),
    );
    let rows = browser.eval(&format!(
        "return Array.from({hooks}).map((r) => r.textContent)"
    ));
    let rows: Vec<String> = serde_json::from_value(rows).unwrap();
    assert!(
        rows[0].contains("PreToolUse") && rows[0].contains("exit 0") && rows[0].contains("ok"),
        "{rows:?}"
    );
    assert!(rows[0].contains("touch"), "the command: {rows:?}");
    assert!(
        rows[1].contains("PostToolUse") && rows[1].contains("true"),
        "{rows:?}"
    );
    assert!(
        rows.iter().all(|r| r.contains(" ms")),
        "durations: {rows:?}"
    );
    assert_eq!(
        browser.eval("return document.querySelectorAll('#view .event.k-hook.stopped').length"),
        json!(0)
    );

    // A turn appended while the page is open: its blocked hook shows, with
    // its message, highlighted.
    shell_turn(&server, "c2", "Blocked, then.");
    seekclaw(
        &ws,
        &home,
        &["run", "again", "--session", &id, "--workspace", ws_arg],
    );
    let stopped = "document.querySelectorAll('#view .event.k-hook.stopped')";
    browser.wait_for(
        &format!("return {stopped}.length === 1"),
        Duration::from_secs(10),
    );
    let text = browser.eval(&format!("return {stopped}[0].textContent"));
    let text = text.as_str().unwrap();
    assert!(
        text.contains("PreToolUse") && text.contains("exit 2") && text.contains("block"),
        "{text}"
    );
    assert!(text.contains("no shell today"), "{text}");
}
