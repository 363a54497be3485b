//! The daemon `seekclaw chat` starts is on demand: no chat ever stops it
//! (another window may be running a turn on it), and it exits by itself once
//! no client is left, so a quit, a closed terminal, a Ctrl-C or a `kill -9`
//! of the chat leaves nothing behind.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use seekclaw_testkit::{ProviderServer, Reply, StartOptions, process_alive};
use serde_json::json;

use crate::support::bin;
use crate::support::screen::{Screen, WAIT};
use crate::support::turns::setup;

/// The idle delay the tests give the daemon a chat starts.
const IDLE_SECS: u64 = 2;

impl Screen {
    /// `seekclaw chat ARGS` on `home` with `SEEKCLAW_IDLE_EXIT` set, so the
    /// daemon it starts (which inherits it) idles out quickly.
    fn chat_idle(home: &Path, args: &[&str]) -> Screen {
        static N: AtomicUsize = AtomicUsize::new(0);
        let screen = Screen {
            socket: format!(
                "seekclaw-tui-idle-{}-{}",
                std::process::id(),
                N.fetch_add(1, Ordering::Relaxed)
            ),
        };
        let mut command = format!(
            "env SEEKCLAW_IDLE_EXIT={IDLE_SECS} SEEKCLAW_HOME='{}' '{}' chat",
            home.display(),
            bin().display()
        );
        for a in args {
            command.push_str(&format!(" '{a}'"));
        }
        let cwd = std::env::current_dir().unwrap().display().to_string();
        screen.tmux(&[
            "-f",
            "/dev/null",
            "new-session",
            "-d",
            "-x",
            "100",
            "-y",
            "30",
            "-s",
            "main",
            "-c",
            &cwd,
            &command,
        ]);
        screen
    }

    /// The pid of the chat process in the pane (`env` execs it).
    fn chat_pid(&self) -> u32 {
        let pid: u32 = self
            .tmux(&["display-message", "-p", "-t", "main", "#{pane_pid}"])
            .trim()
            .parse()
            .unwrap();
        // Right after `new-session` the pane's process may not have exec'd
        // yet (an empty or a shell's command line): wait for it to be the chat.
        let is_chat = || {
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            String::from_utf8_lossy(&cmdline).contains("chat")
        };
        seekclaw_testkit::wait_until(&format!("pane process {pid} to be the chat"), WAIT, is_chat);
        pid
    }
}

/// A home with the testkit provider configured and no daemon running; the
/// temp dir that holds it.
fn home_without_daemon(server: &ProviderServer) -> (tempfile::TempDir, PathBuf) {
    let mut d = setup(server, StartOptions::default());
    let dir = d.take_tempdir().unwrap();
    let home = d.home.clone();
    let mut c = d.connect().unwrap();
    assert_eq!(c.request("shutdown", json!({})).unwrap()["event"], "bye");
    d.wait_exit(WAIT).unwrap();
    (dir, home)
}

/// The daemon a chat started on `home`: its pid, once its lock names a live
/// process. Killed (by that pid, which this test's chat started) on drop, in
/// case a failing test leaves it.
struct Started(u32);

impl Started {
    fn wait(home: &Path) -> Started {
        let start = Instant::now();
        loop {
            let pid = std::fs::read_to_string(home.join("daemon.lock"))
                .ok()
                .and_then(|s| s.trim().parse::<u32>().ok());
            if let Some(pid) = pid.filter(|p| process_alive(*p)) {
                return Started(pid);
            }
            assert!(start.elapsed() < WAIT, "no daemon was started");
            std::thread::sleep(Duration::from_millis(2));
        }
    }

    fn alive(&self) -> bool {
        process_alive(self.0)
    }

    /// Waits until the daemon has exited; how long that took.
    fn gone_within(&self, limit: Duration) -> Duration {
        let start = Instant::now();
        while self.alive() {
            assert!(
                start.elapsed() < limit,
                "the daemon a chat started still runs after {limit:?}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        start.elapsed()
    }
}

impl Drop for Started {
    fn drop(&mut self) {
        if self.alive() {
            // SAFETY: a signal to the daemon this test's chat started.
            unsafe { libc::kill(self.0 as i32, libc::SIGKILL) };
        }
    }
}

/// Enough to idle out, with room for a loaded machine.
fn idle_limit() -> Duration {
    Duration::from_secs(IDLE_SECS + 10)
}

#[test]
fn chat_starts_an_on_demand_daemon_that_outlives_it_only_until_idle() {
    let server = ProviderServer::start().unwrap();
    server.enqueue(Reply::plain("from a daemon of my own"));
    let (_dir, home) = home_without_daemon(&server);

    let screen = Screen::chat_idle(&home, &["--global"]);
    screen.wait_for("started a daemon for this chat");
    let daemon = Started::wait(&home);
    screen.submit("hello");
    screen.wait_for("from a daemon of my own");
    screen.wait_idle();
    screen.submit("/quit");
    screen.wait_exit();
    // The chat did not stop it: it leaves once the idle delay has passed.
    assert!(daemon.alive(), "the chat stopped the daemon on quit");
    daemon.gone_within(idle_limit());
    assert!(!home.join("daemon.sock").exists());
    let log = std::fs::read_to_string(home.join("logs/daemon-chat.log")).unwrap();
    assert!(
        log.contains("no client connected and nothing running"),
        "{log}"
    );
    assert!(
        !log.contains("\u{1b}["),
        "no colour codes in a log file: {log}"
    );

    // Closing the terminal (SIGHUP) leaves no daemon behind either.
    let screen = Screen::chat_idle(&home, &["--global"]);
    screen.wait_for("started a daemon for this chat");
    let daemon = Started::wait(&home);
    drop(screen);
    daemon.gone_within(idle_limit());

    // A daemon it did not start outlives the chat; a first prompt is sent at once.
    server.enqueue(Reply::plain("answer to the first prompt"));
    let mut other = setup(&server, StartOptions::default());
    let screen = Screen::chat_idle(&other.home, &["--global", "the first prompt"]);
    let shown = screen.wait_for("answer to the first prompt");
    assert!(shown.contains("› the first prompt"), "{shown}");
    assert!(!shown.contains("started a daemon"), "{shown}");
    // Ended: a `/quit` during the turn would ask first.
    screen.wait("the turn's end", |s| {
        s.lines().last().is_some_and(|l| l.contains("idle"))
    });
    screen.submit("/quit");
    screen.wait_exit();
    // Idle-exit timing is the thing under test: past the idle delay.
    std::thread::sleep(Duration::from_secs(IDLE_SECS + 1));
    assert!(other.try_wait().unwrap().is_none(), "the daemon still runs");
    let mut c = other.connect().unwrap();
    assert_eq!(c.request("ping", json!({})).unwrap()["event"], "pong");
}

#[test]
fn quitting_the_chat_that_started_the_daemon_does_not_stop_a_turn_in_another() {
    let server = ProviderServer::start().unwrap();
    let (_dir, home) = home_without_daemon(&server);
    let first = Screen::chat_idle(&home, &["--global"]);
    first.wait_for("started a daemon for this chat");
    let daemon = Started::wait(&home);
    first.wait_for("Ask anything");
    let second = Screen::chat_idle(&home, &["--global"]);
    let shown = second.wait_for("Ask anything");
    assert!(!shown.contains("started a daemon"), "{shown}");

    let mut slow = Reply::new().chunk_delay(Duration::from_millis(100));
    for i in 0..30 {
        slow = slow.text(format!("w{i} "));
    }
    server.enqueue(slow.text("the whole answer").finish("stop"));
    second.submit("a long one");
    second.wait_for("w1 ");
    second.wait_idle();
    first.submit("/quit");
    first.wait_exit();

    let done = second.wait_for("the whole answer");
    assert!(!done.contains("Reconnected"), "{done}");
    assert!(daemon.alive(), "the other window's daemon still runs");
    // Ended: a `/quit` during the turn would ask first.
    second.wait("the turn's end", |s| {
        s.lines().last().is_some_and(|l| l.contains("idle"))
    });
    second.submit("/quit");
    second.wait_exit();
    daemon.gone_within(idle_limit());
}

#[test]
fn a_chat_killed_or_interrupted_right_after_start_leaves_no_daemon() {
    let server = ProviderServer::start().unwrap();
    let (_dir, home) = home_without_daemon(&server);
    for how in ["kill -9", "Ctrl-C"] {
        let screen = Screen::chat_idle(&home, &["--global"]);
        let pid = screen.chat_pid();
        // The moment the daemon exists, before the chat had a chance to do
        // anything else.
        let daemon = Started::wait(&home);
        match how {
            "kill -9" => {
                // SAFETY: a signal to the chat this test started.
                unsafe { libc::kill(pid as i32, libc::SIGKILL) };
            }
            // Before raw mode a SIGINT, after it the key twice (quit).
            _ => screen.keys(&["C-c", "C-c"]),
        }
        screen.wait_exit();
        let took = daemon.gone_within(idle_limit());
        assert!(!home.join("daemon.sock").exists(), "{how}");
        eprintln!("{how}: the daemon left {took:?} after the chat");
    }
}
