//! Child turns (subagents): the handle a turn is given to start a child turn
//! from inside a tool call (`explore`, `review`). The engine implements it
//! over a weak reference to itself, so a turn never keeps the engine alive.

use std::future::Future;
use std::pin::Pin;

use tokio_util::sync::CancellationToken;

/// Subagent calls a turn may make; the next one is refused.
pub const MAX_SUBRUNS_PER_TURN: u32 = 10;

/// The tools that start child turns: offered only to a turn that has a
/// [`ChildTurns`] handle (never to a child, so children do not recurse).
pub const SUBAGENT_TOOLS: [&str; 2] = ["explore", "review"];

/// What a child turn does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SubrunKind {
    /// A read-only scout answering a question about the workspace.
    Explore,
    /// An audit of the work so far against the goal or a focus.
    Review,
}

impl SubrunKind {
    /// The wire name (`kind` of the subrun events).
    pub fn as_str(self) -> &'static str {
        match self {
            SubrunKind::Explore => "explore",
            SubrunKind::Review => "review",
        }
    }
}

/// One child turn to run.
#[derive(Debug, Clone)]
pub struct ChildRequest {
    /// What it does.
    pub kind: SubrunKind,
    /// One line for clients (the query or the focus, cut).
    pub label: String,
    /// The child's instructions: its user message.
    pub message: String,
}

/// How a child turn ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChildStatus {
    /// It answered.
    Done,
    /// Its parent was cancelled.
    Cancelled,
    /// It failed (provider error, crash, step limit, deadline).
    Failed,
}

impl ChildStatus {
    /// The wire name (`status` of `subrun_finished`).
    pub fn as_str(self) -> &'static str {
        match self {
            ChildStatus::Done => "done",
            ChildStatus::Cancelled => "cancelled",
            ChildStatus::Failed => "failed",
        }
    }
}

/// What a child turn came back with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChildReport {
    /// The child's own session.
    pub session_id: String,
    /// How it ended.
    pub status: ChildStatus,
    /// Its answer, or why it failed.
    pub text: String,
    /// Model requests it made.
    pub steps: u64,
    /// Tokens it used (input and output).
    pub tokens: u64,
}

/// Why no child turn ran.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ChildError {
    /// The engine is gone (shutting down) or refused to start it.
    #[error("the subagent could not start: {0}")]
    NotStarted(String),
}

/// The future of a child turn.
pub type ChildFuture<'a> =
    Pin<Box<dyn Future<Output = Result<ChildReport, ChildError>> + Send + 'a>>;

/// The future of the parent session's standing goal.
pub type GoalFuture<'a> = Pin<Box<dyn Future<Output = Option<String>> + Send + 'a>>;

/// Starts child turns for one parent turn.
pub trait ChildTurns: Send + Sync + std::fmt::Debug {
    /// Runs a child turn to its end (`cancel` stops it: it then ends
    /// cancelled). A child that fails is an `Ok` report with status
    /// `Failed`, never a failed parent.
    fn run(&self, request: ChildRequest, cancel: CancellationToken) -> ChildFuture<'_>;

    /// The parent session's standing goal, if one is set.
    fn standing_goal(&self) -> GoalFuture<'_>;
}
