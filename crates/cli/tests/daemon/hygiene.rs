//! Small things a new user meets: daemon logs carry colour only on a
//! terminal, `elapsedMs` is a whole number of milliseconds, and the shell
//! sandbox's private temp dir does not outlive its turn.

use std::process::Command;
use std::time::{Duration, Instant};

use seekclaw_testkit::{ProviderServer, Reply, StartOptions};
use serde_json::{Value, json};

use crate::bin;
use crate::chat::{chat, events, setup};

#[test]
fn daemon_logs_carry_colour_codes_only_on_a_terminal() {
    // Off a terminal (a file, as `seekclaw chat` logs its daemon): plain text.
    let d = crate::start();
    let mut c = d.connect().unwrap();
    c.request("ping", json!({})).unwrap();
    let log = d.stderr();
    assert!(log.contains("seekclaw daemon listening"), "{log}");
    assert!(
        !log.contains('\u{1b}'),
        "colour codes in a log file: {log:?}"
    );
    drop(d);

    // On a terminal (tmux): coloured.
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let socket = format!("seekclaw-ansi-{}", std::process::id());
    let tmux = |args: &[&str]| {
        let out = Command::new("tmux")
            .args(["-L", &socket])
            .args(args)
            .output()
            .expect("tmux runs");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let command = format!(
        "env SEEKCLAW_HOME='{}' RUST_LOG=info '{}' daemon",
        home.display(),
        bin().display()
    );
    tmux(&[
        "-f",
        "/dev/null",
        "new-session",
        "-d",
        "-x",
        "150",
        "-y",
        "20",
        "-s",
        "main",
        &command,
    ]);
    let start = Instant::now();
    let screen = loop {
        let screen = tmux(&["capture-pane", "-p", "-e", "-t", "main"]);
        if screen.contains("listening") {
            break screen;
        }
        if start.elapsed() > Duration::from_secs(20) {
            tmux(&["kill-server"]);
            panic!("no log line on the terminal: {screen:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let mut c = seekclaw_testkit::Client::connect(&home.join("daemon.sock")).unwrap();
    assert_eq!(c.request("shutdown", json!({})).unwrap()["event"], "bye");
    tmux(&["kill-server"]);
    assert!(
        screen.contains("\u{1b}["),
        "no colour on a terminal: {screen:?}"
    );
}

/// Every `elapsedMs` in `all`, checked to be a JSON integer.
fn integer_elapsed(all: &[Value]) -> usize {
    let usage = events(all, "usage");
    for e in &usage {
        let ms = &e["details"]["elapsedMs"];
        assert!(ms.is_u64(), "elapsedMs is not an integer: {e}");
    }
    usage.len()
}

#[test]
fn elapsed_ms_is_an_integer_on_the_socket_and_in_run_json() {
    let server = ProviderServer::start().unwrap();
    // A reply that takes a fraction of a millisecond more than a whole one.
    server.enqueue(
        Reply::new()
            .chunk_delay(Duration::from_micros(1300))
            .text("a")
            .text("b")
            .usage(10, 0, 2),
    );
    let d = setup(&server, StartOptions::default());
    let mut c = d.connect().unwrap();
    let all = chat(&mut c, json!({"message": "hi", "global": true}));
    assert_eq!(integer_elapsed(&all), 1, "{all:?}");

    server.enqueue(Reply::plain("from run").usage(10, 0, 2));
    let out = Command::new(bin())
        .args(["run", "--global", "--json", "hi"])
        .env("SEEKCLAW_HOME", &d.home)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(integer_elapsed(&lines), 1, "{text}");
}
