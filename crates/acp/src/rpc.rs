//! JSON-RPC 2.0 over newline-delimited JSON, both ways: the client's
//! requests come in and get answers, the agent's own requests
//! (`session/request_permission`, `fs/*`) go out and wait for theirs.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use tokio::io::AsyncWrite;
use tokio::sync::{mpsc, oneshot};

/// Invalid JSON was received.
pub const PARSE_ERROR: i64 = -32700;
/// The JSON sent is not a valid request object.
pub const INVALID_REQUEST: i64 = -32600;
/// The method does not exist.
pub const METHOD_NOT_FOUND: i64 = -32601;
/// Invalid method parameters.
pub const INVALID_PARAMS: i64 = -32602;
/// Internal JSON-RPC error.
pub const INTERNAL_ERROR: i64 = -32603;
/// ACP: a resource (here a session) was not found.
pub const RESOURCE_NOT_FOUND: i64 = -32002;

/// A JSON-RPC error object.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{message} ({code})")]
pub struct RpcError {
    /// The error code.
    pub code: i64,
    /// What went wrong, for a person.
    pub message: String,
    /// More about it, for a program (e.g. the `sessionId` concerned).
    pub data: Option<Value>,
}

impl RpcError {
    /// An error with `code`.
    pub fn new(code: i64, message: impl Into<String>) -> RpcError {
        RpcError {
            code,
            message: message.into(),
            data: None,
        }
    }

    /// The same error with `data`.
    pub fn with_data(mut self, data: Value) -> RpcError {
        self.data = Some(data);
        self
    }

    /// `-32602`: the params are wrong.
    pub fn params(message: impl Into<String>) -> RpcError {
        RpcError::new(INVALID_PARAMS, message)
    }

    /// `-32603`.
    pub fn internal(message: impl Into<String>) -> RpcError {
        RpcError::new(INTERNAL_ERROR, message)
    }

    fn to_json(&self) -> Value {
        match &self.data {
            Some(data) => json!({"code": self.code, "message": self.message, "data": data}),
            None => json!({"code": self.code, "message": self.message}),
        }
    }
}

/// One line from the client.
#[derive(Debug, PartialEq)]
pub enum Incoming {
    /// A request to answer.
    Request {
        /// Echoed in the answer.
        id: Value,
        /// The method.
        method: String,
        /// Its params (`null` when absent).
        params: Value,
    },
    /// A notification (no answer).
    Notification {
        /// The method.
        method: String,
        /// Its params.
        params: Value,
    },
    /// The answer to one of the agent's requests.
    Response {
        /// The agent's request id.
        id: Value,
        /// Its result or error.
        result: Result<Value, RpcError>,
    },
    /// Not JSON-RPC: answered with an error (with `null` id when unknown).
    Invalid {
        /// The id, when one could be read.
        id: Option<Value>,
        /// Why.
        error: RpcError,
    },
}

/// Reads one line.
pub fn parse_line(line: &str) -> Incoming {
    let value: Value = match serde_json::from_str(line) {
        Ok(v) => v,
        Err(e) => {
            return Incoming::Invalid {
                id: None,
                error: RpcError::new(PARSE_ERROR, format!("Parse error: {e}")),
            };
        }
    };
    let Some(obj) = value.as_object() else {
        return Incoming::Invalid {
            id: None,
            error: RpcError::new(INVALID_REQUEST, "Invalid request: expected a JSON object"),
        };
    };
    let id = obj.get("id").filter(|v| !v.is_null()).cloned();
    let invalid = |message: &str| Incoming::Invalid {
        id: id.clone(),
        error: RpcError::new(INVALID_REQUEST, format!("Invalid request: {message}")),
    };
    if obj.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return invalid("\"jsonrpc\" must be \"2.0\"");
    }
    let params = obj.get("params").cloned().unwrap_or(Value::Null);
    match (obj.get("method"), id.clone()) {
        (Some(Value::String(method)), Some(id)) => Incoming::Request {
            id,
            method: method.clone(),
            params,
        },
        (Some(Value::String(method)), None) => Incoming::Notification {
            method: method.clone(),
            params,
        },
        (Some(_), _) => invalid("\"method\" must be a string"),
        (None, Some(id)) => {
            let result = match (obj.get("result"), obj.get("error")) {
                (_, Some(err)) => Err(RpcError::new(
                    err["code"].as_i64().unwrap_or(INTERNAL_ERROR),
                    err["message"].as_str().unwrap_or("error").to_string(),
                )),
                (Some(result), None) => Ok(result.clone()),
                (None, None) => return invalid("a response needs \"result\" or \"error\""),
            };
            Incoming::Response { id, result }
        }
        (None, None) => invalid("no \"method\""),
    }
}

type Waiters = HashMap<u64, oneshot::Sender<Result<Value, RpcError>>>;

/// The client at the other end: what the agent sends it. Clones share the
/// writer and the table of requests awaiting answers.
#[derive(Clone)]
pub struct Peer {
    out: mpsc::UnboundedSender<Vec<u8>>,
    next_id: Arc<AtomicU64>,
    waiting: Arc<Mutex<Waiters>>,
}

impl Peer {
    /// A peer writing to `out` on its own task (a slow reader never stalls
    /// the engine), and the task, which ends once every clone is dropped and
    /// the lines are written.
    pub fn new<W: AsyncWrite + Unpin + Send + 'static>(
        out: W,
    ) -> (Peer, tokio::task::JoinHandle<()>) {
        let (tx, writer) = seekclaw_engine::spawn_line_writer(out);
        let peer = Peer {
            out: tx,
            next_id: Arc::new(AtomicU64::new(0)),
            waiting: Arc::new(Mutex::new(HashMap::new())),
        };
        (peer, writer)
    }

    fn send(&self, message: &Value) {
        let mut line = message.to_string().into_bytes();
        line.push(b'\n');
        let _ = self.out.send(line);
    }

    /// Answers request `id`.
    pub fn respond(&self, id: Value, result: Result<Value, RpcError>) {
        self.send(&match result {
            Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
            Err(e) => json!({"jsonrpc": "2.0", "id": id, "error": e.to_json()}),
        });
    }

    /// An error for a line that had no usable id.
    pub fn respond_invalid(&self, id: Option<Value>, error: &RpcError) {
        self.send(&json!({"jsonrpc": "2.0", "id": id, "error": error.to_json()}));
    }

    /// Sends a notification.
    pub fn notify(&self, method: &str, params: Value) {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// A `session/update` notification.
    pub fn update(&self, session_id: &str, update: Value) {
        self.notify(
            "session/update",
            json!({"sessionId": session_id, "update": update}),
        );
    }

    /// Sends a request and waits for its answer; an error when the client
    /// answers with one or the connection ends first.
    pub async fn request(&self, method: &str, params: Value) -> Result<Value, RpcError> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        if let Ok(mut waiting) = self.waiting.lock() {
            waiting.insert(id, tx);
        }
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        rx.await
            .unwrap_or_else(|_| Err(RpcError::internal("the client connection ended")))
    }

    /// Routes the client's answer to the request that waits for it.
    pub fn resolve(&self, id: &Value, result: Result<Value, RpcError>) {
        let Some(id) = id.as_u64() else { return };
        let waiter = self.waiting.lock().ok().and_then(|mut w| w.remove(&id));
        if let Some(tx) = waiter {
            let _ = tx.send(result);
        }
    }

    /// The connection ended: every waiting request fails.
    pub fn fail_waiting(&self) {
        if let Ok(mut waiting) = self.waiting.lock() {
            waiting.clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_classified() {
        assert!(matches!(
            parse_line("{not json"),
            Incoming::Invalid { id: None, error } if error.code == PARSE_ERROR
        ));
        assert!(matches!(
            parse_line("[1]"),
            Incoming::Invalid { error, .. } if error.code == INVALID_REQUEST
        ));
        assert!(matches!(
            parse_line(r#"{"jsonrpc":"2.0","id":3,"method":7}"#),
            Incoming::Invalid { id: Some(_), error } if error.code == INVALID_REQUEST
        ));
        assert_eq!(
            parse_line(r#"{"jsonrpc":"2.0","id":1,"method":"initialize"}"#),
            Incoming::Request {
                id: json!(1),
                method: "initialize".into(),
                params: Value::Null
            }
        );
        assert_eq!(
            parse_line(r#"{"jsonrpc":"2.0","method":"session/cancel","params":{}}"#),
            Incoming::Notification {
                method: "session/cancel".into(),
                params: json!({})
            }
        );
        assert_eq!(
            parse_line(r#"{"jsonrpc":"2.0","id":0,"error":{"code":-1,"message":"no"}}"#),
            Incoming::Response {
                id: json!(0),
                result: Err(RpcError::new(-1, "no"))
            }
        );
    }
}
