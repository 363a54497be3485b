//! The OpenSeek event stream (reference §2.1, §2.3). The events are
//! `seekclaw_protocol::openseek` data, written by serde in the protocol's
//! order (`timestamp`, `level`, `event`, then the event's fields); this
//! module only reads the clock for the timestamp.

pub use seekclaw_protocol::openseek::{
    AppliedSteerKind, ApprovalOutcome, Event as WireEvent, Usage as WireUsage,
};

/// Writing an event as a line of the stream, stamped now.
pub trait WireLine {
    /// The event as one line, `\n` included.
    fn to_line(&self) -> Vec<u8>;
}

impl WireLine for WireEvent {
    fn to_line(&self) -> Vec<u8> {
        let timestamp = chrono::Utc::now()
            .format("%Y-%m-%dT%H:%M:%S%.3fZ")
            .to_string();
        self.line_at(&timestamp)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

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
            Usage {
                usage: WireUsage {
                    prompt_tokens: 10,
                    completion_tokens: 5,
                    total_tokens: 15,
                    prompt_cache_hit_tokens: 3,
                    prompt_cache_miss_tokens: 7,
                },
            },
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
                kind: AppliedSteerKind::Prompt,
                content: s("only rust"),
                submission_id: Some(s("s1")),
            },
            SteerApplied {
                kind: AppliedSteerKind::Notice,
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
                always_rule: None,
                always_target: None,
            },
            ApprovalRequested {
                id: s("a2"),
                tool_name: s("edit"),
                detail: s("edit x"),
                body: Some(s("--- a\n+++ b")),
                always_rule: None,
                always_target: None,
            },
            ApprovalResolved {
                id: s("a1"),
                outcome: ApprovalOutcome::AllowedOnce,
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
            SubrunStarted {
                id: s("20261203-1-sr-1"),
                kind: s("explore"),
                label: s("where is \"main\"?"),
            },
            SubrunFinished {
                id: s("20261203-1-sr-1"),
                status: s("captured"),
                steps: 3,
                prompt_tokens: 1200,
                completion_tokens: 80,
            },
            SessionError {
                error: s("disk full"),
            },
            CommandError {
                error: s("unknown command: dance"),
            },
            Checkpoint {
                id: 7,
                sequence: 12,
                turn_sequence: 9,
                kind: s("step"),
                files: vec![seekclaw_protocol::openseek::CheckpointFile {
                    path: s("a.txt"),
                    status: s("modified"),
                    added: 2,
                    removed: 1,
                }],
                added: 2,
                removed: 1,
                not_tracked: Some(seekclaw_protocol::openseek::NotTracked {
                    ignored: vec![s("target")],
                    oversize: vec![],
                }),
                error: None,
            },
            RewindFinished {
                sequence: 9,
                restore: s("both"),
                dry_run: false,
                files: vec![seekclaw_protocol::openseek::RewoundFile {
                    path: s("a.txt"),
                    status: s("modified"),
                    added: 1,
                    removed: 2,
                    binary: false,
                    diff: s("--- a/a.txt\n+++ b/a.txt\n"),
                }],
                conflicts: vec![],
                kept: vec![s("mine.txt")],
                unrestorable: vec![],
                prompt: Some(s("fix it")),
                marker_sequence: Some(20),
            },
            RewindFailed {
                sequence: 9,
                reason: s("conflict"),
                error: s("b.txt changed after that point"),
                conflicts: vec![s("b.txt")],
            },
            // Issue 39 (additive): the always rule, hook runs.
            ApprovalRequested {
                id: s("a3"),
                tool_name: s("bash"),
                detail: s("command: npm test"),
                body: Some(s("npm test")),
                always_rule: Some(s("Bash(npm test:*)")),
                always_target: Some(s("workspace")),
            },
            ApprovalResolved {
                id: s("a3"),
                outcome: ApprovalOutcome::AllowedAlways,
            },
            HookStarted {
                run_id: s("hk_1"),
                hook_event_name: s("PreToolUse"),
                command: s("./fmt.sh \"$x\""),
                source: s("workspace"),
                tool_call_id: Some(s("c1")),
                tool_name: Some(s("Bash")),
            },
            HookFinished {
                run_id: s("hk_1"),
                hook_event_name: s("PreToolUse"),
                command: s("./fmt.sh \"$x\""),
                source: s("workspace"),
                tool_call_id: Some(s("c1")),
                tool_name: Some(s("Bash")),
                exit_code: Some(2),
                duration_ms: 12.5,
                decision: s("block"),
                message: Some(s("no pushes on Friday")),
            },
            HookFinished {
                run_id: s("hk_2"),
                hook_event_name: s("Stop"),
                command: s("sleep 99"),
                source: s("user"),
                tool_call_id: None,
                tool_name: None,
                exit_code: None,
                duration_ms: 1000.0,
                decision: s("timeout"),
                message: None,
            },
            HooksOff {
                content: s("hooks of this workspace are off"),
            },
            InstructionsCut {
                content: s("The instruction files exceed instructions.maxBytes"),
            },
            BudgetExhausted {
                error: s("Budget reached: the session budget is $0.0500"),
                submission_id: Some(s("p1")),
            },
            BudgetWarning {
                content: s("Budget warning: $0.0400 of the session budget of $0.0500 is spent."),
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
    fn every_event_of_the_protocol_is_pinned() {
        let pinned: std::collections::BTreeSet<&str> =
            samples().iter().map(WireEvent::name).collect();
        let schema = seekclaw_protocol::openseek::schema();
        let all: std::collections::BTreeSet<&str> = schema["x-levels"]
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(pinned, all);
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
