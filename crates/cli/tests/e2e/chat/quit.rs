//! Quitting the window whose turn runs (issue 36, item 3): `/quit` and
//! Ctrl-D ask first (cancel it and quit / keep it running in the daemon /
//! stay), typed-ahead keys answer nothing, and a kept turn or one whose
//! window was killed runs to its end, which every watcher sees. And the
//! status bar (item 13): the model a new turn uses before any turn, one cost
//! wording before and after a turn, and a config that breaks or is fixed
//! while the chat is open.

use std::process::Command;
use std::time::Duration;

use seekclaw_testkit::{Client, ProviderServer, Reply, StartOptions};
use serde_json::{Value, json};

use crate::support::bin;
use crate::support::screen::{Screen, WAIT, session_of};
use crate::support::turns::setup;

/// An answer streaming `n` words, 100 ms apart; the whole text.
fn slow(word: &str, n: usize) -> (Reply, String) {
    let mut r = Reply::new().chunk_delay(Duration::from_millis(100));
    let mut text = String::new();
    for i in 0..n {
        r = r.text(format!("{word}{i} "));
        text.push_str(&format!("{word}{i} "));
    }
    (r, text)
}

impl Screen {
    /// The pid of the process in the pane (the chat).
    fn pane_pid(&self) -> i32 {
        let pid: i32 = self
            .tmux(&["display-message", "-p", "-t", "main", "#{pane_pid}"])
            .trim()
            .parse()
            .unwrap();
        seekclaw_testkit::wait_until("the pane to run the chat", WAIT, || {
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            String::from_utf8_lossy(&cmdline).contains("chat")
        });
        pid
    }

    fn status(&self) -> String {
        self.capture()
            .lines()
            .last()
            .unwrap_or_default()
            .to_string()
    }
}

/// A socket client watching `sid`, once its watch carries the running turn.
fn watching(c: &mut Client, sid: &str) -> i64 {
    let watch = c
        .send("session.watch", json!({"id": sid, "global": true}))
        .unwrap();
    loop {
        let env = c.next_envelope().unwrap();
        if env["id"] == watch && env["event"] == "delta" {
            return watch;
        }
    }
}

/// The watch's `turn_end`.
fn turn_end(c: &mut Client, watch: i64) -> Value {
    loop {
        let env = c.next_envelope().unwrap();
        if env["id"] == watch && env["event"] == "turn_end" {
            return env;
        }
    }
}

#[test]
fn quit_during_a_turn_asks_and_a_kept_turn_ends_in_the_window_that_watches_it() {
    let server = ProviderServer::start().unwrap();
    let (reply, _) = slow("w", 30);
    server.enqueue(reply);
    let d = setup(&server, StartOptions::default());
    // The pane stays after the chat exits, to read what it printed.
    let first = Screen::start_then(&d.home, None, &["chat", "--global"], "; sleep 60");
    first.wait_for("Ask anything");
    first.submit("long");
    let sid = session_of(&first.wait_for("w1 "));
    // A second window on the same session shows the turn as it runs, from
    // its start (the watch replays what streamed before it opened).
    let second = Screen::chat(&d.home, &["--global", "--session", &sid]);
    let joined = second.wait_for("a turn started by chat is running");
    assert!(
        joined.contains("› long") && joined.contains("w0 w1 "),
        "{joined}"
    );

    // `/quit` asks; a digit typed right behind it (before the prompt could
    // be read) answers nothing.
    first.submit("/quit");
    first.keys(&["2"]);
    let asked = first.wait_for("Quit? A turn of this window is running.");
    assert!(asked.contains("1. Cancel the turn and quit"), "{asked}");
    assert!(
        asked.contains("2. Keep it running in the daemon and quit"),
        "{asked}"
    );
    assert!(asked.contains("3. Stay"), "{asked}");
    first.seen();
    assert!(
        first.capture().contains("Quit? A turn"),
        "{}",
        first.capture()
    );
    // Enter with nothing picked in the prompt confirms nothing either.
    first.keys(&["Enter"]);
    first.wait_for("pick a choice first");
    // Esc stays: the turn goes on here.
    first.keys(&["Escape"]);
    first.wait("the prompt to close", |s| !s.contains("Quit? A turn"));
    first.wait_for("w8 ");

    first.keys(&["C-d"]);
    first.wait_for("Quit? A turn of this window is running.");
    first.seen();
    first.keys(&["Down", "Down", "Enter"]);
    // Said on the restored terminal: where the kept turn can be seen.
    let said = first.wait_for("The turn keeps running in the daemon;");
    assert!(
        said.contains(&format!("seekclaw --global --resume {sid}")),
        "{said}"
    );

    // The daemon runs the turn to its end; the watching window shows it.
    let ended = second.wait("the kept turn's end", |s| {
        s.contains("w29") && s.lines().last().is_some_and(|l| l.contains("idle"))
    });
    assert!(!ended.contains("(cancelled)"), "{ended}");
    let status = ended.lines().last().unwrap();
    assert!(
        !status.contains("is running"),
        "the watched turn ended: {status}"
    );
    second.submit("/quit");
    second.wait_exit();
}

#[test]
fn a_killed_window_leaves_its_turn_running_and_cancel_and_quit_cancels() {
    let server = ProviderServer::start().unwrap();
    let (reply, text) = slow("k", 15);
    server.enqueue(reply);
    let d = setup(&server, StartOptions::default());
    let mut w = d.connect().unwrap();

    // The window vanishes (kill -9): its turn runs on; the watcher sees its end.
    let first = Screen::chat(&d.home, &["--global"]);
    first.wait_for("Ask anything");
    let pid = first.pane_pid();
    first.submit("long");
    let sid = session_of(&first.wait_for("k1 "));
    let watch = watching(&mut w, &sid);
    // SAFETY: a signal to the chat this test started.
    unsafe { libc::kill(pid, libc::SIGKILL) };
    first.wait_exit();
    let end = turn_end(&mut w, watch);
    assert_eq!(
        (end["details"]["outcome"].as_str(), end["data"].as_str()),
        (Some("done"), Some(text.as_str())),
        "{end}"
    );

    // "Cancel the turn and quit" cancels it.
    let (reply, _) = slow("c", 100);
    server.enqueue(reply);
    let again = Screen::chat(&d.home, &["--global", "--session", &sid]);
    again.wait_for("Ask anything");
    again.submit("more");
    again.wait_for("c1 ");
    again.keys(&["C-d"]);
    again.wait_for("Quit? A turn of this window is running.");
    again.seen();
    again.keys(&["1"]);
    again.wait_exit();
    let end = turn_end(&mut w, watch);
    assert_eq!(end["details"]["outcome"], "cancelled", "{end}");
}

#[test]
fn the_status_bar_shows_the_model_a_new_turn_uses_one_cost_wording_and_the_configs_state() {
    let server = ProviderServer::start().unwrap();
    server.enqueue(Reply::plain("hello there").usage(10, 0, 2));
    let d = setup(&server, StartOptions::default());
    let screen = Screen::chat(&d.home, &["--global"]);
    // Before any turn: the configured default, and the cost as it will read
    // after a turn (the test model has no prices).
    let before = screen.wait("the model and the cost", |s| {
        let status = s.lines().last().unwrap_or_default();
        status.contains("tk/m1") && status.contains("cost unknown")
    });
    assert!(!before.contains("no model yet"), "{before}");
    assert!(!before.contains('$'), "{before}");
    screen.submit("hi");
    screen.wait_for("hello there");
    let after = screen.wait("the turn's end", |s| {
        s.lines().last().is_some_and(|l| l.contains("idle"))
    });
    let status = after.lines().last().unwrap();
    assert!(
        status.contains("tk/m1") && status.contains("↑10 ↓2 cost unknown"),
        "{status}"
    );

    // Another process changes the default: the bar follows.
    let used = Command::new(bin())
        .args(["model", "use", "tk/eyes"])
        .env("SEEKCLAW_HOME", &d.home)
        .output()
        .unwrap();
    assert!(used.status.success(), "{used:?}");
    screen.wait("the new default", |s| {
        s.lines().last().is_some_and(|l| l.contains("tk/eyes"))
    });

    // The file breaks, then is fixed, while the chat is open.
    let path = d.home.join("config.json");
    let good = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, good.replacen(",\n", "\n", 1)).unwrap();
    let broken = screen.wait_for("config.json unreadable (last good in use)");
    assert!(broken.contains("expected comma"), "{broken}");
    std::fs::write(&path, &good).unwrap();
    screen.wait_for("The config files read cleanly again.");
    screen.wait("the bar to drop the problem", |s| {
        !s.lines().last().unwrap_or_default().contains("unreadable")
    });
    assert!(screen.status().contains("tk/eyes"), "{}", screen.status());
    screen.submit("/quit");
    screen.wait_exit();
}
