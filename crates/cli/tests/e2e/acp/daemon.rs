//! `seekclaw acp` beside a running daemon: the editor's connection is handed
//! to the daemon (`connection.upgrade`), so its turns are the daemon's, and
//! other clients watch them live; `--no-daemon` keeps it in its own process.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::Duration;

use seekclaw_testkit::{DaemonProcess, ProviderServer, Reply, StartOptions};
use serde_json::{Value, json};

use crate::support::bin;
use crate::support::turns::setup;

/// A `seekclaw acp` on the daemon's home, spoken to line by line.
struct Acp {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
}

impl Acp {
    fn start(d: &DaemonProcess, args: &[&str]) -> Acp {
        let mut child = Command::new(bin())
            .arg("acp")
            .args(args)
            .env("SEEKCLAW_HOME", &d.home)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        Acp {
            child,
            stdin,
            stdout,
        }
    }

    fn send(&mut self, msg: Value) {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{msg}").unwrap();
        stdin.flush().unwrap();
    }

    fn next(&mut self) -> Value {
        let mut line = String::new();
        assert!(self.stdout.read_line(&mut line).unwrap() > 0, "acp ended");
        serde_json::from_str(&line).unwrap()
    }

    /// The response to request `id`, and the notifications before it;
    /// permission requests on the way are allowed once.
    fn answer(&mut self, id: i64) -> (Value, Vec<Value>) {
        let mut notes = Vec::new();
        loop {
            let msg = self.next();
            if msg["method"] == "session/request_permission" {
                self.send(json!({"jsonrpc": "2.0", "id": msg["id"], "result": {"outcome": {"outcome": "selected", "optionId": "allow_once"}}}));
            } else if msg["id"] == id && msg.get("method").is_none() {
                return (msg, notes);
            }
            notes.push(msg);
        }
    }

    fn new_session(&mut self, cwd: &std::path::Path) -> String {
        self.send(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1, "clientCapabilities": {}}}));
        let (init, _) = self.answer(1);
        assert_eq!(init["result"]["protocolVersion"], 1, "{init}");
        self.send(json!({"jsonrpc": "2.0", "id": 2, "method": "session/new", "params": {"cwd": cwd, "mcpServers": []}}));
        let (new, _) = self.answer(2);
        new["result"]["sessionId"].as_str().unwrap().to_string()
    }

    fn prompt(&mut self, id: i64, sid: &str, text: &str) -> (Value, Vec<Value>) {
        self.send(
            json!({"jsonrpc": "2.0", "id": id, "method": "session/prompt",
                         "params": {"sessionId": sid, "prompt": [{"type": "text", "text": text}]}}),
        );
        self.answer(id)
    }

    /// Ends stdin and waits for the exit code.
    fn close(mut self) -> Option<i32> {
        drop(self.stdin.take());
        self.child.wait().unwrap().code()
    }
}

fn said(notes: &[Value]) -> String {
    notes
        .iter()
        .filter(|n| n["params"]["update"]["sessionUpdate"] == "agent_message_chunk")
        .map(|n| {
            n["params"]["update"]["content"]["text"]
                .as_str()
                .unwrap_or_default()
        })
        .collect()
}

#[test]
fn with_a_daemon_running_the_editors_turns_are_the_daemons_and_are_watched_live() {
    let server = ProviderServer::start().unwrap();
    let d = setup(&server, StartOptions::default());
    let ws = tempfile::tempdir().unwrap();
    let ws_path = ws.path().canonicalize().unwrap();
    let mut acp = Acp::start(&d, &[]);
    let sid = acp.new_session(&ws_path);
    // The session is stored with its first turn.
    server.enqueue(Reply::plain("first"));
    assert_eq!(
        acp.prompt(3, &sid, "hi").0["result"]["stopReason"],
        "end_turn"
    );

    // The desktop watches the editor's session through the daemon.
    let mut w = d.connect().unwrap();
    let watch = w
        .send("session.watch", json!({"id": sid, "workspace": ws_path}))
        .unwrap();
    // `session.watch` acknowledges nothing until it ends.
    std::thread::sleep(Duration::from_millis(200));
    server.enqueue(Reply::new().text("from the ").text("daemon"));
    let (answer, notes) = acp.prompt(4, &sid, "hello");
    assert_eq!(answer["result"]["stopReason"], "end_turn", "{answer}");
    assert_eq!(said(&notes), "from the daemon");
    let mut seen = Vec::new();
    loop {
        let env = w.next_envelope().unwrap();
        if env["id"] != watch {
            continue;
        }
        assert_ne!(env["event"], "error", "{env}");
        let end = env["event"] == "turn_end";
        seen.push(env);
        if end {
            break;
        }
    }
    assert_eq!(seen[0]["event"], "turn_start", "{seen:?}");
    assert_eq!(seen[0]["details"]["origin"], "acp", "{seen:?}");
    assert_eq!(seen.last().unwrap()["data"], "from the daemon");

    // Stdin closing ends the relay cleanly; the daemon stays up for others.
    assert_eq!(acp.close(), Some(0));
    assert_eq!(w.request("ping", json!({})).unwrap()["event"], "pong");
}

#[test]
fn a_daemon_that_stops_mid_session_ends_the_relay_with_an_error() {
    let server = ProviderServer::start().unwrap();
    let d = setup(&server, StartOptions::default());
    let ws = tempfile::tempdir().unwrap();
    let mut acp = Acp::start(&d, &[]);
    let _sid = acp.new_session(&ws.path().canonicalize().unwrap());
    let mut c = d.connect().unwrap();
    c.send("shutdown", json!({})).unwrap();
    let code = acp.child.wait().unwrap().code();
    assert_eq!(code, Some(1), "the editor learns its agent is gone");
}

#[test]
fn no_daemon_keeps_the_editor_in_its_own_process_and_a_second_upgrade_is_refused() {
    let server = ProviderServer::start().unwrap();
    let d = setup(&server, StartOptions::default());
    let ws = tempfile::tempdir().unwrap();
    let ws_path = ws.path().canonicalize().unwrap();
    let mut acp = Acp::start(&d, &["--no-daemon"]);
    let sid = acp.new_session(&ws_path);
    server.enqueue(Reply::plain("in process"));
    let (answer, notes) = acp.prompt(3, &sid, "hello");
    assert_eq!(answer["result"]["stopReason"], "end_turn");
    assert_eq!(said(&notes), "in process");
    assert_eq!(acp.close(), Some(0));
    // The session is in the shared store all the same.
    let mut c = d.connect().unwrap();
    let got = c
        .ok_json("session.get", json!({"id": sid, "workspace": ws_path}))
        .unwrap();
    assert_eq!(got["id"], sid.as_str());

    // Only a connection's first request upgrades it; unknown protocols are named.
    let err = c
        .err("connection.upgrade", json!({"protocol": "acp"}))
        .unwrap();
    assert!(
        err["data"].as_str().unwrap().contains("first request"),
        "{err}"
    );
    let mut fresh = d.connect().unwrap();
    let err = fresh
        .err("connection.upgrade", json!({"protocol": "lsp"}))
        .unwrap();
    assert_eq!(err["details"]["code"], "not_found", "{err}");
    assert!(
        err["data"]
            .as_str()
            .unwrap()
            .contains("this daemon serves: acp"),
        "{err}"
    );
    // The refused upgrade left an ordinary connection.
    assert_eq!(fresh.request("ping", json!({})).unwrap()["event"], "pong");
}

#[test]
fn an_editor_keeps_an_on_demand_daemon_up_and_its_leaving_lets_it_go() {
    let server = ProviderServer::start().unwrap();
    let mut d = setup(
        &server,
        StartOptions {
            args: vec!["--on-demand".into(), "--idle-exit".into(), "1".into()],
            ..StartOptions::default()
        },
    );
    let ws = tempfile::tempdir().unwrap();
    let mut acp = Acp::start(&d, &[]);
    let sid = acp.new_session(&ws.path().canonicalize().unwrap());
    // Idle well past the delay: the editor is a client like any other.
    std::thread::sleep(Duration::from_millis(2500));
    assert!(
        d.try_wait().unwrap().is_none(),
        "the daemon left under an editor"
    );
    server.enqueue(Reply::plain("still here"));
    let (answer, notes) = acp.prompt(3, &sid, "there?");
    assert_eq!(answer["result"]["stopReason"], "end_turn");
    assert_eq!(said(&notes), "still here");
    assert_eq!(acp.close(), Some(0));
    d.wait_exit(Duration::from_secs(10)).unwrap();
}

/// `--no-daemon`: a job that ends after the editor's turn reaches the
/// session's log, and the next prompt reads it.
#[test]
fn standalone_a_job_that_ends_after_its_turn_reaches_the_log_and_the_next_turn() {
    let server = ProviderServer::start().unwrap();
    let d = setup(&server, StartOptions::default());
    let ws = tempfile::tempdir().unwrap();
    let ws_path = ws.path().canonicalize().unwrap();
    let mut acp = Acp::start(&d, &["--no-daemon"]);
    let sid = acp.new_session(&ws_path);
    server.enqueue(Reply::new().tool_call(
        "b1",
        "bash",
        r#"{"command":"sleep 0.5; echo bgdone","run_in_background":true}"#,
    ));
    server.enqueue(Reply::plain("started it"));
    assert_eq!(
        acp.prompt(3, &sid, "start a job").0["result"]["stopReason"],
        "end_turn"
    );
    crate::support::wait_in_log(
        &d.home,
        &sid,
        &["--workspace", ws_path.to_str().unwrap()],
        "bg-1 finished (exit=0)",
    );
    server.enqueue(Reply::plain("it finished"));
    assert_eq!(
        acp.prompt(4, &sid, "and?").0["result"]["stopReason"],
        "end_turn"
    );
    let last = server.requests().last().unwrap().body.to_string();
    assert!(last.contains("bg-1 finished (exit=0)"), "{last}");
    assert_eq!(acp.close(), Some(0));
}
