//! The turn's side of checkpoints: the engine takes them; the turn says when
//! (before its first change, after each step that may have changed files,
//! after the verify command) and streams what the engine reports.

use std::future::Future;
use std::pin::Pin;

use serde::Serialize;

/// What a step may have changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Touched {
    /// Only these workspace-relative paths (what file tools wrote).
    Paths(Vec<String>),
    /// Anything (a command ran).
    Anything,
}

/// Why a checkpoint was taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CheckpointCause {
    /// After a step's tool calls.
    Step,
    /// After the verify command.
    Verify,
}

/// A future the engine's checkpointing returns.
pub type CheckpointFuture<'a> = Pin<Box<dyn Future<Output = Option<CheckpointNote>> + Send + 'a>>;

/// The engine's checkpoints as a turn sees them. Checkpointing never fails
/// a turn: a failure comes back as a note with `error`.
pub trait TurnCheckpoints: Send + Sync + std::fmt::Debug {
    /// Awaited before a call that may change files runs: the first time, the
    /// engine records the workspace as the turn found it (`turn_seq`: the
    /// seq of the turn's user message).
    fn before_change(&self, turn_seq: u64) -> CheckpointFuture<'_>;
    /// After a step or the verify command that may have changed files.
    fn after_change(
        &self,
        turn_seq: u64,
        cause: CheckpointCause,
        touched: Touched,
    ) -> CheckpointFuture<'_>;
}

/// One changed file of a checkpoint.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CheckpointFile {
    /// Workspace-relative path.
    pub path: String,
    /// `added`, `modified` or `deleted`.
    pub status: String,
    /// Lines added.
    pub added: u32,
    /// Lines removed.
    pub removed: u32,
}

/// What a checkpoint left out (said with a turn's first).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NotTrackedNote {
    /// Top-level entries ignored (`.gitignore`, `.ignore`) or regenerated (`node_modules/`).
    pub ignored: Vec<String>,
    /// Files over `checkpoints.maxFileBytes`.
    pub oversize: Vec<String>,
}

/// A checkpoint the engine took (or failed to take), as front ends show it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CheckpointNote {
    /// Store order (0 when it failed).
    pub id: u64,
    /// The session-log position it stands at.
    pub seq: u64,
    /// The seq of its turn's user message (0 between turns).
    pub turn_seq: u64,
    /// `turn`, `step`, `job`, `verify` or `rewind`.
    pub kind: String,
    /// The files it changed (empty for a session's first, which holds them all).
    pub files: Vec<CheckpointFile>,
    /// Lines added.
    pub added: u32,
    /// Lines removed.
    pub removed: u32,
    /// Files tracked.
    pub tracked: u64,
    /// What is not tracked (a turn's first checkpoint, once).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_tracked: Option<NotTrackedNote>,
    /// Why checkpointing failed (the turn went on).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}
