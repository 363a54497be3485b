//! The engine's failures as JSON-RPC errors: the one mapping of
//! [`EngineError`] in the ACP agent. Codes follow JSON-RPC 2.0 and ACP's
//! own (`-32002` resource not found, `-32800` request cancelled):
//!
//! | kind | code |
//! | --- | --- |
//! | invalid input, over a limit | `-32602` invalid params |
//! | not found | `-32002` resource not found |
//! | busy (here or in another process), conflict | `-32600` invalid request, as the agent's own "already running a prompt" |
//! | cancelled | `-32800` request cancelled |
//! | provider, no model, timeout, step limit, storage, unreadable config, internal | `-32603` internal error |
//!
//! `data` carries the `sessionId` the error concerns (as ACP's "session not
//! found" does) and the `param` to blame, when known.

use seekclaw_engine::{EngineError, ErrorKind};
use serde_json::{Map, Value};

use crate::rpc::{INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, RESOURCE_NOT_FOUND, RpcError};

/// ACP: the request was cancelled.
pub const REQUEST_CANCELLED: i64 = -32800;

/// The JSON-RPC code of each kind of engine failure.
pub fn code(kind: ErrorKind) -> i64 {
    match kind {
        ErrorKind::Invalid | ErrorKind::TooLarge => INVALID_PARAMS,
        ErrorKind::NotFound => RESOURCE_NOT_FOUND,
        ErrorKind::Busy | ErrorKind::BusyElsewhere | ErrorKind::Conflict => INVALID_REQUEST,
        ErrorKind::Cancelled => REQUEST_CANCELLED,
        ErrorKind::Provider
        | ErrorKind::NoModel
        | ErrorKind::Timeout
        | ErrorKind::StepLimit
        | ErrorKind::Storage
        | ErrorKind::ConfigInvalid
        | ErrorKind::Budget
        | ErrorKind::Internal => INTERNAL_ERROR,
    }
}

impl From<EngineError> for RpcError {
    fn from(e: EngineError) -> RpcError {
        let message = match e.kind {
            ErrorKind::Busy => format!("{}; wait for it or send session/cancel", e.message),
            _ => e.message,
        };
        let mut data = Map::new();
        if let Some(sid) = e.session_id {
            data.insert("sessionId".into(), Value::String(sid));
        }
        if let Some(param) = e.param {
            data.insert("param".into(), Value::String(param));
        }
        let error = RpcError::new(code(e.kind), message);
        match data.is_empty() {
            true => error,
            false => error.with_data(Value::Object(data)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_busy_session_is_an_invalid_request_naming_the_session() {
        let e = RpcError::from(EngineError::busy_elsewhere("s1"));
        assert_eq!(e.code, -32600);
        assert_eq!(e.data, Some(json!({"sessionId": "s1"})));
        assert!(
            e.message
                .starts_with("Session s1 is running a turn in another seekclaw process")
        );
        assert!(!e.message.contains("agent.steer"), "{}", e.message);
        let e = RpcError::from(EngineError::busy("s1"));
        assert_eq!(e.code, -32600);
        assert!(e.message.ends_with("send session/cancel"), "{}", e.message);
    }

    #[test]
    fn not_found_invalid_and_faults_get_their_codes() {
        let missing =
            EngineError::not_found("Session s1 not found").with_session(Some("s1".into()));
        assert_eq!(RpcError::from(missing).code, -32002);
        let empty = RpcError::from(EngineError::invalid_param("message", "The prompt is empty"));
        assert_eq!(
            (empty.code, empty.data),
            (-32602, Some(json!({"param": "message"})))
        );
        assert_eq!(code(ErrorKind::TooLarge), -32602);
        assert_eq!(code(ErrorKind::Cancelled), -32800);
        for kind in [
            ErrorKind::Provider,
            ErrorKind::NoModel,
            ErrorKind::Storage,
            ErrorKind::Internal,
        ] {
            assert_eq!(code(kind), -32603);
        }
        let fault = RpcError::from(EngineError::internal("boom"));
        assert_eq!((fault.message.as_str(), fault.data), ("boom", None));
    }
}
