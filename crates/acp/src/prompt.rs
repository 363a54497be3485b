//! `session/prompt`: one engine turn, its events streamed as
//! `session/update`s, its approvals asked as `session/request_permission`,
//! its end as the `stopReason`.

use std::sync::Arc;

use seekclaw_agent::{AgentEvent, Decision, FailureKind, SteerQueue, TurnOutcome};
use seekclaw_engine::{Engine, TurnControls, TurnOrigin, TurnRequest};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use crate::content;
use crate::rpc::{INVALID_REQUEST, Peer, RpcError};
use crate::session::Session;
use crate::updates::TurnUpdates;

/// What the model reads when the editor's user rejects a call.
const REJECTED: &str = "The user rejected this tool call in their editor. Do not retry it; \
ask what they want instead, or take another approach.";

/// Runs the prompt and returns the `session/prompt` result.
pub async fn run(
    engine: &Engine,
    peer: &Peer,
    session: Arc<Session>,
    params: &Value,
) -> Result<Value, RpcError> {
    let message = content::message(&params["prompt"])?;
    let Some(cancel) = session.begin() else {
        return Err(RpcError::new(
            INVALID_REQUEST,
            format!(
                "session {} is already running a prompt; wait for it or send session/cancel",
                session.id
            ),
        ));
    };
    let result = turn(engine, peer, &session, message, cancel).await;
    session.end();
    result
}

async fn turn(
    engine: &Engine,
    peer: &Peer,
    session: &Arc<Session>,
    message: content::Message,
    cancel: CancellationToken,
) -> Result<Value, RpcError> {
    if message.text.trim() == "/compact" {
        return compact(engine, peer, session, &cancel).await;
    }
    let request = TurnRequest {
        scope: session.scope.clone(),
        session: session.target(),
        message: message.text,
        images: message.images,
        reasoning: None,
        overrides: session.overrides(engine),
        controls: TurnControls {
            cancel: cancel.clone(),
            steer: SteerQueue::new(),
            approvals: session.approvals.clone(),
        },
        origin: TurnOrigin::new("acp"),
    };
    let mut handle = engine.start_turn(request).await?;
    session.mark_stored();
    let mut updates = TurnUpdates::new(&session.cwd);
    let mut finish = String::new();
    while let Some(ev) = handle.next_event().await {
        if let AgentEvent::ApprovalRequested { .. } = &ev {
            ask_permission(peer, session, &ev);
        }
        if let AgentEvent::AnswerFinish { reason } = &ev {
            finish.clone_from(reason);
        }
        for update in updates.map(&ev) {
            peer.update(&session.id, update);
        }
    }
    // A cancelled prompt answers `cancelled` whatever the turn made of it.
    match handle.take_outcome() {
        _ if cancel.is_cancelled() => Ok(stop("cancelled")),
        Some(TurnOutcome::Done(_)) => Ok(stop(answer_stop(&finish))),
        Some(TurnOutcome::Cancelled(_)) => Ok(stop("cancelled")),
        Some(TurnOutcome::Failed(f)) if f.kind == FailureKind::StepLimit => {
            Ok(stop("max_turn_requests"))
        }
        Some(TurnOutcome::Failed(f)) => Err(RpcError::internal(format!(
            "the turn failed ({}): {}",
            f.kind.as_str(),
            f.message
        ))),
        Some(TurnOutcome::Unsaved { error, .. }) => Err(RpcError::internal(
            seekclaw_protocol::wording::unsaved_message(&error),
        )),
        None => Err(RpcError::internal("the turn ended without an outcome")),
    }
}

/// The stop reason of a turn that ended on an answer, from why the model
/// stopped it: cut at the output cap (and not continued), refused, or done.
fn answer_stop(finish: &str) -> &'static str {
    match finish {
        "length" => "max_tokens",
        "content_filter" | "refusal" => "refusal",
        _ => "end_turn",
    }
}

fn stop(reason: &str) -> Value {
    json!({"stopReason": reason})
}

/// Asks the client about an approval request on its own task (the turn's
/// events keep flowing) and passes the answer to the waiting turn.
fn ask_permission(peer: &Peer, session: &Arc<Session>, ev: &AgentEvent) {
    let AgentEvent::ApprovalRequested {
        approval_id,
        call_id,
        tool,
        summary,
        arguments,
        diff,
        always_rule,
        always_target,
    } = ev
    else {
        return;
    };
    let mut content = Vec::new();
    if let (Some(diff), Some(path)) = (diff, arguments["path"].as_str()) {
        content.push(crate::tools::diff_content(path, diff, &session.cwd));
    } else if let (Some(diff), "apply_patch") = (diff, tool.as_str()) {
        content.extend(crate::tools::diff_items("", diff, &session.cwd));
    } else if let Some(command) = arguments["command"].as_str() {
        content.push(crate::tools::text_content(command));
    }
    let params = json!({
        "sessionId": session.id,
        "toolCall": {
            "toolCallId": call_id,
            "title": crate::tools::title(tool, summary),
            "kind": crate::tools::kind(tool),
            "status": "pending",
            "content": content,
            "rawInput": arguments,
        },
        "options": [
            {"optionId": "allow_once", "name": "Allow once", "kind": "allow_once"},
            {"optionId": "allow_always", "name": always_name(always_rule.as_deref(), always_target.as_deref()), "kind": "allow_always"},
            {"optionId": "reject_once", "name": "Reject", "kind": "reject_once"},
        ],
    });
    let (peer, approvals, approval_id) =
        (peer.clone(), session.approvals.clone(), approval_id.clone());
    let saves = always_rule.is_some();
    tokio::spawn(async move {
        let answer = peer.request("session/request_permission", params).await;
        let decision = decision(answer, saves);
        // Not pending any more: the turn was cancelled or timed out meanwhile.
        let _ = approvals.answer(&approval_id, decision);
    });
}

/// What "always allow" does, in its option's name: save the engine's rule
/// (ACP's `allow_always` is "remember this"), or, when the engine offers
/// none for this call, allow its like for the rest of the session.
fn always_name(rule: Option<&str>, target: Option<&str>) -> String {
    match rule {
        Some(rule) => format!(
            "Always allow `{rule}` (saved in the {} config)",
            target.unwrap_or("user")
        ),
        None => "Always allow in this session".into(),
    }
}

/// The engine's decision for the client's answer (`saves`: "always allow"
/// saves the request's rule). A reason the client gives in `_meta.reason`
/// is what the model reads; a failed request rejects.
fn decision(answer: Result<Value, RpcError>, saves: bool) -> Decision {
    let answer = match answer {
        Ok(a) => a,
        Err(e) => {
            return Decision::Reject(Some(format!(
                "The editor could not ask the user ({}); the call was not run.",
                e.message
            )));
        }
    };
    let outcome = &answer["outcome"];
    let reason = answer["_meta"]["reason"]
        .as_str()
        .filter(|r| !r.trim().is_empty())
        .map(|r| format!("The user rejected this tool call: {r}"));
    match (outcome["outcome"].as_str(), outcome["optionId"].as_str()) {
        (Some("selected"), Some("allow_once")) => Decision::AllowOnce,
        (Some("selected"), Some("allow_always")) if saves => Decision::AllowAlways,
        (Some("selected"), Some("allow_always")) => Decision::AllowSession,
        (Some("cancelled"), _) => Decision::Reject(Some("The prompt was cancelled.".into())),
        _ => Decision::Reject(Some(reason.unwrap_or_else(|| REJECTED.to_string()))),
    }
}

/// `/compact`: the session's history summarized; the summary is the answer.
async fn compact(
    engine: &Engine,
    peer: &Peer,
    session: &Arc<Session>,
    cancel: &CancellationToken,
) -> Result<Value, RpcError> {
    let overrides = session.overrides(engine);
    let done = engine
        .compact_session(&session.scope, &session.id, &overrides, cancel, |_, _| {})
        .await;
    if cancel.is_cancelled() {
        return Ok(stop("cancelled"));
    }
    let compacted = done?;
    peer.update(
        &session.id,
        json!({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": compacted.summary}}),
    );
    Ok(stop("end_turn"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_always_option_names_the_rule_it_saves() {
        assert_eq!(
            always_name(Some("Bash(npm test:*)"), Some("workspace")),
            "Always allow `Bash(npm test:*)` (saved in the workspace config)"
        );
        assert_eq!(always_name(None, None), "Always allow in this session");
    }

    #[test]
    fn answers_become_decisions() {
        let selected = |id: &str| Ok(json!({"outcome": {"outcome": "selected", "optionId": id}}));
        assert_eq!(decision(selected("allow_once"), false), Decision::AllowOnce);
        assert_eq!(
            decision(selected("allow_always"), false),
            Decision::AllowSession
        );
        assert_eq!(
            decision(selected("allow_always"), true),
            Decision::AllowAlways
        );
        assert_eq!(
            decision(selected("reject_once"), true),
            Decision::Reject(Some(REJECTED.into()))
        );
        let with_reason = Ok(
            json!({"outcome": {"outcome": "selected", "optionId": "reject_once"}, "_meta": {"reason": "use git mv"}}),
        );
        assert_eq!(
            decision(with_reason, false),
            Decision::Reject(Some("The user rejected this tool call: use git mv".into()))
        );
        assert!(matches!(
            decision(Err(RpcError::internal("gone")), true),
            Decision::Reject(Some(m)) if m.contains("gone")
        ));
    }
}
