use std::borrow::Cow;

use serde::Serialize;
use serde_json::Value;

use crate::error::{ErrorCode, MethodError};

/// Event names used on the wire.
pub mod event {
    pub const PONG: &str = "pong";
    pub const BYE: &str = "bye";
    pub const RESULT: &str = "result";
    pub const DONE: &str = "done";
    pub const CANCELLED: &str = "cancelled";
    pub const ERROR: &str = "error";

    /// Terminal events: every request gets exactly one of these.
    pub const TERMINAL: &[&str] = &[PONG, BYE, RESULT, DONE, CANCELLED, ERROR];

    pub fn is_terminal(name: &str) -> bool {
        TERMINAL.contains(&name)
    }
}

/// One response line: `{id, event, data, sessionId?, details?}` in exactly this key order.
/// `data` is always a string; structured results are JSON encoded into it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Envelope {
    pub id: i64,
    /// Event names are almost always static; `Cow` keeps the hot path allocation-free.
    pub event: Cow<'static, str>,
    pub data: String,
    #[serde(rename = "sessionId", skip_serializing_if = "blank")]
    pub session_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub details: Option<Value>,
}

fn blank(s: &Option<String>) -> bool {
    s.as_deref().is_none_or(|s| s.trim().is_empty())
}

impl Envelope {
    pub fn new(id: i64, event: impl Into<Cow<'static, str>>, data: impl Into<String>) -> Self {
        Envelope {
            id,
            event: event.into(),
            data: data.into(),
            session_id: None,
            details: None,
        }
    }

    pub fn result(id: i64, data: impl Into<String>) -> Self {
        Self::new(id, event::RESULT, data)
    }

    /// A `result` whose data is `value` encoded as compact JSON.
    pub fn json_result<T: Serialize>(id: i64, value: &T) -> Self {
        Self::result(id, encode(value, false))
    }

    /// A `result` whose data is `value` encoded as indented JSON (the original
    /// serializes session header lists this way and clients tolerate either).
    pub fn pretty_result<T: Serialize>(id: i64, value: &T) -> Self {
        Self::result(id, encode(value, true))
    }

    pub fn error(id: i64, err: &MethodError) -> Self {
        let mut details = serde_json::Map::new();
        details.insert("code".into(), Value::String(err.code.as_str().into()));
        if let Some(param) = &err.param {
            details.insert("param".into(), Value::String(param.clone()));
        }
        Envelope {
            id,
            event: Cow::Borrowed(event::ERROR),
            data: err.message.clone(),
            session_id: err.session_id.clone(),
            details: Some(Value::Object(details)),
        }
    }

    pub fn with_session(mut self, session_id: Option<String>) -> Self {
        self.session_id = session_id;
        self
    }

    pub fn with_details(mut self, details: Value) -> Self {
        self.details = Some(details);
        self
    }

    pub fn is_terminal(&self) -> bool {
        event::is_terminal(&self.event)
    }

    /// Serializes the envelope as one JSONL line (with the trailing `\n`).
    pub fn to_line(&self) -> Vec<u8> {
        let mut buf = Vec::with_capacity(64 + self.data.len());
        self.write_line(&mut buf);
        buf
    }

    /// Appends the envelope as one JSONL line (with the trailing `\n`) to `buf`.
    /// Written field by field (same bytes as the derived form): this runs for every
    /// answer and every streamed event.
    pub fn write_line(&self, buf: &mut Vec<u8>) {
        let start = buf.len();
        if self.write_fields(buf).is_err() {
            // Serializing strings and JSON values cannot fail; keep the wire valid regardless.
            buf.truncate(start);
            buf.extend_from_slice(
                br#"{"id":0,"event":"error","data":"internal serialization error"}"#,
            );
        }
        buf.push(b'\n');
    }

    fn write_fields(&self, buf: &mut Vec<u8>) -> serde_json::Result<()> {
        buf.extend_from_slice(b"{\"id\":");
        serde_json::to_writer(&mut *buf, &self.id)?;
        buf.extend_from_slice(b",\"event\":");
        serde_json::to_writer(&mut *buf, self.event.as_ref())?;
        buf.extend_from_slice(b",\"data\":");
        serde_json::to_writer(&mut *buf, &self.data)?;
        if !blank(&self.session_id)
            && let Some(session) = &self.session_id
        {
            buf.extend_from_slice(b",\"sessionId\":");
            serde_json::to_writer(&mut *buf, session)?;
        }
        if let Some(details) = &self.details {
            buf.extend_from_slice(b",\"details\":");
            serde_json::to_writer(&mut *buf, details)?;
        }
        buf.push(b'}');
        Ok(())
    }
}

fn encode<T: Serialize>(value: &T, pretty: bool) -> String {
    let out = if pretty {
        serde_json::to_string_pretty(value)
    } else {
        serde_json::to_string(value)
    };
    out.unwrap_or_else(|e| {
        let err = MethodError::new(ErrorCode::Internal, format!("cannot encode result: {e}"));
        err.message
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_in_wire_order_and_optional_fields_omitted() {
        let env = Envelope::new(7, "tool_done", "Edited src/a.rs")
            .with_session(Some("20260731-120000-a1b2c3".into()))
            .with_details(serde_json::json!({"callId":"call_0","success":true}));
        let line = String::from_utf8(env.to_line()).unwrap();
        assert_eq!(
            line,
            "{\"id\":7,\"event\":\"tool_done\",\"data\":\"Edited src/a.rs\",\"sessionId\":\"20260731-120000-a1b2c3\",\"details\":{\"callId\":\"call_0\",\"success\":true}}\n"
        );
        let pong = String::from_utf8(Envelope::new(1, event::PONG, "").to_line()).unwrap();
        assert_eq!(pong, "{\"id\":1,\"event\":\"pong\",\"data\":\"\"}\n");
        let blank = Envelope::result(2, "x").with_session(Some("  ".into()));
        assert!(
            !String::from_utf8(blank.to_line())
                .unwrap()
                .contains("sessionId")
        );
    }

    #[test]
    fn error_carries_code_and_param() {
        let err = MethodError::invalid_param("message", "params.message must be a string");
        let line = String::from_utf8(Envelope::error(3, &err).to_line()).unwrap();
        assert_eq!(
            line,
            "{\"id\":3,\"event\":\"error\",\"data\":\"params.message must be a string\",\"details\":{\"code\":\"invalid_request\",\"param\":\"message\"}}\n"
        );
    }

    #[test]
    fn hand_written_line_matches_serde() {
        let envs = [
            Envelope::new(-3, "delta", "a \"quoted\"\n\u{1}line ✓"),
            Envelope::result(i64::MAX, "{\"x\":[1,2]}").with_session(Some("s-1".into())),
            Envelope::error(9, &MethodError::not_found("gone")).with_session(Some("".into())),
        ];
        for env in envs {
            let mut serde_line = serde_json::to_vec(&env).unwrap();
            serde_line.push(b'\n');
            assert_eq!(
                String::from_utf8(env.to_line()).unwrap(),
                String::from_utf8(serde_line).unwrap()
            );
        }
    }

    #[test]
    fn json_results_are_strings() {
        let env = Envelope::json_result(4, &serde_json::json!({"a":1}));
        assert_eq!(env.data, "{\"a\":1}");
        assert!(Envelope::pretty_result(4, &vec![1, 2]).data.contains('\n'));
    }
}
