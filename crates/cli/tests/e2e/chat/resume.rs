//! A reopened session looks like the live one: the screen at the end of a
//! live session and the screen after `--continue` are the same, timings
//! aside (tool rows, a steer, a cancelled and a failed turn, `!cmd` output).

use std::time::Duration;

use seekclaw_testkit::{ProviderServer, Reply, StartOptions};
use serde_json::json;

use crate::support::screen::{Screen, row};
use crate::support::turns::setup;

/// The conversation part of a screen (the status bar and the editor below
/// it are the UI's state, not the session's), with tool durations masked.
fn conversation(screen: &str) -> Vec<String> {
    let lines: Vec<&str> = screen.lines().collect();
    let end = lines
        .iter()
        .rposition(|l| l.contains("Ask anything") || l.starts_with('─'))
        .unwrap_or(lines.len());
    lines[..end]
        .iter()
        .map(|l| mask_duration(l.trim_end()))
        .filter(|l| !l.is_empty())
        .collect()
}

/// `(12 ms)` / `(1.5 s)` at the end of a tool row → `(…)`.
fn mask_duration(line: &str) -> String {
    match line.rfind(" (") {
        Some(at) if line.ends_with(" ms)") || line.ends_with(" s)") => {
            format!("{} (…)", &line[..at])
        }
        _ => line.to_string(),
    }
}

#[test]
fn a_reopened_session_shows_what_the_live_one_showed() {
    let server = ProviderServer::start().unwrap();
    // 1: a tool call, then the answer.
    server.enqueue(Reply::new().tool_call(
        "c1",
        "bash",
        json!({"command": "echo tool-output-line"}).to_string(),
    ));
    server.enqueue(Reply::plain("The command printed it."));
    // 2: a slow answer, steered, then cancelled.
    let mut slow = Reply::new().chunk_delay(Duration::from_millis(100));
    for i in 0..12 {
        slow = slow.text(format!("part{i} "));
    }
    let mut slower = Reply::new().chunk_delay(Duration::from_millis(150));
    for i in 0..80 {
        slower = slower.text(format!("more{i} "));
    }
    server.enqueue(slow);
    server.enqueue(slower);
    // 3: the provider refuses the request.
    server.enqueue(Reply::http_error(
        400,
        json!({"error": {"message": "the model rejected this request"}}),
        None,
    ));
    let d = setup(&server, StartOptions::default());
    let screen = Screen::chat(&d.home, &["--global"]);
    screen.tmux(&["resize-window", "-t", "main", "-x", "100", "-y", "50"]);
    screen.wait_for("Ask anything");

    screen.submit("!echo from-the-shell");
    screen.wait_for("from-the-shell");
    screen.submit("run the tool");
    let done = screen.wait_for("The command printed it.");
    assert!(
        row(&done, "✓ bash").contains("echo tool-output-line"),
        "{done}"
    );

    screen.submit("write slowly");
    screen.wait_for("part1");
    screen.submit("use tabs please");
    screen.wait_for("↳ use tabs please");
    screen.wait_for("more2");
    screen.keys(&["C-c"]);
    screen.wait_for("(cancelled)");

    screen.submit("try again");
    let failed = screen.wait_for("the model rejected this request");
    assert!(failed.lines().last().unwrap().contains("idle"), "{failed}");
    // The last frame, once drawn.
    let live = screen.settled(conversation);
    screen.submit("/quit");
    screen.wait_exit();

    let again = Screen::chat(&d.home, &["--global", "--continue"]);
    again.tmux(&["resize-window", "-t", "main", "-x", "100", "-y", "50"]);
    again.wait_for("the model rejected this request");
    again.settled(conversation);
    let reopened_screen = again.capture();
    let reopened = conversation(&reopened_screen);
    assert_eq!(
        reopened,
        live,
        "live:\n{}\n\nreopened:\n{}",
        live.join("\n"),
        reopened.join("\n")
    );
    // What the reopened screen must show, not just match.
    assert!(
        row(&reopened_screen, "✓ bash").contains("echo tool-output-line"),
        "{reopened_screen}"
    );
    assert!(
        !reopened_screen.contains("✓ bash tool-output-line"),
        "a tool row is not its raw output: {reopened_screen}"
    );
    assert!(
        reopened_screen.contains("↳ use tabs please"),
        "{reopened_screen}"
    );
    assert!(reopened_screen.contains("(cancelled)"), "{reopened_screen}");
    assert!(
        row(&reopened_screen, "the model rejected this request").contains('✗'),
        "{reopened_screen}"
    );
    assert!(
        row(&reopened_screen, "from-the-shell").starts_with("$ echo"),
        "the !cmd block, not its envelope: {reopened_screen}"
    );
    assert!(
        !reopened_screen.contains("user_shell_command"),
        "{reopened_screen}"
    );
    again.submit("/quit");
    again.wait_exit();
}

#[test]
fn a_job_notice_mid_turn_shows_as_a_notice_live_and_reopened() {
    let server = ProviderServer::start().unwrap();
    server.enqueue(Reply::new().tool_call(
        "b1",
        "bash",
        json!({"command": "sleep 0.3; echo bgdone", "run_in_background": true}).to_string(),
    ));
    // The job ends while this step streams; its notice enters at the next step.
    let mut slow = Reply::new().chunk_delay(Duration::from_millis(100));
    for i in 0..10 {
        slow = slow.text(format!("w{i} "));
    }
    server.enqueue(slow.tool_call("b2", "bash", json!({"command": "true"}).to_string()));
    server.enqueue(Reply::plain("All finished."));
    let d = setup(&server, StartOptions::default());
    let screen = Screen::chat(&d.home, &["--global"]);
    screen.tmux(&["resize-window", "-t", "main", "-x", "100", "-y", "50"]);
    screen.wait_for("Ask anything");
    screen.submit("start a job");
    let done = screen.wait_for("All finished.");
    let notice = row(&done, "bg-1 finished");
    assert!(!notice.starts_with('↳'), "not a steer: {done}");
    screen.wait("idle", |s| {
        s.lines().last().unwrap_or_default().contains("idle")
    });
    let live = screen.settled(conversation);
    screen.submit("/quit");
    screen.wait_exit();

    let again = Screen::chat(&d.home, &["--global", "--continue"]);
    again.tmux(&["resize-window", "-t", "main", "-x", "100", "-y", "50"]);
    again.wait_for("All finished.");
    let reopened = again.settled(conversation);
    assert_eq!(
        reopened,
        live,
        "live:\n{}\n\nreopened:\n{}",
        live.join("\n"),
        reopened.join("\n")
    );
    again.submit("/quit");
    again.wait_exit();
}

/// Every whole word `word` in `text`.
fn count_word(text: &str, word: &str) -> usize {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| *w == word)
        .count()
}

#[test]
fn a_chat_killed_mid_turn_and_continued_shows_the_turn_once_and_the_rest_live() {
    let server = ProviderServer::start().unwrap();
    let mut slow = Reply::new().chunk_delay(Duration::from_millis(100));
    for i in 0..40 {
        slow = slow.text(format!("part{i} "));
    }
    server.enqueue(slow);
    let d = setup(&server, StartOptions::default());
    let screen = Screen::chat(&d.home, &["--global"]);
    screen.tmux(&["resize-window", "-t", "main", "-x", "100", "-y", "50"]);
    screen.wait_for("Ask anything");
    screen.submit("say the parts");
    screen.wait_for("part5");
    // `kill -9` of the chat's own process (the pane's), by its pid.
    let pid = screen.tmux(&["display", "-p", "-t", "main", "#{pane_pid}"]);
    let pid: i32 = pid.trim().parse().unwrap();
    // SAFETY: kill(2) on a pid this test's tmux started.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGKILL) }, 0);
    screen.wait_exit();

    let again = Screen::chat(&d.home, &["--global", "--continue"]);
    again.tmux(&["resize-window", "-t", "main", "-x", "100", "-y", "50"]);
    let done = again.wait("the turn's end", |s| {
        s.contains("part39") && s.lines().last().unwrap_or_default().contains("idle")
    });
    let text = conversation(&done).join(" ");
    assert_eq!(count_word(&text, "say"), 1, "the prompt once: {done}");
    for i in 0..40 {
        assert_eq!(
            count_word(&text, &format!("part{i}")),
            1,
            "part{i} once, in order:\n{done}"
        );
    }
    let first = text.find("part0").unwrap();
    let last = text.find("part39").unwrap();
    assert!(first < last, "{done}");
    assert_eq!(server.requests().len(), 1, "the turn ran on, not again");
    again.submit("/quit");
    again.wait_exit();
}
