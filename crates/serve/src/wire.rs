//! The OpenSeek event stream (reference §2.1, §2.3): one JSON object per
//! line, the envelope fields first (`timestamp`, `level`, `event`), then the
//! event's own fields. Optional strings are always written (`null` when
//! absent); integers are integers.

use serde_json::{Value, json};

/// Token counts of one model request, in the wire's own shape (kept apart
/// from the providers' types so a vendor rename cannot change the wire).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct WireUsage {
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

/// One event of the stream. Field names are the wire's; their meaning is
/// reference §2.3's.
#[allow(missing_docs)]
#[derive(Debug, Clone, PartialEq)]
pub enum WireEvent {
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
    Usage(WireUsage),
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
    /// The turn failed.
    TurnFailed {
        error: String,
        submission_id: Option<String>,
    },
    /// A steer reached the model.
    SteerApplied {
        kind: &'static str,
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
    ApprovalRequested {
        id: String,
        tool_name: String,
        detail: String,
        body: Option<String>,
    },
    /// A pending approval ended: `allowed_once`, `rejected` or `cancelled`.
    ApprovalResolved { id: String, outcome: &'static str },
    /// The standing goal changed.
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
    /// `run` or `serve` started (or continued) this session (`serve`: its
    /// first event; a new session is made by its first turn).
    SessionStarted {
        session: String,
        session_root: String,
        workspace_root: Option<String>,
    },
    /// An idle-time write to the session failed.
    SessionError { error: String },
    /// A command line could not be used.
    CommandError { error: String },
}

/// `level` of an event: a property of its kind (reference §2.1).
fn level(ev: &WireEvent) -> &'static str {
    use WireEvent::*;
    match ev {
        AgentSetupFailed { .. }
        | TurnFailed { .. }
        | CompactionFailed { .. }
        | SessionError { .. }
        | CommandError { .. } => "ERROR",
        AgentAborted { .. }
        | MaxStepsExhausted { .. }
        | SteerDropped { .. }
        | GoalBudgetExhausted { .. }
        | AutoCompactionFailed { .. }
        | ModelFailover { .. }
        | ModelRetry { .. } => "WARN",
        _ => "INFO",
    }
}

fn opt(s: &Option<String>) -> Value {
    s.as_deref().map_or(Value::Null, Value::from)
}

impl WireEvent {
    /// The `event` name and the fields, in wire order.
    fn parts(&self) -> (&'static str, Vec<(&'static str, Value)>) {
        use WireEvent::*;
        match self {
            AgentSetupFailed { error } => ("agent_setup_failed", vec![("error", json!(error))]),
            AgentStep { step } => ("agent_step", vec![("step", json!(step))]),
            AssistantDelta { content } => ("assistant_delta", vec![("content", json!(content))]),
            ReasoningDelta { content } => ("reasoning_delta", vec![("content", json!(content))]),
            ReasoningMessage { content } => {
                ("reasoning_message", vec![("content", json!(content))])
            }
            AssistantMessage { content } => {
                ("assistant_message", vec![("content", json!(content))])
            }
            Usage(u) => (
                "usage",
                vec![(
                    "usage",
                    json!({
                        "prompt_tokens": u.prompt_tokens,
                        "completion_tokens": u.completion_tokens,
                        "total_tokens": u.total_tokens,
                        "prompt_cache_hit_tokens": u.prompt_cache_hit_tokens,
                        "prompt_cache_miss_tokens": u.prompt_cache_miss_tokens,
                    }),
                )],
            ),
            ToolResult {
                tool_call_id,
                tool_name,
                is_error,
                content,
                brief,
            } => (
                "tool_result",
                vec![
                    ("tool_call_id", json!(tool_call_id)),
                    ("tool_name", json!(tool_name)),
                    ("is_error", json!(is_error)),
                    ("content", json!(content)),
                    ("brief", opt(brief)),
                ],
            ),
            AgentFinished {
                answer,
                submission_id,
            } => (
                "agent_finished",
                vec![
                    ("answer", json!(answer)),
                    ("submission_id", opt(submission_id)),
                ],
            ),
            ContextYield {
                to_sequence,
                answer,
                submission_id,
            } => (
                "context_yield",
                vec![
                    ("to_sequence", json!(to_sequence)),
                    ("answer", json!(answer)),
                    ("submission_id", opt(submission_id)),
                ],
            ),
            AgentAborted {
                reason,
                submission_id,
            } => (
                "agent_aborted",
                vec![
                    ("reason", json!(reason)),
                    ("submission_id", opt(submission_id)),
                ],
            ),
            MaxStepsExhausted { submission_id } => (
                "max_steps_exhausted",
                vec![("submission_id", opt(submission_id))],
            ),
            TurnFailed {
                error,
                submission_id,
            } => (
                "turn_failed",
                vec![
                    ("error", json!(error)),
                    ("submission_id", opt(submission_id)),
                ],
            ),
            SteerApplied {
                kind,
                content,
                submission_id,
            } => (
                "steer_applied",
                vec![
                    ("kind", json!(kind)),
                    ("content", json!(content)),
                    ("submission_id", opt(submission_id)),
                ],
            ),
            SteerDropped {
                content,
                submission_id,
            } => (
                "steer_dropped",
                vec![
                    ("content", json!(content)),
                    ("submission_id", opt(submission_id)),
                ],
            ),
            BackgroundNotice { content } => {
                ("background_notice", vec![("content", json!(content))])
            }
            ApprovalRequested {
                id,
                tool_name,
                detail,
                body,
            } => (
                "approval_requested",
                vec![
                    ("id", json!(id)),
                    ("tool_name", json!(tool_name)),
                    ("detail", json!(detail)),
                    ("body", opt(body)),
                ],
            ),
            ApprovalResolved { id, outcome } => (
                "approval_resolved",
                vec![("id", json!(id)), ("outcome", json!(outcome))],
            ),
            GoalUpdated { goal } => ("goal_updated", vec![("goal", opt(goal))]),
            GoalBlocked { reason } => ("goal_blocked", vec![("reason", json!(reason))]),
            GoalUnblocked => ("goal_unblocked", vec![]),
            GoalCheck { content } => ("goal_check", vec![("content", json!(content))]),
            GoalReminder { content } => ("goal_reminder", vec![("content", json!(content))]),
            PlanReminder { content } => ("plan_reminder", vec![("content", json!(content))]),
            GoalContinue { remaining } => ("goal_continue", vec![("remaining", json!(remaining))]),
            GoalBudgetExhausted { turns } => {
                ("goal_budget_exhausted", vec![("turns", json!(turns))])
            }
            CompactionStarted {
                from_sequence,
                to_sequence,
            } => (
                "compaction_started",
                vec![
                    ("from_sequence", json!(from_sequence)),
                    ("to_sequence", json!(to_sequence)),
                ],
            ),
            CompactionFinished {
                from_sequence,
                to_sequence,
                summary,
            } => (
                "compaction_finished",
                vec![
                    ("from_sequence", json!(from_sequence)),
                    ("to_sequence", json!(to_sequence)),
                    ("summary", json!(summary)),
                ],
            ),
            CompactionFailed { error } => ("compaction_failed", vec![("error", json!(error))]),
            AutoCompactionStarted {
                from_sequence,
                to_sequence,
            } => (
                "auto_compaction_started",
                vec![
                    ("from_sequence", json!(from_sequence)),
                    ("to_sequence", json!(to_sequence)),
                ],
            ),
            AutoCompactionFinished {
                from_sequence,
                to_sequence,
                summary,
            } => (
                "auto_compaction_finished",
                vec![
                    ("from_sequence", json!(from_sequence)),
                    ("to_sequence", json!(to_sequence)),
                    ("summary", json!(summary)),
                ],
            ),
            AutoCompactionFailed { error } => {
                ("auto_compaction_failed", vec![("error", json!(error))])
            }
            ModelFailover {
                failed,
                error,
                to,
                content,
            } => (
                "model_failover",
                vec![
                    ("failed", json!(failed)),
                    ("error", json!(error)),
                    ("to", json!(to)),
                    ("content", json!(content)),
                ],
            ),
            ModelRetry {
                model,
                attempt,
                max_attempts,
                reason,
                error,
                delay_ms,
                content,
            } => (
                "model_retry",
                vec![
                    ("model", json!(model)),
                    ("attempt", json!(attempt)),
                    ("max_attempts", json!(max_attempts)),
                    ("reason", json!(reason)),
                    ("error", json!(error)),
                    ("delay_ms", json!(delay_ms)),
                    ("content", json!(content)),
                ],
            ),
            SessionStarted {
                session,
                session_root,
                workspace_root,
            } => (
                "session_started",
                vec![
                    ("session", json!(session)),
                    ("session_root", json!(session_root)),
                    ("workspace_root", opt(workspace_root)),
                ],
            ),
            SessionError { error } => ("session_error", vec![("error", json!(error))]),
            CommandError { error } => ("command_error", vec![("error", json!(error))]),
        }
    }

    /// The event's name on the wire.
    pub fn name(&self) -> &'static str {
        self.parts().0
    }

    /// The event as one line, `\n` included.
    pub fn to_line(&self) -> Vec<u8> {
        let timestamp = chrono::Utc::now()
            .format("%Y-%m-%dT%H:%M:%S%.3fZ")
            .to_string();
        self.line_at(&timestamp)
    }

    /// The event as one line stamped `timestamp`.
    fn line_at(&self, timestamp: &str) -> Vec<u8> {
        let (name, fields) = self.parts();
        let mut obj = serde_json::Map::new();
        obj.insert("timestamp".into(), Value::from(timestamp));
        obj.insert("level".into(), Value::from(level(self)));
        obj.insert("event".into(), Value::from(name));
        for (k, v) in fields {
            obj.insert(k.into(), v);
        }
        // The workspace's serde_json keeps insertion order (`preserve_order`):
        // the envelope comes first.
        let mut line = serde_json::to_vec(&Value::Object(obj)).unwrap_or_default();
        line.push(b'\n');
        line
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(x: &str) -> String {
        x.to_string()
    }

    /// One of every variant, with awkward values (quotes, unicode, big
    /// integers, absent and present optional strings).
    fn samples() -> Vec<WireEvent> {
        use WireEvent::*;
        vec![
            AgentSetupFailed {
                error: s("no model"),
            },
            AgentStep { step: 1 },
            AssistantDelta {
                content: s("He said \"hi\"\n"),
            },
            ReasoningDelta {
                content: s("think…"),
            },
            ReasoningMessage {
                content: s("thought"),
            },
            AssistantMessage {
                content: s("answer"),
            },
            Usage(WireUsage {
                prompt_tokens: 10,
                completion_tokens: 5,
                total_tokens: 15,
                prompt_cache_hit_tokens: 3,
                prompt_cache_miss_tokens: 7,
            }),
            ToolResult {
                tool_call_id: s("c1"),
                tool_name: s("read"),
                is_error: false,
                content: s("ok"),
                brief: None,
            },
            ToolResult {
                tool_call_id: s("c2"),
                tool_name: s("shell"),
                is_error: true,
                content: s("exit 1"),
                brief: Some(s("ran ls")),
            },
            AgentFinished {
                answer: s("done"),
                submission_id: None,
            },
            AgentFinished {
                answer: s("done"),
                submission_id: Some(s("p1")),
            },
            ContextYield {
                to_sequence: u64::MAX,
                answer: s("[context ceiling] x"),
                submission_id: None,
            },
            AgentAborted {
                reason: s("interrupted"),
                submission_id: Some(s("p2")),
            },
            MaxStepsExhausted {
                submission_id: None,
            },
            TurnFailed {
                error: s("boom"),
                submission_id: None,
            },
            SteerApplied {
                kind: "prompt",
                content: s("only rust"),
                submission_id: Some(s("s1")),
            },
            SteerApplied {
                kind: "notice",
                content: s("job done"),
                submission_id: None,
            },
            SteerDropped {
                content: s("late"),
                submission_id: None,
            },
            BackgroundNotice {
                content: s("job 1 ended"),
            },
            ApprovalRequested {
                id: s("a1"),
                tool_name: s("shell"),
                detail: s("run rm"),
                body: None,
            },
            ApprovalRequested {
                id: s("a2"),
                tool_name: s("edit"),
                detail: s("edit x"),
                body: Some(s("--- a\n+++ b")),
            },
            ApprovalResolved {
                id: s("a1"),
                outcome: "allowed_once",
            },
            GoalUpdated { goal: None },
            GoalUpdated {
                goal: Some(s("tests pass")),
            },
            GoalBlocked {
                reason: s("needs a key"),
            },
            GoalUnblocked,
            GoalCheck {
                content: s("check"),
            },
            GoalReminder {
                content: s("remind"),
            },
            PlanReminder { content: s("plan") },
            GoalContinue { remaining: 4 },
            GoalBudgetExhausted { turns: 5 },
            CompactionStarted {
                from_sequence: 0,
                to_sequence: 9,
            },
            CompactionFinished {
                from_sequence: 0,
                to_sequence: 9,
                summary: s("sum"),
            },
            CompactionFailed {
                error: s("no model"),
            },
            AutoCompactionStarted {
                from_sequence: 1,
                to_sequence: 2,
            },
            AutoCompactionFinished {
                from_sequence: 1,
                to_sequence: 2,
                summary: s("s"),
            },
            AutoCompactionFailed { error: s("e") },
            ModelFailover {
                failed: s("a/m"),
                error: s("500"),
                to: s("b/n"),
                content: s("switch"),
            },
            ModelRetry {
                model: s("a/m"),
                attempt: 1,
                max_attempts: 3,
                reason: s("rate_limited"),
                error: s("429"),
                delay_ms: 1500,
                content: s("retrying"),
            },
            SessionStarted {
                session: s("20261203-1"),
                session_root: s("/h"),
                workspace_root: None,
            },
            SessionStarted {
                session: s("20261203-1"),
                session_root: s("/h"),
                workspace_root: Some(s("/w")),
            },
            SessionError {
                error: s("disk full"),
            },
            CommandError {
                error: s("unknown command: dance"),
            },
        ]
    }

    /// The lines the hand-written serializer wrote (captured before the
    /// switch to serde): byte for byte the wire contract.
    const PINNED: &str = include_str!("wire_pinned.jsonl");

    #[test]
    fn every_variant_writes_its_pinned_line() {
        let pinned: Vec<&str> = PINNED.split_inclusive('\n').collect();
        let samples = samples();
        assert_eq!(pinned.len(), samples.len());
        for (ev, want) in samples.iter().zip(pinned) {
            let line = String::from_utf8(ev.line_at("2026-12-03T08:00:00.000Z")).unwrap();
            assert_eq!(line, want, "{ev:?}");
            let value: Value = serde_json::from_str(&line).unwrap();
            assert_eq!(value["event"], ev.name(), "{ev:?}");
        }
    }

    #[test]
    fn lines_are_stamped_now_in_milliseconds() {
        let line = WireEvent::GoalUnblocked.to_line();
        let value: Value = serde_json::from_slice(&line).unwrap();
        let ts = value["timestamp"].as_str().unwrap();
        assert_eq!(ts.len(), "2026-12-03T08:00:00.000Z".len(), "{ts}");
        assert!(chrono::DateTime::parse_from_rfc3339(ts).is_ok(), "{ts}");
        assert!(line.ends_with(b"}\n"));
    }
}
