//! The fleet's summary: a table for a person, one JSON document for scripts.

use std::io::Write;
use std::path::Path;

use serde::Serialize;

use super::copy::{CopyStats, Skipped};
use super::diff::DiffStat;

/// How one run ended and what it did.
#[derive(Debug, Clone, Serialize)]
pub struct RunReport {
    /// The copy's folder name (`run-1`…).
    pub copy: String,
    pub path: String,
    /// `None` when the turn could not start.
    pub session: Option<String>,
    /// `done`, `failed` or `cancelled`.
    pub status: &'static str,
    /// The final (or, cancelled, partial) answer.
    pub answer: Option<String>,
    pub error: Option<String>,
    /// Model requests made.
    pub steps: u32,
    pub input_tokens: u64,
    pub output_tokens: u64,
    /// `None` when no model the run used has a price in the config.
    pub cost_usd: Option<f64>,
    /// The copy against the original.
    #[serde(flatten)]
    pub diff: DiffStat,
}

/// What copying the workspace did (per copy: each copy is the same).
#[derive(Debug, Clone, Serialize)]
pub struct CopyReport {
    /// Wall time of making all the copies.
    pub ms: u64,
    pub files: u64,
    pub bytes: u64,
    pub reflinked: u64,
    pub skipped: Vec<Skipped>,
}

impl CopyReport {
    pub fn new(ms: u64, stats: CopyStats, skipped: Vec<Skipped>) -> CopyReport {
        CopyReport {
            ms,
            files: stats.files,
            bytes: stats.bytes,
            reflinked: stats.reflinked,
            skipped,
        }
    }
}

/// The whole fleet.
#[derive(Debug, Clone, Serialize)]
pub struct FleetReport {
    pub task: String,
    /// The original, never written.
    pub workspace: String,
    /// Where the copies are (kept after the run).
    pub fleet_dir: String,
    pub concurrency: usize,
    /// `done` when every run is, `cancelled` after Ctrl-C, else `failed`.
    pub status: &'static str,
    pub copy: CopyReport,
    /// From the start of the copies to the last run's end.
    pub wall_ms: u64,
    pub runs: Vec<RunReport>,
}

impl FleetReport {
    /// The JSON document (`--json`).
    pub fn write_json(&self, out: &mut impl Write) -> std::io::Result<()> {
        serde_json::to_writer_pretty(&mut *out, self)?;
        writeln!(out)
    }

    /// Each answer, the table, and where the copies are.
    pub fn write_text(&self, out: &mut impl Write) -> std::io::Result<()> {
        for run in &self.runs {
            writeln!(out, "── {} ({}) ──", run.copy, run.status)?;
            if let Some(answer) = run.answer.as_deref().filter(|a| !a.trim().is_empty()) {
                writeln!(out, "{}", answer.trim_end())?;
            }
            if let Some(error) = &run.error {
                writeln!(out, "error: {error}")?;
            }
        }
        writeln!(out)?;
        let rows: Vec<[String; 8]> = self.runs.iter().map(row).collect();
        crate::table::write_table(
            out,
            [
                "COPY", "STATUS", "STEPS", "TOKENS", "COST", "FILES", "DIFF", "SESSION",
            ],
            &rows,
        )?;
        writeln!(out)?;
        let c = &self.copy;
        let how = if c.files == 0 {
            "no files"
        } else if c.reflinked == c.files {
            "copy-on-write clones"
        } else if c.reflinked == 0 {
            "plain copies: no copy-on-write here"
        } else {
            "partly copy-on-write"
        };
        writeln!(
            out,
            "copied {} files ({}) into each of {} copies in {} ms ({how})",
            c.files,
            size(c.bytes),
            self.concurrency,
            c.ms
        )?;
        if !c.skipped.is_empty() {
            let left: Vec<String> = c
                .skipped
                .iter()
                .map(|s| format!("{} ({})", s.path, s.why))
                .collect();
            writeln!(out, "left out: {}", left.join(", "))?;
        }
        writeln!(
            out,
            "copies kept in {} (the original {} was not written); {} in {:.1} s",
            self.fleet_dir,
            self.workspace,
            self.status,
            self.wall_ms as f64 / 1000.0
        )?;
        writeln!(
            out,
            "take one copy's changes into the original: seekclaw fleet apply {}/run-N (--dry-run shows them first)",
            self.fleet_dir
        )?;
        writeln!(
            out,
            "remove the copies: seekclaw fleet clean {}",
            self.fleet_dir
        )
    }
}

fn row(run: &RunReport) -> [String; 8] {
    let cost = match run.cost_usd {
        Some(c) => format!("${c:.4}"),
        None => "-".into(),
    };
    [
        run.copy.clone(),
        run.status.to_string(),
        run.steps.to_string(),
        (run.input_tokens + run.output_tokens).to_string(),
        cost,
        run.diff.files_changed.to_string(),
        run.diff.short(),
        run.session.clone().unwrap_or_else(|| "-".into()),
    ]
}

fn size(bytes: u64) -> String {
    match bytes {
        b if b >= 1 << 20 => format!("{:.1} MB", b as f64 / f64::from(1 << 20)),
        b if b >= 1 << 10 => format!("{:.1} kB", b as f64 / f64::from(1 << 10)),
        b => format!("{b} B"),
    }
}

/// The copy folders' names, in order.
pub fn copy_name(index: usize) -> String {
    format!("run-{}", index + 1)
}

/// A path for the report.
pub fn shown(path: &Path) -> String {
    path.display().to_string()
}
