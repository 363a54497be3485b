//! Many turns at once: T turns over C connections (T/C each, every turn on its
//! own session), each turn one `read_file` call and then N deltas. Every
//! envelope is kept and counted per turn afterwards; the daemon's peak RSS
//! comes from VmHWM.
//!
//! The testkit hands out replies in arrival order, not per turn, so the
//! tool-call replies are queued (one per turn) and the N-delta reply is the
//! default. A turn's second request must not overtake another turn's first
//! one, so the tool-call replies hold their headers back for a while (which
//! also keeps all turns in flight together); the recorded requests are checked
//! afterwards to prove the script went to the right requests.

use std::collections::{BTreeMap, HashSet};
use std::path::Path;
use std::sync::Barrier;
use std::time::{Duration, Instant};

use anyhow::{Result, bail};
use seekclaw_testkit::{ProviderServer, Recorded, Reply};
use serde_json::{Value, json};

use super::relay::delta_reply;
use super::setup::{SMALL_FILE, Scratch, SectionDaemon};
use super::wire::{self, Ids};
use crate::daemon::{JsonlClient, status_kb};

/// Pause before the idle RSS reading.
const IDLE_WAIT: Duration = Duration::from_secs(2);
/// Failures listed in full; the rest are only counted.
const SHOWN_FAILURES: usize = 8;

#[derive(Debug, Clone, Copy)]
pub struct ConcurrentPlan {
    pub turns: usize,
    pub connections: usize,
    pub deltas: usize,
    pub tool_delay: Duration,
}

pub struct ConcurrentFigures {
    pub plan: ConcurrentPlan,
    /// First chat written → last terminal read.
    pub wall: Duration,
    /// When the provider had received one request per turn (all turns started).
    pub all_started: Option<Duration>,
    /// Daemon RSS at that moment: every turn in flight, no answer streamed yet.
    pub rss_all_started: Option<u64>,
    /// Turns that ended with `done`.
    pub done: usize,
    /// Turns whose events were exactly as scripted.
    pub exact: usize,
    pub envelopes: usize,
    pub envelopes_per_turn: (usize, usize),
    pub failures: Vec<String>,
    pub failure_count: usize,
    /// Envelopes that came after their turn's terminal, or for no turn.
    pub stray: Vec<String>,
    pub connection_errors: Vec<String>,
    pub rss_before: u64,
    pub rss_after: u64,
    /// `IDLE_WAIT` after the last turn: what the burst leaves behind.
    pub rss_idle: u64,
    pub peak_rss: u64,
    pub server_connections: usize,
    pub completion_requests: usize,
    /// Mean body size of the requests the daemon sent the provider.
    pub request_bytes: usize,
    /// Requests that got the wrong part of the script (a bench setup problem, not the daemon's).
    pub script_violations: usize,
    pub daemon_stderr: String,
}

/// What one connection's thread brought back.
struct ConnOutcome {
    chats: Vec<u64>,
    lines: Vec<Vec<u8>>,
    sent_at: Instant,
    finished_at: Instant,
    late: Vec<String>,
    error: Option<String>,
}

pub fn run(bin: &Path, scratch: &Scratch, plan: ConcurrentPlan) -> Result<ConcurrentFigures> {
    if plan.connections == 0 || !plan.turns.is_multiple_of(plan.connections) {
        bail!("--turns must be a multiple of --connections");
    }
    let per_conn = plan.turns / plan.connections;
    let server = ProviderServer::start()?;
    let tool_reply = Reply::new()
        .tool_call(
            "call_1",
            "read_file",
            format!(r#"{{"path":"{SMALL_FILE}"}}"#),
        )
        .header_delay(plan.tool_delay);
    for _ in 0..plan.turns {
        server.enqueue(tool_reply.clone());
    }
    let (reply, text) = delta_reply(plan.deltas, "d");
    server.set_default(reply);
    let (daemon, first) = SectionDaemon::start(bin, scratch, "concurrent", &server, true)?;
    drop(first);

    eprintln!("  creating {} sessions ...", plan.turns);
    let mut conns = Vec::with_capacity(plan.connections);
    for _ in 0..plan.connections {
        let mut client = daemon.connect()?;
        let mut ids = Ids::default();
        let mut chats = Vec::with_capacity(per_conn);
        let mut batch = Vec::new();
        for _ in 0..per_conn {
            let sid = wire::new_session(&mut client, &mut ids, scratch.workspace())?;
            let id = ids.next();
            let params = json!({"message": "read it", "sessionId": sid});
            batch.extend_from_slice(
                wire::request(id, "chat", wire::scoped(scratch.workspace(), params)).as_bytes(),
            );
            batch.push(b'\n');
            chats.push(id);
        }
        conns.push((client, ids, chats, batch));
    }
    let (rss_before, _) = daemon.daemon.memory()?;

    eprintln!("  running {} turns ...", plan.turns);
    let barrier = Barrier::new(plan.connections + 1);
    let (outcomes, started) = std::thread::scope(|s| {
        let handles: Vec<_> = conns
            .into_iter()
            .map(|(client, ids, chats, batch)| {
                let barrier = &barrier;
                s.spawn(move || drive(client, ids, chats, &batch, barrier))
            })
            .collect();
        let server = &server;
        let pid = daemon.daemon.pid();
        let watcher = s.spawn(move || {
            let start = Instant::now();
            let wait = plan.tool_delay + Duration::from_secs(120);
            let at = server.wait_requests(plan.turns, wait).ok()?;
            let elapsed = start.elapsed();
            drop(at);
            Some((elapsed, rss_of(pid)))
        });
        barrier.wait();
        let outcomes: Vec<ConnOutcome> =
            handles.into_iter().filter_map(|h| h.join().ok()).collect();
        (outcomes, watcher.join().ok().flatten())
    });
    let (rss_after, peak_rss) = daemon.daemon.memory()?;
    std::thread::sleep(IDLE_WAIT);
    let (rss_idle, _) = daemon.daemon.memory()?;
    let requests = server.requests();
    let (completion_requests, script_violations) = script_order(&requests, plan.turns);
    let request_bytes =
        requests.iter().map(|r| r.raw_body.len()).sum::<usize>() / requests.len().max(1);

    let mut figures = ConcurrentFigures {
        plan,
        wall: Duration::ZERO,
        all_started: started.map(|(at, _)| at),
        rss_all_started: started.and_then(|(_, rss)| rss),
        done: 0,
        exact: 0,
        envelopes: 0,
        envelopes_per_turn: (usize::MAX, 0),
        failures: Vec::new(),
        failure_count: 0,
        stray: Vec::new(),
        connection_errors: Vec::new(),
        rss_before,
        rss_after,
        rss_idle,
        peak_rss,
        server_connections: server.connections(),
        completion_requests,
        request_bytes,
        script_violations,
        daemon_stderr: String::new(),
    };
    if outcomes.len() != plan.connections {
        figures.connection_errors.push(format!(
            "{} of {} connection threads panicked",
            plan.connections - outcomes.len(),
            plan.connections
        ));
    }
    let first_sent = outcomes.iter().map(|o| o.sent_at).min();
    let last_done = outcomes.iter().map(|o| o.finished_at).max();
    if let (Some(a), Some(b)) = (first_sent, last_done) {
        figures.wall = b.saturating_duration_since(a);
    }
    for (conn, outcome) in outcomes.iter().enumerate() {
        tally_connection(conn, outcome, plan.deltas, &text, &mut figures);
    }
    figures.daemon_stderr = daemon.finish()?;
    Ok(figures)
}

/// VmRSS in bytes of a process, read without holding its handle.
fn rss_of(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status_kb(&status, "VmRSS:").map(|kb| kb * 1024)
}

/// One connection: wait for the start, send all its chats in one write, read
/// until every chat has its terminal, then ping to catch late envelopes.
fn drive(
    mut client: JsonlClient,
    mut ids: Ids,
    chats: Vec<u64>,
    batch: &[u8],
    barrier: &Barrier,
) -> ConnOutcome {
    barrier.wait();
    let sent_at = Instant::now();
    let mut outcome = ConnOutcome {
        chats: chats.clone(),
        lines: Vec::new(),
        sent_at,
        finished_at: sent_at,
        late: Vec::new(),
        error: None,
    };
    if let Err(e) = client.send_raw(batch) {
        outcome.error = Some(format!("send: {e}"));
        return outcome;
    }
    let mut open: HashSet<u64> = chats.into_iter().collect();
    while !open.is_empty() {
        match client.read_line() {
            Ok(line) => {
                if let Some((id, event)) = wire::id_and_event(line)
                    && wire::is_terminal(event)
                {
                    open.remove(&id);
                }
                outcome.lines.push(line.to_vec());
            }
            Err(e) => {
                outcome.error = Some(format!("read with {} turns open: {e}", open.len()));
                break;
            }
        }
    }
    outcome.finished_at = Instant::now();
    if outcome.error.is_none() {
        match wire::drain_with_ping(&mut client, &mut ids) {
            Ok(late) => outcome.late = late,
            Err(e) => outcome.error = Some(format!("ping after the turns: {e}")),
        }
    }
    outcome
}

fn tally_connection(
    conn: usize,
    o: &ConnOutcome,
    deltas: usize,
    text: &str,
    f: &mut ConcurrentFigures,
) {
    if let Some(e) = &o.error {
        f.connection_errors.push(format!("connection {conn}: {e}"));
    }
    f.stray.extend(
        o.late
            .iter()
            .map(|l| format!("connection {conn}, after all terminals: {l}")),
    );
    let mut by_turn: BTreeMap<u64, Vec<Value>> =
        o.chats.iter().map(|id| (*id, Vec::new())).collect();
    for line in &o.lines {
        let Ok(env) = serde_json::from_slice::<Value>(line) else {
            f.stray
                .push(format!("connection {conn}, not JSON: {}", wire::show(line)));
            continue;
        };
        match env["id"].as_u64().and_then(|id| by_turn.get_mut(&id)) {
            Some(events) => events.push(env),
            None => f.stray.push(format!(
                "connection {conn}, no such turn: {}",
                wire::show(line)
            )),
        }
    }
    for (id, events) in &by_turn {
        f.envelopes += events.len();
        f.envelopes_per_turn.0 = f.envelopes_per_turn.0.min(events.len());
        f.envelopes_per_turn.1 = f.envelopes_per_turn.1.max(events.len());
        if events.last().is_some_and(|e| e["event"] == "done") {
            f.done += 1;
        }
        match check_turn(events, deltas, text) {
            Ok(()) => f.exact += 1,
            Err(problem) => {
                f.failure_count += 1;
                if f.failures.len() < SHOWN_FAILURES {
                    f.failures
                        .push(format!("connection {conn} chat {id}: {problem}"));
                }
            }
        }
    }
}

/// The scripted turn, exactly: `workflow start` first; one `read_file`
/// `tool_start` and a successful `tool_done`; `deltas` deltas adding up to
/// `text`; one terminal, last, `done` with that text.
fn check_turn(events: &[Value], deltas: usize, text: &str) -> std::result::Result<(), String> {
    let Some(first) = events.first() else {
        return Err("no envelope at all".to_string());
    };
    if first["event"] != "workflow" || first["details"]["kind"] != "start" {
        return Err(format!("first envelope is not workflow start: {first}"));
    }
    let named = |name: &str| {
        events
            .iter()
            .filter(|e| e["event"] == name)
            .collect::<Vec<_>>()
    };
    let starts = named("tool_start");
    let dones = named("tool_done");
    if starts.len() != 1 || starts.first().is_some_and(|e| e["data"] != "read_file") {
        return Err(format!("{} tool_start (want 1 read_file)", starts.len()));
    }
    if dones.len() != 1
        || dones
            .first()
            .is_some_and(|e| e["details"]["success"] != true)
    {
        return Err(format!(
            "{} tool_done (want 1, successful): {dones:?}",
            dones.len()
        ));
    }
    let delta_events = named("delta");
    let streamed: String = delta_events
        .iter()
        .filter_map(|e| e["data"].as_str())
        .collect();
    if delta_events.len() != deltas {
        return Err(format!("{} deltas (want {deltas})", delta_events.len()));
    }
    if streamed != text {
        return Err("the deltas do not add up to the scripted text".to_string());
    }
    let terminals: Vec<&Value> = events
        .iter()
        .filter(|e| {
            e["event"]
                .as_str()
                .is_some_and(|n| wire::is_terminal(n.as_bytes()))
        })
        .collect();
    match (terminals.as_slice(), events.last()) {
        ([t], Some(last)) if *t == last && last["event"] == "done" && last["data"] == text => {
            Ok(())
        }
        ([t], _) if t["event"] != "done" => Err(format!("ended with {t}")),
        ([], _) => Err(format!("no terminal after {} envelopes", events.len())),
        _ => Err(format!(
            "{} terminals, or the terminal is not last / not the text",
            terminals.len()
        )),
    }
}

/// Completion requests in arrival order: the first `turns` must be first steps
/// (no tool result in them), the rest second steps. Returns (count, violations).
fn script_order(requests: &[Recorded], turns: usize) -> (usize, usize) {
    let completions: Vec<&Recorded> = requests
        .iter()
        .filter(|r| r.path.ends_with("/chat/completions"))
        .collect();
    let violations = completions
        .iter()
        .enumerate()
        .filter(|(i, r)| {
            let has_tool_result = r.body["messages"]
                .as_array()
                .is_some_and(|m| m.iter().any(|m| m["role"] == "tool"));
            has_tool_result == (*i < turns)
        })
        .count();
    (completions.len(), violations)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(event: &str, data: &str, details: Value) -> Value {
        json!({"id": 1, "event": event, "data": data, "sessionId": "s", "details": details})
    }

    fn good_turn() -> Vec<Value> {
        vec![
            env("workflow", "start", json!({"kind": "start"})),
            env("model_start", "tk/m1", json!({})),
            env("tool_start", "read_file", json!({"callId": "c"})),
            env("tool_done", "3 lines", json!({"success": true})),
            env("delta", "a ", Value::Null),
            env("delta", "b ", Value::Null),
            env("workflow", "done", json!({"kind": "done"})),
            env("done", "a b ", Value::Null),
        ]
    }

    #[test]
    fn an_exact_turn_passes() {
        assert_eq!(check_turn(&good_turn(), 2, "a b "), Ok(()));
    }

    #[test]
    fn lost_extra_or_misplaced_events_fail() {
        let mut lost = good_turn();
        lost.remove(4);
        assert!(
            check_turn(&lost, 2, "a b ")
                .unwrap_err()
                .contains("1 deltas")
        );
        let mut no_tool = good_turn();
        no_tool.remove(2);
        assert!(
            check_turn(&no_tool, 2, "a b ")
                .unwrap_err()
                .contains("tool_start")
        );
        let mut failed_tool = good_turn();
        failed_tool[3]["details"]["success"] = json!(false);
        assert!(check_turn(&failed_tool, 2, "a b ").is_err());
        let mut after = good_turn();
        after.push(env("delta", "c ", Value::Null));
        assert!(check_turn(&after, 2, "a b ").is_err());
        let mut cut = good_turn();
        cut.pop();
        assert!(
            check_turn(&cut, 2, "a b ")
                .unwrap_err()
                .contains("no terminal")
        );
        let mut errored = good_turn();
        errored.pop();
        errored.push(env("error", "boom", json!({})));
        assert!(
            check_turn(&errored, 2, "a b ")
                .unwrap_err()
                .contains("boom")
        );
        assert!(check_turn(&[], 2, "").is_err());
        assert!(
            check_turn(&good_turn()[1..], 2, "a b ")
                .unwrap_err()
                .contains("workflow start")
        );
    }

    fn recorded(tool: bool) -> Recorded {
        let mut messages = vec![json!({"role": "user", "content": "x"})];
        if tool {
            messages.push(json!({"role": "tool", "content": "y"}));
        }
        Recorded {
            index: 0,
            connection: 1,
            method: "POST".into(),
            path: "/chat/completions".into(),
            query: None,
            version: "HTTP/2.0".into(),
            headers: Vec::new(),
            body: json!({"messages": messages}),
            raw_body: String::new(),
        }
    }

    #[test]
    fn script_order_counts_requests_that_got_the_wrong_reply() {
        let good = [
            recorded(false),
            recorded(false),
            recorded(true),
            recorded(true),
        ];
        assert_eq!(script_order(&good, 2), (4, 0));
        let swapped = [
            recorded(false),
            recorded(true),
            recorded(false),
            recorded(true),
        ];
        assert_eq!(script_order(&swapped, 2), (4, 2));
        let mut models = recorded(false);
        models.path = "/models".into();
        assert_eq!(script_order(&[models], 0), (0, 0));
    }
}
