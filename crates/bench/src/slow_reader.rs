//! `slow-reader`: what a turn holds in the daemon when its client stops
//! reading mid-stream (issue 17: "a turn's memory is bounded however slow its
//! reader is"). Baseline in the same run: the same turn read at full speed.
//!
//! The provider streams a large answer without delay. One client reads it all
//! (peak RSS growth = the cost of a turn that is read); then a client reads a
//! few envelopes and stops for `--pause` seconds while the daemon's RSS is
//! sampled; then it reads on, and the answer must arrive whole.

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use seekclaw_testkit::{ProviderServer, Reply};
use serde_json::json;

use crate::daemon::JsonlClient;
use crate::turns::setup::{Scratch, SectionDaemon};
use crate::turns::wire::{self, Ids};

pub struct SlowReaderArgs<'a> {
    pub bin: &'a Path,
    pub json: bool,
    pub deltas: usize,
    pub pause: Duration,
}

const SAMPLE_EVERY: Duration = Duration::from_millis(50);
/// Envelopes read before the slow client stops.
const READ_BEFORE_STOP: usize = 20;

struct Figures {
    answer_bytes: usize,
    idle_rss: u64,
    full_read_peak: u64,
    /// RSS samples (bytes) while the client did not read, with their time.
    stopped: Vec<(Duration, u64)>,
    full_read_time: Duration,
    deltas_after_resume: usize,
    answer_whole: bool,
}

pub fn run(args: &SlowReaderArgs<'_>) -> Result<()> {
    let scratch = Scratch::new()?;
    let server = ProviderServer::start()?;
    let mut reply = Reply::new();
    let mut text = String::new();
    for i in 0..args.deltas {
        let piece = format!("word{i} ");
        text.push_str(&piece);
        reply = reply.text(piece);
    }
    server.set_default(reply);
    // The daemon must not give up on the client during the pause.
    let mut cfg = crate::turns::setup::config(&server.base_url(), true);
    cfg["daemon"] = json!({"slowClientTimeoutSeconds": args.pause.as_secs() + 30});
    let (daemon, mut client) = SectionDaemon::start_config(args.bin, &scratch, "slow", &cfg)?;
    let mut ids = Ids::default();
    let ws = scratch.workspace().to_string();

    // Warm-up and baseline: the whole turn read at full speed.
    let sid = wire::new_session(&mut client, &mut ids, &ws)?;
    let idle_rss = daemon.daemon.memory()?.0;
    let start = Instant::now();
    let (whole, _) = read_turn(&mut client, &mut ids, &ws, &sid, None)?;
    let full_read_time = start.elapsed();
    let full_read_peak = daemon.daemon.memory()?.1;
    if whole != text {
        bail!("the full-speed turn's answer is not the scripted one");
    }

    // The stopped reader, on a fresh connection.
    let mut slow = daemon.connect()?;
    let sid = wire::new_session(&mut slow, &mut ids, &ws)?;
    let mut stopped = Vec::new();
    let pause = args.pause;
    let proc_ = &daemon.daemon;
    let (answer, after) = read_turn(
        &mut slow,
        &mut ids,
        &ws,
        &sid,
        Some(&mut || {
            let begin = Instant::now();
            while begin.elapsed() < pause {
                if let Ok((rss, _)) = proc_.memory() {
                    stopped.push((begin.elapsed(), rss));
                }
                std::thread::sleep(SAMPLE_EVERY);
            }
        }),
    )?;
    let figures = Figures {
        answer_bytes: text.len(),
        idle_rss,
        full_read_peak,
        stopped,
        full_read_time,
        deltas_after_resume: after,
        answer_whole: answer == text,
    };
    drop((client, slow));
    daemon.finish()?;
    print(&figures, args);
    Ok(())
}

/// Runs one chat and reads it to its terminal; returns the joined deltas and
/// how many deltas came after the pause. `pause` runs once, after
/// [`READ_BEFORE_STOP`] envelopes.
fn read_turn(
    client: &mut JsonlClient,
    ids: &mut Ids,
    ws: &str,
    sid: &str,
    mut pause: Option<&mut dyn FnMut()>,
) -> Result<(String, usize)> {
    let chat = ids.next();
    let params = wire::scoped(ws, json!({"message": "stream", "sessionId": sid}));
    client.send(&wire::request(chat, "chat", params))?;
    let (mut answer, mut read, mut after) = (String::new(), 0usize, 0usize);
    loop {
        let line = client.read_line()?;
        read += 1;
        let (id, event) = wire::id_and_event(line).context("not an envelope")?;
        if id != chat {
            continue;
        }
        if event == b"delta" {
            let v: serde_json::Value = serde_json::from_slice(line)?;
            answer.push_str(v["data"].as_str().unwrap_or_default());
            if pause.is_none() && read > READ_BEFORE_STOP {
                after += 1;
            }
        } else if wire::is_terminal(event) {
            if event != b"done" {
                bail!("the turn ended with {}", wire::show(line));
            }
            return Ok((answer, after));
        }
        if read == READ_BEFORE_STOP
            && let Some(p) = pause.take()
        {
            p();
        }
    }
}

fn mb(bytes: u64) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

fn print(f: &Figures, args: &SlowReaderArgs<'_>) {
    let first = f.stopped.first().map(|s| s.1).unwrap_or(0);
    let peak = f.stopped.iter().map(|s| s.1).max().unwrap_or(0);
    let last = f.stopped.last().map(|s| s.1).unwrap_or(0);
    if args.json {
        let v = json!({
            "deltas": args.deltas,
            "answerBytes": f.answer_bytes,
            "idleRssBytes": f.idle_rss,
            "fullReadPeakRssBytes": f.full_read_peak,
            "fullReadMs": f.full_read_time.as_millis() as u64,
            "stoppedRssFirstBytes": first,
            "stoppedRssPeakBytes": peak,
            "stoppedRssLastBytes": last,
            "pauseSeconds": args.pause.as_secs_f64(),
            "deltasAfterResume": f.deltas_after_resume,
            "answerWhole": f.answer_whole,
        });
        println!("{v}");
        return;
    }
    println!(
        "slow reader: {} deltas, answer {:.1} MB",
        args.deltas,
        mb(f.answer_bytes as u64)
    );
    println!(
        "  baseline (read at full speed): idle RSS {:.1} MB, peak {:.1} MB (+{:.1} MB), {:.0} ms",
        mb(f.idle_rss),
        mb(f.full_read_peak),
        mb(f.full_read_peak.saturating_sub(f.idle_rss)),
        f.full_read_time.as_secs_f64() * 1000.0
    );
    println!(
        "  client stopped after {READ_BEFORE_STOP} envelopes for {:.1} s: RSS first {:.1} MB, peak {:.1} MB, last {:.1} MB (growth while stopped {:+.1} MB)",
        args.pause.as_secs_f64(),
        mb(first),
        mb(peak),
        mb(last),
        (last as f64 - first as f64) / (1024.0 * 1024.0)
    );
    println!(
        "  after resuming: {} deltas read, answer whole: {}",
        f.deltas_after_resume, f.answer_whole
    );
}
