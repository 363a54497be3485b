//! `engine`: the engine's own front ends (issue 18's targets).
//!
//! - `serve` ready: spawn → the answer to its first command, on a home with
//!   10,000 sessions / 1,000,000 events; baselines in the same run: a bare
//!   process start (`/bin/true`) and `serve` on an empty home.
//! - A 300-step turn (`seekclaw run --events`, every step one tool call,
//!   against the testkit provider): wall time per step around step 10 and
//!   around step 300, and the process's RSS at step 300.
//! - Store work per step: the same turn's appends (assistant step + tool
//!   result, one transaction each) timed in-process against a growing log,
//!   step 10 vs step 300: appends only, the log is never re-read.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use seekclaw_store::{
    AssistantMessage, EventItem, NewSession, Store, ToolCall, ToolResult, UserMessage,
};
use seekclaw_testkit::{ProviderServer, Reply};
use serde_json::{Value, json};

use crate::daemon::status_kb;
use crate::stats::{Timings, median_f64, ms};

const TARGET_READY_MS: f64 = 20.0;
const TARGET_STEP_RATIO: f64 = 1.5;
const STEPS: usize = 300;

pub struct EngineArgs<'a> {
    pub bin: &'a Path,
    pub home: Option<std::path::PathBuf>,
    pub runs: usize,
    pub json: bool,
}

pub fn run(args: &EngineArgs<'_>) -> Result<()> {
    if args.runs == 0 {
        bail!("--runs must be at least 1");
    }
    let scratch = tempfile::Builder::new()
        .prefix("sc-bench-engine-")
        .tempdir()?;
    let big_path = match &args.home {
        Some(h) => std::path::absolute(h)?,
        None => scratch.path().join("big"),
    };
    let big = crate::startup::prepare_home(&big_path)?;
    let process_start = crate::startup::time_bin_true()?;
    eprintln!("measuring serve spawn → first answer ...");
    let empty_home = scratch.path().join("empty");
    let mut empty = Vec::new();
    let mut loaded = Vec::new();
    // Alternating, so both see the same machine state.
    for _ in 0..args.runs {
        empty.push(serve_ready(args.bin, &empty_home)?);
        loaded.push(serve_ready(args.bin, &big.path)?);
    }
    let empty = Timings::of(&empty).context("no runs")?;
    let loaded = Timings::of(&loaded).context("no runs")?;

    eprintln!("running a {STEPS}-step turn ...");
    let long = long_turn(args.bin, &scratch.path().join("turn"))?;
    eprintln!("timing the store's appends over {STEPS} steps ...");
    let store = store_steps(&scratch.path().join("store.db"))?;

    let early = median_f64(&long.step_ms[5..15]);
    let late = median_f64(&long.step_ms[STEPS - 10..STEPS - 1]);
    let store_ratio = store.late_us / store.early_us;
    if args.json {
        let out = json!({
            "home": {"sessions": big.sessions},
            "processStartMs": ms(process_start.median),
            "serveReadyEmptyMs": ms(empty.median),
            "serveReadyBigMs": {"median": ms(loaded.median), "p95": ms(loaded.p95), "max": ms(loaded.max)},
            "turn": {"steps": STEPS, "stepMsAt10": early, "stepMsAt300": late, "rssAtStep300Mb": long.rss_kb as f64 / 1024.0, "totalSecs": long.total.as_secs_f64()},
            "storeAppendUs": {"at10": store.early_us, "at300": store.late_us, "ratio": store_ratio},
        });
        println!("{out}");
        return Ok(());
    }
    println!("engine front ends (runs: {})", args.runs);
    println!(
        "  bare process start (/bin/true)      median {:>7.2} ms",
        ms(process_start.median)
    );
    println!(
        "  serve ready, empty home             median {:>7.2} ms",
        ms(empty.median)
    );
    println!(
        "  serve ready, {} sessions         median {:>7.2} ms  p95 {:>7.2} ms  (target < {TARGET_READY_MS} ms)",
        big.sessions,
        ms(loaded.median),
        ms(loaded.p95)
    );
    println!(
        "  {STEPS}-step turn: per step at ~10   {early:>7.2} ms, at ~300 {late:>7.2} ms ({:.2}x; total {:.1} s)",
        late / early,
        long.total.as_secs_f64()
    );
    println!(
        "  RSS of the run at step 300          {:>7.1} MB",
        long.rss_kb as f64 / 1024.0
    );
    println!(
        "  store appends per step: at 10 {:.0} µs, at 300 {:.0} µs ({store_ratio:.2}x; target ≤ {TARGET_STEP_RATIO}x)",
        store.early_us, store.late_us
    );
    Ok(())
}

/// Spawn → `serve`'s answer to a steer with nothing to steer
/// (`steer_dropped`, after its `session_started`): no model, no turn, just
/// the engine up.
fn serve_ready(bin: &Path, home: &Path) -> Result<Duration> {
    let start = Instant::now();
    let mut child = Command::new(bin)
        .args(["serve", "--global"])
        .env("SEEKCLAW_HOME", home)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .context("spawn seekclaw serve")?;
    let mut stdin = child.stdin.take().context("stdin")?;
    stdin.write_all(b"{\"command\":\"steer\",\"text\":\"ready?\"}\n")?;
    let mut out = BufReader::new(child.stdout.take().context("stdout")?);
    let mut line = String::new();
    // `session_started` (the session `serve` will write to) comes first; the
    // answer to the steer says the engine reads commands.
    loop {
        line.clear();
        out.read_line(&mut line)?;
        let v: Value =
            serde_json::from_str(&line).with_context(|| format!("not an event: {line}"))?;
        if v["event"] != "session_started" {
            break;
        }
    }
    let ready = start.elapsed();
    drop(stdin);
    child.wait()?;
    let v: Value = serde_json::from_str(&line).with_context(|| format!("not an event: {line}"))?;
    if v["event"] != "steer_dropped" {
        bail!("unexpected first event: {line}");
    }
    Ok(ready)
}

struct LongTurn {
    step_ms: Vec<f64>,
    rss_kb: u64,
    total: Duration,
}

/// `seekclaw run --events` for a turn of `STEPS` tool-call steps.
fn long_turn(bin: &Path, home: &Path) -> Result<LongTurn> {
    let server = ProviderServer::start()?;
    std::fs::create_dir_all(home)?;
    let config = json!({
        "agent": {"maxRepairAttempts": 0},
        "providers": [{"id": "tk", "kind": "openai", "baseUrl": server.base_url(),
                        "models": [{"id": "m1", "contextWindow": 1000000000}]}]
    });
    std::fs::write(home.join("config.json"), config.to_string())?;
    server.set_default(
        Reply::new()
            .text("Looking at the directory again.")
            .tool_call("c", "list_dir", r#"{"path":"."}"#)
            .usage(1000, 0, 20),
    );
    let start = Instant::now();
    let mut child = Command::new(bin)
        .args(["run", "wander", "--global", "--events", "--max-steps"])
        .arg(STEPS.to_string())
        .env("SEEKCLAW_HOME", home)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .context("spawn seekclaw run")?;
    let pid = child.id();
    let stdout = BufReader::new(child.stdout.take().context("stdout")?);
    let mut steps: Vec<Instant> = Vec::with_capacity(STEPS);
    let mut rss_kb = 0;
    for line in stdout.lines() {
        let line = line?;
        let v: Value = serde_json::from_str(&line)?;
        if v["event"] == "agent_step" {
            steps.push(Instant::now());
            if steps.len() == STEPS {
                let status = std::fs::read_to_string(format!("/proc/{pid}/status"))?;
                rss_kb = status_kb(&status, "VmRSS:").unwrap_or(0);
            }
        }
    }
    child.wait()?;
    if steps.len() != STEPS {
        bail!("the turn took {} steps, not {STEPS}", steps.len());
    }
    let step_ms = steps.windows(2).map(|w| ms(w[1] - w[0])).collect();
    Ok(LongTurn {
        step_ms,
        rss_kb,
        total: start.elapsed(),
    })
}

struct StoreSteps {
    early_us: f64,
    late_us: f64,
}

/// A turn's appends, as the loop makes them: per step an assistant message
/// with one tool call, then its result (each its own transaction).
fn store_steps(db: &Path) -> Result<StoreSteps> {
    let store = Store::open(db)?;
    let mut early = Vec::new();
    let mut late = Vec::new();
    for round in 0..5 {
        let id = format!("20260101-000000-bench{round}");
        store.create_session(&NewSession {
            id: id.clone(),
            scope: "global".into(),
            workspace: None,
            title: None,
            reasoning_level: "medium".into(),
            network_enabled: true,
        })?;
        let owner = format!("{id}/turn");
        let user = EventItem::User(UserMessage {
            text: "wander".into(),
            images: Vec::new(),
        });
        store.open_turn("global", &id, &owner, &user)?;
        let mut per_step = Vec::with_capacity(STEPS);
        for step in 0..STEPS {
            let (a, r) = step_items(step);
            let t = Instant::now();
            store.append_event("global", &id, Some(&owner), &a)?;
            store.append_event("global", &id, Some(&owner), &r)?;
            per_step.push(t.elapsed().as_secs_f64() * 1e6);
        }
        early.push(median_f64(&per_step[5..15]));
        late.push(median_f64(&per_step[STEPS - 10..]));
    }
    Ok(StoreSteps {
        early_us: median_f64(&early),
        late_us: median_f64(&late),
    })
}

fn step_items(step: usize) -> (EventItem, EventItem) {
    let call = format!("call_{step}");
    let assistant = EventItem::Assistant(AssistantMessage {
        text: "Looking at the directory again.".into(),
        tool_calls: vec![ToolCall {
            id: call.clone(),
            name: "list_dir".into(),
            arguments_json: r#"{"path":"."}"#.into(),
        }],
        ..AssistantMessage::default()
    });
    let result = EventItem::ToolResult(ToolResult {
        tool_call_id: call,
        tool_name: "list_dir".into(),
        success: true,
        output: "src/\nCargo.toml\nREADME.md\n".repeat(20),
        diff: None,
        file_path: None,
        ..ToolResult::default()
    });
    (assistant, result)
}
