//! `resume`: a watcher that comes back. One turn streams N deltas (default
//! 10,000) on a session; then, run after run, a new connection asks
//! `session.watch {afterSeq}` from before the turn and is timed until the
//! replayed `turn_end` arrives (every buffered event read). The baseline in
//! the same run is the same connection's `session.timeline` of the session
//! (what a client without replay would read to catch up).

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use seekclaw_testkit::{ProviderServer, Reply};
use serde_json::json;

use crate::stats::median_f64;
use crate::turns::setup::{Scratch, SectionDaemon};
use crate::turns::wire::{self, Ids, id_and_event, request};

/// The target the figure is printed against (not enforced).
const TARGET_MS: f64 = 50.0;

pub struct ResumeArgs<'a> {
    pub bin: &'a Path,
    pub events: usize,
    pub runs: usize,
    pub json: bool,
}

pub fn run(args: &ResumeArgs) -> Result<()> {
    let server = ProviderServer::start().context("start the testkit server")?;
    let mut reply = Reply::new();
    for i in 0..args.events {
        reply = reply.text(format!("{i} "));
    }
    server.enqueue(reply);
    let scratch = Scratch::new()?;
    let (daemon, mut client) = SectionDaemon::start(args.bin, &scratch, "resume", &server, false)?;
    let mut ids = Ids::default();
    let ws = scratch.workspace().to_string();
    let sid = wire::new_session(&mut client, &mut ids, &ws)?;
    let timeline = wire::call(
        &mut client,
        &mut ids,
        "session.timeline",
        wire::scoped(&ws, json!({"id": sid, "follow": true})),
    )?;
    let data: serde_json::Value = serde_json::from_str(timeline["data"].as_str().unwrap_or("{}"))?;
    let after = data["followAfterSeq"]
        .as_u64()
        .context("this seekclaw has no session.timeline {follow} (no resumable streams)")?;
    let chat = ids.next();
    client.send(&request(
        chat,
        "chat",
        wire::scoped(&ws, json!({"message": "count", "sessionId": sid})),
    ))?;
    let mut streamed = 0usize;
    loop {
        let line = client.read_line()?;
        match id_and_event(line) {
            Some((id, ev)) if id == chat && wire::is_terminal(ev) => break,
            Some((id, b"delta")) if id == chat => streamed += 1,
            _ => {}
        }
    }
    if streamed != args.events {
        bail!("the turn streamed {streamed} deltas, not {}", args.events);
    }
    let mut replay: Vec<f64> = Vec::with_capacity(args.runs);
    let mut reload = Vec::with_capacity(args.runs);
    let mut replayed = 0;
    for _ in 0..args.runs {
        let (took, n) = watch_back(&daemon, &ws, &sid, after)?;
        replay.push(ms(took));
        replayed = n;
        let mut c = daemon.connect()?;
        let mut ids = Ids::default();
        let start = Instant::now();
        wire::call(
            &mut c,
            &mut ids,
            "session.timeline",
            wire::scoped(&ws, json!({"id": sid})),
        )?;
        reload.push(ms(start.elapsed()));
    }
    let stderr = daemon.finish()?;
    let (replay_ms, reload_ms) = (median_f64(&replay), median_f64(&reload));
    if args.json {
        println!(
            "{}",
            json!({"events": replayed, "runs": args.runs, "replayMs": replay_ms,
                   "timelineMs": reload_ms, "targetMs": TARGET_MS})
        );
    } else {
        println!(
            "resume: a watcher back after a turn of {} deltas",
            args.events
        );
        println!(
            "  replay of {replayed} buffered events to a reattaching watcher: median {replay_ms:.1} ms over {} runs (target < {TARGET_MS} ms)",
            args.runs
        );
        println!("  baseline, the same session's session.timeline: median {reload_ms:.1} ms");
    }
    if !stderr.trim().is_empty() {
        eprintln!("daemon stderr:\n{stderr}");
    }
    Ok(())
}

/// Connects, watches from `after`, reads to the replayed `turn_end`: how
/// long it took and how many envelopes came.
fn watch_back(
    daemon: &SectionDaemon,
    ws: &str,
    sid: &str,
    after: u64,
) -> Result<(Duration, usize)> {
    let mut c = daemon.connect()?;
    let start = Instant::now();
    c.send(&request(
        1,
        "session.watch",
        wire::scoped(ws, json!({"id": sid, "afterSeq": after})),
    ))?;
    let mut n = 0;
    loop {
        let line = c.read_line()?;
        n += 1;
        match id_and_event(line) {
            Some((1, b"turn_end")) => return Ok((start.elapsed(), n)),
            Some((1, b"resync")) => bail!("the buffer did not keep the turn: {}", wire::show(line)),
            Some((1, ev)) if wire::is_terminal(ev) => {
                bail!("the watch ended: {}", wire::show(line))
            }
            _ => {}
        }
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}
