//! The events `serve` writes on stdout (and `run --events`), reference §2.3:
//! one JSON object per line, the envelope fields first (`timestamp`,
//! `level`, `event`), then the event's own fields in declaration order.
//! Optional strings are always written (`null` when absent); integers are
//! integers. The field order is wire contract: the workspace's `serde_json`
//! keeps it (`preserve_order`), and `serve`'s pinned-line test holds it.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Token counts of one model request, in the wire's own shape (kept apart
/// from the providers' types so a vendor rename cannot change the wire).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
pub struct Usage {
    /// All input tokens.
    pub prompt_tokens: u64,
    /// Output tokens, reasoning included.
    pub completion_tokens: u64,
    /// Input plus output.
    pub total_tokens: u64,
    /// Input tokens read from the provider's cache.
    pub prompt_cache_hit_tokens: u64,
    /// Input tokens not read from the cache.
    pub prompt_cache_miss_tokens: u64,
}

/// Where an applied steer came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AppliedSteerKind {
    /// The user redirected the turn.
    Prompt,
    /// Shell context the user saw (`$ cmd` and its output).
    Command,
    /// An engine notice (a background job ended).
    Notice,
}

/// How a pending approval ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ApprovalOutcome {
    /// The call ran (once).
    AllowedOnce,
    /// The call ran, and its allow rule was saved (ours, additive).
    AllowedAlways,
    /// The call was refused (or nobody answered in time).
    Rejected,
    /// The turn ended first.
    Cancelled,
}

/// One file a checkpoint recorded as changed since the one before it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct CheckpointFile {
    /// Relative to the workspace root.
    pub path: String,
    /// `added`, `modified` or `deleted`.
    pub status: String,
    /// Lines added.
    pub added: u32,
    /// Lines removed.
    pub removed: u32,
}

/// What a turn's first checkpoint did not track (said once).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
pub struct NotTracked {
    /// Files the ignore rules exclude (a sample).
    pub ignored: Vec<String>,
    /// Files over `checkpoints.maxFileBytes`.
    pub oversize: Vec<String>,
}

/// One file a rewind restored (or, a dry run, would restore).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct RewoundFile {
    /// Relative to the workspace root.
    pub path: String,
    /// What the rewind does to it: `added` (recreated), `modified` or
    /// `deleted` (the agent created it after that point).
    pub status: String,
    /// Lines added.
    pub added: u32,
    /// Lines removed.
    pub removed: u32,
    /// Not text: no line diff.
    pub binary: bool,
    /// The unified diff (git style) of the change.
    pub diff: String,
}

/// `level` of a line: a property of its event's kind, not of the call site
/// (reference §2.1). No decoder reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "UPPERCASE")]
pub enum Level {
    /// Progress.
    Info,
    /// The turn or a request did not go as asked.
    Warn,
    /// Something failed.
    Error,
}

/// One event of the stream. Field names are the wire's; their meaning is
/// reference §2.3's. The fields are written in the order declared here.
#[allow(missing_docs)]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    /// The turn could not start (no model, no workspace, a bad image).
    AgentSetupFailed { error: String },
    /// Before each model request (1-based).
    AgentStep { step: u32 },
    /// A streamed fragment of the answer.
    AssistantDelta { content: String },
    /// A streamed fragment of the reasoning.
    ReasoningDelta { content: String },
    /// The step's whole reasoning, after the response.
    ReasoningMessage { content: String },
    /// The step's whole visible text, when not empty.
    AssistantMessage { content: String },
    /// One request's token counts.
    Usage { usage: Usage },
    /// A tool call's result, as the model reads it.
    ToolResult {
        tool_call_id: String,
        tool_name: String,
        is_error: bool,
        content: String,
        brief: Option<String>,
    },
    /// The turn finished with this answer.
    AgentFinished {
        answer: String,
        submission_id: Option<String>,
    },
    /// The turn stopped at the context ceiling after a checkpoint.
    ContextYield {
        to_sequence: u64,
        answer: String,
        submission_id: Option<String>,
    },
    /// The turn was cancelled (`interrupted`).
    AgentAborted {
        reason: String,
        submission_id: Option<String>,
    },
    /// The turn used its `--max-steps` unfinished.
    MaxStepsExhausted { submission_id: Option<String> },
    /// The turn stopped before a model request that would exceed a spend
    /// budget (ours, additive): `error` names the budget, what was spent
    /// and how to raise it; nothing was lost.
    BudgetExhausted {
        error: String,
        submission_id: Option<String>,
    },
    /// A spend budget is nearly used up (ours, additive; once per budget
    /// and session).
    BudgetWarning { content: String },
    /// The turn failed.
    TurnFailed {
        error: String,
        submission_id: Option<String>,
    },
    /// A steer reached the model.
    SteerApplied {
        kind: AppliedSteerKind,
        content: String,
        submission_id: Option<String>,
    },
    /// A steer arrived with no turn to take it.
    SteerDropped {
        content: String,
        submission_id: Option<String>,
    },
    /// A background job ended while the engine was idle.
    BackgroundNotice { content: String },
    /// A tool call waits for the controller's `approval` command.
    /// `always_rule` (ours, additive, absent when not offered): the allow
    /// rule an `approval` with `decision: "allow_always"` saves, in the
    /// `always_target` config (`workspace` or `user`).
    ApprovalRequested {
        id: String,
        tool_name: String,
        detail: String,
        body: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        always_rule: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        always_target: Option<String>,
    },
    /// A pending approval ended.
    ApprovalResolved {
        id: String,
        outcome: ApprovalOutcome,
    },
    /// The standing goal changed (`null`: cleared).
    GoalUpdated { goal: Option<String> },
    /// The model recorded the goal as blocked.
    GoalBlocked { reason: String },
    /// Work toward the goal goes on again.
    GoalUnblocked,
    /// The once-per-turn goal check.
    GoalCheck { content: String },
    /// The turn-start goal reminder.
    GoalReminder { content: String },
    /// A plan reminder.
    PlanReminder { content: String },
    /// The workspace's hooks are off this turn (not trusted, or its hook
    /// set not approved): what the turn was told (ours, additive).
    HooksOff { content: String },
    /// The instruction files exceed `instructions.maxBytes` and were cut
    /// (once a session; ours, additive).
    InstructionsCut { content: String },
    /// The engine starts a turn toward the `auto` goal; this many remain.
    GoalContinue { remaining: u32 },
    /// The `auto` goal used its budget of turns.
    GoalBudgetExhausted { turns: u32 },
    /// Manual compaction started over this range.
    CompactionStarted {
        from_sequence: u64,
        to_sequence: u64,
    },
    /// Manual compaction appended its summary.
    CompactionFinished {
        from_sequence: u64,
        to_sequence: u64,
        summary: String,
    },
    /// Manual compaction failed; nothing was appended.
    CompactionFailed { error: String },
    /// The turn checkpoints its history (at the context ceiling).
    AutoCompactionStarted {
        from_sequence: u64,
        to_sequence: u64,
    },
    /// The checkpoint's summary is in the log.
    AutoCompactionFinished {
        from_sequence: u64,
        to_sequence: u64,
        summary: String,
    },
    /// The checkpoint made no summary.
    AutoCompactionFailed { error: String },
    /// The model that was to answer failed before saying anything; `to`
    /// answers instead (ours, additive).
    ModelFailover {
        failed: String,
        error: String,
        to: String,
        content: String,
    },
    /// A model request failed and is retried (ours, additive).
    ModelRetry {
        model: String,
        attempt: u32,
        max_attempts: u32,
        reason: String,
        error: String,
        delay_ms: u64,
        content: String,
    },
    /// A hook (the user's command on a lifecycle event) started (ours,
    /// additive). `hook_event_name` is Claude Code's event name
    /// (`PreToolUse`); `source` the config layer it came from (`user`,
    /// `workspace`, `managed`); the tool fields name the call it is about.
    HookStarted {
        run_id: String,
        hook_event_name: String,
        command: String,
        source: String,
        tool_call_id: Option<String>,
        tool_name: Option<String>,
    },
    /// A hook ended: `exit_code` (null: killed at its timeout or could not
    /// start), `decision` (`ok`, `allow`, `ask`, `deny`, `block`, `stop`,
    /// `error` or `timeout`) and the message shown to the user.
    HookFinished {
        run_id: String,
        hook_event_name: String,
        command: String,
        source: String,
        tool_call_id: Option<String>,
        tool_name: Option<String>,
        exit_code: Option<i32>,
        duration_ms: f64,
        decision: String,
        message: Option<String>,
    },
    /// `run` or `serve` started (or continued) this session (`serve`: its
    /// first event; a new session is made by its first turn).
    SessionStarted {
        session: String,
        session_root: String,
        workspace_root: Option<String>,
    },
    /// A subagent (a child turn with its own session) started from a tool
    /// call; always paired with `subrun_finished`, before the turn's end.
    SubrunStarted {
        id: String,
        kind: String,
        label: String,
    },
    /// A subagent ended: `captured` (it answered), `failed` or `cancelled`.
    SubrunFinished {
        id: String,
        status: String,
        steps: u64,
        prompt_tokens: u64,
        completion_tokens: u64,
    },
    /// An idle-time write to the session failed.
    SessionError { error: String },
    /// A command line could not be used.
    CommandError { error: String },
    /// A checkpoint of the workspace's files was recorded (ours, additive):
    /// before a turn's first change, after each step that changed files, at
    /// a background job's end and before a rewind. `error` says checkpointing
    /// failed (the turn goes on).
    Checkpoint {
        id: u64,
        sequence: u64,
        turn_sequence: u64,
        kind: String,
        files: Vec<CheckpointFile>,
        added: u32,
        removed: u32,
        not_tracked: Option<NotTracked>,
        error: Option<String>,
    },
    /// A `rewind` was applied (or, `dry_run`, what it would do). `prompt` is
    /// the rewound user message's text, for the front end's editor, when the
    /// conversation was rewound; `marker_sequence` the rewind marker's seq.
    RewindFinished {
        sequence: u64,
        restore: String,
        dry_run: bool,
        files: Vec<RewoundFile>,
        conflicts: Vec<String>,
        kept: Vec<String>,
        unrestorable: Vec<String>,
        prompt: Option<String>,
        marker_sequence: Option<u64>,
    },
    /// A `rewind` changed nothing: `reason` is `busy` (a turn runs),
    /// `conflict` (`conflicts` lists the files someone else changed after
    /// that point: send it again with `force` to overwrite them),
    /// `not_found` (no such user message) or `failed`.
    RewindFailed {
        sequence: u64,
        reason: String,
        error: String,
        conflicts: Vec<String>,
    },
}

/// One line of the stream, read back: the envelope, then the event.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct EventLine {
    /// When it was written: RFC 3339, UTC, milliseconds (`…T08:12:04.752Z`).
    pub timestamp: String,
    /// The event's level, a property of its kind (`x-levels`).
    pub level: Level,
    /// The event: its name in `event`, then its fields.
    #[serde(flatten)]
    #[schemars(with = "Event")]
    pub event: Event,
}

/// The writing side of [`EventLine`]: same fields, same order, borrowed.
#[derive(Serialize)]
struct LineRef<'a> {
    timestamp: &'a str,
    level: Level,
    #[serde(flatten)]
    event: &'a Event,
}

impl Event {
    /// The event's `level` (reference §2.1).
    pub fn level(&self) -> Level {
        Level::of_event(self.name())
    }

    /// The event's name on the wire (its `event` field).
    pub fn name(&self) -> &'static str {
        use Event::*;
        match self {
            AgentSetupFailed { .. } => "agent_setup_failed",
            AgentStep { .. } => "agent_step",
            AssistantDelta { .. } => "assistant_delta",
            ReasoningDelta { .. } => "reasoning_delta",
            ReasoningMessage { .. } => "reasoning_message",
            AssistantMessage { .. } => "assistant_message",
            Usage { .. } => "usage",
            ToolResult { .. } => "tool_result",
            AgentFinished { .. } => "agent_finished",
            ContextYield { .. } => "context_yield",
            AgentAborted { .. } => "agent_aborted",
            MaxStepsExhausted { .. } => "max_steps_exhausted",
            TurnFailed { .. } => "turn_failed",
            BudgetExhausted { .. } => "budget_exhausted",
            BudgetWarning { .. } => "budget_warning",
            SteerApplied { .. } => "steer_applied",
            SteerDropped { .. } => "steer_dropped",
            BackgroundNotice { .. } => "background_notice",
            ApprovalRequested { .. } => "approval_requested",
            ApprovalResolved { .. } => "approval_resolved",
            GoalUpdated { .. } => "goal_updated",
            GoalBlocked { .. } => "goal_blocked",
            GoalUnblocked => "goal_unblocked",
            GoalCheck { .. } => "goal_check",
            GoalReminder { .. } => "goal_reminder",
            PlanReminder { .. } => "plan_reminder",
            HooksOff { .. } => "hooks_off",
            InstructionsCut { .. } => "instructions_cut",
            GoalContinue { .. } => "goal_continue",
            GoalBudgetExhausted { .. } => "goal_budget_exhausted",
            CompactionStarted { .. } => "compaction_started",
            CompactionFinished { .. } => "compaction_finished",
            CompactionFailed { .. } => "compaction_failed",
            AutoCompactionStarted { .. } => "auto_compaction_started",
            AutoCompactionFinished { .. } => "auto_compaction_finished",
            AutoCompactionFailed { .. } => "auto_compaction_failed",
            ModelFailover { .. } => "model_failover",
            ModelRetry { .. } => "model_retry",
            HookStarted { .. } => "hook_started",
            HookFinished { .. } => "hook_finished",
            SessionStarted { .. } => "session_started",
            SubrunStarted { .. } => "subrun_started",
            SubrunFinished { .. } => "subrun_finished",
            SessionError { .. } => "session_error",
            CommandError { .. } => "command_error",
            Checkpoint { .. } => "checkpoint",
            RewindFinished { .. } => "rewind_finished",
            RewindFailed { .. } => "rewind_failed",
        }
    }

    /// The event as one line stamped `timestamp`, `\n` included (the caller
    /// reads the clock: this crate does no I/O).
    pub fn line_at(&self, timestamp: &str) -> Vec<u8> {
        let line = LineRef {
            timestamp,
            level: self.level(),
            event: self,
        };
        // Serializing owned strings and integers into a Vec cannot fail.
        let mut out = serde_json::to_vec(&line).unwrap_or_default();
        out.push(b'\n');
        out
    }
}

impl Level {
    /// The level of the event named `name` (one table for [`Event::level`]
    /// and the schema's `x-levels`).
    pub fn of_event(name: &str) -> Level {
        match name {
            "agent_setup_failed" | "turn_failed" | "compaction_failed" | "session_error"
            | "command_error" => Level::Error,
            "agent_aborted"
            | "max_steps_exhausted"
            | "budget_exhausted"
            | "budget_warning"
            | "steer_dropped"
            | "goal_budget_exhausted"
            | "auto_compaction_failed"
            | "model_failover"
            | "model_retry"
            | "rewind_failed" => Level::Warn,
            _ => Level::Info,
        }
    }
}

impl EventLine {
    /// Reads one line of the stream; `None` for anything that is not an
    /// event this protocol has (a newer engine's event, a stray log line):
    /// reference §2.4's tolerant decoder.
    pub fn parse(line: &[u8]) -> Option<EventLine> {
        serde_json::from_slice(line).ok()
    }
}
