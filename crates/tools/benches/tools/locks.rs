//! The write-lock coordinator: uncontended acquire/release cost, and 100 turns
//! doing read-increment-write of one counter file at once.

use std::hint::black_box;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use seekclaw_tools::{Registry, ToolContext, WriteLocks, builtin_registry, confine};
use serde_json::json;
use tokio_util::sync::CancellationToken;

use crate::{Row, call, context, ms, us};

const OPS: u32 = 100_000;
const OP_TARGET: Duration = Duration::from_micros(20);
const TURNS: usize = 100;

pub async fn uncontended() -> Result<Vec<Row>> {
    let locks = WriteLocks::new();
    let never = CancellationToken::new();
    let (ws, file) = (
        Path::new("/ws/project"),
        Path::new("/ws/project/src/lib.rs"),
    );
    let wait = Duration::from_secs(30);
    let started = Instant::now();
    for _ in 0..OPS {
        locks.acquire(ws, file, "s1/0000aaaa", wait, &never).await?;
        if !locks.release(ws, file, "s1/0000aaaa") {
            bail!("release found no lock");
        }
    }
    let ours = started.elapsed() / OPS;
    // Baseline: the cheapest async lock there is, for scale.
    let mutex = tokio::sync::Mutex::new(0u64);
    let started = Instant::now();
    for _ in 0..OPS {
        *mutex.lock().await += 1;
    }
    let plain = started.elapsed() / OPS;
    black_box(mutex.into_inner());
    println!(
        "locks: uncontended acquire+release {} per op over {OPS} ops (tokio Mutex {})",
        us(ours),
        us(plain)
    );
    Ok(vec![Row {
        name: format!("lock acquire+release, uncontended (mean of {OPS})"),
        measured: us(ours),
        baseline: format!("tokio Mutex {}", us(plain)),
        target: format!("< {}", us(OP_TARGET)),
        pass: ours < OP_TARGET,
    }])
}

/// The counter's value, through `read_file` (`1\t<n>`).
async fn read_counter(registry: &Registry, ctx: &ToolContext) -> Result<u64> {
    let out = call(registry, "read_file", json!({"path": "counter.txt"}), ctx).await?;
    let value = out
        .content
        .lines()
        .next()
        .and_then(|l| l.split('\t').nth(1))
        .context("counter line missing")?;
    Ok(value.trim().parse()?)
}

/// One turn: read, let others run, write n+1 (edit_file or write_file by turn).
/// With `hold`, the turn holds the file's write lock across the three steps.
async fn turn(registry: &Registry, ctx: &ToolContext, i: usize, hold: bool) -> Result<()> {
    let file = confine(ctx, "counter.txt")?.abs;
    if hold {
        ctx.locks
            .acquire(
                &ctx.workspace_root,
                &file,
                &ctx.owner,
                ctx.lock_timeout,
                &ctx.cancel,
            )
            .await?;
    }
    let n = read_counter(registry, ctx).await?;
    // Widens the read→write window so an unlocked run would lose updates.
    tokio::task::yield_now().await;
    let result = if i.is_multiple_of(2) {
        let args = json!({"path": "counter.txt", "old_string": n.to_string(), "new_string": (n + 1).to_string()});
        call(registry, "edit_file", args, ctx).await
    } else {
        let args = json!({"path": "counter.txt", "content": format!("{}\n", n + 1)});
        call(registry, "write_file", args, ctx).await
    };
    // The turn ending releases whatever it still holds.
    ctx.locks.release_all(&ctx.owner);
    result.map(drop)
}

/// Runs `TURNS` turns at once: the final counter, failed turns and the time.
async fn race(hold: bool) -> Result<(u64, usize, Duration)> {
    let dir = tempfile::tempdir()?;
    let root = dir.path().canonicalize()?;
    std::fs::write(root.join("counter.txt"), "0\n")?;
    let locks = Arc::new(WriteLocks::new());
    let registry = Arc::new(builtin_registry());
    let started = Instant::now();
    let tasks: Vec<_> = (0..TURNS)
        .map(|i| {
            let ctx = context(
                &root,
                &format!("session-{i}/{:08x}", fastrand::u32(..)),
                locks.clone(),
                60_000,
            );
            let registry = registry.clone();
            tokio::spawn(async move { turn(&registry, &ctx, i, hold).await })
        })
        .collect();
    let mut failed = 0;
    for task in tasks {
        if task.await?.is_err() {
            failed += 1;
        }
    }
    let took = started.elapsed();
    if !locks.snapshot().is_empty() {
        bail!("locks left held after every turn ended");
    }
    let value = std::fs::read_to_string(root.join("counter.txt"))?
        .trim()
        .parse()?;
    Ok((value, failed, took))
}

pub async fn contended() -> Result<Vec<Row>> {
    let (value, failed, took) = race(true).await?;
    println!(
        "locks: {TURNS} turns read-increment-write under the lock: final {value}, {failed} failed, {} ({} per turn)",
        ms(took),
        us(took / TURNS as u32)
    );
    // Control: the same turns without holding the lock across read and write,
    // to show the check can fail (edit_file's exact match turns most races into
    // refusals; write_file loses them).
    let (c_value, c_failed, c_took) = race(false).await?;
    println!(
        "locks: control without the turn-level lock: final {c_value}, {c_failed} failed, {}",
        ms(c_took)
    );
    if value != TURNS as u64 || failed != 0 {
        bail!("lost update: counter {value} after {TURNS} turns, {failed} failed");
    }
    Ok(vec![Row {
        name: format!("{TURNS} turns on one file (read-increment-write)"),
        measured: format!("{} (final {value})", ms(took)),
        baseline: format!("unlocked: final {c_value}"),
        target: format!("final = {TURNS}"),
        pass: value == TURNS as u64 && failed == 0,
    }])
}
