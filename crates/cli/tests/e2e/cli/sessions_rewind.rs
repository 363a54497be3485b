//! `seekclaw sessions checkpoints|rewind|fork` (issue 38) and doctor's
//! `Checkpoints` line: in this process with no daemon, and through a running
//! daemon, sessions made by real `seekclaw run` turns that edit files.

use std::path::Path;

use seekclaw_testkit::{DaemonProcess, ProviderServer, Reply, StartOptions};
use serde_json::Value;

use super::sessions::{config, fails, home, ok};
use crate::support::{bin, no_sandbox, project_dir};

/// One `run` turn that edits `a.txt` and writes `new.txt`.
fn editing_run(server: &ProviderServer, home: &Path, ws: &Path, session: Option<&str>) {
    server.enqueue(Reply::new().tool_call(
        "e1",
        "edit_file",
        r#"{"path":"a.txt","old_string":"two","new_string":"TWO"}"#,
    ));
    server.enqueue(Reply::new().tool_call(
        "w1",
        "write_file",
        r#"{"path":"new.txt","content":"agent\n"}"#,
    ));
    server.enqueue(Reply::plain("edited"));
    let w = ws.to_str().unwrap();
    let mut args = vec!["run", "edit a.txt", "--workspace", w];
    if let Some(id) = session {
        args.extend(["--session", id]);
    }
    ok(ws, home, &args);
}

fn only_session(home: &Path, ws: &Path) -> String {
    let listed: Value =
        serde_json::from_str(&ok(ws, home, &["sessions", "list", "--json"])).unwrap();
    listed[0]["id"].as_str().unwrap().to_string()
}

/// The TURN of the session's checkpoints (its one user message's seq).
fn turn_of(home: &Path, ws: &Path, id: &str) -> String {
    let list: Value =
        serde_json::from_str(&ok(ws, home, &["sessions", "checkpoints", id, "--json"])).unwrap();
    list[0]["turnSeq"].as_u64().unwrap().to_string()
}

fn read(ws: &Path, name: &str) -> String {
    std::fs::read_to_string(ws.join(name)).unwrap()
}

#[test]
fn checkpoints_rewind_and_fork_from_the_command_line() {
    if no_sandbox() {
        return;
    }
    let server = ProviderServer::start().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let home = home(tmp.path(), "home", &server);
    let ws = project_dir(tmp.path(), "proj");
    std::fs::write(ws.join("a.txt"), "one\ntwo\n").unwrap();
    editing_run(&server, &home, &ws, None);
    let id = only_session(&home, &ws);
    let prefix = &id[..id.len() - 2];

    let table = ok(&ws, &home, &["sessions", "checkpoints", prefix]);
    let heading = table.lines().next().unwrap();
    assert!(
        heading.starts_with("SEQ") && heading.contains("TURN") && heading.contains("+/-"),
        "{table}"
    );
    assert!(table.contains(" turn "), "{table}");
    assert!(
        table.contains(&format!("sessions rewind {id} --to TURN")),
        "{table}"
    );
    let turn = turn_of(&home, &ws, &id);

    // The user's own edit after the turn stops a rewind and is left alone.
    std::fs::write(ws.join("a.txt"), "mine\n").unwrap();
    let err = fails(
        &ws,
        &home,
        &["sessions", "rewind", prefix, "--to", &turn, "--code"],
    );
    assert!(err.contains("a.txt") && err.contains("--force"), "{err}");
    assert_eq!(read(&ws, "a.txt"), "mine\n");
    assert!(ws.join("new.txt").exists());
    let dry = ok(
        &ws,
        &home,
        &[
            "sessions",
            "rewind",
            &id,
            "--to",
            &turn,
            "--code",
            "--dry-run",
        ],
    );
    assert!(dry.contains("Dry run"), "{dry}");
    // The unified diff of what it would do, and the conflict named.
    assert!(
        dry.contains("--- a/new.txt") && dry.contains("-agent"),
        "{dry}"
    );
    assert!(dry.contains("--force overwrites them):\n  a.txt"), "{dry}");
    assert_eq!(read(&ws, "a.txt"), "mine\n");
    let done = ok(
        &ws,
        &home,
        &[
            "sessions", "rewind", &id, "--to", &turn, "--code", "--force",
        ],
    );
    assert!(done.contains("file(s) restored:"), "{done}");
    assert!(done.contains("new.txt"), "{done}");
    assert_eq!(read(&ws, "a.txt"), "one\ntwo\n");
    assert!(!ws.join("new.txt").exists());

    // A conversation rewind gives the message back with how to resend it.
    let back = ok(
        &ws,
        &home,
        &["sessions", "rewind", &id, "--to", &turn, "--conversation"],
    );
    assert!(back.contains("edit a.txt"), "{back}");
    assert!(back.contains(&format!("--resume {id}")), "{back}");
    let shown = ok(&ws, &home, &["sessions", "show", &id, "--model-view"]);
    assert!(!shown.contains("edit a.txt"), "{shown}");

    // Fork: a new session, marked in the list.
    server.enqueue(Reply::plain("one"));
    ok(&ws, &home, &["run", "first", "--session", &id]);
    server.enqueue(Reply::plain("two"));
    ok(&ws, &home, &["run", "second", "--session", &id]);
    let messages: Value = serde_json::from_str(&ok(
        &ws,
        &home,
        &["sessions", "show", &id, "--model-view", "--json"],
    ))
    .unwrap();
    let second = messages
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["content"] == "second")
        .unwrap()["seq"]
        .to_string();
    let forked = ok(&ws, &home, &["sessions", "fork", &id, "--at", &second]);
    assert!(forked.contains("new session"), "{forked}");
    assert!(forked.contains("second"), "{forked}");
    let listed: Value =
        serde_json::from_str(&ok(&ws, &home, &["sessions", "list", "--json"])).unwrap();
    let fork = listed
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["forkedFrom"]["sessionId"] == id.as_str())
        .unwrap();
    assert!(forked.contains(fork["id"].as_str().unwrap()), "{forked}");
    let table = ok(&ws, &home, &["sessions", "list"]);
    assert!(table.contains("⑂"), "{table}");

    // Doctor shows the store's size.
    let doctor = ok(&ws, &home, &["doctor"]);
    let line = doctor
        .lines()
        .find(|l| l.contains("Checkpoints"))
        .unwrap_or_else(|| panic!("{doctor}"));
    assert!(
        line.contains("store") && line.contains("checkpoints.db"),
        "{line}"
    );
}

#[test]
fn with_a_daemon_running_the_rewind_goes_through_it() {
    if no_sandbox() {
        return;
    }
    let server = ProviderServer::start().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let home = home(tmp.path(), "home", &server);
    let ws = project_dir(tmp.path(), "proj");
    std::fs::write(ws.join("a.txt"), "one\ntwo\n").unwrap();
    editing_run(&server, &home, &ws, None);
    let id = only_session(&home, &ws);
    let turn = turn_of(&home, &ws, &id);
    let opts = StartOptions {
        config: Some(config(&server)),
        ..StartOptions::default()
    };
    let daemon = DaemonProcess::spawn(bin(), &home, &opts).unwrap();
    let mut c = daemon.connect().unwrap();
    let w = ws.display().to_string();
    let watch = c
        .send(
            "session.watch",
            serde_json::json!({"id": id, "workspace": w}),
        )
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(200));
    let done = ok(
        &ws,
        &home,
        &["sessions", "rewind", &id, "--to", &turn, "--code"],
    );
    assert!(done.contains("file(s) restored:"), "{done}");
    assert_eq!(read(&ws, "a.txt"), "one\ntwo\n");
    // The daemon did it: its watcher saw the rewind's checkpoint.
    let env = loop {
        let env = c.next_envelope().unwrap();
        if env["id"] == watch && env["event"] == "checkpoint" {
            break env;
        }
    };
    let note: Value = serde_json::from_str(env["data"].as_str().unwrap()).unwrap();
    assert_eq!(note["kind"], "rewind");
    let doctor = ok(&ws, &home, &["doctor"]);
    assert!(doctor.contains("through the running daemon"), "{doctor}");
    assert!(
        doctor.lines().any(|l| l.contains("Checkpoints")),
        "{doctor}"
    );
}
