//! `ping`: throughput and latency of the daemon's cheapest request against an
//! in-process JSONL echo server measured in the same run, alternating the two
//! servers per round because the machine is shared and noisy.

use std::path::Path;
use std::str::FromStr;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use serde_json::{Value, json};

use crate::cpu::{Threads, cpu_ns};
use crate::daemon::DaemonProc;
use crate::echo::EchoServer;
use crate::load::{self, LoadPlan, LoadResult};
use crate::stats::median_f64;

/// Targets printed beside the figures (not enforced: benchmarks never gate).
const TARGET_RATIO_16X16: f64 = 0.7;
const TARGET_P99_US: f64 = 1000.0;
const WARMUP: Duration = Duration::from_millis(500);

/// Connections × requests in flight per connection, e.g. `16x16`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shape {
    pub connections: usize,
    pub depth: usize,
}

impl FromStr for Shape {
    type Err = String;

    fn from_str(s: &str) -> Result<Shape, String> {
        let (c, m) = s
            .split_once(['x', 'X', '×'])
            .ok_or_else(|| format!("expected CONNSxDEPTH, got {s:?}"))?;
        let parse = |v: &str| match v.trim().parse::<usize>() {
            Ok(n) if n > 0 => Ok(n),
            _ => Err(format!("expected a positive number in {s:?}")),
        };
        Ok(Shape {
            connections: parse(c)?,
            depth: parse(m)?,
        })
    }
}

impl std::fmt::Display for Shape {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}x{}", self.connections, self.depth)
    }
}

pub struct PingArgs<'a> {
    pub bin: &'a Path,
    pub seconds: f64,
    pub rounds: usize,
    pub shapes: Vec<Shape>,
    pub json: bool,
}

/// One run against one server.
#[derive(Debug, Clone, Copy)]
struct Run {
    load: LoadResult,
    /// Server threads' CPU per answer over the whole run, µs.
    server_cpu_us: f64,
    /// Client threads' CPU per answer, µs (the same work against either server).
    client_cpu_us: f64,
}

/// Medians over rounds of one server at one shape.
#[derive(Debug, Clone, Copy)]
struct Summary {
    per_sec: f64,
    p50_us: f64,
    p99_us: f64,
    server_cpu_us: f64,
    client_cpu_us: f64,
}

impl Summary {
    fn of(rounds: &[Run]) -> Summary {
        let m = |f: fn(&Run) -> f64| median_f64(&rounds.iter().map(f).collect::<Vec<_>>());
        Summary {
            per_sec: m(|r| r.load.per_sec),
            p50_us: m(|r| r.load.p50_us),
            p99_us: m(|r| r.load.p99_us),
            server_cpu_us: m(|r| r.server_cpu_us),
            client_cpu_us: m(|r| r.client_cpu_us),
        }
    }
}

struct Row {
    shape: Shape,
    baseline: Vec<Run>,
    daemon: Vec<Run>,
}

/// Names of the bench's runtime threads (`comm` keeps 15 bytes; these fit).
const ECHO_THREADS: &str = "bench-echo";
const CLIENT_THREADS: &str = "bench-client";

pub fn run(args: &PingArgs<'_>) -> Result<()> {
    if args.rounds == 0 || args.seconds.is_nan() || args.seconds <= 0.0 {
        bail!("--rounds and --seconds must be positive");
    }
    let measure = Duration::from_secs_f64(args.seconds);
    // Separate runtimes: the echo server and the clients must not share
    // worker threads, just as the daemon (its own process) does not.
    let server_rt = multi_thread_runtime(ECHO_THREADS)?;
    let client_rt = multi_thread_runtime(CLIENT_THREADS)?;
    let echo = EchoServer::start(&server_rt)?;

    let tmp = tempfile::Builder::new()
        .prefix("sc-bench-ping-")
        .tempdir()?;
    let home = tmp.path().join("home");
    let mut daemon = DaemonProc::spawn(args.bin, &home, &tmp.path().join("daemon.stderr"))?;
    let (ready, _) = daemon.wait_answering()?;
    eprintln!(
        "daemon pid {} answering after {:.1} ms; echo at {}",
        daemon.pid(),
        ready.as_secs_f64() * 1e3,
        echo.path().display()
    );

    let mut rows = Vec::new();
    for shape in &args.shapes {
        let mut row = Row {
            shape: *shape,
            baseline: Vec::new(),
            daemon: Vec::new(),
        };
        for round in 1..=args.rounds {
            let servers = [
                ("baseline", echo.path(), Threads::Named(ECHO_THREADS)),
                ("daemon", &daemon.socket, Threads::Process(daemon.pid())),
            ];
            for (name, socket, server_threads) in servers {
                let plan = LoadPlan {
                    socket: socket.to_path_buf(),
                    connections: shape.connections,
                    depth: shape.depth,
                    warmup: WARMUP,
                    measure,
                };
                let server_before = cpu_ns(server_threads);
                let client_before = cpu_ns(Threads::Named(CLIENT_THREADS));
                let load = client_rt
                    .block_on(load::run(&plan))
                    .with_context(|| format!("{name} {shape} round {round}"))?;
                let per_answer = |ns: u64| ns as f64 / 1e3 / load.total_answers.max(1) as f64;
                let r = Run {
                    load,
                    server_cpu_us: per_answer(cpu_ns(server_threads).saturating_sub(server_before)),
                    client_cpu_us: per_answer(
                        cpu_ns(Threads::Named(CLIENT_THREADS)).saturating_sub(client_before),
                    ),
                };
                eprintln!(
                    "  {shape:>6} round {round} {name:<8} {:>10.0} req/s  p50 {:>7.1} µs  p99 {:>8.1} µs  cpu/req server {:.2} µs client {:.2} µs",
                    load.per_sec, load.p50_us, load.p99_us, r.server_cpu_us, r.client_cpu_us
                );
                if name == "baseline" {
                    row.baseline.push(r);
                } else {
                    row.daemon.push(r);
                }
            }
        }
        rows.push(row);
    }
    let (rss, _) = daemon.memory().unwrap_or((0, 0));
    let stderr = daemon.stderr();
    daemon.shutdown().context("daemon shutdown")?;

    if args.json {
        println!("{}", to_json(&rows, args, rss));
    } else {
        print_table(&rows, args, rss);
    }
    if !stderr.trim().is_empty() {
        eprintln!("daemon stderr (RUST_LOG=warn):\n{stderr}");
    }
    Ok(())
}

fn multi_thread_runtime(name: &str) -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .thread_name(name)
        .enable_all()
        .build()
        .with_context(|| format!("build the {name} runtime"))
}

fn print_table(rows: &[Row], args: &PingArgs<'_>, rss: u64) {
    println!();
    println!(
        "ping: {} s per run after a 0.5 s warm-up, median of {} alternating rounds",
        args.seconds, args.rounds
    );
    println!(
        "{:<7} | {:>14} | {:>12} | {:>5} | {:>19} | {:>19} | {:>22}",
        "config",
        "baseline req/s",
        "daemon req/s",
        "ratio",
        "baseline p50/p99 µs",
        "daemon p50/p99 µs",
        "server CPU µs/req b/d"
    );
    println!("{}", "-".repeat(7 + 14 + 12 + 5 + 19 + 19 + 22 + 18));
    for row in rows {
        let b = Summary::of(&row.baseline);
        let d = Summary::of(&row.daemon);
        println!(
            "{:<7} | {:>14.0} | {:>12.0} | {:>5.2} | {:>19} | {:>19} | {:>22}",
            row.shape.to_string(),
            b.per_sec,
            d.per_sec,
            d.per_sec / b.per_sec,
            format!("{:.0} / {:.0}", b.p50_us, b.p99_us),
            format!("{:.0} / {:.0}", d.p50_us, d.p99_us),
            format!("{:.2} / {:.2}", b.server_cpu_us, d.server_cpu_us),
        );
    }
    let client: Vec<String> = rows
        .iter()
        .map(|r| {
            let (b, d) = (Summary::of(&r.baseline), Summary::of(&r.daemon));
            format!("{} {:.2}/{:.2}", r.shape, b.client_cpu_us, d.client_cpu_us)
        })
        .collect();
    println!(
        "client CPU µs/req against baseline/daemon: {}",
        client.join(", ")
    );
    println!();
    println!("targets:");
    for row in rows {
        let b = Summary::of(&row.baseline);
        let d = Summary::of(&row.daemon);
        let ratio = d.per_sec / b.per_sec;
        if row.shape
            == (Shape {
                connections: 16,
                depth: 16,
            })
        {
            println!(
                "  ratio >= {TARGET_RATIO_16X16} at 16x16: {ratio:.2} {}",
                verdict(ratio >= TARGET_RATIO_16X16)
            );
        }
        println!(
            "  daemon p99 < 1 ms at {}: {:.0} µs {}",
            row.shape,
            d.p99_us,
            verdict(d.p99_us < TARGET_P99_US)
        );
    }
    println!("daemon RSS after the ping runs: {:.1} MB", mb(rss));
}

fn verdict(ok: bool) -> &'static str {
    if ok { "(met)" } else { "(MISSED)" }
}

pub fn mb(bytes: u64) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

fn to_json(rows: &[Row], args: &PingArgs<'_>, rss: u64) -> Value {
    let side = |runs: &[Run]| {
        let s = Summary::of(runs);
        json!({
            "reqPerSec": s.per_sec,
            "p50Us": s.p50_us,
            "p99Us": s.p99_us,
            "serverCpuUsPerReq": s.server_cpu_us,
            "clientCpuUsPerReq": s.client_cpu_us,
            "rounds": runs.iter().map(|r| json!({
                "reqPerSec": r.load.per_sec,
                "p50Us": r.load.p50_us,
                "p99Us": r.load.p99_us,
                "answers": r.load.answers,
                "serverCpuUsPerReq": r.server_cpu_us,
                "clientCpuUsPerReq": r.client_cpu_us,
            })).collect::<Vec<_>>(),
        })
    };
    let configs: Vec<Value> = rows
        .iter()
        .map(|row| {
            let ratio = Summary::of(&row.daemon).per_sec / Summary::of(&row.baseline).per_sec;
            json!({
                "config": row.shape.to_string(),
                "connections": row.shape.connections,
                "depth": row.shape.depth,
                "baseline": side(&row.baseline),
                "daemon": side(&row.daemon),
                "ratio": ratio,
            })
        })
        .collect();
    json!({
        "bench": "ping",
        "seconds": args.seconds,
        "warmupSeconds": WARMUP.as_secs_f64(),
        "rounds": args.rounds,
        "configs": configs,
        "daemonRssBytes": rss,
        "targets": {"ratioAt16x16": TARGET_RATIO_16X16, "daemonP99Us": TARGET_P99_US},
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_parse_and_print() {
        let s: Shape = "16x16".parse().unwrap();
        assert_eq!((s.connections, s.depth), (16, 16));
        assert_eq!(s.to_string(), "16x16");
        assert_eq!("1×64".parse::<Shape>().unwrap().depth, 64);
        assert!("0x1".parse::<Shape>().is_err());
        assert!("16".parse::<Shape>().is_err());
        assert!("ax2".parse::<Shape>().is_err());
    }

    #[test]
    fn summary_takes_medians_per_metric() {
        let r = |per_sec, p50_us, p99_us| Run {
            load: LoadResult {
                answers: 1,
                total_answers: 2,
                per_sec,
                p50_us,
                p99_us,
            },
            server_cpu_us: p50_us * 2.0,
            client_cpu_us: 1.0,
        };
        let s = Summary::of(&[r(10.0, 5.0, 90.0), r(30.0, 1.0, 10.0), r(20.0, 3.0, 50.0)]);
        assert_eq!((s.per_sec, s.p50_us, s.p99_us), (20.0, 3.0, 50.0));
        assert_eq!((s.server_cpu_us, s.client_cpu_us), (6.0, 1.0));
    }
}
