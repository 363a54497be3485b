//! What a turn reports while it runs. The daemon maps these to wire envelopes;
//! `seekclaw run` prints them.

/// Nodes of the live execution flowchart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WorkflowKind {
    Start,
    Think,
    Tool,
    Compact,
    Verify,
    Repair,
    Done,
    Error,
}

impl WorkflowKind {
    pub fn as_str(self) -> &'static str {
        match self {
            WorkflowKind::Start => "start",
            WorkflowKind::Think => "think",
            WorkflowKind::Tool => "tool",
            WorkflowKind::Compact => "compact",
            WorkflowKind::Verify => "verify",
            WorkflowKind::Repair => "repair",
            WorkflowKind::Done => "done",
            WorkflowKind::Error => "error",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum AgentEvent {
    Workflow {
        step: u32,
        kind: WorkflowKind,
        label: String,
        detail: String,
    },
    Status(String),
    /// The model actually answering (again after a failover).
    ModelStart {
        provider: String,
        model: String,
        step: u32,
    },
    Thinking(String),
    Delta(String),
    /// One provider attempt's token counts.
    Usage {
        provider: String,
        model: String,
        input_tokens: u64,
        output_tokens: u64,
        total_input_tokens: u64,
        cached_input_tokens: u64,
        elapsed_ms: f64,
    },
    ImageView {
        image_id: String,
        name: String,
        media_type: String,
    },
    ToolStart {
        call_id: String,
        name: String,
        summary: String,
    },
    ToolDone {
        call_id: String,
        success: bool,
        duration_ms: f64,
        summary: String,
    },
    FileDiff {
        call_id: String,
        path: String,
        diff: String,
    },
    /// Queued guidance entered the turn's context.
    Steer(String),
}

/// How a turn ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TurnOutcome {
    /// The last non-empty assistant text of the turn.
    Done(String),
    /// Cancelled; the partial or last assistant text.
    Cancelled(String),
    Failed(TurnFailure),
    /// The turn ended as `ended`, but its end (final answer, terminal) could
    /// not be written to the session log: it must not be acknowledged as
    /// done. The session keeps the turn's active mark, so the next turn on
    /// it, or the next start, records it as interrupted.
    Unsaved {
        ended: Box<TurnOutcome>,
        /// Why the write failed.
        error: String,
    },
}

/// Why a turn failed, as data: each front end maps the kind to its own code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TurnFailure {
    pub kind: FailureKind,
    /// The full readable text (e.g. the provider's error).
    pub message: String,
}

impl TurnFailure {
    pub fn new(kind: FailureKind, message: impl Into<String>) -> TurnFailure {
        TurnFailure {
            kind,
            message: message.into(),
        }
    }

    pub fn storage(message: impl Into<String>) -> TurnFailure {
        Self::new(FailureKind::Storage, message)
    }
}

/// The kinds of turn failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailureKind {
    /// The model provider failed (after retries and failover).
    Provider,
    /// The session log could not be read or written.
    Storage,
}
