//! The fleet's summary: one JSON document for scripts (the caller prints
//! the table for a person).

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
}

/// The copy folders' names, in order.
pub fn copy_name(index: usize) -> String {
    format!("run-{}", index + 1)
}

/// A path for the report.
pub fn shown(path: &Path) -> String {
    path.display().to_string()
}
