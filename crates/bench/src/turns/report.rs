//! The `turns` table and its JSON form, with the targets of issue 4 beside
//! the figures (printed, never enforced).

use std::time::Duration;

use serde_json::{Value, json};

use super::Figures;
use super::concurrent::ConcurrentFigures;
use super::latency::{CancelFigures, FirstEventFigures};
use super::relay::{CpuSplit, RelayFigures};
use crate::ping::mb;
use crate::stats::{Tail, Timings, ms};

const RELAY_MAX_RATIO: f64 = 1.05;
const RELAY_MAX_EXTRA_MS: f64 = 2.0;
const PEAK_RSS_MB: f64 = 250.0;
const CANCEL_P99_MS: f64 = 200.0;
const FIRST_EVENT_MS: f64 = 5.0;

fn verdict(ok: bool) -> &'static str {
    if ok { "met" } else { "MISSED" }
}

/// (ratio, extra ms, met) of the daemon's median against the direct median.
fn relay_outcome(r: &RelayFigures) -> Option<(Timings, Timings, f64, f64, bool)> {
    let d = Timings::of(&r.direct)?;
    let t = Timings::of(&r.daemon)?;
    let ratio = ms(t.median) / ms(d.median);
    let extra = ms(t.median) - ms(d.median);
    let clean = r.problems.is_empty() && r.deltas_seen.iter().all(|n| *n == r.deltas);
    Some((
        d,
        t,
        ratio,
        extra,
        clean && ratio <= RELAY_MAX_RATIO && extra <= RELAY_MAX_EXTRA_MS,
    ))
}

/// Every turn done with exactly its events, nothing stray, RSS under the target.
fn concurrent_met(c: &ConcurrentFigures) -> (bool, bool) {
    let complete = c.done == c.plan.turns
        && c.exact == c.plan.turns
        && c.stray.is_empty()
        && c.connection_errors.is_empty();
    (complete, mb(c.peak_rss) < PEAK_RSS_MB)
}

pub fn print(f: &Figures) {
    println!();
    println!(
        "turns: agent-turn figures of issue 4, each against a baseline measured in the same run"
    );
    if !f.relay.is_empty() {
        print_relay(&f.relay);
    }
    if let Some(c) = &f.concurrent {
        print_concurrent(c);
    }
    if !f.cancel.is_empty() || f.first_event.is_some() {
        print_latencies(&f.cancel, f.first_event.as_ref());
    }
}

fn print_relay(relay: &[RelayFigures]) {
    let Some(first) = relay.first() else { return };
    println!();
    println!(
        "1. relay overhead: one turn streaming {} deltas, chat → done through the daemon vs the same SSE stream read directly (median of {} runs each, alternating)",
        first.deltas,
        first.direct.len()
    );
    println!(
        "{:<9} | {:>22} | {:>22} | {:>6} | {:>8} | target ≤ {RELAY_MAX_RATIO}× and ≤ +{RELAY_MAX_EXTRA_MS} ms",
        "transport", "direct ms med [min-max]", "daemon ms med [min-max]", "ratio", "+ms"
    );
    println!("{}", "-".repeat(110));
    for r in relay {
        let Some((d, t, ratio, extra, met)) = relay_outcome(r) else {
            continue;
        };
        let span = |x: &Timings| format!("{:.2} [{:.2}-{:.2}]", ms(x.median), ms(x.min), ms(x.max));
        println!(
            "{:<9} | {:>22} | {:>22} | {:>6.3} | {:>8.2} | {}",
            r.transport.name(),
            span(&d),
            span(&t),
            ratio,
            extra,
            verdict(met)
        );
        let all_deltas = r.deltas_seen.iter().all(|n| *n == r.deltas);
        let med = |v: &[CpuSplit], f: fn(&CpuSplit) -> Duration| {
            Timings::of(&v.iter().map(f).collect::<Vec<_>>()).map_or(f64::NAN, |t| ms(t.median))
        };
        println!(
            "          CPU ms per run (medians): direct: server {:.2} + client {:.2}; via daemon: server {:.2} + daemon {:.2} ({:.2} µs/delta) + client {:.2}",
            med(&r.direct_cpu, |c| c.server),
            med(&r.direct_cpu, |c| c.client),
            med(&r.daemon_cpu, |c| c.server),
            med(&r.daemon_cpu, |c| c.daemon),
            med(&r.daemon_cpu, |c| c.daemon) * 1e3 / r.deltas.max(1) as f64,
            med(&r.daemon_cpu, |c| c.client),
        );
        let median = |v: &[Duration]| Timings::of(v).map_or(f64::NAN, |t| ms(t.median));
        println!(
            "          latency (medians): direct request → first byte {:.2} ms; via daemon chat → first delta {:.2} ms, last delta → terminal {:.2} ms",
            median(&r.direct_head),
            median(&r.head),
            median(&r.tail)
        );
        println!(
            "          direct: {} SSE data events per read; daemon: {} envelopes per turn, every run {} deltas: {}; testkit TCP connections: {}",
            r.direct_events,
            r.daemon_envelopes,
            r.deltas,
            if all_deltas { "yes" } else { "NO" },
            r.server_connections
        );
        for p in &r.problems {
            println!("          PROBLEM: {p}");
        }
    }
}

fn print_concurrent(c: &ConcurrentFigures) {
    let (complete, rss_ok) = concurrent_met(c);
    println!();
    println!(
        "2. {} concurrent turns over {} connections ({} each, own sessions), each one read_file call then {} deltas; provider over h2c",
        c.plan.turns,
        c.plan.connections,
        c.plan.turns / c.plan.connections.max(1),
        c.plan.deltas
    );
    println!(
        "   ended with done: {}/{}; exactly as scripted (workflow start first, 1 tool_start + 1 ok tool_done, {} deltas adding up, done last with the text): {}/{}",
        c.done, c.plan.turns, c.plan.deltas, c.exact, c.plan.turns
    );
    println!(
        "   envelopes counted: {} ({}-{} per turn); after-terminal or unknown envelopes: {}; connection errors: {}",
        c.envelopes,
        c.envelopes_per_turn.0.min(c.envelopes_per_turn.1),
        c.envelopes_per_turn.1,
        c.stray.len(),
        c.connection_errors.len()
    );
    println!(
        "   wall: {:.2} s first chat → last terminal, of which {:.1} s is the scripted hold of the tool-call replies; all {} turns had reached the provider after {}",
        c.wall.as_secs_f64(),
        c.plan.tool_delay.as_secs_f64(),
        c.plan.turns,
        c.all_started.map_or_else(
            || "(never)".to_string(),
            |d| format!("{:.2} s", d.as_secs_f64())
        )
    );
    println!(
        "   daemon RSS: {:.1} MB before, {} with all turns at the provider, {:.1} MB right after, {:.1} MB 2 s later; peak (VmHWM) {:.1} MB",
        mb(c.rss_before),
        c.rss_all_started
            .map_or_else(|| "?".to_string(), |b| format!("{:.1} MB", mb(b))),
        mb(c.rss_after),
        mb(c.rss_idle),
        mb(c.peak_rss)
    );
    println!(
        "   testkit: {} TCP connection(s), {} completion requests (want {}, mean body {:.1} KB), script order violations: {}",
        c.server_connections,
        c.completion_requests,
        2 * c.plan.turns,
        c.request_bytes as f64 / 1024.0,
        c.script_violations
    );
    println!("   target all complete, none lost: {}", verdict(complete));
    println!(
        "   target peak RSS < {PEAK_RSS_MB} MB: {:.1} MB {}",
        mb(c.peak_rss),
        verdict(rss_ok)
    );
    for p in c.failures.iter().chain(&c.connection_errors) {
        println!("   PROBLEM: {p}");
    }
    if c.failure_count > c.failures.len() {
        println!(
            "   ... {} more failing turns",
            c.failure_count - c.failures.len()
        );
    }
    for s in c.stray.iter().take(5) {
        println!("   STRAY: {s}");
    }
}

fn print_latencies(cancel: &[CancelFigures], first: Option<&FirstEventFigures>) {
    println!();
    println!(
        "3./4. latencies on one connection; baseline: that connection's ping round trip in the same loop"
    );
    println!(
        "{:<58} | {:>4} | {:>8} | {:>8} | {:>8} | target (on p99)",
        "measure", "n", "p50 ms", "p99 ms", "max ms"
    );
    println!("{}", "-".repeat(110));
    let row = |name: &str, samples: &[Duration], target: Option<f64>| {
        let Some(t) = Tail::of(samples) else {
            println!("{name:<58} | {:>4} | (no samples)", 0);
            return;
        };
        let goal = target.map_or_else(String::new, |g| {
            format!("< {g} ms {}", verdict(ms(t.p99) < g))
        });
        println!(
            "{:<58} | {:>4} | {:>8.3} | {:>8.3} | {:>8.3} | {}",
            name,
            t.n,
            ms(t.p50),
            ms(t.p99),
            ms(t.max),
            goal
        );
    };
    for c in cancel {
        row(
            &format!("ping round trip (baseline, {})", short(c)),
            &c.ping,
            None,
        );
        row(
            &format!("agent.cancel → cancelled, {}", c.point.label()),
            &c.to_cancelled,
            Some(CANCEL_P99_MS),
        );
        row("  agent.cancel → its result", &c.to_result, None);
        if !c.to_process_gone.is_empty() || c.leftover_processes > 0 {
            row(
                "  agent.cancel → sleep process gone",
                &c.to_process_gone,
                None,
            );
            if c.leftover_processes > 0 {
                println!(
                    "  PROBLEM: {} `sleep 30` processes still running 5 s after the cancel (killed by the bench)",
                    c.leftover_processes
                );
            }
        }
        for p in &c.problems {
            println!("  PROBLEM: {p}");
        }
    }
    if let Some(f) = first {
        row("ping round trip (baseline, first event)", &f.ping, None);
        row(
            "chat → first envelope (workflow start)",
            &f.first_event,
            Some(FIRST_EVENT_MS),
        );
        row(
            "  chat → done (one-chunk reply, for scale)",
            &f.to_done,
            None,
        );
        for p in &f.problems {
            println!("  PROBLEM: {p}");
        }
    }
}

fn short(c: &CancelFigures) -> &'static str {
    match c.point {
        super::latency::CancelPoint::SlowStream => "stream cancels",
        super::latency::CancelPoint::Sleep => "sleep cancels",
    }
}

/// Daemon stderr (RUST_LOG=warn) of every section that wrote any.
pub fn print_stderr(f: &Figures) {
    let mut logs: Vec<(String, &str)> = Vec::new();
    for r in &f.relay {
        logs.push((format!("relay {}", r.transport.name()), &r.daemon_stderr));
    }
    if let Some(c) = &f.concurrent {
        logs.push(("concurrent".into(), &c.daemon_stderr));
    }
    for c in &f.cancel {
        logs.push((format!("cancel {}", c.point.label()), &c.daemon_stderr));
    }
    if let Some(x) = &f.first_event {
        logs.push(("first event".into(), &x.daemon_stderr));
    }
    for (name, log) in logs {
        if !log.trim().is_empty() {
            eprintln!("daemon stderr ({name}, RUST_LOG=warn):\n{}", log.trim_end());
        }
    }
}

fn tail_json(samples: &[Duration]) -> Value {
    match Tail::of(samples) {
        Some(t) => json!({"n": t.n, "p50Ms": ms(t.p50), "p99Ms": ms(t.p99), "maxMs": ms(t.max)}),
        None => Value::Null,
    }
}

fn timings_json(t: &Timings) -> Value {
    json!({"minMs": ms(t.min), "medianMs": ms(t.median), "p95Ms": ms(t.p95), "maxMs": ms(t.max)})
}

/// Median CPU ms per run of each party.
fn cpu_json(runs: &[CpuSplit]) -> Value {
    let med = |f: fn(&CpuSplit) -> Duration| {
        Timings::of(&runs.iter().map(f).collect::<Vec<_>>()).map(|t| ms(t.median))
    };
    json!({"serverMs": med(|c| c.server), "clientMs": med(|c| c.client), "daemonMs": med(|c| c.daemon)})
}

pub fn to_json(f: &Figures) -> Value {
    let relay: Vec<Value> = f
        .relay
        .iter()
        .filter_map(|r| {
            let (d, t, ratio, extra, met) = relay_outcome(r)?;
            Some(json!({
                "transport": r.transport.name(), "deltas": r.deltas,
                "direct": timings_json(&d), "daemon": timings_json(&t),
                "directCpu": cpu_json(&r.direct_cpu), "daemonCpu": cpu_json(&r.daemon_cpu),
                "directHeadMs": Timings::of(&r.direct_head).map(|t| ms(t.median)),
                "headMs": Timings::of(&r.head).map(|t| ms(t.median)),
                "tailMs": Timings::of(&r.tail).map(|t| ms(t.median)),
                "ratio": ratio, "extraMs": extra, "met": met,
                "deltasSeen": r.deltas_seen, "directSseEvents": r.direct_events,
                "daemonEnvelopes": r.daemon_envelopes, "serverConnections": r.server_connections,
                "problems": r.problems,
            }))
        })
        .collect();
    let concurrent = f.concurrent.as_ref().map(|c| {
        let (complete, rss_ok) = concurrent_met(c);
        json!({
            "turns": c.plan.turns, "connections": c.plan.connections, "deltas": c.plan.deltas,
            "toolDelayMs": ms(c.plan.tool_delay), "wallMs": ms(c.wall),
            "allStartedMs": c.all_started.map(ms), "done": c.done, "exact": c.exact,
            "envelopes": c.envelopes, "envelopesPerTurn": [c.envelopes_per_turn.0, c.envelopes_per_turn.1],
            "failures": c.failures, "failureCount": c.failure_count, "stray": c.stray,
            "connectionErrors": c.connection_errors, "rssBeforeBytes": c.rss_before,
            "rssAfterBytes": c.rss_after, "rssIdleBytes": c.rss_idle, "rssAllStartedBytes": c.rss_all_started, "peakRssBytes": c.peak_rss,
            "serverConnections": c.server_connections, "completionRequests": c.completion_requests, "meanRequestBytes": c.request_bytes,
            "scriptViolations": c.script_violations, "completeMet": complete, "rssMet": rss_ok,
        })
    });
    let cancel: Vec<Value> = f
        .cancel
        .iter()
        .map(|c| {
            json!({
                "point": c.point.label(), "ping": tail_json(&c.ping),
                "toCancelled": tail_json(&c.to_cancelled), "toResult": tail_json(&c.to_result),
                "toProcessGone": tail_json(&c.to_process_gone),
                "leftoverProcesses": c.leftover_processes, "problems": c.problems,
            })
        })
        .collect();
    let first = f.first_event.as_ref().map(|x| {
        json!({
            "ping": tail_json(&x.ping), "firstEvent": tail_json(&x.first_event),
            "toDone": tail_json(&x.to_done), "problems": x.problems,
        })
    });
    json!({
        "bench": "turns", "relay": relay, "concurrent": concurrent, "cancel": cancel, "firstEvent": first,
        "targets": {
            "relayMaxRatio": RELAY_MAX_RATIO, "relayMaxExtraMs": RELAY_MAX_EXTRA_MS,
            "peakRssMb": PEAK_RSS_MB, "cancelP99Ms": CANCEL_P99_MS, "firstEventMs": FIRST_EVENT_MS,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::turns::relay::Transport;

    fn relay(direct: u64, daemon: u64) -> RelayFigures {
        RelayFigures {
            transport: Transport::H2c,
            deltas: 3,
            direct: vec![Duration::from_millis(direct); 3],
            daemon: vec![Duration::from_millis(daemon); 3],
            direct_cpu: vec![CpuSplit::default(); 3],
            daemon_cpu: vec![CpuSplit::default(); 3],
            deltas_seen: vec![3; 3],
            direct_head: vec![Duration::from_millis(1); 3],
            head: vec![Duration::from_millis(1); 3],
            tail: vec![Duration::from_millis(1); 3],
            direct_events: 6,
            daemon_envelopes: 9,
            server_connections: 2,
            problems: Vec::new(),
            daemon_stderr: String::new(),
        }
    }

    #[test]
    fn relay_target_needs_both_ratio_and_extra() {
        assert!(relay_outcome(&relay(40, 41)).unwrap().4, "2.5 % and 1 ms");
        assert!(!relay_outcome(&relay(40, 43)).unwrap().4, "3 ms over");
        assert!(!relay_outcome(&relay(10, 11)).unwrap().4, "10 % over");
        let mut lost = relay(40, 40);
        lost.deltas_seen[1] = 2;
        assert!(
            !relay_outcome(&lost).unwrap().4,
            "a lost delta misses the target"
        );
    }

    #[test]
    fn json_carries_every_section_and_the_targets() {
        let f = Figures {
            relay: vec![relay(40, 41)],
            ..Figures::default()
        };
        let v = to_json(&f);
        assert_eq!(v["relay"][0]["transport"], "h2c");
        assert_eq!(v["relay"][0]["met"], true);
        assert_eq!(v["concurrent"], Value::Null);
        assert_eq!(v["targets"]["cancelP99Ms"], 200.0);
        assert_eq!(tail_json(&[]), Value::Null);
    }
}
