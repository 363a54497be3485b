//! Control tools the loop runs itself (reference §3.10–3.11, §4.7): `finish`
//! ends the turn with an answer (offered to OpenSeek front ends), `goal`
//! records the standing goal's status (offered while a goal stands). Plan
//! reminders nudge a long turn back to its checklist.

use std::sync::Arc;

use seekclaw_providers::{ChatMessage, ToolCall, ToolSpec};
use seekclaw_store::{EventItem, ToolResult};
use serde_json::{Value, json};

use crate::events::{AgentEvent, GoalStatus, ReminderKind, TurnFailure};
use crate::goal::{GoalMarker, StandingGoal};
use crate::submit::{SUBMIT_NUDGES, SubmitTool};
use crate::transcript::{Transcript, user_message};
use crate::turn::TurnCtx;

/// Model requests without a `plan` call (or reminder) before a plan reminder.
pub(crate) const PLAN_REMINDER_EVERY: u32 = 50;
const FINISH_SKIPPED: &str =
    "skipped: an earlier finish tool call ended the batch before this call ran";

/// The turn's control state.
#[derive(Debug, Default)]
pub(crate) struct Control {
    /// `finish` is offered (OpenSeek front ends).
    pub finish_offered: bool,
    /// A front end's closing tool, offered in place of `finish`.
    submit: Option<SubmitTool>,
    /// Plain answers sent back for want of the submit call.
    submit_nudges: u32,
    /// The goal in force; `goal` is offered while one stands.
    pub goal: StandingGoal,
    goal_offered: bool,
    /// The model reported on the goal this turn (any status).
    goal_confirmed: bool,
    /// The once-per-turn goal check was made.
    goal_checked: bool,
    /// Markers to write at the end of the batch (never between its results).
    pending: Vec<GoalMarker>,
    since_plan: u32,
    plan: Option<String>,
    plan_nudged: bool,
}

impl Control {
    /// The state at the turn's start.
    pub fn new(finish_offered: bool, submit: Option<SubmitTool>, goal: StandingGoal) -> Control {
        Control {
            finish_offered: finish_offered && submit.is_none(),
            submit,
            goal_offered: goal.text.is_some(),
            goal,
            ..Control::default()
        }
    }

    /// The control tools offered this turn.
    pub fn specs(&self) -> Vec<ToolSpec> {
        let mut out: Vec<ToolSpec> = self.submit.iter().map(|s| s.spec.clone()).collect();
        if self.finish_offered {
            out.push(ToolSpec {
                name: "finish".into(),
                description: "End the turn with your final answer to the user. Use it when the task is done (or cannot be done); the answer is what the user reads.".into(),
                parameters: Arc::new(json!({
                    "type": "object",
                    "properties": {"answer": {"type": "string", "description": "The final answer."}},
                    "required": ["answer"],
                    "additionalProperties": false
                })),
                freeform: None,
            });
        }
        if self.goal_offered {
            out.push(ToolSpec {
                name: "goal".into(),
                description: "Record the status of the standing goal: \"met\" when it is fully met (the goal is then cleared), \"blocked\" with a reason when you cannot go on without the user, \"continuing\" with what remains.".into(),
                parameters: Arc::new(json!({
                    "type": "object",
                    "properties": {
                        "status": {"type": "string", "enum": ["met", "continuing", "blocked"]},
                        "remaining": {"type": "string", "description": "What remains (status continuing)."},
                        "reason": {"type": "string", "description": "What blocks the goal (status blocked)."}
                    },
                    "required": ["status"],
                    "additionalProperties": false
                })),
                freeform: None,
            });
        }
        out
    }

    /// Whether the loop runs the call named `name` itself.
    pub fn is_control(&self, name: &str) -> bool {
        (name == "finish" && self.finish_offered)
            || (name == "goal" && self.goal_offered)
            || self.submit.as_ref().is_some_and(|s| s.name() == name)
    }

    /// Whether a plain answer now would be sent back for the closing tool.
    pub fn submit_pending(&self) -> bool {
        self.submit.is_some() && self.submit_nudges < SUBMIT_NUDGES
    }

    /// The reminder to send back a plain answer with, while the front end's
    /// closing tool is still uncalled (a few times, then the answer stands).
    pub fn submit_nudge(&mut self) -> Option<String> {
        let submit = self.submit.as_ref()?;
        if self.submit_nudges >= SUBMIT_NUDGES {
            return None;
        }
        self.submit_nudges += 1;
        Some(submit.nudge())
    }

    /// Whether the model, finishing now, first gets the goal check.
    pub fn goal_check_due(&self) -> bool {
        self.goal.text.is_some()
            && self.goal.blocked.is_none()
            && !self.goal_confirmed
            && !self.goal_checked
    }

    /// A goal marker arrived with the turn's guidance (set while it runs).
    pub fn goal_arrived(&mut self, marker: &GoalMarker) {
        self.goal.apply(marker);
        self.goal_offered |= self.goal.text.is_some();
    }

    /// A `plan` call succeeded with this checklist.
    pub fn planned(&mut self, checklist: Option<String>) {
        self.since_plan = 0;
        self.plan = checklist;
    }
}

/// Runs the control call `calls[0]`. `finish` (or an accepted submit call)
/// closes the calls after it unrun and returns its answer; a rejected submit
/// call is an error result; `goal` records the status (its marker waits for
/// [`flush_markers`], so the batch's results stay together).
pub(crate) async fn run_control(
    cx: &TurnCtx<'_>,
    control: &mut Control,
    transcript: &mut Transcript,
    calls: &[ToolCall],
) -> Result<Option<String>, TurnFailure> {
    let Some((call, rest)) = calls.split_first() else {
        return Ok(None);
    };
    let args: Value = serde_json::from_str(&call.arguments).unwrap_or(Value::Null);
    let submitted = match &control.submit {
        Some(submit) if submit.name() == call.name => Some((submit.check)(&args)),
        _ => None,
    };
    if let Some(Err(problem)) = submitted {
        let text = format!(
            "error: {problem}\nFix the arguments and call {} again.",
            call.name
        );
        record(cx, transcript, call, &text, false, true).await?;
        return Ok(None);
    }
    if call.name == "finish" || submitted.is_some() {
        let answer = match submitted {
            Some(Ok(answer)) => answer,
            _ => args["answer"].as_str().unwrap_or_default().to_string(),
        };
        record(
            cx,
            transcript,
            call,
            &format!("finished: {answer}"),
            true,
            false,
        )
        .await?;
        for skipped in rest {
            record(cx, transcript, skipped, FINISH_SKIPPED, false, true).await?;
        }
        return Ok(Some(answer));
    }
    let (text, ok) = goal_call(cx, control, &args);
    record(cx, transcript, call, &text, ok, true).await?;
    Ok(None)
}

/// Writes the goal markers the batch's calls produced, after its results.
pub(crate) async fn flush_markers(
    cx: &TurnCtx<'_>,
    control: &mut Control,
    transcript: &mut Transcript,
) -> Result<(), TurnFailure> {
    for marker in std::mem::take(&mut control.pending) {
        let seq = cx.persist(marker.item()).await?;
        transcript.push(user_message(marker.text(), &[]), seq);
    }
    Ok(())
}

/// The `goal` tool: the status as the loop records it, and whether it was accepted.
fn goal_call(cx: &TurnCtx<'_>, control: &mut Control, args: &Value) -> (String, bool) {
    if control.goal.text.is_none() {
        return ("error: no standing goal is set".into(), false);
    }
    let field = |k: &str| {
        args[k]
            .as_str()
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    };
    let (text, marker, status) = match args["status"].as_str() {
        Some("met") => (
            "goal recorded as met; the standing goal is now cleared".to_string(),
            GoalMarker::Cleared,
            GoalStatus::Met,
        ),
        Some("blocked") => {
            let Some(reason) = field("reason") else {
                return (
                    "error: goal status blocked requires a non-blank reason".into(),
                    false,
                );
            };
            (
                format!(
                    "goal recorded as blocked: {reason}. The goal still stands; auto-continuation is paused for the user"
                ),
                GoalMarker::Blocked(reason.clone()),
                GoalStatus::Blocked(reason),
            )
        }
        Some("continuing") => {
            let Some(remaining) = field("remaining") else {
                return (
                    "error: goal status continuing requires a non-blank remaining".into(),
                    false,
                );
            };
            control.goal_confirmed = true;
            if control.goal.blocked.is_none() {
                return (
                    format!("goal status recorded as continuing: {remaining}"),
                    true,
                );
            }
            (
                format!("goal status recorded as continuing: {remaining}; the goal is unblocked"),
                GoalMarker::Unblocked,
                GoalStatus::Unblocked,
            )
        }
        _ => {
            return (
                "error: goal requires a status of \"met\", \"continuing\" or \"blocked\"".into(),
                false,
            );
        }
    };
    control.goal_confirmed = true;
    control.goal.apply(&marker);
    control.pending.push(marker);
    cx.emit(AgentEvent::GoalStatus(status));
    (text, true)
}

/// Logs a result the loop made itself (a control call's, a call closed
/// unrun), announced like any tool call unless `announce` is false
/// (`finish`, whose answer ends the turn instead).
pub(crate) async fn record(
    cx: &TurnCtx<'_>,
    transcript: &mut Transcript,
    call: &ToolCall,
    text: &str,
    success: bool,
    announce: bool,
) -> Result<(), TurnFailure> {
    if announce {
        cx.emit(AgentEvent::ToolStart {
            call_id: call.id.clone(),
            name: call.name.clone(),
            summary: String::new(),
        });
        cx.emit(AgentEvent::ToolDone {
            call_id: call.id.clone(),
            name: call.name.clone(),
            success,
            duration_ms: 0.0,
            summary: text.lines().next().unwrap_or_default().to_string(),
            output: text.to_string(),
        });
    }
    let seq = cx
        .persist(EventItem::ToolResult(ToolResult {
            tool_call_id: call.id.clone(),
            tool_name: call.name.clone(),
            success,
            output: text.to_string(),
            diff: None,
            file_path: None,
            summary: Some(text.lines().next().unwrap_or_default().to_string()),
            duration_ms: Some(0),
            silent: !announce,
        }))
        .await?;
    transcript.push(
        ChatMessage::Tool {
            call_id: call.id.clone(),
            name: call.name.clone(),
            content: text.to_string(),
            is_error: !success,
            images: Vec::new(),
        },
        seq,
    );
    Ok(())
}

/// A runtime notice the model reads as a user message, announced as `kind`.
pub(crate) async fn remind(
    cx: &TurnCtx<'_>,
    transcript: &mut Transcript,
    kind: ReminderKind,
    text: String,
) -> Result<(), TurnFailure> {
    // Its own kind: a reminder is no event the user saw (a job's notice is).
    let seq = cx.notice("reminder", &text).await?;
    cx.emit(AgentEvent::Reminder {
        kind,
        text: text.clone(),
    });
    transcript.push(user_message(text, &[]), seq);
    Ok(())
}

/// The reminders due at a step's start: the goal on step 1, the plan after
/// [`PLAN_REMINDER_EVERY`] requests without one.
pub(crate) async fn step_reminders(
    cx: &TurnCtx<'_>,
    control: &mut Control,
    transcript: &mut Transcript,
    step: u32,
) -> Result<(), TurnFailure> {
    if step == 1
        && control.goal.blocked.is_none()
        && let Some(goal) = control.goal.text.clone()
    {
        remind(
            cx,
            transcript,
            ReminderKind::Goal,
            crate::goal::reminder(&goal),
        )
        .await?;
    }
    control.since_plan += 1;
    if control.since_plan > PLAN_REMINDER_EVERY {
        control.since_plan = 0;
        let text = match &control.plan {
            Some(list) => format!(
                "[plan reminder]\nYou have made {PLAN_REMINDER_EVERY} requests since the plan was last updated. The current plan:\n{list}\nUpdate it with the plan tool as steps complete."
            ),
            None if !control.plan_nudged => {
                control.plan_nudged = true;
                format!(
                    "[plan reminder]\nThis turn has made {PLAN_REMINDER_EVERY} requests without a plan. For long work, keep a short checklist with the plan tool."
                )
            }
            None => return Ok(()),
        };
        remind(cx, transcript, ReminderKind::Plan, text).await?;
    }
    Ok(())
}

/// Injects the goal check (once per turn).
pub(crate) async fn goal_check(
    cx: &TurnCtx<'_>,
    control: &mut Control,
    transcript: &mut Transcript,
) -> Result<(), TurnFailure> {
    control.goal_checked = true;
    let goal = control.goal.text.clone().unwrap_or_default();
    remind(
        cx,
        transcript,
        ReminderKind::GoalCheck,
        crate::goal::check(&goal),
    )
    .await
}
