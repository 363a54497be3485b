//! `agent.approve`: a person's decision on a turn's pending approval request.

use seekclaw_agent::{AnswerError, Approvals, Decision, Response};
use seekclaw_protocol::api::ApproveParams;
use seekclaw_protocol::{Envelope, MethodError, Params, method};
use seekclaw_tools::ElicitAction;

use crate::connection::Connection;
use crate::ctx::Ctx;

use super::Reply;

pub async fn approve(daemon: &Ctx, conn: &Connection, id: i64, p: &Params) -> Reply {
    let params = p.read::<method::AgentApprove>()?;
    let session_id = params
        .session_id
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty());
    let approval_id = params
        .approval_id
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .ok_or_else(|| MethodError::invalid_param("approvalId", "params.approvalId is required"))?;
    let response = response_of(&params)?;
    let turn: Option<(Option<String>, Approvals)> = match (params.request_id, session_id) {
        (Some(rid), _) => match conn.chats.get(rid) {
            Some(chat) => Some((chat.session().await, chat.approvals)),
            None => None,
        },
        (None, Some(sid)) => daemon
            .engine
            .turns
            .by_session(sid)
            .map(|t| (Some(t.session_id), t.approvals)),
        (None, None) => {
            return Err(MethodError::invalid_param(
                "sessionId",
                "params.requestId or params.sessionId is required",
            ));
        }
    };
    let Some((session, approvals)) = turn else {
        return Err(
            MethodError::not_found("No active turn found for this session")
                .with_session(session_id.map(str::to_string)),
        );
    };
    let text = match &response {
        Response::Decision(Decision::Reject(_)) => "rejected",
        Response::Decision(_) => "approved",
        // The result's words stay the two the schema names.
        Response::Form { action, .. } => match action {
            ElicitAction::Accept => "approved",
            ElicitAction::Decline | ElicitAction::Cancel => "rejected",
        },
    };
    approvals
        .respond(approval_id, response)
        .map_err(|e| match e {
            AnswerError::NotPending(id) => {
                MethodError::not_found(format!("No pending approval {id}"))
            }
            AnswerError::Invalid(why) => MethodError::invalid_param("content", why),
            AnswerError::NotAForm(_) => MethodError::invalid_param("action", e.to_string()),
        })
        .map_err(|e| e.with_session(session.clone()))?;
    Ok(Envelope::result(id, text).with_session(session))
}

/// `action` (+ `content`) for a form, else `decision`.
fn response_of(params: &ApproveParams) -> Result<Response, MethodError> {
    if let Some(action) = params.action.as_deref() {
        let action = ElicitAction::parse(action).ok_or_else(|| {
            MethodError::invalid_param("action", "params.action must be accept, decline or cancel")
        })?;
        let content = seekclaw_agent::elicitation_content(params.content.clone())
            .map_err(|why| MethodError::invalid_param("content", format!("params.{why}")))?;
        return Ok(Response::Form { action, content });
    }
    params
        .decision
        .as_deref()
        .and_then(|d| Decision::parse(d, params.message.clone()))
        .map(Response::Decision)
        .ok_or_else(|| {
            MethodError::invalid_param(
                "decision",
                "params.decision must be allow_once, allow_session, allow_always or reject \
                 (or, for an elicitation, params.action accept, decline or cancel)",
            )
        })
}
