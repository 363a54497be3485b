//! Small things a new user meets: daemon logs carry colour only on a
//! terminal, `elapsedMs` is a whole number of milliseconds, and the shell
//! sandbox's private temp dir does not outlive its turn.

use std::process::Command;
use std::time::{Duration, Instant};

use seekclaw_testkit::{ProviderServer, Reply, StartOptions};
use serde_json::{Value, json};

use crate::support::turns::{chat, events, setup};
use crate::support::{bin, no_sandbox};

#[test]
fn daemon_logs_carry_colour_codes_only_on_a_terminal() {
    // Off a terminal (a file, as `seekclaw chat` logs its daemon): plain text.
    let d = crate::support::start();
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

/// The `$TMPDIR` a sandboxed `bash` call of one turn reported (after writing
/// a file into it), and the turn's events.
fn temp_of_a_turn(
    server: &ProviderServer,
    c: &mut seekclaw_testkit::Client,
    ws: &std::path::Path,
    calls: &[Value],
) -> std::path::PathBuf {
    let before = server.requests().len();
    for (i, args) in calls.iter().enumerate() {
        server.enqueue(Reply::new().tool_call(format!("b{i}"), "bash", args.to_string()));
    }
    server.enqueue(Reply::plain("done"));
    let turn = chat(
        c,
        json!({"message": "use the temp dir", "workspace": ws.to_str().unwrap()}),
    );
    assert_eq!(turn.last().unwrap()["event"], "done", "{turn:?}");
    let requests = server.requests();
    let output = requests[before + 1].body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .filter_map(|m| m["content"].as_str())
        .find(|text| text.contains("TMP="))
        .expect("the command printed its TMPDIR")
        .to_string();
    assert!(output.contains("kept"), "{output}");
    let start = output.find("TMP=").unwrap() + 4;
    let path: String = output[start..]
        .chars()
        .take_while(|ch| !ch.is_whitespace())
        .collect();
    assert!(path.contains("seekclaw-sandbox-"), "{path}");
    std::path::PathBuf::from(path)
}

#[test]
fn the_sandbox_private_temp_dir_goes_when_its_turn_and_jobs_end() {
    if no_sandbox() {
        return;
    }
    let server = ProviderServer::start().unwrap();
    // The test homes lie under the system temp dir: the sandbox gets a
    // private temp dir instead of all of it.
    let d = setup(&server, StartOptions::default());
    let ws = tempfile::tempdir().unwrap();
    let mut c = d.connect().unwrap();
    let write =
        json!({"command": "echo kept > \"$TMPDIR/f\" && cat \"$TMPDIR/f\" && echo TMP=$TMPDIR"});
    let temp = temp_of_a_turn(&server, &mut c, ws.path(), std::slice::from_ref(&write));
    gone_within(&temp, Duration::from_secs(5), "its turn");

    // A background job keeps it until the job ends.
    let job = json!({"command": "exec sleep 2.0444", "run_in_background": true});
    let temp = temp_of_a_turn(&server, &mut c, ws.path(), &[write, job]);
    let pid = crate::support::wait_marker("sleep 2.0444");
    assert!(temp.is_dir(), "removed under a running job");
    let start = Instant::now();
    while seekclaw_testkit::process_alive(pid) {
        assert!(start.elapsed() < Duration::from_secs(20));
        std::thread::sleep(Duration::from_millis(50));
    }
    gone_within(&temp, Duration::from_secs(5), "its job");
}

/// Waits (up to `limit`) for `path` to be removed.
fn gone_within(path: &std::path::Path, limit: Duration, owner: &str) {
    let start = Instant::now();
    while path.exists() {
        assert!(
            start.elapsed() < limit,
            "{} outlived {owner}",
            path.display()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}
