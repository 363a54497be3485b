//! `grep` (the built-in tool, through the `Tool` trait) against `rg` on the same
//! 50,000-file tree, warm cache, runs interleaved so drift hits both alike.

use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use seekclaw_tools::{WriteLocks, builtin_registry};
use serde_json::json;

use crate::tree::{self, NEEDLE};
use crate::{Row, call, context, median, ms};

const RUNS: usize = 7;
const TARGET_RATIO: f64 = 1.5;

/// The built-in tool: matches found and the time.
async fn builtin(root: &Path) -> Result<(usize, Duration)> {
    let registry = builtin_registry();
    // Budget large enough that the whole result comes back, as rg prints it all.
    let ctx = context(root, "bench/00000000", Arc::new(WriteLocks::new()), 1 << 20);
    let started = Instant::now();
    let out = call(
        &registry,
        "grep",
        json!({"pattern": NEEDLE, "max_results": 1000}),
        &ctx,
    )
    .await?;
    let took = started.elapsed();
    if out.content.contains("[stopped at max_results") {
        bail!("grep hit max_results; the comparison needs every match");
    }
    Ok((out.content.lines().count(), took))
}

/// `rg` with the built-in's semantics: `.gitignore` honoured without a git repo,
/// hidden files searched, line numbers; output captured through a pipe (rg stops
/// at the first match when stdout is /dev/null).
fn ripgrep(root: &Path) -> Result<(usize, Duration)> {
    let started = Instant::now();
    let out = Command::new("rg")
        .args(["--no-config", "--no-require-git", "--hidden", "-n", "--"])
        .arg(NEEDLE)
        .current_dir(root)
        .output()
        .context("running rg (apt-get install -y ripgrep)")?;
    let took = started.elapsed();
    if !out.status.success() {
        bail!("rg failed: {}", String::from_utf8_lossy(&out.stderr));
    }
    let lines = out.stdout.iter().filter(|&&b| b == b'\n').count();
    Ok((lines, took))
}

pub async fn grep_vs_rg() -> Result<Vec<Row>> {
    let dir = tempfile::tempdir()?;
    let root = dir.path().canonicalize()?;
    let started = Instant::now();
    let tree = tree::generate(&root)?;
    println!(
        "grep: generated {} files ({:.1} MB) in {:.1} s; {} needle lines searched, {} ignored",
        tree.files,
        tree.bytes as f64 / 1e6,
        started.elapsed().as_secs_f64(),
        tree.expected_matches,
        tree.ignored_matches
    );
    if tree.files != tree::TOTAL_FILES {
        bail!(
            "generated {} files, wanted {}",
            tree.files,
            tree::TOTAL_FILES
        );
    }
    let rg_version = Command::new("rg").arg("--version").output()?;
    println!(
        "grep: {}",
        String::from_utf8_lossy(&rg_version.stdout)
            .lines()
            .next()
            .unwrap_or_default()
    );

    // Warm the page cache and the dentry cache with one run of each.
    let (warm_b, _) = builtin(&root).await?;
    let (warm_r, _) = ripgrep(&root)?;
    if warm_b != tree.expected_matches || warm_r != tree.expected_matches {
        bail!(
            "match counts differ: built-in {warm_b}, rg {warm_r}, expected {}",
            tree.expected_matches
        );
    }
    let (mut ours, mut theirs) = (Vec::new(), Vec::new());
    for _ in 0..RUNS {
        let (n, t) = builtin(&root).await?;
        ours.push(t);
        let (m, u) = ripgrep(&root)?;
        theirs.push(u);
        if n != m {
            bail!("match counts differ: built-in {n}, rg {m}");
        }
    }
    println!(
        "grep: built-in runs {:?}",
        ours.iter().map(|d| ms(*d)).collect::<Vec<_>>()
    );
    println!(
        "grep: rg       runs {:?}",
        theirs.iter().map(|d| ms(*d)).collect::<Vec<_>>()
    );
    let (ours, theirs) = (median(&mut ours), median(&mut theirs));
    let ratio = ours.as_secs_f64() / theirs.as_secs_f64();
    println!(
        "grep: median built-in {} vs rg {} → {ratio:.2}× rg ({} matches each)",
        ms(ours),
        ms(theirs),
        tree.expected_matches
    );
    Ok(vec![Row {
        name: format!("grep, {} files (median of {RUNS})", tree.files),
        measured: format!("{} ({ratio:.2}×)", ms(ours)),
        baseline: format!("rg {}", ms(theirs)),
        target: format!("≤ {TARGET_RATIO}× rg"),
        pass: ratio <= TARGET_RATIO,
    }])
}
