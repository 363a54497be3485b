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
    /// The full error text (e.g. the provider's).
    Failed(String),
}
