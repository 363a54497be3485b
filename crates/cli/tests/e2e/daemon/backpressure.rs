//! Back-pressure end to end: a client that stops reading holds its turn still,
//! and with it the provider's stream, which then waits in kernel buffers instead
//! of in the daemon's memory, however long the answer.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::time::{Duration, Instant};

use seekclaw_testkit::{DaemonProcess, ProviderServer, Reply, StartOptions};
use serde_json::{Value, json};

/// One delta's text, and how many the provider streams: 120 MB in all.
const DELTA: usize = 1000;
const DELTAS: usize = 120_000;
/// The daemon's outbound queue per connection, plus slack for HTTP and
/// channel buffers: what may leave the provider beyond the kernel's buffers.
const DAEMON_HELD: u64 = (4 << 20) + (4 << 20);
const MAX_GROWTH: u64 = 48 << 20;

/// What the kernel may hold between the provider and the daemon: the largest
/// TCP receive and send buffers this machine lets autotuning reach (the
/// receive side alone is 32 MiB on some machines, so a fixed figure flakes).
fn kernel_buffers() -> u64 {
    let max_of = |path: &str| {
        std::fs::read_to_string(path)
            .ok()
            .and_then(|s| s.split_whitespace().last()?.parse::<u64>().ok())
            .unwrap_or(6 << 20)
    };
    max_of("/proc/sys/net/ipv4/tcp_rmem") + max_of("/proc/sys/net/ipv4/tcp_wmem")
}

#[test]
fn a_client_that_stops_reading_holds_the_provider_stream_in_the_kernel() {
    let server = ProviderServer::start().unwrap();
    let d = crate::support::turns::setup(
        &server,
        StartOptions {
            // The held turn must outlive the settling below.
            config: Some(json!({"daemon": {"slowClientTimeoutSeconds": 120}})),
            ..StartOptions::default()
        },
    );
    // A first turn, so the baseline has the provider client and store warm.
    server.enqueue(Reply::plain("warm"));
    let mut c = d.connect().unwrap();
    c.ok("chat", json!({"message": "warm up", "global": true}))
        .unwrap();
    let before = d.rss_bytes().unwrap();
    let warm_bytes = server.body_bytes_sent();

    server.enqueue(
        Reply::new()
            .text_flood("x".repeat(DELTA), DELTAS)
            .finish("stop"),
    );
    let mut stuck = UnixStream::connect(&d.socket).unwrap();
    stuck
        .write_all(b"{\"id\":7,\"method\":\"chat\",\"params\":{\"message\":\"say a lot\",\"global\":true}}\n")
        .unwrap();
    let sent = settled(&server, warm_bytes);
    let grew = d.rss_bytes().unwrap().saturating_sub(before);
    let max_sent = kernel_buffers() + DAEMON_HELD;
    let figures = format!(
        "upstream sent {:.1} MB (at most {:.1} MB), daemon RSS grew {:.1} MiB",
        sent as f64 / 1e6,
        max_sent as f64 / 1e6,
        grew as f64 / f64::from(1 << 20)
    );
    eprintln!("stopped reader: {figures}");
    assert!(
        max_sent < (DELTA * DELTAS / 2) as u64,
        "this machine's socket buffers hold most of the answer: {figures}"
    );
    assert!(
        sent < max_sent,
        "the provider could send more than buffers hold to a turn nobody reads: {figures}"
    );
    assert!(
        grew < MAX_GROWTH,
        "the daemon grew for a client that reads nothing: {figures}"
    );

    // Reading again releases the turn: it streams on well past what it held
    // (reading all 120 MB takes a debug build half a minute, so it is
    // cancelled there) and ends with exactly one terminal.
    let resume = sent as usize + (16 << 20);
    let (text, terminals) = read_turn(&mut stuck, (7, resume), &d);
    assert!(
        text >= resume,
        "the turn went on after reading resumed: {figures}"
    );
    assert!(
        text < DELTA * DELTAS,
        "the cancel came before the end: {figures}"
    );
    assert_eq!(terminals, vec!["cancelled".to_string()], "{figures}");
    assert!(server.body_bytes_sent() - warm_bytes >= text as u64);
}

/// The provider's byte count once it stops growing (sampled until it has not
/// moved for a while): how much the held turn let it send.
fn settled(server: &ProviderServer, from: u64) -> u64 {
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut last = server.body_bytes_sent();
    let mut still_since = Instant::now();
    loop {
        std::thread::sleep(Duration::from_millis(100));
        let now = server.body_bytes_sent();
        if now != last || now == from {
            last = now;
            still_since = Instant::now();
        } else if still_since.elapsed() >= Duration::from_millis(1500) {
            return now - from;
        }
        assert!(
            Instant::now() < deadline,
            "the provider stream never settled ({} bytes)",
            now - from
        );
    }
}

/// Reads envelopes of request `id`, cancels it once `cancel_after` bytes of
/// text came, reads on to its terminal and the answer of a `ping` sent after
/// that: the delta text length, and every terminal event of `id` seen.
fn read_turn(
    stream: &mut UnixStream,
    (id, cancel_after): (i64, usize),
    d: &DaemonProcess,
) -> (usize, Vec<String>) {
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let mut r = BufReader::with_capacity(1 << 20, stream.try_clone().unwrap());
    let mut line = Vec::new();
    let mut text = 0;
    let mut terminals = Vec::new();
    let mut cancelled = false;
    let delta_prefix = format!("{{\"id\":{id},\"event\":\"delta\",\"data\":\"");
    loop {
        line.clear();
        let n = r
            .read_until(b'\n', &mut line)
            .unwrap_or_else(|e| panic!("reading after {text} bytes of text: {e}"));
        assert!(n > 0, "the daemon closed the connection: {}", d.stderr());
        // Deltas are counted without parsing 120 MB of JSON in a debug build:
        // the envelope's keys come in a fixed order, and the text is all `x`.
        if let Some(rest) = line.strip_prefix(delta_prefix.as_bytes()) {
            assert!(terminals.is_empty(), "a delta after the terminal");
            text += rest.iter().take_while(|b| **b == b'x').count();
            if text >= cancel_after && !cancelled {
                cancelled = true;
                let cancel = format!(
                    "{{\"id\":9,\"method\":\"agent.cancel\",\"params\":{{\"requestId\":{id}}}}}\n"
                );
                stream.write_all(cancel.as_bytes()).unwrap();
            }
            continue;
        }
        let env: Value = serde_json::from_slice(&line).unwrap();
        let event = env["event"].as_str().unwrap_or_default();
        if env["id"] == id {
            match event {
                "delta" => text += env["data"].as_str().unwrap_or_default().len(),
                "done" | "cancelled" | "error" => {
                    terminals.push(event.to_string());
                    // Anything more for `id` would come before this answer.
                    stream
                        .write_all(b"{\"id\":8,\"method\":\"ping\"}\n")
                        .unwrap();
                }
                _ => {}
            }
        } else if env["id"] == 8 && event == "pong" {
            return (text, terminals);
        }
    }
}

/// Far more pipelined requests than a connection runs at once (512), with
/// answers that overflow the outbound queue: the requests in flight wait for
/// room, so the connection must go on writing while its reader waits for a
/// free slot. (It used to wait without writing, so all waited for one another
/// until the slow-client timeout cut off a client that reads everything.)
#[test]
fn requests_past_the_in_flight_limit_with_big_answers_are_all_answered() {
    let server = ProviderServer::start().unwrap();
    server.enqueue(Reply::plain("y".repeat(20_000)));
    let d = crate::support::turns::setup(
        &server,
        StartOptions {
            config: Some(json!({"daemon": {"slowClientTimeoutSeconds": 3}})),
            ..StartOptions::default()
        },
    );
    let mut c = d.connect().unwrap();
    let sid = c.ok("session.new", json!({"global": true})).unwrap();
    c.ok(
        "chat",
        json!({"message": "a long one", "sessionId": sid, "global": true}),
    )
    .unwrap();

    const N: usize = 2000;
    let stream = UnixStream::connect(&d.socket).unwrap();
    let mut w = stream.try_clone().unwrap();
    let lines: String = (1..=N)
        .map(|i| {
            format!(
                "{{\"id\":{i},\"method\":\"session.get\",\"params\":{{\"id\":\"{sid}\",\"global\":true}}}}\n"
            )
        })
        .collect();
    let writer = std::thread::spawn(move || w.write_all(lines.as_bytes()).unwrap());
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let mut r = BufReader::new(stream);
    let mut answered = std::collections::HashSet::new();
    let started = Instant::now();
    let mut line = String::new();
    while answered.len() < N {
        line.clear();
        let n = r.read_line(&mut line).unwrap();
        assert!(
            n > 0,
            "the daemon closed the connection after {} of {N} answers",
            answered.len()
        );
        let env: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(env["event"], "result", "{env}");
        assert!(env["data"].as_str().unwrap().len() > 20_000);
        assert!(
            answered.insert(env["id"].as_i64().unwrap()),
            "one answer each"
        );
    }
    writer.join().unwrap();
    eprintln!("{N} big answers in {:?}", started.elapsed());
}
