//! A turn's engine events as OpenSeek wire events (reference §2.3): deltas
//! stream as they come; each step's whole reasoning and text follow its
//! response, before its usage and tool results.

use std::collections::VecDeque;

use seekclaw_agent::{
    AgentEvent, ApprovalOutcome, AutoCompaction, FailureKind, GoalStatus, HookFinish, HookRun,
    ReminderKind, SteerKind, TurnOutcome, WorkflowNode,
};

use super::wire::{AppliedSteerKind, ApprovalOutcome as WireOutcome, WireEvent, WireUsage};
use seekclaw_protocol::wording;

/// The mapping state of one turn.
#[derive(Debug, Default)]
pub struct TurnMapper {
    text: String,
    reasoning: String,
    /// Submission ids of the steers queued for this turn, in queue order
    /// (the turn applies them in that order).
    steers: VecDeque<Option<String>>,
    submission_id: Option<String>,
    /// The checkpoint's last event, once the turn yielded at the ceiling.
    yielded: Option<u64>,
}

impl TurnMapper {
    /// A mapper for the turn answering `submission_id`.
    pub fn new(submission_id: Option<String>) -> TurnMapper {
        TurnMapper {
            submission_id,
            ..TurnMapper::default()
        }
    }

    /// A steer with this submission id was queued for the turn.
    pub fn steer_queued(&mut self, submission_id: Option<String>) {
        self.steers.push_back(submission_id);
    }

    /// The wire events of one engine event (often none).
    pub fn map(&mut self, ev: AgentEvent, out: &mut Vec<WireEvent>) {
        match ev {
            AgentEvent::Workflow {
                step,
                node: WorkflowNode::Think { .. },
                ..
            } => {
                self.flush(out);
                out.push(WireEvent::AgentStep { step });
            }
            // OpenSeek's `turn_finished` carries no stop reason.
            AgentEvent::AnswerFinish { .. } => {}
            AgentEvent::Checkpoint(note) => out.push(crate::rewind::checkpoint_event(&note)),
            // A failover: the next model answers the step afresh.
            AgentEvent::ModelStart { .. } => {
                self.text.clear();
                self.reasoning.clear();
            }
            AgentEvent::Delta(d) => {
                self.text.push_str(&d);
                out.push(WireEvent::AssistantDelta { content: d });
            }
            AgentEvent::Thinking(t) => {
                self.reasoning.push_str(&t);
                out.push(WireEvent::ReasoningDelta { content: t });
            }
            // A failed attempt's usage is no step's (a retry follows).
            AgentEvent::Usage { success: false, .. } => {}
            AgentEvent::Usage {
                output_tokens,
                total_input_tokens,
                cached_input_tokens,
                ..
            } => {
                self.flush(out);
                out.push(WireEvent::Usage {
                    usage: WireUsage {
                        prompt_tokens: total_input_tokens,
                        completion_tokens: output_tokens,
                        total_tokens: total_input_tokens + output_tokens,
                        prompt_cache_hit_tokens: cached_input_tokens,
                        prompt_cache_miss_tokens: total_input_tokens
                            .saturating_sub(cached_input_tokens),
                    },
                });
            }
            AgentEvent::ToolStart { .. } => self.flush(out),
            AgentEvent::ToolDone {
                call_id,
                name,
                success,
                summary,
                output,
                ..
            } => out.push(WireEvent::ToolResult {
                tool_call_id: call_id,
                tool_name: name,
                is_error: !success,
                content: output,
                brief: Some(summary).filter(|s| !s.is_empty()),
            }),
            AgentEvent::Steer { text, kind } => out.push(WireEvent::SteerApplied {
                // Notices (job ends, goal markers) reach the turn from the
                // engine, never as a controller's submission.
                submission_id: match kind {
                    SteerKind::Notice => None,
                    _ => self.steers.pop_front().flatten(),
                },
                kind: match kind {
                    SteerKind::Prompt => AppliedSteerKind::Prompt,
                    SteerKind::Command => AppliedSteerKind::Command,
                    SteerKind::Notice => AppliedSteerKind::Notice,
                },
                content: text,
            }),
            AgentEvent::ContextYield { to_seq, .. } => self.yielded = Some(to_seq),
            AgentEvent::SubrunStarted(run) => {
                self.flush(out);
                out.push(WireEvent::SubrunStarted {
                    id: run.id,
                    kind: run.kind,
                    label: run.label,
                });
            }
            // OpenSeek brackets a subagent; its progress has no event there.
            AgentEvent::SubrunProgress(_) => {}
            // `serve` fills in no forms: its turns decline a server's
            // questions before any is asked.
            AgentEvent::ElicitationRequested(_) => {}
            AgentEvent::SubrunFinished(run) => out.push(WireEvent::SubrunFinished {
                id: run.id,
                // OpenSeek's word for a subagent that answered.
                status: match run.status.as_str() {
                    "done" => "captured".into(),
                    _ => run.status,
                },
                steps: run.steps,
                prompt_tokens: run.input_tokens,
                completion_tokens: run.output_tokens,
            }),
            AgentEvent::ApprovalRequested {
                approval_id,
                tool,
                summary,
                arguments,
                diff,
                always_rule,
                always_target,
                ..
            } => out.push(WireEvent::ApprovalRequested {
                id: approval_id,
                tool_name: tool,
                detail: summary,
                // What a person judges: the edit's diff, else the command.
                body: diff.or_else(|| arguments["command"].as_str().map(str::to_string)),
                always_target: always_target.filter(|_| always_rule.is_some()),
                always_rule,
            }),
            AgentEvent::ApprovalResolved {
                approval_id,
                outcome,
                ..
            } => out.push(WireEvent::ApprovalResolved {
                id: approval_id,
                outcome: match outcome {
                    ApprovalOutcome::AllowOnce | ApprovalOutcome::AllowSession => {
                        WireOutcome::AllowedOnce
                    }
                    ApprovalOutcome::AllowAlways => WireOutcome::AllowedAlways,
                    ApprovalOutcome::Reject | ApprovalOutcome::Timeout => WireOutcome::Rejected,
                    ApprovalOutcome::Cancelled => WireOutcome::Cancelled,
                },
            }),
            AgentEvent::AutoCompaction(c) => out.push(match c {
                AutoCompaction::Started { from_seq, to_seq } => WireEvent::AutoCompactionStarted {
                    from_sequence: from_seq,
                    to_sequence: to_seq,
                },
                AutoCompaction::Finished {
                    from_seq,
                    to_seq,
                    summary,
                } => WireEvent::AutoCompactionFinished {
                    from_sequence: from_seq,
                    to_sequence: to_seq,
                    summary,
                },
                AutoCompaction::Failed { error } => WireEvent::AutoCompactionFailed { error },
            }),
            AgentEvent::GoalStatus(status) => out.push(match status {
                GoalStatus::Met => WireEvent::GoalUpdated { goal: None },
                GoalStatus::Blocked(reason) => WireEvent::GoalBlocked { reason },
                GoalStatus::Unblocked => WireEvent::GoalUnblocked,
            }),
            AgentEvent::Reminder { kind, text } => out.push(match kind {
                ReminderKind::Goal => WireEvent::GoalReminder { content: text },
                ReminderKind::GoalCheck => WireEvent::GoalCheck { content: text },
                ReminderKind::Plan => WireEvent::PlanReminder { content: text },
                ReminderKind::Hooks => WireEvent::HooksOff { content: text },
                ReminderKind::Instructions => WireEvent::InstructionsCut { content: text },
                ReminderKind::Budget => WireEvent::BudgetWarning { content: text },
            }),
            // Hooks run between steps: the step's text is complete by then.
            AgentEvent::HookStarted(run) => {
                self.flush(out);
                out.push(WireEvent::HookStarted {
                    run_id: run.run_id,
                    hook_event_name: run.event,
                    command: run.command,
                    source: run.source,
                    tool_call_id: run.call_id,
                    tool_name: run.tool,
                });
            }
            AgentEvent::HookFinished(run) => {
                self.flush(out);
                out.push(hook_finished(run));
            }
            AgentEvent::Failover {
                ref failed,
                ref error,
                ref to,
                ..
            } => out.push(WireEvent::ModelFailover {
                content: wording::failover_notice(failed, error, to),
                failed: failed.clone(),
                error: error.clone(),
                to: to.clone(),
            }),
            AgentEvent::Retry {
                ref model,
                attempt,
                max_attempts,
                ref reason,
                ref error,
                delay_ms,
                ..
            } => out.push(WireEvent::ModelRetry {
                content: wording::retry_notice(model, attempt, max_attempts, reason, delay_ms),
                model: model.clone(),
                attempt,
                max_attempts,
                reason: reason.clone(),
                error: error.clone(),
                delay_ms,
            }),
            AgentEvent::Workflow { .. }
            | AgentEvent::Status(_)
            | AgentEvent::ImageView { .. }
            | AgentEvent::FileDiff { .. } => {}
        }
    }

    /// The turn's terminal event(s).
    pub fn finish(&mut self, outcome: TurnOutcome, out: &mut Vec<WireEvent>) {
        self.flush(out);
        let submission_id = self.submission_id.take();
        out.push(match outcome {
            TurnOutcome::Done(answer) => match self.yielded {
                Some(to_sequence) => WireEvent::ContextYield {
                    to_sequence,
                    answer,
                    submission_id,
                },
                None => WireEvent::AgentFinished {
                    answer,
                    submission_id,
                },
            },
            TurnOutcome::Cancelled(_) => WireEvent::AgentAborted {
                reason: "interrupted".into(),
                submission_id,
            },
            TurnOutcome::Failed(f) if f.kind == FailureKind::StepLimit => {
                WireEvent::MaxStepsExhausted { submission_id }
            }
            TurnOutcome::Failed(f) if f.kind == FailureKind::Budget => WireEvent::BudgetExhausted {
                error: f.message,
                submission_id,
            },
            TurnOutcome::Failed(f) => WireEvent::TurnFailed {
                error: f.message,
                submission_id,
            },
            TurnOutcome::Unsaved { error, .. } => WireEvent::TurnFailed {
                error: seekclaw_protocol::wording::unsaved_message(&error),
                submission_id,
            },
        });
    }

    fn flush(&mut self, out: &mut Vec<WireEvent>) {
        if !self.reasoning.is_empty() {
            out.push(WireEvent::ReasoningMessage {
                content: std::mem::take(&mut self.reasoning),
            });
        }
        if !self.text.is_empty() {
            out.push(WireEvent::AssistantMessage {
                content: std::mem::take(&mut self.text),
            });
        }
    }
}

/// `hook_finished` of a run the engine reports ended (a run without its
/// end reads as one that never started: no exit code, `error`).
fn hook_finished(run: HookRun) -> WireEvent {
    let end = run.finished.unwrap_or(HookFinish {
        exit_code: None,
        duration_ms: 0.0,
        decision: "error".into(),
        message: None,
    });
    WireEvent::HookFinished {
        run_id: run.run_id,
        hook_event_name: run.event,
        command: run.command,
        source: run.source,
        tool_call_id: run.call_id,
        tool_name: run.tool,
        exit_code: end.exit_code,
        duration_ms: end.duration_ms,
        decision: end.decision,
        message: end.message,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unsaved_turn_fails_with_the_sentence_said_once() {
        let mut out = Vec::new();
        TurnMapper::new(Some("p1".into())).finish(
            TurnOutcome::Unsaved {
                ended: Box::new(TurnOutcome::Done("answer".into())),
                error: "disk full".into(),
            },
            &mut out,
        );
        let failed = out.iter().find_map(|ev| match ev {
            WireEvent::TurnFailed { error, .. } => Some(error.clone()),
            _ => None,
        });
        assert_eq!(
            failed.as_deref(),
            Some("The turn could not be saved: disk full")
        );
    }
}
