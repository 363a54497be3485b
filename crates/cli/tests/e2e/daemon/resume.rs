//! Resumable streams: every event of a session's turn carries a `seq`; a
//! watcher that comes back with `session.watch {afterSeq}` gets what it
//! missed and then the live events, each once, or a `resync` when the
//! daemon no longer keeps them. A detached turn outlives its client's
//! `kill -9`, and another client answers its pending approval.

use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use seekclaw_testkit::{Client, DaemonProcess, ProviderServer, Reply, StartOptions};
use serde_json::{Value, json};

use crate::support::turns::setup;

/// A daemon asking before edits.
fn daemon(server: &ProviderServer, agent: Value) -> DaemonProcess {
    setup(
        server,
        StartOptions {
            config: Some(json!({ "agent": agent })),
            ..StartOptions::default()
        },
    )
}

/// `n` deltas, `delay` apart, starting with `tag`.
fn streamed(tag: &str, n: usize, delay: Duration) -> Reply {
    let mut r = Reply::new().chunk_delay(delay);
    for i in 0..n {
        r = r.text(format!("{tag}{i} "));
    }
    r
}

/// An envelope line without its request id (each watch has its own):
/// the rest, byte for byte.
fn without_id(line: &str) -> String {
    let rest = line
        .strip_prefix("{\"id\":")
        .unwrap_or_else(|| panic!("{line}"));
    let comma = rest.find(',').unwrap();
    rest[comma + 1..].trim_end().to_string()
}

fn seq_of(line: &str) -> u64 {
    let v: Value = serde_json::from_str(line).unwrap();
    v["seq"]
        .as_u64()
        .unwrap_or_else(|| panic!("no seq: {line}"))
}

fn event_of(line: &str) -> String {
    let v: Value = serde_json::from_str(line).unwrap();
    v["event"].as_str().unwrap_or_default().to_string()
}

/// Where a follower of `sid` starts (`session.timeline {follow}`).
fn follow_from(c: &mut Client, sid: &str) -> u64 {
    let t = c
        .ok_json(
            "session.timeline",
            json!({"id": sid, "global": true, "follow": true}),
        )
        .unwrap();
    t["followAfterSeq"]
        .as_u64()
        .unwrap_or_else(|| panic!("{t}"))
}

/// Watches `sid` from `after` and reads lines of that watch until
/// `turn_end`, or until `limit` lines were read (then `false`).
fn watch_lines(
    d: &DaemonProcess,
    sid: &str,
    after: u64,
    limit: usize,
    out: &mut Vec<String>,
) -> bool {
    DaemonRef {
        socket: d.socket.clone(),
    }
    .watch(sid, after, limit, out)
}

/// A tiny xorshift: the same "random" disconnect points on every run.
fn points(seed: u64) -> impl Iterator<Item = usize> {
    let mut x = seed;
    std::iter::from_fn(move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        Some(1 + (x % 7) as usize)
    })
}

#[test]
fn a_watcher_that_keeps_dropping_gets_the_same_events_as_one_that_never_did() {
    let server = ProviderServer::start().unwrap();
    let tick = Duration::from_millis(15);
    server.enqueue(streamed("a", 30, tick).tool_call(
        "w1",
        "write_file",
        r#"{"path":"a.txt","content":"two\n"}"#,
    ));
    server.enqueue(streamed("b", 40, tick));
    let d = daemon(&server, json!({"approvalPolicy": "on-request"}));
    let mut chat = d.connect().unwrap();
    let sid = chat.ok("session.new", json!({"global": true})).unwrap();
    let start = follow_from(&mut chat, &sid);

    // The uninterrupted watcher, and one that drops its connection after a
    // few events, 20 times and more, each time back with its last seq.
    let steady = {
        let (d_sock, sid) = (d.socket.clone(), sid.clone());
        std::thread::spawn(move || {
            let mut c = Client::connect(&d_sock).unwrap();
            let id = c
                .send(
                    "session.watch",
                    json!({"id": sid, "global": true, "afterSeq": start}),
                )
                .unwrap();
            let mut lines = Vec::new();
            loop {
                let line = c.read_line().unwrap();
                let v: Value = serde_json::from_str(&line).unwrap();
                if v["id"].as_i64() == Some(id) {
                    lines.push(line);
                    if v["event"] == "turn_end" {
                        return lines;
                    }
                }
            }
        })
    };
    let reattached = Arc::new(AtomicUsize::new(0));
    let dropping = {
        let (d_sock, sid, count) = (d.socket.clone(), sid.clone(), reattached.clone());
        std::thread::spawn(move || {
            let d = DaemonRef { socket: d_sock };
            let mut lines: Vec<String> = Vec::new();
            for k in points(0x5eed_c1a5) {
                let after = lines.last().map_or(start, |l| seq_of(l));
                if d.watch(&sid, after, k, &mut lines) {
                    return lines;
                }
                count.fetch_add(1, Ordering::SeqCst);
            }
            unreachable!()
        })
    };

    let id = chat
        .send(
            "chat",
            json!({"message": "stream", "sessionId": sid, "global": true,
                   "approvals": true, "detach": true}),
        )
        .unwrap();
    let mut own = Vec::new();
    let ask = loop {
        let v = chat.next_envelope().unwrap();
        if v["id"].as_i64() == Some(id) {
            own.push(v.clone());
            if v["event"] == "approval_request" {
                break v;
            }
        }
    };
    // Steered and approved while the dropping watcher is away and back.
    wait_until(|| reattached.load(Ordering::SeqCst) >= 8);
    chat.ok(
        "agent.steer",
        json!({"sessionId": sid, "message": "and mind the tests"}),
    )
    .unwrap();
    wait_until(|| reattached.load(Ordering::SeqCst) >= 12);
    let approval = ask["details"]["approvalId"].as_str().unwrap();
    chat.ok(
        "agent.approve",
        json!({"sessionId": sid, "approvalId": approval, "decision": "allow_once"}),
    )
    .unwrap();
    own.extend(chat.collect(id).unwrap());
    assert_eq!(own.last().unwrap()["event"], "done", "{own:?}");

    let steady = steady.join().unwrap();
    let dropped = dropping.join().unwrap();
    assert!(
        reattached.load(Ordering::SeqCst) >= 20,
        "reattached {} times",
        reattached.load(Ordering::SeqCst)
    );
    let names: Vec<String> = steady.iter().map(|l| event_of(l)).collect();
    for want in [
        "turn_start",
        "delta",
        "tool_start",
        "approval_request",
        "approval_resolved",
        "tool_done",
        "steer",
        "turn_end",
    ] {
        assert!(names.iter().any(|n| n == want), "no {want} in {names:?}");
    }
    let a: Vec<String> = steady.iter().map(|l| without_id(l)).collect();
    let b: Vec<String> = dropped.iter().map(|l| without_id(l)).collect();
    assert_eq!(a.len(), b.len(), "{a:#?}\n{b:#?}");
    for (i, (x, y)) in a.iter().zip(&b).enumerate() {
        assert_eq!(x, y, "event {i} differs");
    }
    // The seqs only grow, and the chat's own stream carries the same ones.
    let seqs: Vec<u64> = steady.iter().map(|l| seq_of(l)).collect();
    assert!(seqs.windows(2).all(|w| w[0] < w[1]), "{seqs:?}");
    let own_seqs: Vec<u64> = own.iter().filter_map(|e| e["seq"].as_u64()).collect();
    assert_eq!(
        own_seqs.len(),
        own.len(),
        "every chat envelope has a seq: {own:?}"
    );
    let own_deltas: Vec<u64> = own
        .iter()
        .filter(|e| e["event"] == "delta")
        .map(|e| e["seq"].as_u64().unwrap())
        .collect();
    let watched_deltas: Vec<u64> = steady
        .iter()
        .filter(|l| event_of(l) == "delta")
        .map(|l| seq_of(l))
        .collect();
    assert_eq!(own_deltas, watched_deltas);
    assert_eq!(
        *own_seqs.last().unwrap(),
        *seqs.last().unwrap(),
        "done is turn_end's seq"
    );
}

/// The socket of a daemon another thread owns.
struct DaemonRef {
    socket: std::path::PathBuf,
}

impl DaemonRef {
    fn watch(&self, sid: &str, after: u64, limit: usize, out: &mut Vec<String>) -> bool {
        let mut c = Client::connect(&self.socket).unwrap();
        let id = c
            .send(
                "session.watch",
                json!({"id": sid, "global": true, "afterSeq": after}),
            )
            .unwrap();
        let mut read = 0;
        while read < limit {
            let line = c.read_line().unwrap();
            let v: Value = serde_json::from_str(&line).unwrap();
            if v["id"].as_i64() != Some(id) {
                continue;
            }
            assert_ne!(v["event"], "resync", "nothing was dropped yet: {line}");
            out.push(line);
            read += 1;
            if v["event"] == "turn_end" {
                return true;
            }
        }
        false
    }
}

fn wait_until(mut done: impl FnMut() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(start.elapsed() < Duration::from_secs(30), "never happened");
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn a_seq_the_daemon_no_longer_keeps_is_a_resync_and_the_watch_goes_on() {
    let server = ProviderServer::start().unwrap();
    server.enqueue(Reply::plain("first"));
    server.enqueue(Reply::plain("second"));
    let d = setup(&server, StartOptions::default());
    let mut c = d.connect().unwrap();
    let sid = c.ok("session.new", json!({"global": true})).unwrap();
    let id = c
        .send(
            "chat",
            json!({"message": "one", "sessionId": sid, "global": true}),
        )
        .unwrap();
    c.collect(id).unwrap();
    // A seq from before this daemon started (or made up): not replayable.
    let w = c
        .send(
            "session.watch",
            json!({"id": sid, "global": true, "afterSeq": 3}),
        )
        .unwrap();
    let resync = c.wait_for("resync").unwrap();
    assert_eq!(resync["id"], w);
    assert_eq!(resync["details"]["afterSeq"], 3);
    let live_after = resync["details"]["seq"].as_u64().unwrap();
    assert!(
        resync["details"]["oldestSeq"].as_u64().unwrap() > 3,
        "{resync}"
    );
    // The watch goes on: another client's turn arrives live, after it.
    let mut other = d.connect().unwrap();
    let id2 = other
        .send(
            "chat",
            json!({"message": "two", "sessionId": sid, "global": true}),
        )
        .unwrap();
    other.collect(id2).unwrap();
    let start = c.wait_for("turn_start").unwrap();
    assert_eq!(start["id"], w);
    assert!(start["seq"].as_u64().unwrap() > live_after);
    assert_eq!(start["data"], "two");
    // A bad afterSeq is a clear error, and the connection stays.
    let bad = c
        .err(
            "session.watch",
            json!({"id": sid, "global": true, "afterSeq": "yesterday"}),
        )
        .unwrap();
    assert_eq!(bad["details"]["code"], "invalid_request", "{bad}");
    assert_eq!(c.request("ping", json!({})).unwrap()["event"], "pong");
}

#[test]
fn the_buffer_keeps_a_long_turn_and_says_resync_past_it() {
    // The buffer keeps 16384 events per session: a turn of 17000 deltas
    // no longer reaches back to its start.
    let server = ProviderServer::start().unwrap();
    let mut r = Reply::new();
    for i in 0..17_000 {
        r = r.text(format!("{i} "));
    }
    server.enqueue(r);
    let d = setup(&server, StartOptions::default());
    let mut c = d.connect().unwrap();
    let sid = c.ok("session.new", json!({"global": true})).unwrap();
    let start = follow_from(&mut c, &sid);
    let id = c
        .send(
            "chat",
            json!({"message": "long", "sessionId": sid, "global": true}),
        )
        .unwrap();
    let own = c.collect(id).unwrap();
    assert!(own.len() > 17_000);
    let mut w = d.connect().unwrap();
    w.send(
        "session.watch",
        json!({"id": sid, "global": true, "afterSeq": start}),
    )
    .unwrap();
    let resync = w.wait_for("resync").unwrap();
    assert_eq!(resync["details"]["afterSeq"], start);
    // From a seq still kept: replayed, up to the end, with no resync.
    let late = own[own.len() - 100]["seq"].as_u64().unwrap();
    let mut lines = Vec::new();
    assert!(watch_lines(&d, &sid, late, 1000, &mut lines));
    assert_eq!(lines.len(), 99, "{lines:?}");
}

/// A client in its own process: chats detached on `sid` with approvals,
/// and stays until killed.
fn detached_client(socket: &std::path::Path, sid: &str) -> Child {
    let script = r#"
import json, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sys.argv[1])
req = {"id": 1, "method": "chat", "params": {"message": "edit", "sessionId": sys.argv[2],
       "global": True, "approvals": True, "detach": True}}
s.sendall((json.dumps(req) + "\n").encode())
buf = b""
while b"approval_request" not in buf:
    chunk = s.recv(65536)
    if not chunk:
        sys.exit(1)
    buf += chunk
print("asked", flush=True)
sys.stdin.read()
"#;
    Command::new("python3")
        .args(["-c", script])
        .arg(socket)
        .arg(sid)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("python3")
}

#[test]
fn a_detached_turn_outlives_its_clients_kill_9_and_another_client_answers_its_approval() {
    let server = ProviderServer::start().unwrap();
    server.enqueue(Reply::new().tool_call(
        "w1",
        "write_file",
        r#"{"path":"a.txt","content":"two\n"}"#,
    ));
    server.enqueue(Reply::plain("Written."));
    let d = daemon(&server, json!({"approvalPolicy": "on-request"}));
    let mut c = d.connect().unwrap();
    let sid = c.ok("session.new", json!({"global": true})).unwrap();
    let mut client = detached_client(&d.socket, &sid);
    let mut said = String::new();
    use std::io::Read;
    let mut out = client.stdout.take().unwrap();
    let mut byte = [0u8; 1];
    while !said.contains("asked") {
        assert_eq!(out.read(&mut byte).unwrap(), 1, "the client ended: {said}");
        said.push(byte[0] as char);
    }
    // SIGKILL, by its pid: its connection just vanishes.
    client.kill().unwrap();
    client.wait().unwrap();
    std::thread::sleep(Duration::from_millis(300));
    // Another client opens the session to follow it: the running turn is
    // replayed from its start, its approval request included.
    let t = c
        .ok_json(
            "session.timeline",
            json!({"id": sid, "global": true, "follow": true}),
        )
        .unwrap();
    let after = t["followAfterSeq"].as_u64().unwrap();
    assert!(
        t["entries"].as_array().unwrap().is_empty(),
        "the running turn is left to the replay: {t}"
    );
    let w = c
        .send(
            "session.watch",
            json!({"id": sid, "global": true, "afterSeq": after}),
        )
        .unwrap();
    let start = c.wait_for("turn_start").unwrap();
    assert_eq!(
        (start["id"].as_i64(), start["data"].as_str()),
        (Some(w), Some("edit"))
    );
    let ask = c.wait_for("approval_request").unwrap();
    let approval = ask["details"]["approvalId"].as_str().unwrap();
    c.ok(
        "agent.approve",
        json!({"sessionId": sid, "approvalId": approval, "decision": "allow_once"}),
    )
    .unwrap();
    let end = c.wait_for("turn_end").unwrap();
    assert_eq!(end["data"], "Written.", "{end}");
    assert_eq!(server.requests().len(), 2);
}
