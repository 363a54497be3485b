//! `fleet`: `seekclaw run --concurrency N` on a generated workspace
//! (2,000 files by default) against the testkit provider, whose every reply
//! waits a fixed model latency: the copy time (against `cp -a
//! --reflink=auto` of the same tree, N times, in the same run), the fleet's
//! peak RSS and wall time, against N sequential `seekclaw run`s of the same
//! task in the same run.

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use seekclaw_testkit::{ProviderServer, Reply};
use serde_json::{Value, json};

use crate::ping::mb;
use crate::stats::{median_f64, ms};

pub struct FleetArgs<'a> {
    pub bin: &'a Path,
    pub copies: usize,
    pub files: usize,
    pub runs: usize,
    /// How long each model reply holds its headers.
    pub latency: Duration,
    pub json: bool,
}

/// One measured child process.
struct Measured {
    wall: Duration,
    peak_rss: u64,
    stdout: String,
}

/// One round's figures.
struct Round {
    /// `cp -a --reflink=auto`, N times, one after the other.
    cp: Duration,
    /// seekclaw's own copy time (from its JSON report).
    copy_ms: f64,
    fleet: Measured,
    sequential: Duration,
    sequential_peak_rss: u64,
}

pub fn run(args: &FleetArgs<'_>) -> Result<()> {
    if args.copies < 2 || args.runs == 0 || args.files == 0 {
        bail!("--copies must be at least 2, --runs and --files at least 1");
    }
    let tmp = tempfile::Builder::new()
        .prefix("sc-bench-fleet-")
        .tempdir()?;
    let ws = tmp.path().join("ws");
    let bytes = generate(&ws, args.files)?;
    let server = ProviderServer::start()?;
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&home)?;
    let config = json!({"providers": [{"id": "tk", "kind": "openai", "baseUrl": server.base_url(), "models": [{"id": "m1"}]}]});
    std::fs::write(home.join("config.json"), config.to_string())?;
    let mut rounds = Vec::new();
    for round in 0..args.runs {
        rounds.push(measure_round(args, tmp.path(), &ws, &home, &server, round)?);
    }
    report(args, bytes, &rounds);
    Ok(())
}

/// `files` source-like files of 1-8 kB in 50 folders, plus a package.json
/// (a Node project with no build script: no verify command after an edit).
fn generate(ws: &Path, files: usize) -> Result<u64> {
    std::fs::create_dir_all(ws)?;
    std::fs::write(ws.join("package.json"), "{\"name\": \"bench\"}\n")?;
    let mut bytes = 0;
    for i in 0..files {
        let dir = ws.join(format!("src/mod{:02}", i % 50));
        std::fs::create_dir_all(&dir)?;
        let lines = 20 + (i * 37) % 180;
        let text: String = (0..lines)
            .map(|l| format!("export const value_{i}_{l} = {};\n", l * 31 + i))
            .collect();
        bytes += text.len() as u64;
        std::fs::write(dir.join(format!("file{i:04}.ts")), text)?;
    }
    Ok(bytes)
}

/// Each run: a tool call writing a file, then the answer; every reply
/// waits `latency` (the model's think time).
fn enqueue_turns(server: &ProviderServer, turns: usize, latency: Duration, tag: &str) {
    for i in 0..turns {
        let call = format!(r#"{{"path":"out/{tag}-{i}.txt","content":"result {i}\n"}}"#);
        server.enqueue(
            Reply::new()
                .tool_call(format!("c{i}"), "write_file", call)
                .usage(2000, 0, 50)
                .header_delay(latency),
        );
    }
    for _ in 0..turns {
        server.enqueue(Reply::plain("done").usage(2100, 0, 5).header_delay(latency));
    }
}

fn measure_round(
    args: &FleetArgs<'_>,
    tmp: &Path,
    ws: &Path,
    home: &Path,
    server: &ProviderServer,
    round: usize,
) -> Result<Round> {
    // The baseline copy: the same tree, N times.
    let cp_dir = tmp.join(format!("cp-{round}"));
    std::fs::create_dir_all(&cp_dir)?;
    let started = Instant::now();
    for i in 0..args.copies {
        let status = Command::new("cp")
            .args(["-a", "--reflink=auto"])
            .arg(ws)
            .arg(cp_dir.join(format!("c{i}")))
            .status()
            .context("run cp")?;
        if !status.success() {
            bail!("cp -a failed");
        }
    }
    let cp = started.elapsed();
    std::fs::remove_dir_all(&cp_dir)?;

    enqueue_turns(server, args.copies, args.latency, "fleet");
    let fleet_dir = tmp.join(format!("fleet-{round}"));
    let mut cmd = Command::new(args.bin);
    cmd.args(["run", "--json", "--concurrency", &args.copies.to_string()])
        .arg("--workspace")
        .arg(ws)
        .arg("--fleet-dir")
        .arg(&fleet_dir)
        .arg("write the result file")
        .env("SEEKCLAW_HOME", home);
    let fleet = measure(cmd)?;
    let doc: Value = serde_json::from_str(&fleet.stdout)
        .with_context(|| format!("the fleet's report: {}", fleet.stdout))?;
    if doc["status"] != "done" {
        bail!("the fleet did not finish: {doc:#}");
    }
    let copy_ms = doc["copy"]["ms"].as_f64().unwrap_or(0.0);
    std::fs::remove_dir_all(&fleet_dir)?;

    let mut sequential = Duration::ZERO;
    let mut sequential_peak_rss = 0;
    for i in 0..args.copies {
        enqueue_turns(server, 1, args.latency, &format!("seq{i}"));
        let mut cmd = Command::new(args.bin);
        cmd.args(["run", "--json", "--workspace"])
            .arg(ws)
            .arg("write the result file")
            .env("SEEKCLAW_HOME", home);
        let one = measure(cmd)?;
        sequential += one.wall;
        sequential_peak_rss = sequential_peak_rss.max(one.peak_rss);
    }
    std::fs::remove_dir_all(ws.join("out")).ok();
    Ok(Round {
        cp,
        copy_ms,
        fleet,
        sequential,
        sequential_peak_rss,
    })
}

/// Runs `cmd` to its end: wall time, peak RSS (the kernel's `ru_maxrss` of
/// the child, from `wait4`) and its stdout.
fn measure(mut cmd: Command) -> Result<Measured> {
    let started = Instant::now();
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .context("start seekclaw")?;
    let mut stdout = String::new();
    if let Some(mut out) = child.stdout.take() {
        out.read_to_string(&mut stdout)?;
    }
    let mut status = 0;
    // SAFETY: zeroed rusage is a valid out-parameter; the pid is our child,
    // not yet reaped (std's Child is never waited on after this).
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let pid = child.id() as libc::pid_t;
    let reaped = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let wall = started.elapsed();
    if reaped != pid {
        bail!("wait4: {}", std::io::Error::last_os_error());
    }
    if !libc::WIFEXITED(status) || libc::WEXITSTATUS(status) != 0 {
        bail!("seekclaw exited with status {status}: {stdout}");
    }
    Ok(Measured {
        wall,
        peak_rss: usage.ru_maxrss as u64 * 1024,
        stdout,
    })
}

fn report(args: &FleetArgs<'_>, bytes: u64, rounds: &[Round]) {
    let med = |f: &dyn Fn(&Round) -> f64| median_f64(&rounds.iter().map(f).collect::<Vec<_>>());
    let cp = med(&|r| ms(r.cp));
    let copy = med(&|r| r.copy_ms);
    let fleet = med(&|r| ms(r.fleet.wall));
    let seq = med(&|r| ms(r.sequential));
    let rss = med(&|r| r.fleet.peak_rss as f64);
    let seq_rss = med(&|r| r.sequential_peak_rss as f64);
    let n = args.copies;
    if args.json {
        let doc = json!({
            "copies": n, "files": args.files, "bytes": bytes, "rounds": rounds.len(),
            "latency_ms": ms(args.latency),
            "copy_ms": copy, "cp_ms": cp,
            "fleet_wall_ms": fleet, "sequential_wall_ms": seq,
            "fleet_over_sequential": fleet / seq,
            "fleet_peak_rss_mb": mb(rss as u64), "run_peak_rss_mb": mb(seq_rss as u64),
        });
        println!("{doc}");
        return;
    }
    println!(
        "fleet: {n} copies of a {}-file workspace ({:.1} MB), each reply after {} ms, median of {} rounds",
        args.files,
        mb(bytes),
        args.latency.as_millis(),
        rounds.len()
    );
    println!(
        "  copy, seekclaw ({n} copies)      {copy:8.1} ms   (cp -a --reflink=auto x{n}: {cp:.1} ms)"
    );
    println!("  fleet wall (copy + {n} runs)     {fleet:8.1} ms");
    println!(
        "  {n} sequential `run`s            {seq:8.1} ms   (fleet / sequential: {:.2})",
        fleet / seq
    );
    println!(
        "  peak RSS: fleet {:.1} MB, one `run` {:.1} MB",
        mb(rss as u64),
        mb(seq_rss as u64)
    );
}
