//! Relay overhead: one scripted turn streaming N deltas without delay, timed
//! from writing `chat` to reading `done`, against the very same SSE stream
//! read straight from the testkit server with the request the daemon sent.
//! Runs alternate between the two so drift on the shared box hits both alike.

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use seekclaw_testkit::{ProviderServer, Reply};
use serde_json::{Value, json};

use super::direct::{self, Fetched, H1Direct, H2Direct};
use super::setup::{Scratch, SectionDaemon};
use super::wire::{self, Ids};
use crate::cpu::{Threads, cpu_ns};
use crate::daemon::JsonlClient;

/// Unmeasured runs of each side before the measured ones.
const WARMUP_RUNS: usize = 2;

/// The HTTP transport between the daemon (or the direct client) and the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transport {
    H2c,
    Http1,
}

impl Transport {
    pub fn name(self) -> &'static str {
        match self {
            Transport::H2c => "h2c",
            Transport::Http1 => "http/1.1",
        }
    }
}

/// What one transport's relay runs measured.
pub struct RelayFigures {
    pub transport: Transport,
    pub deltas: usize,
    pub direct: Vec<Duration>,
    pub daemon: Vec<Duration>,
    /// On-CPU time per measured direct read and per measured daemon turn.
    pub direct_cpu: Vec<CpuSplit>,
    pub daemon_cpu: Vec<CpuSplit>,
    /// Deltas the client got per daemon run (must equal `deltas`).
    pub deltas_seen: Vec<usize>,
    /// Per measured direct read: request → first body byte.
    pub direct_head: Vec<Duration>,
    /// Per measured daemon run: chat → first delta, and last delta → terminal.
    pub head: Vec<Duration>,
    pub tail: Vec<Duration>,
    /// SSE `data:` events per direct read.
    pub direct_events: usize,
    /// Envelopes of the last daemon turn (every event plus the terminal).
    pub daemon_envelopes: usize,
    pub server_connections: usize,
    pub problems: Vec<String>,
    pub daemon_stderr: String,
}

/// A reply of `n` text deltas and the text they add up to.
pub fn delta_reply(n: usize, tag: &str) -> (Reply, String) {
    let mut reply = Reply::new();
    let mut text = String::new();
    for i in 0..n {
        let piece = format!("{tag}{i} ");
        text.push_str(&piece);
        reply = reply.text(piece);
    }
    (reply, text)
}

enum Direct {
    H1(H1Direct),
    H2(H2Direct),
}

impl Direct {
    fn post(&mut self, body: &[u8]) -> Result<Fetched> {
        match self {
            Direct::H1(c) => c.post("/chat/completions", body),
            Direct::H2(c) => c.post("/chat/completions", body),
        }
    }
}

pub fn run(
    bin: &Path,
    scratch: &Scratch,
    transport: Transport,
    runs: usize,
    deltas: usize,
) -> Result<RelayFigures> {
    let server = ProviderServer::start()?;
    let (reply, text) = delta_reply(deltas, "tok");
    server.set_default(reply);
    let name = format!("relay-{}", transport.name().replace('/', ""));
    let http2 = transport == Transport::H2c;
    let (daemon, mut client) = SectionDaemon::start(bin, scratch, &name, &server, http2)?;
    let pid = daemon.daemon.pid();
    let mut direct = match transport {
        Transport::H2c => Direct::H2(H2Direct::connect(server.addr())?),
        Transport::Http1 => Direct::H1(H1Direct::connect(server.addr())?),
    };
    let mut ids = Ids::default();
    // The direct side sends exactly the request the daemon sends (prompt, tools
    // and all), so the server does the same work for both.
    let sid = wire::new_session(&mut client, &mut ids, scratch.workspace())?;
    relay_turn(&mut client, &mut ids, scratch.workspace(), &sid)?;
    let body = server
        .requests()
        .last()
        .map(|r| r.raw_body.clone().into_bytes())
        .context("the daemon sent no request")?;
    let mut figures = RelayFigures {
        transport,
        deltas,
        direct: Vec::with_capacity(runs),
        daemon: Vec::with_capacity(runs),
        direct_cpu: Vec::with_capacity(runs),
        daemon_cpu: Vec::with_capacity(runs),
        deltas_seen: Vec::with_capacity(runs),
        direct_head: Vec::with_capacity(runs),
        head: Vec::with_capacity(runs),
        tail: Vec::with_capacity(runs),
        direct_events: 0,
        daemon_envelopes: 0,
        server_connections: 0,
        problems: Vec::new(),
        daemon_stderr: String::new(),
    };
    for round in 0..WARMUP_RUNS + runs {
        let measured = round >= WARMUP_RUNS;
        // Alternate which side goes first within a round.
        for side in if round % 2 == 0 { [0, 1] } else { [1, 0] } {
            if side == 0 {
                let before = CpuSplit::now(pid);
                let fetched = direct.post(&body)?;
                let cpu = CpuSplit::now(pid).since(&before);
                figures.direct_events = direct::sse_events(&fetched.body);
                if measured {
                    figures.direct.push(fetched.elapsed);
                    figures.direct_head.push(fetched.head);
                    figures.direct_cpu.push(cpu);
                }
            } else {
                let sid = wire::new_session(&mut client, &mut ids, scratch.workspace())?;
                let before = CpuSplit::now(pid);
                let turn = relay_turn(&mut client, &mut ids, scratch.workspace(), &sid)?;
                let cpu = CpuSplit::now(pid).since(&before);
                if let Err(problem) = turn.check(deltas, &text) {
                    figures.problems.push(format!("round {round}: {problem}"));
                }
                figures.daemon_envelopes = turn.events;
                if measured {
                    figures.daemon.push(turn.elapsed);
                    figures.daemon_cpu.push(cpu);
                    figures.deltas_seen.push(turn.deltas);
                    figures.head.push(turn.head);
                    figures.tail.push(turn.tail);
                }
            }
        }
    }
    figures.server_connections = server.connections();
    drop(client);
    figures.daemon_stderr = daemon.finish()?;
    Ok(figures)
}

/// On-CPU time of the three parties of a relay run. On a 2-core box their
/// sum against the wall time shows whether a run was CPU-bound.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct CpuSplit {
    /// The testkit server's thread.
    pub server: Duration,
    /// This process's main thread: the client (the h2 client runs on it too).
    pub client: Duration,
    /// Every daemon thread.
    pub daemon: Duration,
}

/// `comm` of the testkit server thread (`provider-server-PORT`, cut to 15 bytes).
const SERVER_THREAD: &str = "provider-server";
/// `comm` of this process's main thread (the binary name).
const CLIENT_THREAD: &str = "seekclaw-bench";

impl CpuSplit {
    fn now(daemon_pid: u32) -> CpuSplit {
        CpuSplit {
            server: Duration::from_nanos(cpu_ns(Threads::Named(SERVER_THREAD))),
            client: Duration::from_nanos(cpu_ns(Threads::Named(CLIENT_THREAD))),
            daemon: Duration::from_nanos(cpu_ns(Threads::Process(daemon_pid))),
        }
    }

    fn since(&self, before: &CpuSplit) -> CpuSplit {
        CpuSplit {
            server: self.server.saturating_sub(before.server),
            client: self.client.saturating_sub(before.client),
            daemon: self.daemon.saturating_sub(before.daemon),
        }
    }
}

/// One timed relay turn as the client saw it.
struct RelayTurn {
    elapsed: Duration,
    /// Chat → first delta.
    head: Duration,
    /// Last delta → terminal.
    tail: Duration,
    deltas: usize,
    events: usize,
    terminal: Value,
}

impl RelayTurn {
    /// Everything arrived: the terminal is `done` with the whole text, after exactly `deltas` deltas.
    fn check(&self, deltas: usize, text: &str) -> std::result::Result<(), String> {
        if self.terminal["event"] != "done" {
            return Err(format!("ended with {}", self.terminal));
        }
        if self.deltas != deltas {
            return Err(format!("{} deltas of {deltas}", self.deltas));
        }
        if self.terminal["data"] != text {
            return Err("done text differs from the streamed text".to_string());
        }
        Ok(())
    }
}

/// Sends `chat` and reads to its terminal; only the id and event name are
/// looked at inside the timing.
fn relay_turn(
    client: &mut JsonlClient,
    ids: &mut Ids,
    workspace: &str,
    sid: &str,
) -> Result<RelayTurn> {
    let id = ids.next();
    let params = wire::scoped(workspace, json!({"message": "relay", "sessionId": sid}));
    let line = wire::request(id, "chat", params);
    let mut deltas = 0;
    let mut events = 0;
    let start = Instant::now();
    let (mut first_delta, mut last_delta) = (None, start);
    client.send(&line)?;
    let elapsed = loop {
        let line = client.read_line()?;
        let (got, event) = wire::id_and_event(line)
            .with_context(|| format!("not an envelope: {}", wire::show(line)))?;
        if got != id {
            bail!(
                "unexpected envelope during a relay turn: {}",
                wire::show(line)
            );
        }
        events += 1;
        if event == b"delta" {
            deltas += 1;
            last_delta = Instant::now();
            first_delta.get_or_insert(last_delta);
        } else if wire::is_terminal(event) {
            break start.elapsed();
        }
    };
    let terminal = serde_json::from_slice(client.last_line()).context("terminal is not JSON")?;
    let end = start + elapsed;
    Ok(RelayTurn {
        elapsed,
        head: first_delta.unwrap_or(end) - start,
        tail: end.saturating_duration_since(last_delta),
        deltas,
        events,
        terminal,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delta_reply_text_is_the_concatenation() {
        let (reply, text) = delta_reply(3, "x");
        assert_eq!(text, "x0 x1 x2 ");
        let events = reply.render_sse(seekclaw_testkit::Wire::OpenAi, "m1");
        // Role chunk, 3 deltas, finish, [DONE].
        assert_eq!(events.len(), 6);
    }

    #[test]
    fn a_relay_turn_must_end_done_with_every_delta() {
        let ok = RelayTurn {
            elapsed: Duration::from_millis(1),
            head: Duration::ZERO,
            tail: Duration::ZERO,
            deltas: 2,
            events: 7,
            terminal: json!({"event": "done", "data": "a b "}),
        };
        assert!(ok.check(2, "a b ").is_ok());
        assert!(ok.check(3, "a b ").unwrap_err().contains("2 deltas of 3"));
        assert!(ok.check(2, "a c ").is_err());
        let cancelled = RelayTurn {
            terminal: json!({"event": "error", "data": "boom"}),
            ..ok
        };
        assert!(cancelled.check(2, "a b ").unwrap_err().contains("boom"));
    }
}
