//! `seekclaw chat`: the real binary in a real pseudo-terminal (tmux), against
//! the real daemon and the testkit provider. Keys go in with `send-keys`; the
//! screen comes back with `capture-pane`.

use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use seekclaw_testkit::DaemonProcess;
use serde_json::json;

use super::{bin, project_dir};

/// How long a screen is waited for before the test fails.
pub(crate) const WAIT: Duration = Duration::from_secs(20);

/// One tmux server (its own socket) running `seekclaw chat`; killed on drop.
pub(crate) struct Screen {
    pub(crate) socket: String,
}

impl Screen {
    /// `seekclaw chat ARGS` with `home` as its home, in a 100×30 terminal.
    pub(crate) fn chat(home: &Path, args: &[&str]) -> Screen {
        let mut argv = vec!["chat"];
        argv.extend_from_slice(args);
        Screen::start(home, None, &argv)
    }

    /// `seekclaw ARGV` with `home` as its home, in `cwd` (default: the
    /// test's), in a 100×30 terminal.
    pub(crate) fn start(home: &Path, cwd: Option<&Path>, argv: &[&str]) -> Screen {
        Screen::start_then(home, cwd, argv, "")
    }

    /// `seekclaw ARGV` that exits (`run`): its exit code is printed as
    /// `[exit N]` and the pane stays a minute to be read.
    pub(crate) fn exiting(home: &Path, argv: &[&str]) -> Screen {
        Screen::start_then(home, None, argv, "; echo \"[exit $?]\"; sleep 60")
    }

    pub(crate) fn start_then(home: &Path, cwd: Option<&Path>, argv: &[&str], tail: &str) -> Screen {
        Screen::start_env(home, cwd, &[], argv, tail)
    }

    /// [`Screen::start_then`] with `env` (`NAME`, value) set for the program.
    pub(crate) fn start_env(
        home: &Path,
        cwd: Option<&Path>,
        env: &[(&str, &str)],
        argv: &[&str],
        tail: &str,
    ) -> Screen {
        static N: AtomicUsize = AtomicUsize::new(0);
        let socket = format!(
            "seekclaw-tui-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        );
        let vars: String = env.iter().map(|(k, v)| format!(" {k}='{v}'")).collect();
        let mut command = format!(
            "env SEEKCLAW_HOME='{}'{vars} '{}'",
            home.display(),
            bin().display()
        );
        for a in argv {
            command.push_str(&format!(" '{a}'"));
        }
        command.push_str(tail);
        let screen = Screen { socket };
        let here = std::env::current_dir().unwrap();
        let cwd = cwd.unwrap_or(&here).display().to_string();
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

    pub(crate) fn tmux(&self, args: &[&str]) -> String {
        let out = Command::new("tmux")
            .arg("-L")
            .arg(&self.socket)
            .args(args)
            .output()
            .expect("tmux runs");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Types `text` literally.
    pub(crate) fn type_text(&self, text: &str) {
        self.tmux(&["send-keys", "-t", "main", "-l", text]);
    }

    /// Presses keys by tmux name (`Enter`, `C-c`, `PPage`, …).
    pub(crate) fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "main"];
        args.extend_from_slice(keys);
        self.tmux(&args);
    }

    /// Waits until a question just shown has been on screen long enough to
    /// have been read: keys before that count as typed ahead and answer
    /// nothing (the chat's grace is 500 ms).
    pub(crate) fn seen(&self) {
        std::thread::sleep(Duration::from_millis(700));
    }

    /// Waits until the status bar says the chat is idle (its turn ended: a
    /// `/quit` during a turn asks first).
    pub(crate) fn wait_idle(&self) -> String {
        self.wait("the turn's end", |s| {
            s.lines().last().is_some_and(|l| l.contains("idle"))
        })
    }

    /// Types `text` and presses Enter.
    pub(crate) fn submit(&self, text: &str) {
        self.type_text(text);
        self.keys(&["Enter"]);
    }

    pub(crate) fn capture(&self) -> String {
        self.tmux(&["capture-pane", "-p", "-t", "main"])
    }

    /// Waits until the screen satisfies `ok`; returns that screen.
    pub(crate) fn wait(&self, what: &str, ok: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let screen = self.capture();
            if ok(&screen) {
                return screen;
            }
            if start.elapsed() > WAIT {
                panic!("timed out waiting for {what}; the screen:\n{screen}");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Waits until `view` of the screen stops changing (the same three
    /// captures running, 50 ms apart) and returns it: the last frame drawn,
    /// not one caught mid-draw. `view` picks what must settle (a spinner or a
    /// clock elsewhere may keep moving).
    pub(crate) fn settled<T: PartialEq + std::fmt::Debug>(&self, view: impl Fn(&str) -> T) -> T {
        let start = Instant::now();
        let mut last = view(&self.capture());
        let mut same = 0;
        while same < 3 {
            assert!(start.elapsed() < WAIT, "the screen never settled: {last:?}");
            std::thread::sleep(Duration::from_millis(50));
            let now = view(&self.capture());
            if now == last {
                same += 1;
            } else {
                (last, same) = (now, 0);
            }
        }
        last
    }

    pub(crate) fn wait_for(&self, text: &str) -> String {
        self.wait(text, |s| s.contains(text))
    }

    /// Whether the chat process still runs (its tmux session ends with it).
    pub(crate) fn running(&self) -> bool {
        Command::new("tmux")
            .args(["-L", &self.socket, "has-session", "-t", "main"])
            .output()
            .is_ok_and(|o| o.status.success())
    }

    pub(crate) fn wait_exit(&self) {
        let start = Instant::now();
        while self.running() {
            assert!(
                start.elapsed() < WAIT,
                "chat did not exit:\n{}",
                self.capture()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Screen {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["-L", &self.socket, "kill-server"])
            .output();
    }
}

/// A project folder outside the daemon's home, registered as a known
/// project (so the chat does not ask whether to trust it).
pub(crate) fn known_project(
    d: &DaemonProcess,
    name: &str,
) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let project = project_dir(dir.path(), name);
    let mut c = d.connect().unwrap();
    c.ok_json("project.upsert", json!({"path": project}))
        .unwrap();
    (dir, project)
}

/// The row of `screen` that contains `text`.
pub(crate) fn row<'a>(screen: &'a str, text: &str) -> &'a str {
    screen
        .lines()
        .find(|l| l.contains(text))
        .unwrap_or_else(|| panic!("no row with {text:?} in\n{screen}"))
}

/// The session id in the status bar.
pub(crate) fn session_of(screen: &str) -> String {
    let status = screen.lines().last().unwrap_or_default();
    let after = status
        .split("session ")
        .nth(1)
        .unwrap_or_else(|| panic!("no session in {status:?}"));
    after.split_whitespace().next().unwrap().to_string()
}
