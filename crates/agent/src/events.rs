//! What a turn reports while it runs. The daemon maps these to wire envelopes;
//! `seekclaw run` prints them.

use seekclaw_providers::ProviderError;

/// The kinds of node of the live execution flowchart (the wire's `kind`).
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

/// One node of the flowchart, as data: what a front end shows for it (a
/// label, an icon) is its own business.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WorkflowNode {
    Start,
    /// A model request; `continuation` when it continues an answer the
    /// output limit cut.
    Think {
        continuation: bool,
    },
    /// A tool call, by the tool's name.
    Tool {
        name: String,
    },
    Compact,
    Verify,
    Repair,
    Done,
    Error,
}

impl WorkflowNode {
    pub fn kind(&self) -> WorkflowKind {
        match self {
            WorkflowNode::Start => WorkflowKind::Start,
            WorkflowNode::Think { .. } => WorkflowKind::Think,
            WorkflowNode::Tool { .. } => WorkflowKind::Tool,
            WorkflowNode::Compact => WorkflowKind::Compact,
            WorkflowNode::Verify => WorkflowKind::Verify,
            WorkflowNode::Repair => WorkflowKind::Repair,
            WorkflowNode::Done => WorkflowKind::Done,
            WorkflowNode::Error => WorkflowKind::Error,
        }
    }
}

/// What the turn is doing, as data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TurnStatus {
    /// A model request is on its way.
    Thinking,
    /// The model started a tool call.
    PreparingToolCall,
    /// A tool runs or reported: its own status text.
    Tool(String),
    /// The output limit cut the answer; the turn continues it.
    OutputTruncated,
    /// The verify command runs.
    Verifying,
    CompactingContext,
    ContextCompacted,
}

#[derive(Debug, Clone, PartialEq)]
pub enum AgentEvent {
    Workflow {
        step: u32,
        node: WorkflowNode,
        /// Empty when there is none.
        detail: String,
    },
    Status(TurnStatus),
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

    /// A provider's failure, by what went wrong: configuration that cannot
    /// serve the turn, a time limit, or the provider itself (a failover that
    /// tried several models is a time limit or configuration only when every
    /// model failed that way).
    pub fn from_provider(e: &ProviderError) -> TurnFailure {
        Self::new(provider_kind(e), e.to_string())
    }
}

fn provider_kind(e: &ProviderError) -> FailureKind {
    match e {
        ProviderError::Config(_) => FailureKind::NoModel,
        ProviderError::Timeout { .. } => FailureKind::Timeout,
        ProviderError::AllFailed(tried) => {
            let kinds: Vec<FailureKind> = tried.iter().map(|(_, e)| provider_kind(e)).collect();
            match kinds.first() {
                Some(first) if kinds.iter().all(|k| k == first) => *first,
                _ => FailureKind::Provider,
            }
        }
        _ => FailureKind::Provider,
    }
}

/// The kinds of turn failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailureKind {
    /// The model provider failed (after retries and failover).
    Provider,
    /// No configured model can serve the turn (none enabled, none with
    /// vision for its images, a provider that cannot work as configured).
    NoModel,
    /// The provider did not answer in time (connect, headers or stream idle).
    Timeout,
    /// The turn reached its step limit (`agent.maxSteps`) unfinished.
    StepLimit,
    /// The session log could not be read or written.
    Storage,
    /// A fault of the engine itself.
    Internal,
}

impl FailureKind {
    /// A stable name (logs, stored data, front ends without codes of their own).
    pub fn as_str(self) -> &'static str {
        match self {
            FailureKind::Provider => "provider",
            FailureKind::NoModel => "no_model",
            FailureKind::Timeout => "timeout",
            FailureKind::StepLimit => "step_limit",
            FailureKind::Storage => "storage",
            FailureKind::Internal => "internal",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn timeout() -> ProviderError {
        ProviderError::Timeout {
            provider: "p".into(),
            phase: "headers",
            after: Duration::from_secs(1),
        }
    }

    #[test]
    fn provider_failures_are_sorted_by_what_went_wrong() {
        let kind = |e: ProviderError| TurnFailure::from_provider(&e).kind;
        assert_eq!(
            kind(ProviderError::Config("none".into())),
            FailureKind::NoModel
        );
        assert_eq!(kind(timeout()), FailureKind::Timeout);
        let http = ProviderError::Http {
            provider: "p".into(),
            status: 500,
            message: "x".into(),
            retry_after: None,
        };
        assert_eq!(kind(http.clone()), FailureKind::Provider);
        let all = |list: Vec<ProviderError>| {
            ProviderError::AllFailed(list.into_iter().map(|e| ("m".to_string(), e)).collect())
        };
        assert_eq!(kind(all(vec![timeout(), timeout()])), FailureKind::Timeout);
        assert_eq!(kind(all(vec![timeout(), http])), FailureKind::Provider);
    }
}
