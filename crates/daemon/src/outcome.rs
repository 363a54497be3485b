//! A turn's outcome as its terminal envelope: one mapping for every way the
//! daemon runs turns (chat, `seekclaw run --json`).

use seekclaw_agent::TurnOutcome;
use seekclaw_protocol::events::{ErrorCause, ErrorDetails};
use seekclaw_protocol::{Envelope, ErrorCode, MethodError, event};

pub use crate::error::failure_code;

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
            let err = MethodError::new(
                ErrorCode::Storage,
                seekclaw_protocol::wording::unsaved_message(&error),
            )
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
}
