//! `sandbox`: what the shell sandbox adds to a `bash` call. Spawns
//! `/bin/bash -c true` the way the `bash` tool does (own process group, piped
//! output, waited for), unsandboxed and under `workspace-write` side by side,
//! interleaved (ABBA) so drift on a shared box hits both alike. The sandboxed
//! figure includes everything a call pays: building the Landlock rules and
//! the seccomp program, the namespaces, the extra forks of the relay and init.

use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use seekclaw_tools::{SandboxMode, SandboxPolicy, SandboxSupport};
use serde_json::json;

use crate::stats::{Timings, ms};

/// The target: a sandboxed call costs less than this much more.
const TARGET_EXTRA_MS: f64 = 5.0;

pub struct SandboxArgs {
    pub runs: usize,
    pub network: bool,
    pub json: bool,
}

/// One `bash -c true`, start to reaped, under `policy`.
fn spawn_true(policy: &SandboxPolicy, cwd: &Path) -> Result<Duration> {
    let start = Instant::now();
    let prepared = policy.prepare()?;
    let mut cmd = Command::new("/bin/bash");
    cmd.arg("-c")
        .arg("true")
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    prepared.install(&mut cmd);
    let out = cmd.output().context("spawning /bin/bash")?;
    let took = start.elapsed();
    if !out.status.success() {
        bail!(
            "`true` failed under {:?}: {}",
            policy.mode,
            String::from_utf8_lossy(&out.stderr)
        );
    }
    Ok(took)
}

pub fn run(args: &SandboxArgs) -> Result<()> {
    let support = SandboxSupport::probe();
    if let Some(missing) = support.missing() {
        bail!("the kernel cannot sandbox: {missing}");
    }
    // A daemon home under the temp dir, as in the tests: the harder case
    // (the rules split /tmp around the home).
    let tmp = tempfile::tempdir()?;
    let ws = tmp.path().join("ws");
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&ws)?;
    std::fs::create_dir_all(&home)?;
    std::fs::write(home.join("config.json"), "{}")?;
    let _socket = std::os::unix::net::UnixListener::bind(home.join("daemon.sock"))?;
    let off = SandboxPolicy::off();
    let on = SandboxPolicy::new(SandboxMode::WorkspaceWrite, &ws, &home, args.network);
    // Warm-up: page cache, the private temp dir.
    for _ in 0..5 {
        spawn_true(&off, &ws)?;
        spawn_true(&on, &ws)?;
    }
    let (mut plain, mut boxed, mut prepare) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..args.runs {
        if i % 2 == 0 {
            plain.push(spawn_true(&off, &ws)?);
            boxed.push(spawn_true(&on, &ws)?);
        } else {
            boxed.push(spawn_true(&on, &ws)?);
            plain.push(spawn_true(&off, &ws)?);
        }
        // A turn's first command builds the rules (later ones reuse them).
        let fresh = SandboxPolicy::new(SandboxMode::WorkspaceWrite, &ws, &home, args.network);
        let t = Instant::now();
        drop(fresh.prepare()?);
        prepare.push(t.elapsed());
    }
    let (Some(p), Some(b), Some(r)) = (
        Timings::of(&plain),
        Timings::of(&boxed),
        Timings::of(&prepare),
    ) else {
        bail!("no runs");
    };
    let extra = ms(b.median) - ms(p.median);
    if args.json {
        println!(
            "{}",
            json!({
                "runs": args.runs,
                "network": args.network,
                "support": support.describe(),
                "unsandboxedMedianMs": ms(p.median), "unsandboxedP95Ms": ms(p.p95),
                "sandboxedMedianMs": ms(b.median), "sandboxedP95Ms": ms(b.p95),
                "prepareMedianMs": ms(r.median),
                "extraMedianMs": extra,
                "targetExtraMs": TARGET_EXTRA_MS,
            })
        );
        return Ok(());
    }
    println!(
        "sandbox: `bash -c true`, {} runs each, interleaved; network {}",
        args.runs,
        if args.network { "on" } else { "off" }
    );
    println!("  kernel: {}", support.describe());
    println!(
        "  unsandboxed      median {:7.3} ms   p95 {:7.3} ms",
        ms(p.median),
        ms(p.p95)
    );
    println!(
        "  workspace-write  median {:7.3} ms   p95 {:7.3} ms",
        ms(b.median),
        ms(b.p95)
    );
    println!(
        "  rules, once a turn median {:7.3} ms   (Landlock ruleset + seccomp programs; its later commands reuse them)",
        ms(r.median)
    );
    println!(
        "  extra per call   median {extra:+7.3} ms   (target < {TARGET_EXTRA_MS} ms: {})",
        if extra < TARGET_EXTRA_MS {
            "met"
        } else {
            "NOT met"
        }
    );
    Ok(())
}
