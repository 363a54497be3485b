//! What a turn reports while it runs. The daemon maps these to wire envelopes;
//! `seekclaw run` prints them.

use seekclaw_providers::ProviderError;

use crate::steer::SteerKind;

/// The kinds of node of the live execution flowchart (the wire's `kind`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WorkflowKind {
    /// The turn began.
    Start,
    /// A model request.
    Think,
    /// A tool call.
    Tool,
    /// The older history was summarized.
    Compact,
    /// The workspace's verify command runs.
    Verify,
    /// The model is asked to fix what verification found.
    Repair,
    /// The turn finished with an answer.
    Done,
    /// The turn failed.
    Error,
}

impl WorkflowKind {
    /// The wire name (`details.kind` of a `workflow` event).
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
    /// The turn began.
    Start,
    /// A model request; `continuation` when it continues an answer the
    /// output limit cut.
    Think {
        /// The request continues a cut answer.
        continuation: bool,
    },
    /// A tool call, by the tool's name.
    Tool {
        /// The tool's registry name.
        name: String,
    },
    /// The older history was summarized.
    Compact,
    /// The workspace's verify command runs.
    Verify,
    /// The model is asked to fix what verification found.
    Repair,
    /// The turn finished with an answer.
    Done,
    /// The turn failed.
    Error,
}

impl WorkflowNode {
    /// The node's kind, without its data.
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
    /// The older history is being summarized.
    CompactingContext,
    /// The summary is in the log; the turn goes on with it.
    ContextCompacted,
}

/// One thing a running turn reports, in order. Front ends render them; the
/// session log, not these events, is the record.
#[derive(Debug, Clone, PartialEq)]
pub enum AgentEvent {
    /// A node of the execution flowchart.
    Workflow {
        /// The model request the node belongs to (0 before the first).
        step: u32,
        /// What happens.
        node: WorkflowNode,
        /// Empty when there is none.
        detail: String,
    },
    /// What the turn is doing now.
    Status(TurnStatus),
    /// The model actually answering (again after a failover).
    ModelStart {
        /// Provider id from the config.
        provider: String,
        /// Model id at that provider.
        model: String,
        /// The model request it answers.
        step: u32,
    },
    /// The model that was to answer failed before saying anything and the
    /// next candidate answers instead: another provider may mean another
    /// price and another data destination, so front ends show it.
    Failover {
        /// The model request it happened in.
        step: u32,
        /// `provider/model` that failed.
        failed: String,
        /// Why it failed (the provider's error text).
        error: String,
        /// `provider/model` that answers now.
        to: String,
    },
    /// A model request failed and is tried again after a pause.
    Retry {
        /// The model request it happened in.
        step: u32,
        /// `provider/model` being retried.
        model: String,
        /// The attempt about to start (2 for the first retry).
        attempt: u32,
        /// Attempts allowed per model (`routing.retry.maxAttempts`).
        max_attempts: u32,
        /// What went wrong, in a few words (`HTTP 500`).
        reason: String,
        /// The provider's full error text.
        error: String,
        /// The pause before the attempt.
        delay_ms: u64,
    },
    /// A piece of the model's reasoning, streamed.
    Thinking(String),
    /// A piece of the model's answer, streamed.
    Delta(String),
    /// The turn ends on the answer of this step: why the model stopped it
    /// (`FinishReason::as_str`: `length` for an answer cut at the output cap
    /// and not continued, `content_filter` or the provider's `refusal` for
    /// a refusal), for front ends that report a stop reason (ACP).
    AnswerFinish {
        /// The provider's finish reason; empty when the stream gave none.
        reason: String,
    },
    /// One provider attempt's token counts.
    Usage {
        /// Provider id from the config.
        provider: String,
        /// Model id at that provider.
        model: String,
        /// Input tokens not read from the provider's cache.
        input_tokens: u64,
        /// Output tokens, reasoning included.
        output_tokens: u64,
        /// All input tokens, cached or not.
        total_input_tokens: u64,
        /// Input tokens read from the provider's cache.
        cached_input_tokens: u64,
        /// Wall time of the attempt.
        elapsed_ms: f64,
        /// The attempt succeeded (failed attempts are reported too).
        success: bool,
        /// What it cost in USD at the config's prices; `None` when the model
        /// has none.
        cost_usd: Option<f64>,
    },
    /// An image enters the model's request.
    ImageView {
        /// The image's id (its blob hash).
        image_id: String,
        /// The file name it came with.
        name: String,
        /// Its MIME type.
        media_type: String,
    },
    /// A tool call starts.
    ToolStart {
        /// The model's id for the call.
        call_id: String,
        /// The tool's registry name.
        name: String,
        /// A one-line description of the call (e.g. the path it reads).
        summary: String,
    },
    /// A tool call ended.
    ToolDone {
        /// The model's id for the call.
        call_id: String,
        /// The tool's registry name.
        name: String,
        /// Whether the tool reported success.
        success: bool,
        /// Wall time of the call.
        duration_ms: f64,
        /// A one-line description of the result.
        summary: String,
        /// What the model reads (front ends that show whole results, e.g.
        /// `serve`'s `tool_result`).
        output: String,
    },
    /// The engine checkpointed the workspace (or failed to: `error`).
    Checkpoint(crate::checkpoints::CheckpointNote),
    /// A tool changed a file.
    FileDiff {
        /// The call that changed it.
        call_id: String,
        /// The file, relative to the workspace when inside it.
        path: String,
        /// Unified diff of the change.
        diff: String,
    },
    /// The turn reached the context ceiling: a summary now covers the log up
    /// to `to_seq` (0 when the checkpoint failed) and the turn ends `Done`
    /// with `answer`, which the next turn continues from.
    ContextYield {
        /// Last log event the checkpoint covers.
        to_seq: u64,
        /// The turn's answer (starts with `[context ceiling]`).
        answer: String,
    },
    /// The turn summarized its history on its own (a checkpoint).
    AutoCompaction(AutoCompaction),
    /// The model reported on the standing goal (its marker is in the log).
    GoalStatus(GoalStatus),
    /// The runtime reminded the model of something (logged as a notice).
    Reminder {
        /// What it is about.
        kind: ReminderKind,
        /// The notice's text.
        text: String,
    },
    /// A tool call waits for a person's decision (attended turns only).
    ApprovalRequested {
        /// What the front end answers with.
        approval_id: String,
        /// The call (its `ToolStart` came before).
        call_id: String,
        /// The tool's registry name.
        tool: String,
        /// A one-line description of the call.
        summary: String,
        /// The call's arguments.
        arguments: serde_json::Value,
        /// For a file edit: the diff it would make.
        diff: Option<String>,
        /// The allow rules `allow_always` would save (`Bash(npm test:*)`,
        /// joined by `, `); `None`: that answer is not offered.
        always_rule: Option<String>,
        /// Where they would go: `workspace` or `user`.
        always_target: Option<String>,
    },
    /// A tool call's MCP server asks the person for values (elicitation);
    /// answered like an approval, with a form's outcome. Only for turns
    /// whose front end fills in forms. Boxed: rare, and events stay small.
    ElicitationRequested(Box<ElicitationAsk>),
    /// A pending approval ended.
    ApprovalResolved {
        /// The request.
        approval_id: String,
        /// The call.
        call_id: String,
        /// How it ended.
        outcome: crate::approval::ApprovalOutcome,
    },
    /// A hook command started (one of the user's hooks).
    HookStarted(HookRun),
    /// A hook command ended (`finished` is set); it is in the log too.
    HookFinished(HookRun),
    /// A subagent (child turn) started from a tool call of this turn.
    SubrunStarted(Subrun),
    /// A running subagent made progress (a model request, tokens).
    SubrunProgress(Subrun),
    /// A subagent ended; `status` says how.
    SubrunFinished(Subrun),
    /// Queued guidance entered the turn's context.
    Steer {
        /// Its text.
        text: String,
        /// Who sent it.
        kind: SteerKind,
    },
}

/// A checkpoint of the turn's history, as it goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AutoCompaction {
    /// The summary request starts over these log events.
    Started {
        /// First event covered.
        from_seq: u64,
        /// Last event covered.
        to_seq: u64,
    },
    /// The summary is in the log.
    Finished {
        /// First event covered.
        from_seq: u64,
        /// Last event covered.
        to_seq: u64,
        /// The summary.
        summary: String,
    },
    /// No summary was made (the history is trimmed instead).
    Failed {
        /// Why.
        error: String,
    },
}

/// What the model reported with the `goal` tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GoalStatus {
    /// Fully met: the goal is cleared.
    Met,
    /// Cannot go on without the user; the goal still stands.
    Blocked(String),
    /// Work goes on again after a block.
    Unblocked,
}

/// What a runtime reminder is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReminderKind {
    /// The standing goal, at a turn's start.
    Goal,
    /// The once-per-turn check before finishing with the goal unconfirmed.
    GoalCheck,
    /// The plan, after many requests without an update.
    Plan,
    /// For the user, not the model: the workspace's hooks are off (not
    /// trusted, or their set changed and was not approved).
    Hooks,
    /// For the user, not the model: the instruction files exceed the
    /// budget and were cut (said once a session).
    Instructions,
    /// For the user, not the model: a spend budget is nearly used up (said
    /// once per budget and session).
    Budget,
}

/// One hook run, as the stream announces it.
#[derive(Debug, Clone, PartialEq)]
pub struct HookRun {
    /// Pairs the started and finished events (`hk_…`).
    pub run_id: String,
    /// The event (`PreToolUse`).
    pub event: String,
    /// The command.
    pub command: String,
    /// Its layer: `managed`, `user` or `workspace`.
    pub source: String,
    /// The tool call it is about.
    pub call_id: Option<String>,
    /// That call's tool, as Claude Code names it.
    pub tool: Option<String>,
    /// Set once it ended.
    pub finished: Option<HookFinish>,
}

/// How a hook run ended.
#[derive(Debug, Clone, PartialEq)]
pub struct HookFinish {
    /// `None`: killed at its timeout or never started.
    pub exit_code: Option<i32>,
    /// Wall time.
    pub duration_ms: f64,
    /// `ok`, `allow`, `ask`, `deny`, `block`, `stop`, `error`, `timeout` or `cancelled` (stopped with its turn).
    pub decision: String,
    /// What it said to the user.
    pub message: Option<String>,
}

/// How a turn ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TurnOutcome {
    /// The last non-empty assistant text of the turn.
    Done(String),
    /// Cancelled; the partial or last assistant text.
    Cancelled(String),
    /// The turn failed; its end is in the log.
    Failed(TurnFailure),
    /// The turn ended as `ended`, but its end (final answer, terminal) could
    /// not be written to the session log: it must not be acknowledged as
    /// done. The session keeps the turn's active mark, so the next turn on
    /// it, or the next start, records it as interrupted.
    Unsaved {
        /// How the turn had ended.
        ended: Box<TurnOutcome>,
        /// Why the write failed.
        error: String,
    },
}

/// Why a turn failed, as data: each front end maps the kind to its own code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TurnFailure {
    /// What went wrong, for the front end's error code.
    pub kind: FailureKind,
    /// The full readable text (e.g. the provider's error).
    pub message: String,
}

impl TurnFailure {
    /// A failure of `kind` with its readable text.
    pub fn new(kind: FailureKind, message: impl Into<String>) -> TurnFailure {
        TurnFailure {
            kind,
            message: message.into(),
        }
    }

    /// The session log could not be read or written.
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
    /// One of the user's hooks refused the turn (its prompt was not sent).
    Blocked,
    /// The next model request would exceed a spend budget: the turn stopped
    /// before it (everything so far is kept).
    Budget,
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
            FailureKind::Blocked => "blocked",
            FailureKind::Budget => "budget",
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

/// A subagent as its events report it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Subrun {
    /// The child's session id (unique: also the subrun's id).
    pub id: String,
    /// `explore` or `review`.
    pub kind: String,
    /// One line: the query or the focus.
    pub label: String,
    /// `running`, then `done`, `cancelled` or `failed`.
    pub status: String,
    /// Model requests it made so far.
    pub steps: u64,
    /// Input tokens it used so far, cached ones included.
    pub input_tokens: u64,
    /// Output tokens it used so far.
    pub output_tokens: u64,
}

impl Subrun {
    /// Every token it used so far.
    pub fn tokens(&self) -> u64 {
        self.input_tokens.saturating_add(self.output_tokens)
    }
}

/// What an MCP server asks the person during a tool call.
#[derive(Debug, Clone, PartialEq)]
pub struct ElicitationAsk {
    /// What the front end answers with (an approval id).
    pub approval_id: String,
    /// The call during which the server asks.
    pub call_id: String,
    /// The call's tool (registry name).
    pub tool: String,
    /// The call's arguments.
    pub arguments: serde_json::Value,
    /// The server asking.
    pub server: String,
    /// Its message.
    pub message: String,
    /// The fields it wants (a flat JSON Schema object).
    pub requested_schema: serde_json::Value,
}
