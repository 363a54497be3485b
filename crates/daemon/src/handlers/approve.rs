//! `agent.approve`: a person's decision on a turn's pending approval request.

use seekclaw_agent::{Approvals, Decision};
use seekclaw_protocol::{Envelope, MethodError, Params, method};

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
    let decision = params
        .decision
        .as_deref()
        .and_then(|d| Decision::parse(d, params.message.clone()))
        .ok_or_else(|| {
            MethodError::invalid_param(
                "decision",
                "params.decision must be allow_once, allow_session or reject",
            )
        })?;
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
    let text = match decision {
        Decision::Reject(_) => "rejected",
        Decision::AllowOnce | Decision::AllowSession | Decision::AllowAlways => "approved",
    };
    approvals.answer(approval_id, decision).map_err(|e| {
        MethodError::not_found(format!("No pending approval {}", e.0)).with_session(session.clone())
    })?;
    Ok(Envelope::result(id, text).with_session(session))
}
