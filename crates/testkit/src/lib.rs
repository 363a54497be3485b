//! Test harness for seekclaw: starts the real `seekclaw daemon` binary with a
//! temporary `SEEKCLAW_HOME` and speaks JSONL over its real socket, and serves
//! scripted OpenAI/Anthropic provider replies over real HTTP ([`ProviderServer`]).
#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used))]

mod chromium;
mod client;
mod daemon;
pub mod edit_corpus;
mod fake_web;
mod provider_server;
mod require;
#[cfg(feature = "schema-check")]
mod schema_check;
mod tmpfs;
mod xvfb;

pub mod mcp_servers;
pub mod oauth_server;

pub use chromium::chromium_args;
pub use client::Client;
pub use daemon::{DaemonProcess, StartOptions};
pub use fake_web::{FakeWeb, WebReply, WebRequest, pages};
pub use provider_server::{BodyMode, ProviderServer, Recorded, Reply, Step, Wire};
pub use require::{
    KUBERNETES_VALIDATE, PYRIGHT, REQUIRE_ENV, capability_missing, kubernetes_validate, not_root,
    program_missing, pyright, required,
};
#[cfg(feature = "schema-check")]
pub use schema_check::check_envelope;
pub use tmpfs::PrivateTmpfs;
pub use xvfb::Xvfb;

/// Whether `pid` still runs: present in `/proc` and neither a zombie nor dead
/// (orphan checks must not count a process that only waits to be reaped).
pub fn process_alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        let state = stat.rsplit(')').next().unwrap_or("").trim_start();
        !state.starts_with('Z') && !state.starts_with('X')
    })
}

/// Polls `ok` (every 10 ms) until it holds; panics naming `what` after
/// `timeout`. The barrier for tests that must wait for something to happen
/// (a process to start, a row to be written) instead of sleeping a guess.
pub fn wait_until(what: &str, timeout: std::time::Duration, mut ok: impl FnMut() -> bool) {
    let deadline = std::time::Instant::now() + timeout;
    while !ok() {
        assert!(
            std::time::Instant::now() < deadline,
            "timed out after {timeout:?} waiting for {what}"
        );
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}
