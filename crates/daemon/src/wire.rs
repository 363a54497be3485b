//! The daemon's wire mapping, in one place: agent events, watched turns and
//! turn outcomes as envelopes (reference §3 shapes), and errors as the
//! protocol's codes. Handlers produce data; this module decides how it looks
//! on the wire.

use seekclaw_agent::{AgentEvent, GoalStatus, ReminderKind, SteerKind, TurnOutcome};
use seekclaw_config::UiLanguage;
use seekclaw_engine::{Sequenced, Watched};
use seekclaw_protocol::events::{
    ApprovalRequestDetails, ApprovalResolvedDetails, ContextYieldDetails, ElicitationDetails,
    ErrorCause, ErrorDetails, FailoverDetails, FileDiffDetails, GoalUpdatedDetails,
    HookFinishedDetails, HookStartedDetails, ImageViewDetails, ModelStartDetails, ReminderDetails,
    RetryDetails, SubrunFinishedDetails, SubrunProgressDetails, SubrunStartedDetails,
    ToolDoneDetails, ToolStartDetails, TurnEndDetails, TurnStartDetails, UsageDetails,
    WorkflowDetails,
};
use seekclaw_protocol::{Envelope, ErrorCode, MethodError, event, wording};

use crate::presentation::{model_notice, status_text, workflow_label};

/// A turn failure's error code, and a store error as the wire's error.
pub use crate::error::{failure_code, store_error};

/// Maps an agent event to its envelope (reference §3 shapes), labels worded
/// in `lang`; `None` for events this protocol does not carry (the
/// checkpoint's progress, which `status` and `workflow` already show).
pub fn event_envelope(
    id: i64,
    session: &str,
    ev: AgentEvent,
    lang: UiLanguage,
) -> Option<Envelope> {
    let env = match ev {
        // The desktop protocol has no stop reason; `done` says the turn ended.
        AgentEvent::AutoCompaction(_) | AgentEvent::AnswerFinish { .. } => return None,
        // `data` is the note as JSON text (the protocol's `CheckpointNote`).
        AgentEvent::Checkpoint(note) => {
            let json = serde_json::to_string(&note).unwrap_or_default();
            Envelope::new(id, event::CHECKPOINT, json)
        }
        AgentEvent::Workflow { step, node, detail } => {
            let label = workflow_label(&node, lang).into_owned();
            let details = WorkflowDetails {
                step,
                kind: node.kind().as_str().to_string(),
                label: label.clone(),
                // `detail` is null unless there is one (the original sends null).
                detail: Some(detail).filter(|d| !d.is_empty()),
            };
            Envelope::event(id, label, &details)
        }
        AgentEvent::Status(s) => Envelope::new(id, event::STATUS, status_text(&s).into_owned()),
        AgentEvent::ModelStart {
            provider,
            model,
            step,
        } => Envelope::event(
            id,
            format!("{provider}/{model}"),
            &ModelStartDetails {
                provider,
                model,
                step,
            },
        ),
        ev @ (AgentEvent::Failover { .. } | AgentEvent::Retry { .. }) => notice_envelope(id, ev)?,
        AgentEvent::Thinking(d) => Envelope::new(id, event::THINKING, d),
        AgentEvent::Delta(d) => Envelope::new(id, event::DELTA, d),
        AgentEvent::Usage {
            provider,
            model,
            input_tokens,
            output_tokens,
            total_input_tokens,
            cached_input_tokens,
            elapsed_ms,
            cost_usd,
            ..
        } => Envelope::event(
            id,
            format!("{provider}/{model}"),
            &UsageDetails {
                provider,
                model,
                input_tokens,
                output_tokens,
                total_input_tokens,
                cached_input_tokens,
                // Whole milliseconds: sub-millisecond noise is no one's business.
                elapsed_ms: elapsed_ms.round().max(0.0) as u64,
                cost_usd,
            },
        ),
        AgentEvent::ImageView {
            image_id,
            name,
            media_type,
        } => Envelope::event(
            id,
            name,
            &ImageViewDetails {
                image_id,
                media_type,
            },
        ),
        AgentEvent::ToolStart {
            call_id,
            name,
            summary,
        } => Envelope::event(id, name, &ToolStartDetails { call_id, summary }),
        AgentEvent::ToolDone {
            call_id,
            success,
            duration_ms,
            summary,
            ..
        } => Envelope::event(
            id,
            summary,
            &ToolDoneDetails {
                call_id,
                success,
                duration_ms,
            },
        ),
        AgentEvent::FileDiff {
            call_id,
            path,
            diff,
        } => Envelope::event(id, path, &FileDiffDetails { call_id, diff }),
        // An engine notice is not the user's guidance: a client that opens a
        // bubble per `steer` must not open one for words nobody typed.
        AgentEvent::Steer {
            text,
            kind: SteerKind::Notice,
        } => Envelope::new(id, event::NOTICE, text),
        AgentEvent::Steer { text, .. } => Envelope::new(id, event::STEER, text),
        AgentEvent::SubrunStarted(s) => subrun(id, s, SubrunStartedDetails::of),
        AgentEvent::SubrunProgress(s) => subrun(id, s, SubrunProgressDetails::of),
        AgentEvent::SubrunFinished(s) => subrun(id, s, SubrunFinishedDetails::of),
        AgentEvent::ApprovalRequested {
            approval_id,
            call_id,
            tool,
            summary,
            arguments,
            diff,
            always_rule,
            always_target,
        } => Envelope::event(
            id,
            summary.clone(),
            &ApprovalRequestDetails {
                approval_id,
                call_id,
                tool,
                summary,
                arguments,
                diff,
                always_rule,
                always_target,
                kind: None,
                elicitation: None,
            },
        ),
        // On the wire an approval request carrying the form: old clients
        // still see the call and the message.
        AgentEvent::ElicitationRequested(ask) => {
            let ask = *ask;
            Envelope::event(
                id,
                ask.message.clone(),
                &ApprovalRequestDetails {
                    approval_id: ask.approval_id,
                    call_id: ask.call_id,
                    tool: ask.tool,
                    summary: ask.message.clone(),
                    arguments: ask.arguments,
                    diff: None,
                    always_rule: None,
                    always_target: None,
                    kind: Some("elicitation".into()),
                    elicitation: Some(ElicitationDetails {
                        server: ask.server,
                        message: ask.message,
                        requested_schema: ask.requested_schema,
                    }),
                },
            )
        }
        AgentEvent::HookStarted(run) => Envelope::event(
            id,
            run.event.clone(),
            &HookStartedDetails {
                run_id: run.run_id,
                event: run.event,
                command: run.command,
                source: run.source,
                call_id: run.call_id,
                tool: run.tool,
            },
        ),
        AgentEvent::HookFinished(run) => hook_finished(id, run),
        AgentEvent::ApprovalResolved {
            approval_id,
            call_id,
            outcome,
        } => Envelope::event(
            id,
            outcome.as_str(),
            &ApprovalResolvedDetails {
                approval_id,
                call_id,
                outcome: outcome.as_str().into(),
            },
        ),
        AgentEvent::ContextYield { to_seq, answer } => {
            Envelope::event(id, answer, &ContextYieldDetails { to_seq })
        }
        AgentEvent::GoalStatus(status) => {
            let (status, reason) = match status {
                GoalStatus::Met => ("met", None),
                GoalStatus::Blocked(reason) => ("blocked", Some(reason)),
                GoalStatus::Unblocked => ("unblocked", None),
            };
            let details = GoalUpdatedDetails {
                session_id: session.to_string(),
                status: status.into(),
                reason,
                auto: false,
            };
            Envelope::event(id, String::new(), &details)
        }
        AgentEvent::Reminder { kind, text } => {
            let kind = match kind {
                ReminderKind::Goal => "goal",
                ReminderKind::GoalCheck => "goal_check",
                ReminderKind::Plan => "plan",
                ReminderKind::Hooks => "hooks",
                ReminderKind::Instructions => "instructions",
                ReminderKind::Budget => "budget",
            };
            Envelope::event(id, text, &ReminderDetails { kind: kind.into() })
        }
    };
    Some(env.with_session(Some(session.to_string())))
}

/// `hook_finished`: `data` is the decision (a run without its end, which
/// the agent never sends, reads as an error).
fn hook_finished(id: i64, run: seekclaw_agent::HookRun) -> Envelope {
    let end = run.finished.unwrap_or(seekclaw_agent::HookFinish {
        exit_code: None,
        duration_ms: 0.0,
        decision: "error".into(),
        message: None,
    });
    Envelope::event(
        id,
        end.decision.clone(),
        &HookFinishedDetails {
            run_id: run.run_id,
            event: run.event,
            command: run.command,
            source: run.source,
            call_id: run.call_id,
            tool: run.tool,
            exit_code: end.exit_code,
            duration_ms: end.duration_ms,
            decision: end.decision,
            message: end.message,
        },
    )
}

/// A failover's or a retry's envelope: `data` is the line a front end shows.
fn notice_envelope(id: i64, ev: AgentEvent) -> Option<Envelope> {
    let text = model_notice(&ev).unwrap_or_default();
    Some(match ev {
        AgentEvent::Failover {
            step,
            failed,
            error,
            to,
        } => Envelope::event(
            id,
            text,
            &FailoverDetails {
                step,
                failed,
                error,
                to,
            },
        ),
        AgentEvent::Retry {
            step,
            model,
            attempt,
            max_attempts,
            reason,
            error,
            delay_ms,
        } => Envelope::event(
            id,
            text,
            &RetryDetails {
                step,
                model,
                attempt,
                max_attempts,
                reason,
                error,
                delay_ms,
            },
        ),
        _ => return None,
    })
}

/// A subrun event's envelope: its label as `data`, the same fields under
/// each event's own details type.
fn subrun<D: seekclaw_protocol::events::EventDetails>(
    id: i64,
    s: seekclaw_agent::Subrun,
    of: fn(String, String, String, String, u64, u64) -> D,
) -> Envelope {
    let tokens = s.tokens();
    let details = of(s.id, s.kind, s.label.clone(), s.status, s.steps, tokens);
    Envelope::event(id, s.label, &details)
}

/// What a watcher of session `sid` gets for `item`: `turn_start`, the
/// turn's events (as [`event_envelope`]), `turn_end`.
pub fn watched_envelope(
    id: i64,
    sid: &str,
    item: Sequenced,
    lang: seekclaw_config::UiLanguage,
) -> Option<Envelope> {
    let seq = Some(item.seq);
    watched_item(id, sid, item.item, lang).map(|env| env.with_seq(seq))
}

fn watched_item(
    id: i64,
    sid: &str,
    item: Watched,
    lang: seekclaw_config::UiLanguage,
) -> Option<Envelope> {
    Some(match item {
        Watched::TurnStart { message, origin } => Envelope::event(
            id,
            message,
            &TurnStartDetails {
                origin: origin.into(),
            },
        )
        .with_session(Some(sid.to_string())),
        Watched::Event(ev) => return event_envelope(id, sid, ev, lang),
        Watched::TurnEnd(outcome) => {
            let (text, outcome, code) = match outcome {
                TurnOutcome::Done(t) => (t, "done", None),
                TurnOutcome::Cancelled(t) => (t, "cancelled", None),
                // A budget's stop is its own outcome (additive: old
                // watchers read any outcome but done/cancelled as an end).
                TurnOutcome::Failed(f) if f.kind == seekclaw_agent::FailureKind::Budget => {
                    (f.message, "budget_exhausted", Some(ErrorCode::Budget))
                }
                TurnOutcome::Failed(f) => (f.message, "error", Some(failure_code(f.kind))),
                TurnOutcome::Unsaved { error, .. } => (
                    wording::unsaved_message(&error),
                    "error",
                    Some(ErrorCode::Storage),
                ),
            };
            Envelope::event(
                id,
                text,
                &TurnEndDetails {
                    outcome: outcome.into(),
                    code,
                },
            )
            .with_session(Some(sid.to_string()))
        }
    })
}

/// The terminal envelope of request `id` for `outcome`. A turn whose end
/// could not be saved is an `error` (`storage`) whose details still carry
/// what the client was shown: `answer` (the text `done` or `cancelled`
/// would have had), `ended` (`done`, `cancelled` or `failed`) and, for a
/// failed turn, `cause` with that failure's own code and text.
pub fn terminal(id: i64, session: Option<String>, outcome: TurnOutcome) -> Envelope {
    match outcome {
        TurnOutcome::Done(text) => Envelope::new(id, event::DONE, text).with_session(session),
        TurnOutcome::Cancelled(text) => {
            Envelope::new(id, event::CANCELLED, text).with_session(session)
        }
        TurnOutcome::Failed(f) => Envelope::error(
            id,
            &MethodError::new(failure_code(f.kind), f.message).with_session(session),
        ),
        TurnOutcome::Unsaved { ended, error } => {
            let err = MethodError::new(ErrorCode::Storage, wording::unsaved_message(&error))
                .with_session(session);
            let (name, answer, cause) = ended_parts(*ended);
            let details = ErrorDetails {
                code: ErrorCode::Storage,
                param: None,
                ended: Some(name.to_string()),
                answer: Some(answer),
                cause,
            };
            Envelope::error_with(id, &err, &details)
        }
    }
}

/// How an unsaved turn had ended: its terminal's name, its answer text and,
/// for a failure, the failure itself.
fn ended_parts(ended: TurnOutcome) -> (&'static str, String, Option<ErrorCause>) {
    match ended {
        TurnOutcome::Done(text) => (event::DONE, text, None),
        TurnOutcome::Cancelled(text) => (event::CANCELLED, text, None),
        TurnOutcome::Failed(f) => (
            "failed",
            String::new(),
            Some(ErrorCause {
                code: failure_code(f.kind),
                message: f.message,
            }),
        ),
        TurnOutcome::Unsaved { ended, .. } => ended_parts(*ended),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use seekclaw_agent::{FailureKind, TurnFailure};
    use serde_json::{Value, json};

    fn parsed(env: &Envelope) -> Value {
        serde_json::from_slice(&env.to_line()).unwrap()
    }

    #[test]
    fn each_outcome_has_its_terminal() {
        let sid = Some("s".to_string());
        let done = parsed(&terminal(1, sid.clone(), TurnOutcome::Done("hi".into())));
        assert_eq!(
            (done["event"].as_str(), done["data"].as_str()),
            (Some("done"), Some("hi"))
        );
        let failed = parsed(&terminal(
            2,
            sid.clone(),
            TurnOutcome::Failed(TurnFailure::storage("disk full")),
        ));
        assert_eq!(failed["details"]["code"], "storage");
        let unsaved = parsed(&terminal(
            3,
            sid,
            TurnOutcome::Unsaved {
                ended: Box::new(TurnOutcome::Done("the answer".into())),
                error: "full".into(),
            },
        ));
        assert_eq!(unsaved["event"], "error");
        assert_eq!(unsaved["sessionId"], "s");
        assert_eq!(unsaved["data"], "The turn could not be saved: full");
        assert_eq!(
            unsaved["details"],
            json!({"code": "storage", "ended": "done", "answer": "the answer"})
        );
    }

    #[test]
    fn an_unsaved_failure_keeps_its_cause() {
        let env = terminal(
            4,
            None,
            TurnOutcome::Unsaved {
                ended: Box::new(TurnOutcome::Failed(TurnFailure::new(
                    FailureKind::Provider,
                    "429",
                ))),
                error: "not saved".into(),
            },
        );
        let v = parsed(&env);
        assert_eq!(v["details"]["ended"], "failed");
        assert_eq!(
            v["details"]["cause"],
            json!({"code": "provider", "message": "429"})
        );
    }

    #[test]
    fn a_watched_unsaved_turn_says_so_once() {
        let outcome = TurnOutcome::Unsaved {
            ended: Box::new(TurnOutcome::Done("answer".into())),
            error: "disk full".into(),
        };
        let item = Sequenced {
            seq: 41,
            item: Watched::TurnEnd(outcome),
        };
        let env = watched_envelope(3, "s", item, UiLanguage::En).unwrap();
        let line: serde_json::Value = serde_json::from_slice(&env.to_line()).unwrap();
        assert_eq!(line["data"], "The turn could not be saved: disk full");
        assert_eq!(line["seq"], 41);
        assert_eq!(line["details"]["code"], "storage");
    }
}
