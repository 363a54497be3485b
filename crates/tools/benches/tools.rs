//! Built-in tools benchmark (plain `main`, no harness): `grep` against `rg` on a
//! generated 50,000-file tree, `edit_file` on a 10 MB file and `read_file` of a
//! window of a 100,000-line file (each against a plain std::fs baseline measured
//! in the same run), write-lock acquire/release, and 100 turns contending for one
//! counter file. Prints a table with the targets of issue 5; exits non-zero only
//! when a correctness check fails (a lost update, grep and rg disagreeing).
//!
//! `cargo bench -p seekclaw-tools --bench tools`
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "tools/files.rs"]
mod files;
#[path = "tools/locks.rs"]
mod locks;
#[path = "tools/search.rs"]
mod search;
#[path = "tools/tree.rs"]
mod tree;

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use seekclaw_tools::{Registry, ToolContext, ToolOutput, WriteLocks};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

/// One line of the final table.
pub struct Row {
    pub name: String,
    pub measured: String,
    pub baseline: String,
    pub target: String,
    pub pass: bool,
}

/// A turn's context over `root`, as the agent builds one.
pub fn context(root: &Path, owner: &str, locks: Arc<WriteLocks>, budget: usize) -> ToolContext {
    ToolContext::new(
        root.to_path_buf(),
        false,
        owner.to_string(),
        locks,
        Duration::from_secs(30),
        Duration::from_secs(180),
        false,
        budget,
        CancellationToken::new(),
    )
}

/// Runs a registry tool and fails on a `success:false` result.
pub async fn call(
    registry: &Registry,
    name: &str,
    args: Value,
    ctx: &ToolContext,
) -> Result<ToolOutput> {
    let tool = registry.get(name).context("tool missing")?;
    let out = tool.execute(args, ctx).await;
    if !out.success {
        bail!("{name} failed: {}", out.content);
    }
    Ok(out)
}

pub fn median(samples: &mut [Duration]) -> Duration {
    samples.sort();
    samples.get(samples.len() / 2).copied().unwrap_or_default()
}

pub fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1e3)
}

pub fn us(d: Duration) -> String {
    format!("{:.2} µs", d.as_secs_f64() * 1e6)
}

fn print_table(rows: &[Row]) {
    let w = |f: fn(&Row) -> &str, min: usize| {
        rows.iter()
            .map(|r| f(r).chars().count())
            .max()
            .unwrap_or(0)
            .max(min)
    };
    let (w0, w1, w2, w3) = (
        w(|r| &r.name, 4),
        w(|r| &r.measured, 8),
        w(|r| &r.baseline, 8),
        w(|r| &r.target, 6),
    );
    println!();
    println!(
        "{:<w0$}  {:>w1$}  {:>w2$}  {:<w3$}  ok",
        "case", "measured", "baseline", "target"
    );
    println!("{}", "-".repeat(w0 + w1 + w2 + w3 + 10));
    for r in rows {
        println!(
            "{:<w0$}  {:>w1$}  {:>w2$}  {:<w3$}  {}",
            r.name,
            r.measured,
            r.baseline,
            r.target,
            if r.pass { "yes" } else { "NO" }
        );
    }
}

fn main() -> Result<()> {
    // `cargo bench` passes `--bench`; other arguments pick sections by name
    // (`grep`, `files`, `locks`), e.g. `cargo bench ... -- files`.
    let picked: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let run = |name: &str| picked.is_empty() || picked.iter().any(|p| p == name);
    println!("== seekclaw-tools benchmark ==");
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let mut rows = Vec::new();
    rt.block_on(async {
        if run("files") {
            rows.extend(files::edit_and_read().await?);
        }
        if run("locks") {
            rows.extend(locks::uncontended().await?);
            rows.extend(locks::contended().await?);
        }
        // Last: deleting the 50,000-file tree leaves ext4 scanning for free inodes
        // for a while, which would slow every new file (edit_file's atomic write).
        if run("grep") {
            rows.extend(search::grep_vs_rg().await?);
        }
        anyhow::Ok(())
    })?;
    print_table(&rows);
    Ok(())
}
