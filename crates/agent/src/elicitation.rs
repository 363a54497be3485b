//! MCP elicitation through the approval exchange: a server's question during
//! a tool call becomes an approval request of the turn (with the form), the
//! front end answers with accept (values), decline or cancel, and the values
//! are checked against the form before the server gets them.

use std::sync::Arc;
use std::time::Duration;

use seekclaw_tools::elicit::validate;
use seekclaw_tools::{Elicit, ElicitAction, ElicitAnswer, ElicitFuture, ElicitRequest};
use serde_json::{Map, Value};
use tokio::sync::mpsc::UnboundedSender;
use tokio_util::sync::CancellationToken;

use crate::approval::{AnswerError, ApprovalOutcome, Approvals, Decision, Response};
use crate::events::{AgentEvent, ElicitationAsk};

/// The answer a response makes of a form with `schema`: a decision counts as
/// decline (`reject`) or accept with no values (an allow, from a front end
/// that does not know forms). Accepted values must fit the form.
pub(crate) fn form_answer(
    schema: &Value,
    response: &Response,
) -> Result<ElicitAnswer, AnswerError> {
    let (action, content) = match response {
        Response::Decision(Decision::Reject(_)) => return Ok(ElicitAnswer::decline()),
        Response::Decision(_) => (ElicitAction::Accept, None),
        Response::Form { action, content } => (*action, content.clone()),
    };
    if action != ElicitAction::Accept {
        return Ok(ElicitAnswer {
            action,
            content: None,
        });
    }
    let content = content.unwrap_or_default();
    validate(schema, &content).map_err(|why| {
        AnswerError::Invalid(format!(
            "the values do not fit the form: {why} (the request is still pending)"
        ))
    })?;
    Ok(ElicitAnswer {
        action,
        content: Some(content),
    })
}

/// One tool call's way to the person: its questions become approval
/// requests of the turn, about that call.
pub(crate) struct CallElicit {
    handle: Approvals,
    events: UnboundedSender<AgentEvent>,
    cancel: CancellationToken,
    timeout: Duration,
    call_id: String,
    tool: String,
    arguments: Value,
}

/// The elicitation handle of a call, where the turn's front end can fill in
/// forms; `None`: the call's servers are declined at once.
pub(crate) fn for_call(
    approvals: &crate::approval::TurnApprovals,
    events: &UnboundedSender<AgentEvent>,
    cancel: &CancellationToken,
    (call_id, tool, arguments): (&str, &str, &Value),
) -> Option<Arc<dyn Elicit>> {
    if !approvals.handle.answers_forms() {
        return None;
    }
    Some(Arc::new(CallElicit {
        handle: approvals.handle.clone(),
        events: events.clone(),
        cancel: cancel.clone(),
        timeout: approvals.timeout,
        call_id: call_id.to_string(),
        tool: tool.to_string(),
        arguments: arguments.clone(),
    }))
}

impl Elicit for CallElicit {
    fn elicit(&self, request: ElicitRequest) -> ElicitFuture<'_> {
        Box::pin(self.ask(request))
    }
}

impl CallElicit {
    async fn ask(&self, request: ElicitRequest) -> ElicitAnswer {
        let approval_id = format!("ap_{}", &uuid::Uuid::new_v4().simple().to_string()[..12]);
        let Some((rx, _withdraw)) = self
            .handle
            .open_form(&approval_id, request.requested_schema.clone())
        else {
            return ElicitAnswer::decline();
        };
        let _ = self
            .events
            .send(AgentEvent::ElicitationRequested(Box::new(ElicitationAsk {
                approval_id: approval_id.clone(),
                call_id: self.call_id.clone(),
                tool: self.tool.clone(),
                arguments: self.arguments.clone(),
                server: request.server,
                message: request.message,
                requested_schema: request.requested_schema,
            })));
        let answered = tokio::select! {
            a = rx => a.ok(),
            _ = self.cancel.cancelled() => None,
            _ = tokio::time::sleep(self.timeout) => None,
        };
        // Old clients read the outcome in the words they know.
        let outcome = match answered.as_ref().map(|a| a.action) {
            Some(ElicitAction::Accept) => ApprovalOutcome::AllowOnce,
            Some(ElicitAction::Decline) => ApprovalOutcome::Reject,
            Some(ElicitAction::Cancel) => ApprovalOutcome::Cancelled,
            None if self.cancel.is_cancelled() => ApprovalOutcome::Cancelled,
            None => ApprovalOutcome::Timeout,
        };
        let _ = self.events.send(AgentEvent::ApprovalResolved {
            approval_id,
            call_id: self.call_id.clone(),
            outcome,
        });
        // Nobody answered in time, or the turn stopped: the server reads cancel.
        answered.unwrap_or_else(ElicitAnswer::cancel)
    }
}

/// The content of a form answer as it came over the wire (an object).
pub fn content_of(value: Option<Value>) -> Result<Option<Map<String, Value>>, String> {
    match value {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Object(map)) => Ok(Some(map)),
        Some(other) => Err(format!(
            "content must be an object of field values, got {other}"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> Value {
        json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]})
    }

    #[test]
    fn decisions_and_forms_become_answers() {
        let s = schema();
        let reject = Response::Decision(Decision::Reject(None));
        assert_eq!(form_answer(&s, &reject).unwrap(), ElicitAnswer::decline());
        // An allow without values cannot fill in a required field.
        let allow = Response::Decision(Decision::AllowOnce);
        assert!(matches!(
            form_answer(&s, &allow),
            Err(AnswerError::Invalid(_))
        ));
        let cancel = Response::Form {
            action: ElicitAction::Cancel,
            content: Some(Map::new()),
        };
        assert_eq!(form_answer(&s, &cancel).unwrap(), ElicitAnswer::cancel());
        let content = json!({"name": "Ada"}).as_object().cloned();
        let accept = Response::Form {
            action: ElicitAction::Accept,
            content: content.clone(),
        };
        assert_eq!(form_answer(&s, &accept).unwrap().content, content);
    }

    #[tokio::test]
    async fn a_form_waits_until_its_values_fit() {
        let handle = Approvals::attended_with_forms();
        assert!(handle.answers_forms());
        assert!(!Approvals::attended().answers_forms());
        let (tx, mut events) = tokio::sync::mpsc::unbounded_channel();
        let call = CallElicit {
            handle: handle.clone(),
            events: tx,
            cancel: CancellationToken::new(),
            timeout: Duration::from_secs(60),
            call_id: "c1".into(),
            tool: "mcp__s__t".into(),
            arguments: json!({}),
        };
        let asking = tokio::spawn(async move {
            call.elicit(ElicitRequest {
                server: "s".into(),
                message: "Name?".into(),
                requested_schema: schema(),
            })
            .await
        });
        let Some(AgentEvent::ElicitationRequested(ask)) = events.recv().await else {
            panic!("no form asked");
        };
        assert_eq!((ask.server.as_str(), ask.call_id.as_str()), ("s", "c1"));
        let approval_id = ask.approval_id.clone();
        let wrong = Response::Form {
            action: ElicitAction::Accept,
            content: json!({"name": 3}).as_object().cloned(),
        };
        let err = handle.respond(&approval_id, wrong).unwrap_err();
        assert!(err.to_string().contains("`name` must be text"), "{err}");
        let decision = handle.answer(&approval_id, Decision::AllowOnce);
        assert!(decision.is_err(), "an allow without the required value");
        let right = Response::Form {
            action: ElicitAction::Accept,
            content: json!({"name": "Ada"}).as_object().cloned(),
        };
        handle.respond(&approval_id, right).unwrap();
        let answer = asking.await.unwrap();
        assert_eq!(answer.action, ElicitAction::Accept);
        assert_eq!(answer.content.unwrap()["name"], "Ada");
        assert!(matches!(
            events.recv().await,
            Some(AgentEvent::ApprovalResolved {
                outcome: ApprovalOutcome::AllowOnce,
                ..
            })
        ));
    }
}
