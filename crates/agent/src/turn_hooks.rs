//! The hooks at a turn's edges: `SessionStart` / `SubagentStart` and
//! `UserPromptSubmit` before the message is recorded (a blocked prompt is
//! dropped, never written), and `Stop` / `SubagentStop` when the turn would
//! end (a block makes it go on, a bounded number of times).

use seekclaw_policy::HookEvent;
use serde_json::Value;
use tokio::sync::mpsc::UnboundedSender;

use crate::events::{AgentEvent, FailureKind, ReminderKind, TurnFailure};
use crate::hooks::{About, Sink, TurnPolicy, fields};
use crate::turn::{TurnCtx, TurnInput, TurnRuntime};

/// How often `Stop` hooks may make one turn go on (a hook that always
/// blocks would otherwise never let it end).
pub(crate) const MAX_STOP_CONTINUATIONS: u32 = 3;

/// Before the message is recorded: the context the hooks add for the
/// model, or the failure of a prompt a hook blocked (nothing of it is
/// written but the hooks' own records).
pub(crate) async fn turn_start(
    rt: &TurnRuntime,
    input: &TurnInput,
    owner: &str,
    (events, cancel): (
        &UnboundedSender<AgentEvent>,
        &tokio_util::sync::CancellationToken,
    ),
) -> Result<Vec<String>, TurnFailure> {
    let Some(p) = input.policy.as_deref() else {
        return Ok(Vec::new());
    };
    if let Some(text) = &p.notice {
        let _ = events.send(AgentEvent::Reminder {
            kind: ReminderKind::Hooks,
            text: text.clone(),
        });
    }
    if p.policy.hooks.is_empty() {
        return Ok(Vec::new());
    }
    let sink = Sink {
        events,
        store: &rt.store,
        scope: &input.scope,
        session_id: &input.session_id,
        owner,
        cancel: Some(cancel),
    };
    let mut context = Vec::new();
    let first = match (&p.subagent, p.session_start) {
        (Some(agent), _) => Some((
            HookEvent::SubagentStart,
            agent.as_str(),
            fields([
                ("agent_type", Value::from(agent.as_str())),
                ("prompt", Value::from(input.message.as_str())),
            ]),
        )),
        (None, Some(source)) => Some((
            HookEvent::SessionStart,
            source,
            fields([("source", Value::from(source))]),
        )),
        (None, None) => None,
    };
    if let Some((event, subject, f)) = first
        && p.wants(event)
    {
        let v = p.fire(&sink, event, &[subject], f, About::default()).await;
        context.extend(v.context);
    }
    if p.subagent.is_none() && p.wants(HookEvent::UserPromptSubmit) {
        let v = p
            .fire(
                &sink,
                HookEvent::UserPromptSubmit,
                &[],
                fields([("prompt", Value::from(input.message.as_str()))]),
                About::default(),
            )
            .await;
        if let Some(why) = v.block.or(v.stop) {
            return Err(TurnFailure::new(
                FailureKind::Blocked,
                format!("A UserPromptSubmit hook blocked this prompt (it was not sent): {why}"),
            ));
        }
        context.extend(v.context);
    }
    Ok(context)
}

/// The turn would end: `Some(feedback)` when a `Stop` (or, for a
/// subagent, `SubagentStop`) hook makes it go on.
pub(crate) async fn stop(cx: &TurnCtx<'_>, continued: u32, last_text: &str) -> Option<String> {
    let p: &TurnPolicy = cx.input.policy.as_deref()?;
    let event = if p.subagent.is_some() {
        HookEvent::SubagentStop
    } else {
        HookEvent::Stop
    };
    if !p.wants(event) {
        return None;
    }
    let mut f = fields([
        ("stop_hook_active", Value::from(continued > 0)),
        ("last_assistant_message", Value::from(last_text)),
    ]);
    let subject = p.subagent.as_deref().unwrap_or_default();
    if let Some(agent) = &p.subagent {
        f.insert("agent_type".into(), Value::from(agent.as_str()));
    }
    let subjects: &[&str] = if subject.is_empty() { &[] } else { &[subject] };
    let v = p
        .fire(&cx.sink(), event, subjects, f, About::default())
        .await;
    let feedback = v.block?;
    if continued >= MAX_STOP_CONTINUATIONS {
        cx.emit(AgentEvent::Reminder {
            kind: ReminderKind::Hooks,
            text: format!(
                "A {} hook kept asking the turn to go on; it ended after {MAX_STOP_CONTINUATIONS} \
                 continuations (the hook's last word: {feedback}).",
                event.as_str()
            ),
        });
        return None;
    }
    Some(feedback)
}

/// `PreCompact`, before the conversation is summarized (`auto` or `manual`).
pub(crate) async fn pre_compact(cx: &TurnCtx<'_>, trigger: &str) {
    let Some(p) = cx
        .input
        .policy
        .as_deref()
        .filter(|p| p.wants(HookEvent::PreCompact))
    else {
        return;
    };
    let f = fields([
        ("trigger", Value::from(trigger)),
        ("custom_instructions", Value::from("")),
    ]);
    let _ = p
        .fire(
            &cx.sink(),
            HookEvent::PreCompact,
            &[trigger],
            f,
            About::default(),
        )
        .await;
}
