//! What the black-box tests share: the binary under test, a daemon started
//! from it, and the front-end drivers (socket turns, `serve`, the tmux screen,
//! schedules, a WebDriver session on headless Chromium).

pub(crate) mod schedule;
pub(crate) mod screen;
pub(crate) mod serve;
pub(crate) mod turns;
pub(crate) mod webdriver;

use std::time::{Duration, Instant};

use std::path::{Path, PathBuf};

use seekclaw_testkit::{DaemonProcess, StartOptions};

pub(crate) fn bin() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_seekclaw"))
}

pub(crate) fn start() -> DaemonProcess {
    DaemonProcess::start(bin()).expect("daemon starts")
}

pub(crate) fn start_with(opts: StartOptions) -> DaemonProcess {
    DaemonProcess::start_with(bin(), opts).expect("daemon starts")
}

/// Each line of a `… list` table with its column gaps squeezed to one space
/// (`*  a  openai` → `* a openai`), so tests read rows, not widths.
pub(crate) fn squeezed_lines(text: &str) -> Vec<String> {
    text.lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect()
}

/// A temp directory that looks like a Rust project (a workspace root).
pub(crate) fn project_dir(parent: &Path, name: &str) -> PathBuf {
    let dir = parent.join(name);
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::write(dir.join("Cargo.toml"), "[package]\nname = \"x\"\n").unwrap();
    dir
}

/// Whether a test of the shell sandbox must skip: the kernel lacks what it
/// needs (Landlock, seccomp) and `SEEKCLAW_TEST_REQUIRE` does not name
/// `sandbox` (if it does, this panics instead).
pub(crate) fn no_sandbox() -> bool {
    seekclaw_testkit::capability_missing(
        "sandbox",
        seekclaw_tools::SandboxSupport::probe_cheap().missing(),
    )
}

/// The live process whose command line contains `marker`, waited for. A
/// sandboxed command runs in its own PID namespace, so its `$$` is not the pid
/// seen out here: tests find their processes by a unique argument instead.
pub(crate) fn wait_marker(marker: &str) -> u32 {
    let start = Instant::now();
    loop {
        let found = std::fs::read_dir("/proc").unwrap().flatten().find_map(|e| {
            let pid: u32 = e.file_name().to_str()?.parse().ok()?;
            let cmdline = std::fs::read(e.path().join("cmdline")).ok()?;
            let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            (cmdline.trim() == marker && seekclaw_testkit::process_alive(pid)).then_some(pid)
        });
        if let Some(pid) = found {
            return pid;
        }
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "no process `{marker}`"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Polls `seekclaw sessions show SID` (with `scope`, e.g. `--global` or
/// `--workspace W`) until the session's log holds `needle`; returns the log.
pub(crate) fn wait_in_log(home: &Path, sid: &str, scope: &[&str], needle: &str) -> String {
    let start = Instant::now();
    loop {
        let out = std::process::Command::new(bin())
            .args(["sessions", "show", sid])
            .args(scope)
            .env("SEEKCLAW_HOME", home)
            .output()
            .unwrap();
        let log = String::from_utf8_lossy(&out.stdout).to_string();
        if log.contains(needle) {
            return log;
        }
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "{needle:?} never reached the log of {sid}: {log}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}
