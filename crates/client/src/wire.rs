//! The wire without I/O: request lines, envelopes as read, and a terminal
//! envelope read as its method's result type. Shared by the blocking and
//! the async clients.

use std::sync::atomic::{AtomicI64, Ordering};

use seekclaw_protocol::{ErrorCode, EventDetails, MethodType, Reply, event};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use crate::error::{ClientError, DaemonError};

/// One envelope the daemon sent: `{id, event, data, sessionId?, details?}`.
#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Event {
    /// The request it answers; 0 for broadcasts and unparseable lines.
    #[serde(default)]
    pub id: i64,
    /// The event name (`delta`, `result`, …; see [`seekclaw_protocol::event`]).
    pub event: String,
    /// Always a string on the wire; a structured result is JSON inside it.
    #[serde(default)]
    pub data: String,
    /// The turn's session, on a turn's events.
    #[serde(default)]
    pub session_id: Option<String>,
    /// The event's details, when it has any.
    #[serde(default)]
    pub details: Option<Value>,
    /// A session turn event's place in its stream (`session.watch`'s
    /// `afterSeq` resumes after it).
    #[serde(default)]
    pub seq: Option<u64>,
}

impl Event {
    /// Parses one line.
    pub fn parse(line: &str) -> Result<Event, ClientError> {
        serde_json::from_str(line).map_err(|source| ClientError::BadLine {
            line: line.trim_end().to_string(),
            source,
        })
    }

    /// Whether it ends its request (every request gets exactly one).
    pub fn is_terminal(&self) -> bool {
        event::is_terminal(&self.event)
    }

    /// The details as `T` when this is `T`'s event (`ToolStartDetails` of a
    /// `tool_start`, …); `None` for another event or details that do not read.
    pub fn details_as<T: EventDetails + DeserializeOwned>(&self) -> Option<T> {
        if self.event != T::EVENT {
            return None;
        }
        serde_json::from_value(self.details.clone()?).ok()
    }

    /// An `error` envelope as a [`DaemonError`]; `None` for other events.
    pub fn as_error(&self) -> Option<DaemonError> {
        if self.event != event::ERROR {
            return None;
        }
        let field = |k: &str| self.details.as_ref().and_then(|d| d.get(k));
        Some(DaemonError {
            message: self.data.clone(),
            // Lenient: a newer daemon may send a code this client does not know.
            code: field("code").and_then(|c| serde_json::from_value::<ErrorCode>(c.clone()).ok()),
            param: field("param").and_then(Value::as_str).map(str::to_string),
            session_id: self.session_id.clone(),
            details: self.details.clone(),
        })
    }
}

/// Request ids for one client: from 1, never reused (0 means "no request" on
/// the wire), shared by every connection the client opens so a reconnect
/// cannot mistake an old answer for a new one.
#[derive(Debug)]
pub struct RequestIds(AtomicI64);

impl Default for RequestIds {
    fn default() -> Self {
        RequestIds(AtomicI64::new(1))
    }
}

impl RequestIds {
    /// The next id.
    pub fn next(&self) -> i64 {
        self.0.fetch_add(1, Ordering::Relaxed)
    }
}

/// One request line, `\n` included: `{"id", "method", "params"}`.
pub fn request_line<P: Serialize + ?Sized>(
    id: i64,
    method: &str,
    params: &P,
) -> Result<Vec<u8>, ClientError> {
    #[derive(Serialize)]
    struct Line<'a, P: ?Sized> {
        id: i64,
        method: &'a str,
        params: &'a P,
    }
    let mut line =
        serde_json::to_vec(&Line { id, method, params }).map_err(|source| ClientError::Encode {
            method: method.to_string(),
            source,
        })?;
    line.push(b'\n');
    Ok(line)
}

/// The wire name of method `M`.
pub fn method_name<M: MethodType>() -> &'static str {
    M::METHOD.spec().name
}

/// Reads `M`'s terminal envelope as its result, as the table's [`Reply`]
/// says: a JSON result is parsed out of `data`; text is the `data` string;
/// text with details reads both; `pong`/`bye` read as `()`; a turn's `done`
/// or `cancelled` as a [`seekclaw_protocol::TurnEnd`]. An `error` envelope
/// is [`ClientError::Daemon`]; another terminal event is
/// [`ClientError::BadResult`].
pub fn read_result<M: MethodType>(env: &Event) -> Result<M::Result, ClientError> {
    if let Some(e) = env.as_error() {
        return Err(ClientError::Daemon(Box::new(e)));
    }
    let method = method_name::<M>();
    let bad = |source| ClientError::BadResult {
        method,
        event: env.event.clone(),
        data: env.data.clone(),
        source,
    };
    let expected = |want: &str| {
        if env.event == want {
            Ok(())
        } else {
            Err(bad(serde::de::Error::custom(format!("expected `{want}`"))))
        }
    };
    match M::METHOD.spec().reply {
        Reply::Json(_) => {
            expected(event::RESULT)?;
            serde_json::from_str(&env.data).map_err(bad)
        }
        Reply::Text(..) | Reply::Watch => {
            expected(event::RESULT)?;
            serde_json::from_value(Value::String(env.data.clone())).map_err(bad)
        }
        Reply::TextDetails(..) => {
            expected(event::RESULT)?;
            let details = env.details.clone().unwrap_or(Value::Null);
            serde_json::from_value(json!({"text": env.data, "details": details})).map_err(bad)
        }
        Reply::Empty(name) => {
            expected(name)?;
            serde_json::from_value(Value::Null).map_err(bad)
        }
        Reply::Turn => {
            if env.event != event::DONE && env.event != event::CANCELLED {
                expected(event::DONE)?;
            }
            serde_json::from_value(json!({"outcome": env.event, "text": env.data})).map_err(bad)
        }
    }
}

/// Reads `M`'s terminal envelope as `T` instead of `M::Result`: for a
/// method whose result is JSON in `data` (`session.timeline`, …), read into
/// a client's own view of it (one that skips what it does not show, or
/// tolerates an older daemon's shape). An `error` envelope is
/// [`ClientError::Daemon`]; another event, or `data` that does not read as
/// `T`, is [`ClientError::BadResult`].
pub fn read_result_as<M: MethodType, T: DeserializeOwned>(env: &Event) -> Result<T, ClientError> {
    if let Some(e) = env.as_error() {
        return Err(ClientError::Daemon(Box::new(e)));
    }
    let bad = |source| ClientError::BadResult {
        method: method_name::<M>(),
        event: env.event.clone(),
        data: env.data.clone(),
        source,
    };
    if env.event != event::RESULT {
        return Err(bad(serde::de::Error::custom("expected `result`")));
    }
    serde_json::from_str(&env.data).map_err(bad)
}

#[cfg(test)]
mod tests {
    use super::*;
    use seekclaw_protocol::api::SessionListParams;
    use seekclaw_protocol::events::ToolStartDetails;
    use seekclaw_protocol::{TurnOutcome, method};

    fn env(line: &str) -> Event {
        Event::parse(line).unwrap()
    }

    #[test]
    fn request_lines_keep_the_key_order_and_leave_absent_params_out() {
        let params = SessionListParams {
            global: Some(true),
            ..Default::default()
        };
        let line = request_line(7, "session.list", &params).unwrap();
        assert_eq!(
            String::from_utf8(line).unwrap(),
            "{\"id\":7,\"method\":\"session.list\",\"params\":{\"global\":true}}\n"
        );
    }

    #[test]
    fn results_read_per_reply_form() {
        let info = env(
            r#"{"id":1,"event":"result","data":"{\"version\":\"2.1\",\"transport\":\"jsonl\",\"capabilities\":[],\"methods\":[\"ping\"],\"later\":1}"}"#,
        );
        let info = read_result::<method::ProtocolInfo>(&info).unwrap();
        assert_eq!((info.version.as_str(), info.methods.len()), ("2.1", 1));

        let pong = env(r#"{"id":2,"event":"pong","data":""}"#);
        read_result::<method::Ping>(&pong).unwrap();

        let mode = env(
            r#"{"id":3,"event":"result","data":"edit","details":{"mode":"edit","approvalPolicy":"never","sandbox":"off"}}"#,
        );
        let mode = read_result::<method::AgentModeGet>(&mode).unwrap();
        assert_eq!(
            (mode.text.as_str(), mode.details.sandbox.as_str()),
            ("edit", "off")
        );

        let done = env(r#"{"id":4,"event":"cancelled","data":"so far","sessionId":"s"}"#);
        let end = read_result::<method::Chat>(&done).unwrap();
        assert_eq!(
            (end.outcome, end.text.as_str()),
            (TurnOutcome::Cancelled, "so far")
        );

        let wrong = env(r#"{"id":5,"event":"pong","data":""}"#);
        assert!(matches!(
            read_result::<method::SessionNew>(&wrong),
            Err(ClientError::BadResult { .. })
        ));
    }

    #[test]
    fn a_json_result_reads_as_the_callers_own_view() {
        #[derive(Debug, serde::Deserialize)]
        struct Ids {
            id: String,
        }
        let list = env(r#"{"id":1,"event":"result","data":"{\"id\":\"s1\",\"more\":1}"}"#);
        let ids = read_result_as::<method::SessionTimeline, Ids>(&list).unwrap();
        assert_eq!(ids.id, "s1");
        let e = env(
            r#"{"id":1,"event":"error","data":"Unknown method","details":{"code":"unknown_method"}}"#,
        );
        let err = read_result_as::<method::SessionTimeline, Ids>(&e).unwrap_err();
        assert_eq!(err.code(), Some(ErrorCode::UnknownMethod));
        let wrong = env(r#"{"id":1,"event":"result","data":"[]"}"#);
        assert!(matches!(
            read_result_as::<method::SessionTimeline, Ids>(&wrong),
            Err(ClientError::BadResult { .. })
        ));
    }

    #[test]
    fn error_envelopes_carry_their_code() {
        let e = env(
            r#"{"id":1,"event":"error","data":"params.id is required","details":{"code":"invalid_request","param":"id"}}"#,
        );
        let err = read_result::<method::SessionGet>(&e).unwrap_err();
        assert_eq!(err.code(), Some(ErrorCode::InvalidRequest));
        let ClientError::Daemon(d) = err else {
            unreachable!()
        };
        assert_eq!(
            (d.message.as_str(), d.param.as_deref()),
            ("params.id is required", Some("id"))
        );

        let newer =
            env(r#"{"id":1,"event":"error","data":"x","details":{"code":"from_the_future"}}"#);
        assert_eq!(newer.as_error().unwrap().code, None);
        let old = env(r#"{"id":1,"event":"error","data":"x"}"#);
        assert_eq!(old.as_error().unwrap().code, None);
    }

    #[test]
    fn details_read_only_for_their_event() {
        let e = env(
            r#"{"id":1,"event":"tool_start","data":"bash","details":{"callId":"c1","summary":"ls"}}"#,
        );
        assert_eq!(e.details_as::<ToolStartDetails>().unwrap().call_id, "c1");
        let other = Event {
            event: "tool_done".into(),
            ..e
        };
        assert!(other.details_as::<ToolStartDetails>().is_none());
    }
}
