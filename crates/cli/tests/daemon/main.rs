//! Black-box tests of the real `seekclaw daemon` over its real socket.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod approvals;
mod balance;
mod ceiling;
mod chat;
mod cli;
mod client_crate;
mod config;
mod config_safety;
mod doctor_cli;
mod failed_starts;
mod failures;
mod full_disk;
mod goals;
mod hardening;
mod hygiene;
mod implicit_workspace;
mod jobs;
mod language;
mod lifecycle;
mod mcp;
mod named_model;
mod projects;
mod protocol;
mod provider_cli;
mod providers;
mod run_tty;
mod sandbox;
mod schedule;
mod serve;
mod sessions;
mod sessions_cli;
mod skills;
mod timeline;
mod tui;
mod turn_control;
mod turn_tools;
mod watch;
mod workspace;

use std::path::{Path, PathBuf};

use seekclaw_testkit::{DaemonProcess, StartOptions};

pub fn bin() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_seekclaw"))
}

pub fn start() -> DaemonProcess {
    DaemonProcess::start(bin()).expect("daemon starts")
}

pub fn start_with(opts: StartOptions) -> DaemonProcess {
    DaemonProcess::start_with(bin(), opts).expect("daemon starts")
}

/// Each line of a `… list` table with its column gaps squeezed to one space
/// (`*  a  openai` → `* a openai`), so tests read rows, not widths.
pub fn squeezed_lines(text: &str) -> Vec<String> {
    text.lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect()
}

/// A temp directory that looks like a Rust project (a workspace root).
pub fn project_dir(parent: &Path, name: &str) -> PathBuf {
    let dir = parent.join(name);
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::write(dir.join("Cargo.toml"), "[package]\nname = \"x\"\n").unwrap();
    dir
}
