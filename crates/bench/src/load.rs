//! The ping load generator: C connections, each keeping exactly M requests in
//! flight. Each connection has a writer task and a reader task on split halves
//! (so on a multi-threaded runtime they run in parallel); the reader hands a
//! freed slot back to the writer, which batches whatever slots are ready into
//! one write.
//!
//! Matching is by id without a map: request ids are `k * M + slot`, so an
//! answer's slot is `id % M`, and each slot has one request in flight, whose
//! id and send time live in that slot's atomics.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::UnixStream;
use tokio::net::unix::{OwnedReadHalf, OwnedWriteHalf};
use tokio::sync::mpsc;

use crate::stats::percentile_sorted;

/// Extra time allowed past the run before a stuck server is an error.
const STUCK_GRACE: Duration = Duration::from_secs(10);

/// One load run.
#[derive(Debug, Clone)]
pub struct LoadPlan {
    pub socket: PathBuf,
    pub connections: usize,
    /// Requests in flight per connection.
    pub depth: usize,
    pub warmup: Duration,
    pub measure: Duration,
}

/// What one run measured (answers and latencies inside the measure window).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LoadResult {
    /// Answers inside the measure window.
    pub answers: u64,
    /// Answers over the whole run (warm-up and drain included), for per-answer CPU.
    pub total_answers: u64,
    pub per_sec: f64,
    pub p50_us: f64,
    pub p99_us: f64,
}

/// One in-flight request per slot: its id and send time (ns since the run's epoch).
#[derive(Default)]
struct Slot {
    id: AtomicU64,
    sent_ns: AtomicU64,
}

/// Window bounds in ns since the run's epoch, shared by a connection's tasks.
#[derive(Clone, Copy)]
struct Window {
    epoch: Instant,
    start_ns: u64,
    end_ns: u64,
}

impl Window {
    fn now_ns(&self) -> u64 {
        u64::try_from(self.epoch.elapsed().as_nanos()).unwrap_or(u64::MAX)
    }
}

/// What one connection measured: latencies in ns of answers inside the window.
#[derive(Default)]
struct ConnStats {
    latencies_ns: Vec<u64>,
    total: u64,
}

/// Runs the plan on the current (multi-threaded) runtime.
pub async fn run(plan: &LoadPlan) -> Result<LoadResult> {
    if plan.connections == 0 || plan.depth == 0 {
        bail!("connections and depth must be at least 1");
    }
    // Connect everyone before the clock starts: connection setup is not ping cost.
    let mut streams = Vec::with_capacity(plan.connections);
    for _ in 0..plan.connections {
        streams.push(connect(&plan.socket).await?);
    }
    let epoch = Instant::now();
    let start_ns = duration_ns(plan.warmup);
    let window = Window {
        epoch,
        start_ns,
        end_ns: start_ns + duration_ns(plan.measure),
    };
    let mut tasks = Vec::with_capacity(plan.connections);
    for stream in streams {
        tasks.push(tokio::spawn(drive_connection(stream, plan.depth, window)));
    }
    let deadline = plan.warmup + plan.measure + STUCK_GRACE;
    let mut latencies = Vec::new();
    let mut total_answers = 0;
    for task in tasks {
        let stats = tokio::time::timeout(deadline, task)
            .await
            .context("server stopped answering")?
            .context("connection task failed")??;
        latencies.extend(stats.latencies_ns);
        total_answers += stats.total;
    }
    latencies.sort_unstable();
    let answers = latencies.len() as u64;
    let us = |p: f64| percentile_sorted(&latencies, p).map_or(f64::NAN, |ns| ns as f64 / 1e3);
    Ok(LoadResult {
        answers,
        total_answers,
        per_sec: answers as f64 / plan.measure.as_secs_f64(),
        p50_us: us(50.0),
        p99_us: us(99.0),
    })
}

async fn connect(socket: &Path) -> Result<UnixStream> {
    UnixStream::connect(socket)
        .await
        .with_context(|| format!("connect {}", socket.display()))
}

fn duration_ns(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

async fn drive_connection(stream: UnixStream, depth: usize, window: Window) -> Result<ConnStats> {
    let (read, write) = stream.into_split();
    let slots: Arc<[Slot]> = (0..depth).map(|_| Slot::default()).collect();
    let (ready_tx, ready_rx) = mpsc::unbounded_channel::<usize>();
    for slot in 0..depth {
        ready_tx
            .send(slot)
            .context("slot channel closed before start")?;
    }
    let writer = tokio::spawn(send_requests(write, slots.clone(), ready_rx, window));
    let stats = read_answers(read, &slots, ready_tx, window).await;
    // The reader dropped its sender, so the writer ends; its error explains a reader error.
    let written = writer.await.context("writer task failed")?;
    let stats = stats?;
    written?;
    Ok(stats)
}

/// Sends one request for each slot the reader freed; batches ready slots into one write.
/// Ends (closing the write side) when the reader is done.
async fn send_requests(
    mut write: OwnedWriteHalf,
    slots: Arc<[Slot]>,
    mut ready: mpsc::UnboundedReceiver<usize>,
    window: Window,
) -> Result<()> {
    let depth = slots.len() as u64;
    let mut buf = Vec::with_capacity(48 * slots.len());
    let mut first_use = vec![true; slots.len()];
    while let Some(first) = ready.recv().await {
        buf.clear();
        let now = window.now_ns();
        let mut next = Some(first);
        while let Some(slot_index) = next {
            let slot = slots.get(slot_index).context("slot out of range")?;
            let fresh = first_use.get_mut(slot_index).is_some_and(std::mem::take);
            let id = if fresh {
                slot_index as u64
            } else {
                slot.id.load(Ordering::Relaxed) + depth
            };
            slot.id.store(id, Ordering::Release);
            slot.sent_ns.store(now, Ordering::Release);
            push_ping(&mut buf, id);
            next = ready.try_recv().ok();
        }
        write.write_all(&buf).await.context("send requests")?;
    }
    write.shutdown().await.context("close write side")?;
    Ok(())
}

/// Reads answers, records latencies inside the window and frees slots for the
/// writer until the window ends; then waits for the last in-flight answers.
async fn read_answers(
    read: OwnedReadHalf,
    slots: &[Slot],
    ready: mpsc::UnboundedSender<usize>,
    window: Window,
) -> Result<ConnStats> {
    let depth = slots.len() as u64;
    let mut reader = BufReader::with_capacity(64 * 1024, read);
    let mut line = Vec::with_capacity(128);
    let mut in_flight = slots.len();
    let mut stats = ConnStats::default();
    while in_flight > 0 {
        line.clear();
        if reader.read_until(b'\n', &mut line).await? == 0 {
            bail!("server closed the connection with {in_flight} requests in flight");
        }
        let now = window.now_ns();
        let id = parse_id(&line)
            .with_context(|| format!("answer without an id: {}", String::from_utf8_lossy(&line)))?;
        let slot_index = usize::try_from(id % depth)?;
        let slot = slots.get(slot_index).context("slot out of range")?;
        if slot.id.load(Ordering::Acquire) != id {
            bail!("answer {id} does not match the request in flight on its slot");
        }
        let sent = slot.sent_ns.load(Ordering::Acquire);
        in_flight -= 1;
        stats.total += 1;
        if now >= window.start_ns && now < window.end_ns {
            stats.latencies_ns.push(now.saturating_sub(sent));
        }
        if now < window.end_ns {
            ready.send(slot_index).context("writer gone")?;
            in_flight += 1;
        }
    }
    Ok(stats)
}

/// Appends `{"id":N,"method":"ping"}\n` without going through a formatter.
fn push_ping(buf: &mut Vec<u8>, id: u64) {
    buf.extend_from_slice(b"{\"id\":");
    let start = buf.len();
    let mut n = id;
    loop {
        buf.push(b'0' + (n % 10) as u8);
        n /= 10;
        if n == 0 {
            break;
        }
    }
    if let Some(digits) = buf.get_mut(start..) {
        digits.reverse();
    }
    buf.extend_from_slice(b",\"method\":\"ping\"}\n");
}

/// The id of a reply line, read without JSON parsing: the number after the
/// first `"id":` (both the daemon's envelopes and echoed requests start with it).
pub fn parse_id(line: &[u8]) -> Option<u64> {
    const KEY: &[u8] = b"\"id\":";
    let at = if line.get(1..1 + KEY.len()) == Some(KEY) {
        1
    } else {
        line.windows(KEY.len()).position(|w| w == KEY)?
    };
    let rest = line.get(at + KEY.len()..)?;
    let rest = rest.strip_prefix(b" ").unwrap_or(rest);
    let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
    if digits == 0 {
        return None;
    }
    std::str::from_utf8(rest.get(..digits)?).ok()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::echo::EchoServer;

    #[test]
    fn ids_are_parsed_cheaply_and_strictly() {
        assert_eq!(
            parse_id(b"{\"id\":42,\"event\":\"pong\",\"data\":\"\"}\n"),
            Some(42)
        );
        assert_eq!(parse_id(b"{\"id\":7,\"method\":\"ping\"}"), Some(7));
        assert_eq!(parse_id(b"{\"event\":\"x\", \"id\": 9}"), Some(9));
        assert_eq!(parse_id(b"{\"id\":-1}"), None);
        assert_eq!(parse_id(b"{\"event\":\"pong\"}"), None);
        assert_eq!(parse_id(b""), None);
    }

    #[test]
    fn ping_lines_are_valid_requests() {
        for id in [0, 9, 10, 1234567, u64::MAX] {
            let mut buf = Vec::new();
            push_ping(&mut buf, id);
            assert_eq!(buf.last(), Some(&b'\n'));
            let v: serde_json::Value = serde_json::from_slice(&buf).unwrap();
            assert_eq!(v["id"].as_u64(), Some(id));
            assert_eq!(v["method"], "ping");
            assert_eq!(parse_id(&buf), Some(id));
        }
    }

    #[test]
    fn pipelined_load_against_echo_measures_answers() {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let server = EchoServer::start(&rt).unwrap();
        let plan = LoadPlan {
            socket: server.path().to_path_buf(),
            connections: 3,
            depth: 5,
            warmup: Duration::from_millis(50),
            measure: Duration::from_millis(200),
        };
        let r = rt.block_on(run(&plan)).unwrap();
        assert!(r.answers > 100, "{r:?}");
        assert!(r.total_answers > r.answers, "{r:?}");
        assert!(r.per_sec > 0.0);
        assert!(r.p50_us > 0.0 && r.p50_us <= r.p99_us, "{r:?}");
    }

    #[test]
    fn a_server_that_closes_is_an_error() {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let dir = tempfile::tempdir().unwrap();
        let socket = dir.path().join("s.sock");
        let listener = {
            let _ctx = rt.enter();
            tokio::net::UnixListener::bind(&socket).unwrap()
        };
        // Accepts, then hangs up without answering.
        rt.spawn(async move {
            while let Ok((s, _)) = listener.accept().await {
                drop(s);
            }
        });
        let plan = LoadPlan {
            socket,
            connections: 1,
            depth: 2,
            warmup: Duration::from_millis(10),
            measure: Duration::from_millis(50),
        };
        assert!(rt.block_on(run(&plan)).is_err());
    }
}
