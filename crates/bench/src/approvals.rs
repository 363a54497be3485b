//! `approvals`: what an approval round trip costs the daemon (issue 20: "an
//! approval round trip adds < 1 ms of daemon time beyond the client's
//! answer"). Baseline in the same run: the same one-tool turn (`bash true`,
//! then an answer) on a session whose policy is `never`, interleaved with
//! turns on an `untrusted` session whose client answers `allow_once` the
//! moment `approval_request` arrives.
//!
//! Figures: the turn's wall time on each side (the difference is all the
//! approval adds: two events, the `agent.approve` request and its answer),
//! and `agent.approve` itself, from its line sent to its `approved` read.

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use seekclaw_testkit::{ProviderServer, Reply};
use serde_json::{Value, json};

use crate::daemon::JsonlClient;
use crate::stats::{Tail, ms};
use crate::turns::setup::{Scratch, SectionDaemon};

pub struct ApprovalsArgs<'a> {
    pub bin: &'a Path,
    pub json: bool,
    pub turns: usize,
}

struct Figures {
    plain: Tail,
    asked: Tail,
    approve: Tail,
}

pub fn run(args: &ApprovalsArgs<'_>) -> Result<()> {
    let scratch = Scratch::new()?;
    let server = ProviderServer::start()?;
    let (daemon, mut c) = SectionDaemon::start(args.bin, &scratch, "approvals", &server, false)?;
    let ws = scratch.workspace().to_string();
    let plain_sid = new_session(&mut c, &ws)?;
    let asked_sid = new_session(&mut c, &ws)?;
    let update = json!({"id": 3, "method": "session.update",
        "params": {"id": asked_sid, "workspace": ws, "approvalPolicy": "untrusted"}});
    c.timed(&update.to_string())?;
    let (mut plain, mut asked, mut approve) = (Vec::new(), Vec::new(), Vec::new());
    // Two warm-up rounds, then the measured ones, alternating sides.
    for round in 0..args.turns + 2 {
        let p = turn(&server, &mut c, &ws, &plain_sid, false)?;
        let (a, round_trip) = turn(&server, &mut c, &ws, &asked_sid, true)?;
        if round >= 2 {
            plain.push(p.0);
            asked.push(a);
            approve.push(round_trip.context("no approval was asked")?);
        }
    }
    let figures = Figures {
        plain: Tail::of(&plain).context("no samples")?,
        asked: Tail::of(&asked).context("no samples")?,
        approve: Tail::of(&approve).context("no samples")?,
    };
    let stderr = daemon.finish()?;
    print(&figures, args);
    if !stderr.trim().is_empty() {
        eprintln!("daemon stderr:\n{stderr}");
    }
    Ok(())
}

fn new_session(c: &mut JsonlClient, ws: &str) -> Result<String> {
    let req = json!({"id": 2, "method": "session.new", "params": {"workspace": ws}});
    let (_, env) = c.timed(&req.to_string())?;
    env["data"]
        .as_str()
        .map(str::to_string)
        .context("session.new answered no id")
}

/// One turn (`bash true`, then a one-word answer); with `answer`, the client
/// allows the call as soon as it is asked. Returns the turn's wall time and
/// the `agent.approve` round trip.
fn turn(
    server: &ProviderServer,
    c: &mut JsonlClient,
    ws: &str,
    sid: &str,
    answer: bool,
) -> Result<(Duration, Option<Duration>)> {
    server.enqueue(Reply::new().tool_call("c1", "bash", r#"{"command":"true"}"#));
    server.enqueue(Reply::plain("ok"));
    let chat = json!({"id": 10, "method": "chat",
        "params": {"message": "go", "workspace": ws, "sessionId": sid, "approvals": answer}});
    let started = Instant::now();
    c.send(&chat.to_string())?;
    let mut sent_at = None;
    let mut round_trip = None;
    loop {
        let line = c.read_line()?;
        // Only the few lines that matter are parsed; deltas are skipped by bytes.
        let interesting = [
            &b"approval_request"[..],
            b"\"id\":11",
            b"\"done\"",
            b"\"error\"",
        ]
        .iter()
        .any(|k| line.windows(k.len()).any(|w| w == *k));
        if !interesting {
            continue;
        }
        let env: Value = serde_json::from_slice(line)?;
        match (env["id"].as_i64(), env["event"].as_str()) {
            (Some(10), Some("approval_request")) => {
                let approve = json!({"id": 11, "method": "agent.approve", "params": {
                    "requestId": 10, "approvalId": env["details"]["approvalId"],
                    "decision": "allow_once"}});
                sent_at = Some(Instant::now());
                c.send(&approve.to_string())?;
            }
            (Some(11), Some("result")) => round_trip = sent_at.map(|t| t.elapsed()),
            (Some(10), Some("done")) => return Ok((started.elapsed(), round_trip)),
            (_, Some("error")) => bail!("the turn failed: {env}"),
            _ => {}
        }
    }
}

fn print(f: &Figures, args: &ApprovalsArgs<'_>) {
    let added = ms(f.asked.p50) - ms(f.plain.p50);
    if args.json {
        let v = json!({
            "turns": args.turns,
            "plain_turn_p50_ms": ms(f.plain.p50), "plain_turn_p99_ms": ms(f.plain.p99),
            "asked_turn_p50_ms": ms(f.asked.p50), "asked_turn_p99_ms": ms(f.asked.p99),
            "added_p50_ms": added,
            "approve_round_trip_p50_ms": ms(f.approve.p50),
            "approve_round_trip_p99_ms": ms(f.approve.p99),
        });
        println!("{v}");
        return;
    }
    println!(
        "approvals: {} turns per side (bash true + answer), interleaved",
        args.turns
    );
    println!(
        "  turn, policy never (baseline)          p50 {:7.3} ms  p99 {:7.3} ms",
        ms(f.plain.p50),
        ms(f.plain.p99)
    );
    println!(
        "  turn, untrusted, answered at once      p50 {:7.3} ms  p99 {:7.3} ms",
        ms(f.asked.p50),
        ms(f.asked.p99)
    );
    println!("  added by the approval (p50 difference)     {added:7.3} ms (target < 1 ms)");
    println!(
        "  agent.approve sent → `approved` read   p50 {:7.3} ms  p99 {:7.3} ms",
        ms(f.approve.p50),
        ms(f.approve.p99)
    );
}
