//! Who may connect, and nothing slow holding others up.

use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::json;

use crate::support::start;

/// Connects as `uid`, sends a ping and prints everything read until EOF.
const PEER: &str = r#"
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
try:
    s.sendall(b'{"id":1,"method":"ping"}\n')
except OSError:
    pass
s.settimeout(5)
out = b''
while True:
    try:
        chunk = s.recv(4096)
    except OSError:
        break
    if not chunk:
        break
    out += chunk
sys.stdout.write(out.decode())
"#;

#[test]
fn only_the_owner_connects_even_through_a_loosened_socket() {
    // Connecting as another user needs root.
    if seekclaw_testkit::capability_missing("root", seekclaw_testkit::not_root()) {
        return;
    }
    let d = start();
    // Everything on the way to the socket opened up, as a careless chmod would.
    let open = |p: &std::path::Path, mode| {
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap()
    };
    open(d.home.parent().unwrap(), 0o755);
    open(&d.home, 0o755);
    open(&d.socket, 0o666);
    let out = Command::new("python3")
        .arg("-c")
        .arg(PEER)
        .arg(&d.socket)
        .uid(65534)
        .gid(65534)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains(r#""code":"forbidden""#), "{text}");
    assert!(!text.contains("pong"), "{text}");
    // The owner (and root) still get in.
    let mut c = d.connect().unwrap();
    assert_eq!(c.request("ping", json!({})).unwrap()["event"], "pong");
}

#[test]
fn an_mcp_server_that_never_answers_holds_up_no_other_request() {
    let d = crate::support::start_with(seekclaw_testkit::StartOptions {
        config: Some(json!({"mcp": {"connectTimeoutSeconds": 5}})),
        ..Default::default()
    });
    let mut c = d.connect().unwrap();
    let sid = c.ok("session.new", json!({"global": true})).unwrap();
    // A stdio server that never initializes: the upsert waits for its
    // connect timeout before it answers. Its process running (found by a
    // unique argument) says the upsert is in that wait.
    let seconds = format!("30.{}", std::process::id());
    let upsert = c
        .send(
            "mcp.upsert",
            json!({"name": "mute", "scope": "global",
                   "server": {"transport": "stdio", "command": "sleep", "args": [seconds]}}),
        )
        .unwrap();
    crate::support::wait_marker(&format!("sleep {seconds}"));
    let mut other = d.connect().unwrap();
    let started = Instant::now();
    let env = other
        .request(
            "session.update",
            json!({"id": sid, "global": true, "title": "renamed"}),
        )
        .unwrap();
    let waited = started.elapsed();
    assert_eq!(env["event"], "result", "{env}");
    assert!(
        waited < Duration::from_millis(50),
        "session.update waited {waited:?} behind the MCP connect"
    );
    // The upsert itself still answers, once its server had its chance.
    let all = c.collect(upsert).unwrap();
    assert_eq!(all.last().unwrap()["event"], "result");
}

#[test]
fn a_big_multi_edit_does_not_stall_another_sessions_stream() {
    use seekclaw_testkit::{ProviderServer, Reply};
    let server = ProviderServer::start().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("plain");
    std::fs::create_dir_all(&ws).unwrap();
    // 16 MB with 100 distinct markers spread through it.
    let mut text = String::with_capacity(17 << 20);
    for i in 0..100 {
        text.push_str(&"filler line of some text\n".repeat(6700));
        text.push_str(&format!("marker {i:03}\n"));
    }
    std::fs::write(ws.join("big.txt"), &text).unwrap();
    let edits: Vec<_> = (0..100)
        .map(|i| json!({"old_string": format!("marker {i:03}"), "new_string": format!("edited {i:03}")}))
        .collect();
    let args = json!({"path": "big.txt", "edits": edits}).to_string();
    // B streams a steady trickle for a long while; A edits meanwhile.
    let mut trickle = Reply::new().chunk_delay(Duration::from_millis(10));
    for i in 0..6000 {
        trickle = trickle.text(format!("{i} "));
    }
    server.enqueue(trickle.finish("stop"));
    server.enqueue(Reply::new().tool_call("call_1", "multi_edit", args));
    server.enqueue(Reply::plain("edited"));
    let d = crate::support::turns::setup(&server, seekclaw_testkit::StartOptions::default());
    let w = ws.display().to_string();

    let mut b = d.connect().unwrap();
    let b_sid = b.ok("session.new", json!({"workspace": w})).unwrap();
    let a_sid = b.ok("session.new", json!({"workspace": w})).unwrap();
    let b_id = b
        .send(
            "chat",
            json!({"message": "talk", "workspace": w, "sessionId": b_sid}),
        )
        .unwrap();
    let b_first = b.wait_for("delta").unwrap();
    assert_eq!(b_first["id"], b_id);
    let mut b_writer = b.stream().try_clone().unwrap();
    let seen = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counted = seen.clone();
    let reader = std::thread::spawn(move || {
        let mut arrivals = Vec::new();
        loop {
            let env = b.next_envelope().unwrap();
            let at = Instant::now();
            match env["event"].as_str().unwrap() {
                "delta" => {
                    arrivals.push(at);
                    counted.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                }
                "done" | "error" | "cancelled" => return (arrivals, env),
                _ => {}
            }
        }
    });
    let mut a = d.connect().unwrap();
    let a_id = a
        .send(
            "chat",
            json!({"message": "edit it", "workspace": w, "sessionId": a_sid}),
        )
        .unwrap();
    let (mut started, mut finished) = (None, None);
    loop {
        let env = a.next_envelope().unwrap();
        assert_eq!(env["id"], a_id);
        match env["event"].as_str().unwrap() {
            "tool_start" => started = Some(Instant::now()),
            "tool_done" => {
                finished = Some(Instant::now());
                assert_eq!(env["details"]["success"], true, "{env}");
            }
            "done" => break,
            "error" => panic!("{env}"),
            _ => {}
        }
    }
    // B streams on past the edit (the second delta counted from here arrived
    // after `finished`): then stop it.
    let at_finish = seen.load(std::sync::atomic::Ordering::SeqCst);
    seekclaw_testkit::wait_until("B to stream past the edit", Duration::from_secs(20), || {
        seen.load(std::sync::atomic::Ordering::SeqCst) >= at_finish + 2
    });
    std::io::Write::write_all(
        &mut b_writer,
        format!(
            "{}\n",
            json!({"id": 99, "method": "agent.cancel", "params": {"requestId": b_id}})
        )
        .as_bytes(),
    )
    .unwrap();
    let (arrivals, b_end) = reader.join().unwrap();
    assert_eq!(b_end["event"], "cancelled", "{b_end}");
    let (started, finished) = (started.unwrap(), finished.unwrap());
    assert!(
        arrivals.last().unwrap() > &finished,
        "B's stream must outlast the edit for the test to measure anything"
    );
    let during: Vec<Instant> = arrivals
        .into_iter()
        .filter(|t| *t >= started && *t <= finished + Duration::from_millis(100))
        .collect();
    let worst = during
        .windows(2)
        .map(|w| w[1] - w[0])
        .max()
        .unwrap_or_default();
    let took = finished - started;
    eprintln!(
        "multi_edit took {took:?}; B's worst gap meanwhile {worst:?} over {} deltas",
        during.len()
    );
    // The defect stalled B for the whole edit (seconds). Alone, the worst gap
    // is 20-30 ms (the 50 ms target); beside other tests on two cores the
    // scheduler alone can delay a thread ~100 ms, so the test asserts what
    // separates the two cleanly: B kept streaming at half its pace or more
    // (one delta per 10 ms) and never stopped for a quarter of a second.
    let expected = took.as_millis() as usize / 10;
    assert!(
        during.len() * 2 >= expected,
        "another session got {} deltas during a {took:?} edit (expected about {expected})",
        during.len()
    );
    assert!(
        worst < Duration::from_millis(250),
        "another session's events stalled {worst:?} behind a big edit"
    );
    let edited = std::fs::read_to_string(ws.join("big.txt")).unwrap();
    assert_eq!(edited.matches("edited ").count(), 100);
}

#[test]
fn a_hung_mcp_server_holds_up_turns_only_briefly() {
    use seekclaw_testkit::{ProviderServer, Reply};
    let server = ProviderServer::start().unwrap();
    server.set_default(Reply::plain("ok"));
    let d = crate::support::turns::setup(
        &server,
        seekclaw_testkit::StartOptions {
            config: Some(json!({"mcp": {"connectTimeoutSeconds": 30}})),
            ..Default::default()
        },
    );
    let mut c = d.connect().unwrap();
    // Pending for its whole connect timeout: the server never initializes
    // (its process running, found by a unique argument, says it is pending).
    let seconds = format!("60.{}", std::process::id());
    c.send(
        "mcp.upsert",
        json!({"name": "mute", "scope": "global",
               "server": {"transport": "stdio", "command": "sleep", "args": [seconds]}}),
    )
    .unwrap();
    crate::support::wait_marker(&format!("sleep {seconds}"));
    let mut other = d.connect().unwrap();
    let started = Instant::now();
    let all = crate::support::turns::chat(&mut other, json!({"message": "hi", "global": true}));
    let waited = started.elapsed();
    assert_eq!(all.last().unwrap()["event"], "done");
    // Waited for the server's first attempt at most a few seconds, not its 30 s.
    assert!(
        waited < Duration::from_secs(10),
        "the chat waited {waited:?}"
    );
}
