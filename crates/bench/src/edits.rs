//! `edits`: how often a model's near-miss edit lands what it meant (issue 40).
//! Every case of the testkit's corpus runs through the real binary (`seekclaw
//! run`, the testkit provider making the call) with `edit_file`/`multi_edit`
//! and with `apply_patch`; what landed on disk is judged applied, refused or
//! corrupted. With `--vs OLD` the previous release runs the same cases in the
//! same run (its edit wall time is the baseline for ours). In process: the
//! `edit_file` tool on a 10,000-line file with a miss that falls through every
//! fallback, against an exact hit on the same file.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use seekclaw_testkit::ProviderServer;
use seekclaw_testkit::edit_corpus::{self, Case, EditTool, Verdict};
use seekclaw_tools::{ToolContext, WriteLocks, builtin_registry};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use crate::stats::{Timings, ms};

pub struct EditsArgs {
    pub bin: PathBuf,
    pub vs: Option<PathBuf>,
    pub json: bool,
}

/// Verdicts of one binary through one tool, and its edit wall times.
#[derive(Debug, Default)]
struct Tally {
    cases: usize,
    recoverable: usize,
    applied: usize,
    refused_rightly: usize,
    refused: usize,
    corrupted: usize,
    corrupted_names: Vec<String>,
    walls: Vec<Duration>,
}

impl Tally {
    fn json(&self) -> Value {
        let wall = Timings::of(&self.walls).map(|t| ms(t.median));
        json!({
            "cases": self.cases,
            "recoverable": self.recoverable,
            "applied_correctly": self.applied,
            "refused_correctly": self.refused_rightly,
            "refused_recoverable": self.refused,
            "corrupted": self.corrupted,
            "corrupted_cases": self.corrupted_names,
            "edit_wall_median_ms": wall,
        })
    }

    fn line(&self, who: &str, tool: &str) -> String {
        let pct = |n: usize, of: usize| 100.0 * n as f64 / of.max(1) as f64;
        let wall = Timings::of(&self.walls).map_or(0.0, |t| ms(t.median));
        format!(
            "{who:<10} {tool:<12} {:>4} cases: applied {:>3}/{:<3} recoverable ({:5.1} %), refused {:>3} ({:5.1} %), corrupted {:>3} ({:5.1} %); edit wall median {wall:.1} ms",
            self.cases,
            self.applied,
            self.recoverable,
            pct(self.applied, self.recoverable),
            self.refused + self.refused_rightly,
            pct(self.refused + self.refused_rightly, self.cases),
            self.corrupted,
            pct(self.corrupted, self.cases),
        )
    }
}

pub fn run(args: &EditsArgs) -> Result<()> {
    let cases = edit_corpus::load()?;
    let mut rows = Vec::new();
    for tool in [EditTool::Replace, EditTool::Patch] {
        rows.push(("new", tool, tally(&args.bin, &cases, tool)?));
        if let Some(old) = &args.vs {
            rows.push(("previous", tool, tally(old, &cases, tool)?));
        }
    }
    let (miss, hit) = matching_cost()?;
    let name = |tool| match tool {
        EditTool::Replace => "edit_file",
        EditTool::Patch => "apply_patch",
    };
    if args.json {
        let results: Vec<Value> = rows
            .iter()
            .map(|(who, tool, t)| json!({"binary": who, "tool": name(*tool), "result": t.json()}))
            .collect();
        println!(
            "{}",
            json!({
                "corpus": results,
                "match_10k_lines_miss_ms": ms(miss),
                "match_10k_lines_exact_ms": ms(hit),
            })
        );
        return Ok(());
    }
    for (who, tool, t) in &rows {
        println!("{}", t.line(who, name(*tool)));
        if !t.corrupted_names.is_empty() {
            println!("           corrupted: {}", t.corrupted_names.join(", "));
        }
    }
    println!(
        "edit_file on a 10,000-line file (in process, median of 30): a miss through every fallback {:.2} ms, an exact hit {:.2} ms",
        ms(miss),
        ms(hit)
    );
    Ok(())
}

/// Every case of `cases` with a form for `tool`, through `bin`.
fn tally(bin: &Path, cases: &[Case], tool: EditTool) -> Result<Tally> {
    let dir = tempfile::tempdir()?;
    let server = ProviderServer::start()?;
    let home = edit_corpus::home(&server, dir.path(), tool)?;
    let mut t = Tally::default();
    for case in cases {
        let started = Instant::now();
        let Some(outcome) = edit_corpus::run(bin, &home, &server, dir.path(), case, tool)? else {
            continue;
        };
        t.walls.push(started.elapsed());
        t.cases += 1;
        if case.after.is_some() {
            t.recoverable += 1;
        }
        match edit_corpus::judge(case, &outcome) {
            Verdict::Applied => t.applied += 1,
            Verdict::RefusedRightly => t.refused_rightly += 1,
            Verdict::Refused => t.refused += 1,
            Verdict::Corrupted => {
                t.corrupted += 1;
                t.corrupted_names.push(case.name.clone());
            }
        }
    }
    Ok(t)
}

/// `edit_file` on a 10,000-line file: a miss that falls through every
/// fallback, and an exact hit, each the median of 30 calls.
fn matching_cost() -> Result<(Duration, Duration)> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let dir = tempfile::tempdir()?;
    let mut text = String::new();
    for i in 0..10_000 {
        text.push_str(&format!(
            "    let value_{i} = compute({i}, \"label {i}\"); // step {i}\n"
        ));
    }
    std::fs::write(dir.path().join("big.rs"), &text)?;
    let ctx = ToolContext::new(
        dir.path().to_path_buf(),
        false,
        "bench/00000000".to_string(),
        Arc::new(WriteLocks::new()),
        Duration::from_secs(30),
        Duration::from_secs(30),
        false,
        100_000,
        CancellationToken::new(),
    );
    let registry = builtin_registry();
    let tool = registry.get("edit_file").context("edit_file")?;
    let time = |old: &str, new: &str| -> Result<Duration> {
        let mut samples = Vec::new();
        for _ in 0..32 {
            let args = json!({"path": "big.rs", "old_string": old, "new_string": new});
            let started = Instant::now();
            let out = rt.block_on(tool.execute(args, &ctx));
            samples.push(started.elapsed());
            // An exact hit swaps the line back and forth.
            if out.success {
                let undo = json!({"path": "big.rs", "old_string": new, "new_string": old});
                rt.block_on(tool.execute(undo, &ctx));
            }
        }
        Ok(Timings::of(&samples[2..]).context("no samples")?.median)
    };
    let miss = time(
        "    let value_5000 = compute(5000, \"label 5001\"); // step 5000\n    let value_5001 = compute(5001, \"label 5001\");",
        "x",
    )?;
    let hit = time(
        "    let value_5000 = compute(5000, \"label 5000\"); // step 5000\n",
        "    let value_5000 = compute(5000, \"label 5000\"); // step 5000 (edited)\n",
    )?;
    Ok((miss, hit))
}
