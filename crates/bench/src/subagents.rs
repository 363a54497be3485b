//! `subagents`: `explore` children against the testkit provider, through a
//! real daemon (issue 30's targets).
//!
//! - Concurrency: a turn whose one step calls `explore` three times against
//!   the same turn calling it once, every child's answer held `--delay` ms by
//!   the provider: three adjacent children run side by side, so the three
//!   should take less than 1.3× the one.
//! - A child's start-up cost, as an upper bound: from the parent's
//!   `tool_start` of `explore` to the child's model answering (its first
//!   `subrun_progress`), replies not held: the child's session creation,
//!   turn start, first request and one local HTTP round trip.

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use seekclaw_testkit::{Client, DaemonProcess, ProviderServer, Reply, StartOptions};
use serde_json::{Value, json};

use crate::stats::{Timings, median_f64, ms};

const TARGET_RATIO: f64 = 1.3;
const TARGET_STARTUP_MS: f64 = 20.0;

pub struct SubagentArgs<'a> {
    pub bin: &'a Path,
    pub runs: usize,
    pub delay_ms: u64,
    pub json: bool,
}

pub fn run(args: &SubagentArgs<'_>) -> Result<()> {
    if args.runs == 0 {
        bail!("--runs must be at least 1");
    }
    let server = ProviderServer::start()?;
    let scratch = tempfile::Builder::new().prefix("sc-bench-sub-").tempdir()?;
    let ws = scratch.path().join("proj");
    std::fs::create_dir_all(ws.join("src"))?;
    std::fs::write(ws.join("Cargo.toml"), "[package]\nname = \"x\"\n")?;
    let daemon = start(args.bin, &server)?;
    let mut c = daemon.connect()?;
    let w = ws.display().to_string();
    let delay = Duration::from_millis(args.delay_ms);
    // One warm-up of each shape (connection pool, page cache).
    turn(&mut c, &server, &w, 1, delay)?;
    turn(&mut c, &server, &w, 3, delay)?;
    let (mut one, mut three) = (Vec::new(), Vec::new());
    eprintln!(
        "timing 1 vs 3 explore children, {} runs each ...",
        args.runs
    );
    for _ in 0..args.runs {
        // Alternating, so both see the same machine state.
        one.push(turn(&mut c, &server, &w, 1, delay)?.wall);
        three.push(turn(&mut c, &server, &w, 3, delay)?.wall);
    }
    eprintln!("timing a child's start-up ...");
    let mut child = Vec::new();
    for _ in 0..args.runs.max(5) {
        child.push(turn(&mut c, &server, &w, 1, Duration::ZERO)?.child_start_ms);
    }
    let one = Timings::of(&one).context("no runs")?;
    let three = Timings::of(&three).context("no runs")?;
    let ratio = three.median.as_secs_f64() / one.median.as_secs_f64();
    let startup = median_f64(&child);
    if args.json {
        println!(
            "{}",
            json!({
                "delayMs": args.delay_ms, "runs": args.runs,
                "oneChildMs": ms(one.median), "threeChildrenMs": ms(three.median),
                "ratio": ratio, "targetRatio": TARGET_RATIO,
                "childStartupMs": startup, "targetStartupMs": TARGET_STARTUP_MS,
            })
        );
        return Ok(());
    }
    println!(
        "subagents (runs: {}, each child's answer held {} ms)",
        args.runs, args.delay_ms
    );
    println!(
        "  turn with 1 explore child      median {:>8.1} ms  p95 {:>8.1} ms",
        ms(one.median),
        ms(one.p95)
    );
    println!(
        "  turn with 3 explore children   median {:>8.1} ms  p95 {:>8.1} ms  ({ratio:.2}x; target < {TARGET_RATIO}x)",
        ms(three.median),
        ms(three.p95)
    );
    println!(
        "  child start-up (tool_start → its model answering, one local round trip included)\n                                 median {startup:>8.2} ms  (target < {TARGET_STARTUP_MS} ms)"
    );
    Ok(())
}

fn start(bin: &Path, server: &ProviderServer) -> Result<DaemonProcess> {
    let config = json!({
        "providers": [{
            "id": "tk", "kind": "openai", "baseUrl": server.base_url(), "apiKey": "sk-tk",
            "models": [{"id": "m1", "contextWindow": 128000, "maxOutput": 4096}]
        }],
        "agent": {"autoVerify": false},
    });
    DaemonProcess::start_with(
        bin,
        StartOptions {
            config: Some(config),
            ..StartOptions::default()
        },
    )
}

/// What one turn measured.
struct Turn {
    wall: Duration,
    /// `tool_start` of the first explore → its child's first `subrun_progress`.
    child_start_ms: f64,
}

/// A turn whose first step calls `explore` `children` times; each child's
/// answer held `delay`.
fn turn(
    c: &mut Client,
    server: &ProviderServer,
    w: &str,
    children: usize,
    delay: Duration,
) -> Result<Turn> {
    let nonce = fastnonce();
    let calls = (0..children).fold(Reply::new(), |r, i| {
        let args = json!({"query": format!("q{nonce}-{i} where?")}).to_string();
        r.tool_call(format!("call_{i}"), "explore", args)
    });
    server.enqueue(calls.usage(100, 0, 10).finish("tool_calls"));
    for i in 0..children {
        server.enqueue(
            Reply::plain(format!("found at src/{i}.rs:1"))
                .usage(200, 0, 20)
                .header_delay(delay)
                .when_body_contains(format!("q{nonce}-{i} where?")),
        );
    }
    server.enqueue(Reply::plain("done").usage(300, 0, 5));
    let began = Instant::now();
    let id = c.send(
        "chat",
        json!({"message": format!("look {nonce}"), "workspace": w}),
    )?;
    let mut seen: Vec<(Instant, Value)> = Vec::new();
    loop {
        let env = c.next_envelope()?;
        if env["id"].as_i64() != Some(id) {
            continue;
        }
        let name = env["event"].as_str().unwrap_or_default().to_string();
        seen.push((Instant::now(), env));
        if seekclaw_protocol::event::is_terminal(&name) {
            break;
        }
    }
    let wall = began.elapsed();
    let (_, last) = seen.last().context("no events")?;
    if last["event"] != "done" {
        bail!("the turn did not finish: {last}");
    }
    let at = |pred: &dyn Fn(&Value) -> bool| seen.iter().find(|(_, e)| pred(e)).map(|(t, _)| *t);
    let tool = at(&|e| e["event"] == "tool_start").context("no tool_start")?;
    let child = at(&|e| e["event"] == "subrun_progress").context("no subrun_progress")?;
    Ok(Turn {
        wall,
        child_start_ms: ms(child.duration_since(tool)),
    })
}

/// A per-turn tag that keeps one turn's replies from matching another's.
fn fastnonce() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos())
}
