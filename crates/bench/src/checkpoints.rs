//! `checkpoints`: the shadow store on a generated 10,000-file / 100 MB
//! workspace, in process (what a turn pays, without a daemon around it):
//! the first checkpoint, one after a one-file change (a file tool's and a
//! whole rescan), one after a `bash` call that changed nothing, a rewind of
//! 100 changed files, and the store's growth over 50 one-line edits.

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use seekclaw_checkpoint::{Checkpointer, Kind, Reach, Settings, Take};
use serde_json::json;

use crate::stats::{Timings, ms};

pub struct CheckpointArgs {
    pub files: usize,
    pub file_bytes: usize,
    pub runs: usize,
    pub json: bool,
}

/// A workspace of `files` text files of about `bytes` each, 100 per folder,
/// no two alike (nothing deduplicates by accident).
fn generate(root: &Path, files: usize, bytes: usize) -> Result<u64> {
    let mut total = 0u64;
    for i in 0..files {
        let dir = root.join(format!("pkg{:03}/src", i / 100));
        std::fs::create_dir_all(&dir)?;
        let mut text = String::with_capacity(bytes + 80);
        let mut line = 0;
        while text.len() < bytes {
            text.push_str(&format!(
                "fn item_{i}_{line}() -> u64 {{ {i} * {line} + 7 }}\n"
            ));
            line += 1;
        }
        total += text.len() as u64;
        std::fs::write(dir.join(format!("f{i}.rs")), text)?;
    }
    Ok(total)
}

fn take(seq: u64, kind: Kind, reach: Reach) -> Take {
    Take {
        seq,
        turn_seq: 1,
        kind,
        reach,
    }
}

fn file(i: usize) -> String {
    format!("pkg{:03}/src/f{i}.rs", i / 100)
}

fn append(root: &Path, rel: &str, line: &str) -> Result<()> {
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(root.join(rel))?;
    writeln!(f, "{line}")?;
    Ok(())
}

pub fn run(args: &CheckpointArgs) -> Result<()> {
    let tmp = tempfile::tempdir()?;
    let root = tmp.path().join("work");
    let bytes = generate(&root, args.files, args.file_bytes)?;
    let cp = Checkpointer::open(&tmp.path().join("home/checkpoints.db"))?;
    let settings = Settings::default();
    let now = || chrono::Utc::now().timestamp_millis();
    let mut seq = 1;

    // The first: a turn-start read (prefetch) and the turn's first checkpoint.
    let started = Instant::now();
    let mut t = cp.tracker("s1", &root)?;
    cp.prefetch(&mut t, &settings)?;
    let prefetch = started.elapsed();
    let at = Instant::now();
    cp.record(
        &mut t,
        &take(seq, Kind::Turn, Reach::Whole),
        &settings,
        now(),
    )?
    .context("the first checkpoint records the tree")?;
    let first_record = at.elapsed();
    let size_first = cp.size_bytes()?;

    let (mut by_path, mut by_scan, mut unchanged) = (Vec::new(), Vec::new(), Vec::new());
    for run in 0..args.runs {
        seq += 1;
        let rel = file(run * 37 % args.files);
        append(&root, &rel, &format!("// edit {run}"))?;
        let at = Instant::now();
        cp.record(
            &mut t,
            &take(seq, Kind::Step, Reach::Paths(vec![rel])),
            &settings,
            now(),
        )?;
        by_path.push(at.elapsed());
        seq += 1;
        let rel = file((run * 53 + 11) % args.files);
        append(&root, &rel, &format!("// scan {run}"))?;
        let at = Instant::now();
        cp.record(
            &mut t,
            &take(seq, Kind::Step, Reach::Whole),
            &settings,
            now(),
        )?;
        by_scan.push(at.elapsed());
        seq += 1;
        let at = Instant::now();
        let none = cp.record(
            &mut t,
            &take(seq, Kind::Step, Reach::Whole),
            &settings,
            now(),
        )?;
        unchanged.push(at.elapsed());
        anyhow::ensure!(none.is_none(), "nothing changed, nothing recorded");
    }

    // 50 one-line edits of one file, each checkpointed.
    let grown_from = cp.size_bytes()?;
    for edit in 0..50 {
        seq += 1;
        let rel = file(4242 % args.files);
        append(&root, &rel, &format!("// one line {edit}"))?;
        cp.record(
            &mut t,
            &take(seq, Kind::Step, Reach::Paths(vec![rel])),
            &settings,
            now(),
        )?;
    }
    let growth = cp.size_bytes()?.saturating_sub(grown_from);

    // Rewinds of 100 changed files.
    let (mut plans, mut applies, mut rewinds) = (Vec::new(), Vec::new(), Vec::new());
    for round in 0..args.runs.clamp(1, 10) {
        seq += 1;
        let before = cp
            .record(
                &mut t,
                &take(seq, Kind::Turn, Reach::Whole),
                &settings,
                now(),
            )?
            .map(|c| c.id)
            .or_else(|| cp.list("s1").ok()?.last().map(|r| r.id))
            .context("a checkpoint to rewind to")?;
        for k in 0..100 {
            append(&root, &file((k * 97 + round) % args.files), "// changed")?;
        }
        seq += 1;
        cp.record(
            &mut t,
            &take(seq, Kind::Step, Reach::Whole),
            &settings,
            now(),
        )?;
        let at = Instant::now();
        let plan = cp.plan(&mut t, before, &settings)?;
        let planned = at.elapsed();
        let applied_at = Instant::now();
        let restored = cp.apply(&plan, false)?;
        let applied = applied_at.elapsed();
        anyhow::ensure!(restored.len() == 100, "{} files restored", restored.len());
        plans.push(planned);
        applies.push(applied);
        rewinds.push(planned + applied);
        seq += 1;
        cp.record(
            &mut t,
            &take(seq, Kind::Rewind, Reach::Whole),
            &settings,
            now(),
        )?;
    }
    report(
        args,
        bytes,
        prefetch,
        first_record,
        size_first,
        growth,
        [
            ("one-file change, file tool (ms)", &by_path, 30.0),
            ("one-file change, whole rescan (ms)", &by_scan, 30.0),
            ("bash that changed nothing (ms)", &unchanged, 15.0),
            ("rewind of 100 files: plan (ms)", &plans, f64::NAN),
            ("rewind of 100 files: apply (ms)", &applies, f64::NAN),
            ("rewind of 100 files (ms)", &rewinds, 200.0),
        ],
    )
}

fn report(
    args: &CheckpointArgs,
    bytes: u64,
    prefetch: Duration,
    first_record: Duration,
    size_first: u64,
    growth: u64,
    rows: [(&str, &Vec<Duration>, f64); 6],
) -> Result<()> {
    let mib = |b: u64| b as f64 / (1024.0 * 1024.0);
    if args.json {
        let mut out = json!({
            "files": args.files,
            "workspaceMiB": mib(bytes),
            "firstPrefetchMs": ms(prefetch),
            "firstRecordMs": ms(first_record),
            "storeAfterFirstMiB": mib(size_first),
            "growthAfter50EditsKiB": growth as f64 / 1024.0,
        });
        for (label, samples, _) in rows {
            out[label] = json!(Timings::of(samples).map(|t| ms(t.median)));
        }
        println!("{out}");
        return Ok(());
    }
    println!("workspace: {} files, {:.1} MiB", args.files, mib(bytes));
    println!(
        "first checkpoint: turn-start read {:.0} ms (off the turn), then {:.1} ms at the first change; store {:.1} MiB",
        ms(prefetch),
        ms(first_record),
        mib(size_first)
    );
    println!(
        "store growth after 50 one-line edits: {:.1} KiB (target < 1024 KiB)",
        growth as f64 / 1024.0
    );
    println!(
        "{:<38} {:>8} {:>8} {:>8}  target",
        "", "median", "p95", "max"
    );
    for (label, samples, target) in rows {
        let Some(t) = Timings::of(samples) else {
            continue;
        };
        let target = if target.is_nan() {
            String::new()
        } else {
            format!("< {target:.0}")
        };
        println!(
            "{label:<38} {:>8.2} {:>8.2} {:>8.2}  {target}",
            ms(t.median),
            ms(t.p95),
            ms(t.max)
        );
    }
    Ok(())
}
