//! `startup`: the daemon on a big home (10,000 sessions, 1,000,000 events):
//! spawn-to-first-pong, `session.list` and `session.get` round trips, idle RSS.
//! Same-run baselines: the bare process start cost (`/bin/true`) and the
//! daemon on an empty home.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use seekclaw_store::Store;
use serde_json::{Value, json};

use crate::canned::CannedServer;
use crate::daemon::{DaemonProc, JsonlClient};
use crate::ping::mb;
use crate::populate::{self, BIG_SESSION_ID, HomeShape};
use crate::stats::{Timings, ms};

const TARGET_ACCEPT_MS: f64 = 50.0;
const TARGET_LIST_MS: f64 = 20.0;
const TARGET_GET_MS: f64 = 30.0;
const TARGET_RSS_MB: f64 = 20.0;
/// Round trips per read method.
const READ_RUNS: usize = 20;
const TRUE_RUNS: usize = 10;
const IDLE_WAIT: Duration = Duration::from_secs(2);

pub struct StartupArgs<'a> {
    pub bin: &'a Path,
    /// Reuse (or create and keep) this home instead of a temporary one.
    pub home: Option<PathBuf>,
    pub runs: usize,
    pub json: bool,
}

/// How the home came to be.
pub(crate) struct HomeInfo {
    pub(crate) path: PathBuf,
    populate_secs: Option<f64>,
    pub(crate) sessions: i64,
    events: i64,
    db_bytes: u64,
}

/// A read method's round trips.
struct ReadFigures {
    first: Duration,
    timings: Timings,
    /// The same answer bytes from a canned server: the transport floor.
    floor: Timings,
    answer_bytes: usize,
    count: usize,
}

struct Figures {
    process_start: Timings,
    accept_empty: Timings,
    accept_big: Timings,
    shutdown_big: Option<Timings>,
    list: ReadFigures,
    get: ReadFigures,
    /// Right after the last start's first pong, before any read.
    fresh_rss: u64,
    rss: u64,
    peak_rss: u64,
}

pub fn run(args: &StartupArgs<'_>) -> Result<()> {
    if args.runs == 0 {
        bail!("--runs must be at least 1");
    }
    let scratch = tempfile::Builder::new()
        .prefix("sc-bench-startup-")
        .tempdir()?;
    let home_path = match &args.home {
        Some(h) => std::path::absolute(h)?,
        None => scratch.path().join("home"),
    };
    let home = prepare_home(&home_path)?;
    let log = scratch.path().join("daemon.stderr");

    let process_start = time_bin_true()?;
    eprintln!("measuring spawn → first pong on an empty home ...");
    let empty = accept_runs(args.bin, &scratch.path().join("empty"), &log, args.runs)?;
    let accept_empty = Timings::of(&empty.accepts).context("no accept runs")?;
    eprintln!("measuring spawn → first pong on the big home ...");
    let mut big = accept_runs(args.bin, &home.path, &log, args.runs - 1)?;
    // The last run's daemon stays up for the read and memory measurements.
    let mut daemon = DaemonProc::spawn(args.bin, &home.path, &log)?;
    let (last_accept, mut client) = daemon.wait_answering()?;
    let (fresh_rss, _) = daemon.memory()?;
    big.accepts.push(last_accept);
    let accept_big = Timings::of(&big.accepts).context("no accept runs")?;
    let shutdown_big = Timings::of(&big.stops);

    eprintln!("measuring session.list / session.get ...");
    let list = read_runs(
        &mut client,
        r#""method":"session.list","params":{"global":true}"#,
        |env| {
            let data: Value = serde_json::from_str(env["data"].as_str().unwrap_or_default())?;
            data.as_array()
                .map(Vec::len)
                .context("session.list data is not an array")
        },
    )?;
    let get_params =
        format!(r#""method":"session.get","params":{{"id":"{BIG_SESSION_ID}","global":true}}"#);
    let get = read_runs(&mut client, &get_params, |env| {
        let data: Value = serde_json::from_str(env["data"].as_str().unwrap_or_default())?;
        data["messages"]
            .as_array()
            .map(Vec::len)
            .context("session.get data has no messages array")
    })?;
    let shape = HomeShape::FULL;
    if list.count != shape.sessions || get.count != shape.big_messages {
        bail!(
            "the home does not hold the bench data: list {} (want {}), big session {} messages (want {})",
            list.count,
            shape.sessions,
            get.count,
            shape.big_messages
        );
    }
    drop(client);
    std::thread::sleep(IDLE_WAIT);
    let (rss, peak_rss) = daemon.memory()?;
    let stderr = daemon.stderr();
    daemon.shutdown().context("daemon shutdown")?;

    let figures = Figures {
        process_start,
        accept_empty,
        accept_big,
        shutdown_big,
        list,
        get,
        fresh_rss,
        rss,
        peak_rss,
    };
    if args.json {
        println!("{}", to_json(&home, &figures));
    } else {
        print_report(&home, &figures);
    }
    if !stderr.trim().is_empty() {
        eprintln!("daemon stderr (RUST_LOG=warn):\n{stderr}");
    }
    Ok(())
}

/// Populates the home unless its database already exists.
pub(crate) fn prepare_home(home: &Path) -> Result<HomeInfo> {
    std::fs::create_dir_all(home)?;
    let db = home.join("seekclaw.db");
    let populate_secs = if db.exists() {
        eprintln!("reusing {} (population skipped)", db.display());
        None
    } else {
        eprintln!(
            "populating {} with {} sessions / {} events ...",
            db.display(),
            HomeShape::FULL.sessions,
            HomeShape::FULL.events
        );
        let elapsed = populate::populate(&db, HomeShape::FULL)?;
        eprintln!("populated in {:.1} s", elapsed.as_secs_f64());
        Some(elapsed.as_secs_f64())
    };
    let stats = Store::open(&db)?.stats()?;
    Ok(HomeInfo {
        path: home.to_path_buf(),
        populate_secs,
        sessions: stats.sessions,
        events: stats.events,
        db_bytes: std::fs::metadata(&db).map(|m| m.len()).unwrap_or(0),
    })
}

/// The bare cost of starting a process and waiting for it, on this machine, now.
pub(crate) fn time_bin_true() -> Result<Timings> {
    let mut samples = Vec::with_capacity(TRUE_RUNS);
    for _ in 0..TRUE_RUNS {
        let start = Instant::now();
        let status = Command::new("/bin/true")
            .status()
            .context("run /bin/true")?;
        samples.push(start.elapsed());
        if !status.success() {
            bail!("/bin/true failed: {status}");
        }
    }
    Timings::of(&samples).context("no /bin/true samples")
}

/// Spawn→pong and shutdown→exit times of several daemon runs.
struct AcceptRuns {
    accepts: Vec<Duration>,
    stops: Vec<Duration>,
}

/// `runs` × (spawn, poll until a ping is answered, shut down and wait for exit).
fn accept_runs(bin: &Path, home: &Path, log: &Path, runs: usize) -> Result<AcceptRuns> {
    let mut out = AcceptRuns {
        accepts: Vec::with_capacity(runs + 1),
        stops: Vec::with_capacity(runs),
    };
    for _ in 0..runs {
        let mut daemon = DaemonProc::spawn(bin, home, log)?;
        let (elapsed, client) = daemon.wait_answering()?;
        drop(client);
        out.accepts.push(elapsed);
        let stop = Instant::now();
        daemon.shutdown()?;
        out.stops.push(stop.elapsed());
    }
    Ok(out)
}

/// `READ_RUNS` round trips of one request; `count` checks and counts each answer
/// (outside the timing).
fn read_runs(
    client: &mut JsonlClient,
    method_and_params: &str,
    count: impl Fn(&Value) -> Result<usize>,
) -> Result<ReadFigures> {
    let request = |i: usize| format!(r#"{{"id":{},{method_and_params}}}"#, i + 10);
    let mut samples = Vec::with_capacity(READ_RUNS);
    let mut counted = None;
    for i in 0..READ_RUNS {
        let (elapsed, env) = client.timed(&request(i))?;
        samples.push(elapsed);
        let n = count(&env)?;
        if counted.is_some_and(|c| c != n) {
            bail!("{method_and_params}: answers differ between runs ({n} vs {counted:?})");
        }
        counted = Some(n);
    }
    let answer = client.last_line().to_vec();
    let answer_bytes = answer.len();
    let canned = CannedServer::start(answer)?;
    let mut floor_client = JsonlClient::connect(&canned.socket)?;
    let mut floor = Vec::with_capacity(READ_RUNS);
    for i in 0..READ_RUNS {
        floor.push(floor_client.timed(&request(i))?.0);
    }
    Ok(ReadFigures {
        first: *samples.first().context("no samples")?,
        timings: Timings::of(&samples).context("no samples")?,
        floor: Timings::of(&floor).context("no samples")?,
        answer_bytes,
        count: counted.unwrap_or(0),
    })
}

/// `< target (met)` or `< target (MISSED)`; targets are upper bounds.
fn verdict(value: f64, target: f64, unit: &str) -> String {
    let mark = if value < target { "met" } else { "MISSED" };
    format!("< {target} {unit} ({mark})")
}

fn print_report(home: &HomeInfo, f: &Figures) {
    println!();
    println!(
        "startup: home {} — {} sessions, {} events, db {:.1} MB{}",
        home.path.display(),
        home.sessions,
        home.events,
        mb(home.db_bytes),
        home.populate_secs
            .map(|s| format!(", populated in {s:.1} s"))
            .unwrap_or_else(|| " (reused)".into())
    );
    println!(
        "{:<40} | {:>9} | {:>9} | {:>9} | {:>9} | target (on median)",
        "measure (ms)", "first", "min", "median", "p95"
    );
    println!("{}", "-".repeat(40 + 4 * 12 + 22));
    let row = |name: &str, t: &Timings, target: Option<f64>| {
        println!(
            "{:<40} | {:>9} | {:>9.2} | {:>9.2} | {:>9.2} | {}",
            name,
            "",
            ms(t.min),
            ms(t.median),
            ms(t.p95),
            target.map_or_else(String::new, |goal| verdict(ms(t.median), goal, "ms")),
        );
    };
    row(
        "process start (/bin/true, baseline)",
        &f.process_start,
        None,
    );
    row("spawn → first pong, empty home", &f.accept_empty, None);
    row(
        "spawn → first pong, big home",
        &f.accept_big,
        Some(TARGET_ACCEPT_MS),
    );
    if let Some(s) = &f.shutdown_big {
        row("shutdown → exit, big home", s, None);
    }
    let read_row = |name: String, r: &ReadFigures, target: f64| {
        println!(
            "{:<40} | {:>9.2} | {:>9.2} | {:>9.2} | {:>9.2} | {}",
            name,
            ms(r.first),
            ms(r.timings.min),
            ms(r.timings.median),
            ms(r.timings.p95),
            verdict(ms(r.timings.median), target, "ms"),
        );
        row("  same bytes, canned server (floor)", &r.floor, None);
    };
    read_row(
        format!(
            "session.list global ({} hdrs, {:.1} MB)",
            f.list.count,
            mb(f.list.answer_bytes as u64)
        ),
        &f.list,
        TARGET_LIST_MS,
    );
    read_row(
        format!(
            "session.get big ({} msgs, {:.1} MB)",
            f.get.count,
            mb(f.get.answer_bytes as u64)
        ),
        &f.get,
        TARGET_GET_MS,
    );
    println!(
        "daemon RSS: {:.1} MB after start; idle {} s after the reads {:.1} MB (peak {:.1} MB) {}",
        mb(f.fresh_rss),
        IDLE_WAIT.as_secs(),
        mb(f.rss),
        mb(f.peak_rss),
        verdict(mb(f.rss), TARGET_RSS_MB, "MB")
    );
    println!(
        "accept over process start: {:.1}x (median {:.2} ms vs {:.2} ms)",
        ms(f.accept_big.median) / ms(f.process_start.median),
        ms(f.accept_big.median),
        ms(f.process_start.median)
    );
}

fn timings_json(t: &Timings) -> Value {
    json!({"minMs": ms(t.min), "medianMs": ms(t.median), "p95Ms": ms(t.p95), "maxMs": ms(t.max)})
}

fn read_json(r: &ReadFigures) -> Value {
    let mut v = timings_json(&r.timings);
    v["firstMs"] = json!(ms(r.first));
    v["count"] = json!(r.count);
    v["answerBytes"] = json!(r.answer_bytes);
    v["cannedFloor"] = timings_json(&r.floor);
    v
}

fn to_json(home: &HomeInfo, f: &Figures) -> Value {
    json!({
        "bench": "startup",
        "home": home.path.display().to_string(),
        "populateSeconds": home.populate_secs,
        "sessions": home.sessions,
        "events": home.events,
        "dbBytes": home.db_bytes,
        "processStart": timings_json(&f.process_start),
        "acceptEmptyHome": timings_json(&f.accept_empty),
        "acceptBigHome": timings_json(&f.accept_big),
        "shutdownBigHome": f.shutdown_big.as_ref().map(timings_json),
        "sessionList": read_json(&f.list),
        "sessionGet": read_json(&f.get),
        "freshRssBytes": f.fresh_rss,
        "idleRssBytes": f.rss,
        "peakRssBytes": f.peak_rss,
        "targets": {
            "acceptMs": TARGET_ACCEPT_MS,
            "listMs": TARGET_LIST_MS,
            "getMs": TARGET_GET_MS,
            "rssMb": TARGET_RSS_MB,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdicts_name_target_unit_and_outcome() {
        assert_eq!(verdict(9.6, 50.0, "ms"), "< 50 ms (met)");
        assert_eq!(verdict(34.7, 20.0, "MB"), "< 20 MB (MISSED)");
        assert_eq!(verdict(20.0, 20.0, "ms"), "< 20 ms (MISSED)");
    }

    #[test]
    fn bin_true_is_timed() {
        let t = time_bin_true().unwrap();
        assert!(t.min > Duration::ZERO && t.min <= t.median && t.median <= t.max);
    }
}
