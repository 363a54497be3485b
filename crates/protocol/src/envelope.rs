use std::borrow::Cow;

use serde::Serialize;
use serde_json::Value;

use crate::error::MethodError;
use crate::events::{ErrorDetails, EventDetails, event};

/// One response line: `{id, event, data, sessionId?, details?, seq?}` in exactly this key order.
/// `data` is always a string; structured results are JSON encoded into it.
#[derive(Debug, Clone, PartialEq)]
pub struct Envelope {
    /// The request's id; 0 for broadcasts and unparseable lines.
    pub id: i64,
    /// Event names are almost always static; `Cow` keeps the hot path allocation-free.
    pub event: Cow<'static, str>,
    data: Data,
    /// The turn's session; not written when absent or blank.
    pub session_id: Option<String>,
    /// The event's structured details; not written when absent.
    pub details: Option<Value>,
    /// A session's turn event's place in its stream (ours, additive: a
    /// watcher resumes after it); not written when absent.
    pub seq: Option<u64>,
}

/// The `data` string, either as text or as a JSON document serialized straight
/// into its escaped (string-content) form, so a large result is encoded in one pass.
#[derive(Debug, Clone, PartialEq)]
enum Data {
    Text(String),
    EscapedJson(Vec<u8>),
}

/// Appends JSON text produced by serde_json to `out` as JSON string contents.
/// serde_json escapes control bytes inside strings and its pretty output adds only
/// `\n` and spaces, so `"`, `\\` and `\n` are the only bytes to escape.
fn escape_json_into(json: &[u8], out: &mut Vec<u8>) {
    out.reserve(json.len() + json.len() / 4);
    let mut rest = json;
    while let Some(i) = memchr::memchr3(b'"', b'\\', b'\n', rest) {
        out.extend_from_slice(&rest[..i]);
        out.extend_from_slice(match rest[i] {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            _ => b"\\n",
        });
        rest = &rest[i + 1..];
    }
    out.extend_from_slice(rest);
}

/// A serde_json formatter that writes JSON directly in its escaped form (as the
/// contents of a JSON string): the quotes and escapes of the document get one
/// more level of escaping, everything else is written as is. One pass, no copy.
struct Escaped;

impl serde_json::ser::Formatter for Escaped {
    fn begin_string<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        w.write_all(b"\\\"")
    }

    fn end_string<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        w.write_all(b"\\\"")
    }

    fn write_char_escape<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        escape: serde_json::ser::CharEscape,
    ) -> std::io::Result<()> {
        use serde_json::ser::CharEscape::*;
        match escape {
            Quote => w.write_all(b"\\\\\\\""),
            ReverseSolidus => w.write_all(b"\\\\\\\\"),
            Solidus => w.write_all(b"\\\\/"),
            Backspace => w.write_all(b"\\\\b"),
            FormFeed => w.write_all(b"\\\\f"),
            LineFeed => w.write_all(b"\\\\n"),
            CarriageReturn => w.write_all(b"\\\\r"),
            Tab => w.write_all(b"\\\\t"),
            AsciiControl(byte) => write!(w, "\\\\u{byte:04x}"),
        }
    }

    fn write_raw_fragment<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        fragment: &str,
    ) -> std::io::Result<()> {
        let mut escaped = Vec::with_capacity(fragment.len() + 16);
        escape_json_into(fragment.as_bytes(), &mut escaped);
        w.write_all(&escaped)
    }
}

/// [`Escaped`], indented as serde_json's (and .NET's) pretty writer does:
/// two spaces per level, `": "` between key and value, line breaks written
/// as their escape. Used for long lists, so it stays one pass.
struct EscapedPretty {
    level: usize,
    has_value: bool,
}

impl EscapedPretty {
    fn line<W: ?Sized + std::io::Write>(&self, w: &mut W) -> std::io::Result<()> {
        // An escaped line break and up to 16 levels of indent in one write.
        const LINE: &[u8; 34] = b"\\n                                ";
        match LINE.get(..2 + 2 * self.level) {
            Some(line) => w.write_all(line),
            None => {
                w.write_all(LINE)?;
                (16..self.level).try_for_each(|_| w.write_all(b"  "))
            }
        }
    }

    fn open<W: ?Sized + std::io::Write>(&mut self, w: &mut W, b: &[u8]) -> std::io::Result<()> {
        self.level += 1;
        self.has_value = false;
        w.write_all(b)
    }

    fn close<W: ?Sized + std::io::Write>(&mut self, w: &mut W, b: &[u8]) -> std::io::Result<()> {
        self.level -= 1;
        if self.has_value {
            self.line(w)?;
        }
        w.write_all(b)
    }

    fn item<W: ?Sized + std::io::Write>(&mut self, w: &mut W, first: bool) -> std::io::Result<()> {
        if !first {
            w.write_all(b",")?;
        }
        self.line(w)
    }
}

impl serde_json::ser::Formatter for EscapedPretty {
    fn begin_array<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.open(w, b"[")
    }

    fn end_array<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.close(w, b"]")
    }

    fn begin_array_value<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.item(w, first)
    }

    fn end_array_value<W: ?Sized + std::io::Write>(&mut self, _: &mut W) -> std::io::Result<()> {
        self.has_value = true;
        Ok(())
    }

    fn begin_object<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.open(w, b"{")
    }

    fn end_object<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.close(w, b"}")
    }

    fn begin_object_key<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.item(w, first)
    }

    fn begin_object_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        w.write_all(b": ")
    }

    fn end_object_value<W: ?Sized + std::io::Write>(&mut self, _: &mut W) -> std::io::Result<()> {
        self.has_value = true;
        Ok(())
    }

    fn begin_string<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        Escaped.begin_string(w)
    }

    fn end_string<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        Escaped.end_string(w)
    }

    fn write_char_escape<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        escape: serde_json::ser::CharEscape,
    ) -> std::io::Result<()> {
        Escaped.write_char_escape(w, escape)
    }

    fn write_raw_fragment<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        fragment: &str,
    ) -> std::io::Result<()> {
        Escaped.write_raw_fragment(w, fragment)
    }
}

/// Serializes `value` as compact JSON, already escaped as string contents, onto `out`.
fn write_escaped_json(out: &mut Vec<u8>, value: &impl Serialize) -> serde_json::Result<()> {
    let mut ser = serde_json::Serializer::with_formatter(out, Escaped);
    value.serialize(&mut ser)
}

fn blank(s: &Option<String>) -> bool {
    s.as_deref().is_none_or(|s| s.trim().is_empty())
}

impl Envelope {
    /// An envelope with plain-text `data`, no session and no details.
    pub fn new(id: i64, event: impl Into<Cow<'static, str>>, data: impl Into<String>) -> Self {
        Envelope {
            id,
            event: event.into(),
            data: Data::Text(data.into()),
            session_id: None,
            details: None,
            seq: None,
        }
    }

    /// The `data` string as a client reads it.
    pub fn data(&self) -> Cow<'_, str> {
        match &self.data {
            Data::Text(t) => Cow::Borrowed(t),
            Data::EscapedJson(raw) => {
                let mut quoted = Vec::with_capacity(raw.len() + 2);
                quoted.push(b'"');
                quoted.extend_from_slice(raw);
                quoted.push(b'"');
                Cow::Owned(serde_json::from_slice(&quoted).unwrap_or_default())
            }
        }
    }

    fn json(id: i64, value: &impl Serialize, pretty: bool) -> Self {
        let mut raw = Vec::new();
        let res = if pretty {
            let formatter = EscapedPretty {
                level: 0,
                has_value: false,
            };
            value.serialize(&mut serde_json::Serializer::with_formatter(
                &mut raw, formatter,
            ))
        } else {
            write_escaped_json(&mut raw, value)
        };
        match res {
            Ok(()) => Envelope {
                data: Data::EscapedJson(raw),
                ..Self::new(id, event::RESULT, "")
            },
            Err(e) => Self::error(
                id,
                &MethodError::internal(format!("cannot encode result: {e}")),
            ),
        }
    }

    /// A `result` with plain-text `data`.
    pub fn result(id: i64, data: impl Into<String>) -> Self {
        Self::new(id, event::RESULT, data)
    }

    /// A `result` whose data is `value` encoded as compact JSON.
    pub fn json_result<T: Serialize>(id: i64, value: &T) -> Self {
        Self::json(id, value, false)
    }

    /// A `result` whose data is `value` encoded as indented JSON (the original
    /// serializes session header lists this way and clients tolerate either).
    pub fn pretty_result<T: Serialize>(id: i64, value: &T) -> Self {
        Self::json(id, value, true)
    }

    /// The `error` envelope of a failed request: `data` is the message,
    /// `details` its code (and the parameter to blame).
    pub fn error(id: i64, err: &MethodError) -> Self {
        Self::error_with(
            id,
            err,
            &ErrorDetails {
                code: err.code,
                param: err.param.clone(),
                ended: None,
                answer: None,
                cause: None,
            },
        )
    }

    /// An `error` envelope with the given details.
    pub fn error_with(id: i64, err: &MethodError, details: &ErrorDetails) -> Self {
        Envelope {
            id,
            event: Cow::Borrowed(event::ERROR),
            data: Data::Text(err.message.clone()),
            session_id: err.session_id.clone(),
            // Plain data: serializing it cannot fail.
            details: serde_json::to_value(details).ok(),
            seq: None,
        }
    }

    /// An event envelope with typed details: the event name comes from the type.
    pub fn event<T: EventDetails>(id: i64, data: impl Into<String>, details: &T) -> Self {
        Self::new(id, T::EVENT, data).with_details_of(details)
    }

    /// Sets `sessionId` (a blank one is not written).
    pub fn with_session(mut self, session_id: Option<String>) -> Self {
        self.session_id = session_id;
        self
    }

    /// Sets `seq` (a session stream's event).
    pub fn with_seq(mut self, seq: Option<u64>) -> Self {
        self.seq = seq;
        self
    }

    /// Sets `details`.
    pub fn with_details(mut self, details: Value) -> Self {
        self.details = Some(details);
        self
    }

    /// Sets `details` to `details` serialized (field order kept).
    pub fn with_details_of<T: Serialize>(self, details: &T) -> Self {
        match serde_json::to_value(details) {
            Ok(value) => self.with_details(value),
            Err(e) => Self::error(
                self.id,
                &MethodError::internal(format!("cannot encode details: {e}")),
            ),
        }
    }

    /// Whether the event ends its request.
    pub fn is_terminal(&self) -> bool {
        event::is_terminal(&self.event)
    }

    /// Serializes the envelope as one JSONL line (with the trailing `\n`).
    pub fn to_line(&self) -> Vec<u8> {
        let len = match &self.data {
            Data::Text(t) => t.len(),
            Data::EscapedJson(raw) => raw.len(),
        };
        let mut buf = Vec::with_capacity(64 + len);
        self.write_line(&mut buf);
        buf
    }

    /// Appends the envelope as one JSONL line (with the trailing `\n`) to `buf`.
    /// Written field by field (same bytes as the derived form): this runs for every
    /// answer and every streamed event.
    pub fn write_line(&self, buf: &mut Vec<u8>) {
        let data = match &self.data {
            Data::Text(text) => DataRef::Text(text),
            Data::EscapedJson(raw) => DataRef::EscapedJson(raw),
        };
        let session = self
            .session_id
            .as_deref()
            .filter(|_| !blank(&self.session_id));
        Line {
            id: self.id,
            event: &self.event,
            data,
            session,
            details: self.details.as_ref(),
            seq: self.seq,
        }
        .write(buf);
    }
}

/// Appends the line `Envelope::new(id, event, text).with_session(Some(session)).with_seq(seq)`
/// writes, without building the envelope: streamed text (deltas, thinking)
/// takes this path once per event.
pub fn write_text_line(
    buf: &mut Vec<u8>,
    (id, event): (i64, &str),
    text: &str,
    session: &str,
    seq: Option<u64>,
) {
    Line {
        id,
        event,
        data: DataRef::Text(text),
        session: (!session.trim().is_empty()).then_some(session),
        details: None,
        seq,
    }
    .write(buf);
}

enum DataRef<'a> {
    Text(&'a str),
    EscapedJson(&'a [u8]),
}

/// The parts of one envelope line, borrowed.
struct Line<'a> {
    id: i64,
    event: &'a str,
    data: DataRef<'a>,
    session: Option<&'a str>,
    details: Option<&'a Value>,
    seq: Option<u64>,
}

impl Line<'_> {
    fn write(&self, buf: &mut Vec<u8>) {
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
        serde_json::to_writer(&mut *buf, self.event)?;
        buf.extend_from_slice(b",\"data\":");
        match self.data {
            DataRef::Text(text) => serde_json::to_writer(&mut *buf, text)?,
            DataRef::EscapedJson(raw) => {
                buf.reserve(raw.len() + 2);
                buf.push(b'"');
                buf.extend_from_slice(raw);
                buf.push(b'"');
            }
        }
        if let Some(session) = self.session {
            buf.extend_from_slice(b",\"sessionId\":");
            serde_json::to_writer(&mut *buf, session)?;
        }
        if let Some(details) = self.details {
            buf.extend_from_slice(b",\"details\":");
            serde_json::to_writer(&mut *buf, details)?;
        }
        if let Some(seq) = self.seq {
            buf.extend_from_slice(b",\"seq\":");
            serde_json::to_writer(&mut *buf, &seq)?;
        }
        buf.push(b'}');
        Ok(())
    }
}

/// Builds a `result` whose data is a JSON array, one element at a time, already
/// in its escaped form: large lists are encoded while they are read.
#[derive(Debug, Default)]
pub struct JsonArrayBuilder {
    raw: Vec<u8>,
    count: usize,
    /// Indented as .NET's writer does (2 spaces per level).
    pretty: bool,
}

impl JsonArrayBuilder {
    /// An empty array written compact.
    pub fn new() -> Self {
        JsonArrayBuilder {
            raw: vec![b'['],
            count: 0,
            pretty: false,
        }
    }

    /// An array written indented (`data` holds line breaks), as the reference
    /// writes `SessionHeader` lists.
    pub fn indented() -> Self {
        JsonArrayBuilder {
            pretty: true,
            ..Self::new()
        }
    }

    /// Appends one element.
    pub fn push<T: Serialize>(&mut self, item: &T) -> serde_json::Result<()> {
        if self.count > 0 {
            self.raw.push(b',');
        }
        self.count += 1;
        if !self.pretty {
            return write_escaped_json(&mut self.raw, item);
        }
        // Each element one level in, written pretty and escaped in one pass.
        self.raw.extend_from_slice(b"\\n  ");
        let mut ser = serde_json::Serializer::with_formatter(
            &mut self.raw,
            EscapedPretty {
                level: 1,
                has_value: false,
            },
        );
        item.serialize(&mut ser)
    }

    /// Elements pushed so far.
    pub fn len(&self) -> usize {
        self.count
    }

    /// Whether nothing was pushed.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// The `result` envelope of request `id` carrying the array.
    pub fn into_result(mut self, id: i64) -> Envelope {
        if self.raw.is_empty() {
            self.raw.push(b'[');
        }
        if self.pretty && self.count > 0 {
            self.raw.extend_from_slice(b"\\n");
        }
        self.raw.push(b']');
        Envelope {
            data: Data::EscapedJson(self.raw),
            ..Envelope::new(id, event::RESULT, "")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_text_line_is_the_envelope_line() {
        for (text, session) in [
            ("tok1 ", "s-1"),
            ("quote \" back\\slash\nnew line \u{1} é", "s-2"),
            ("", "s-3"),
            ("x", ""),
            ("x", "  "),
        ] {
            for seq in [None, Some(1_765_000_000_000_001)] {
                let mut fast = Vec::new();
                write_text_line(&mut fast, (42, "delta"), text, session, seq);
                let env = Envelope::new(42, "delta", text)
                    .with_session(Some(session.to_string()))
                    .with_seq(seq);
                assert_eq!(fast, env.to_line(), "{text:?} {session:?}");
            }
        }
    }

    #[test]
    fn a_seq_comes_last_and_only_when_set() {
        let env = Envelope::new(3, "delta", "hi")
            .with_session(Some("s".into()))
            .with_details(serde_json::json!({"a": 1}))
            .with_seq(Some(17));
        assert_eq!(
            String::from_utf8(env.to_line()).unwrap(),
            "{\"id\":3,\"event\":\"delta\",\"data\":\"hi\",\"sessionId\":\"s\",\"details\":{\"a\":1},\"seq\":17}\n"
        );
    }

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
            let line = env.to_line();
            assert_eq!(line.last(), Some(&b'\n'));
            let parsed: serde_json::Value = serde_json::from_slice(&line).unwrap();
            assert_eq!(parsed["id"], env.id);
            assert_eq!(parsed["event"], env.event.as_ref());
            assert_eq!(parsed["data"], env.data().as_ref());
            let has_session = env
                .session_id
                .as_deref()
                .is_some_and(|s| !s.trim().is_empty());
            assert_eq!(parsed.get("sessionId").is_some(), has_session);
        }
    }

    #[test]
    fn one_pass_escaping_equals_escaping_the_json_text() {
        let raw = serde_json::value::RawValue::from_string(r#"{"r":"a\"b"}"#.into()).unwrap();
        let value = serde_json::json!({
            "s": "quote \" backslash \\ slash / nl \n cr \r tab \t bell \u{7} ✓ \u{1F600}",
            "n": [1, -2.5, null, true],
            "raw": raw,
        });
        let mut one = Vec::new();
        write_escaped_json(&mut one, &value).unwrap();
        let mut two = Vec::new();
        escape_json_into(serde_json::to_string(&value).unwrap().as_bytes(), &mut two);
        assert_eq!(
            String::from_utf8(one).unwrap(),
            String::from_utf8(two).unwrap()
        );
    }

    #[test]
    fn array_builder_matches_json_result() {
        let items = vec![
            serde_json::json!({"a": "x\"y"}),
            serde_json::json!([1, "\\"]),
        ];
        let mut b = JsonArrayBuilder::new();
        for i in &items {
            b.push(i).unwrap();
        }
        assert_eq!(b.into_result(3), Envelope::json_result(3, &items));
        assert_eq!(JsonArrayBuilder::new().into_result(1).data(), "[]");
    }

    #[test]
    fn json_results_are_strings() {
        let value = serde_json::json!({"a": 1, "s": "q\"\\\n\u{1}✓", "list": [null, true, 1.5]});
        let env = Envelope::json_result(4, &value);
        assert_eq!(env.data(), serde_json::to_string(&value).unwrap());
        let line: serde_json::Value = serde_json::from_slice(&env.to_line()).unwrap();
        let inner: serde_json::Value =
            serde_json::from_str(line["data"].as_str().unwrap()).unwrap();
        assert_eq!(inner, value);
        let pretty = Envelope::pretty_result(4, &value);
        assert!(pretty.data().contains('\n'));
        let line: serde_json::Value = serde_json::from_slice(&pretty.to_line()).unwrap();
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(line["data"].as_str().unwrap()).unwrap(),
            value
        );
    }

    #[test]
    fn an_indented_array_reads_back_as_dotnet_writes_it() {
        let mut list = JsonArrayBuilder::indented();
        list.push(&serde_json::json!({"id": "a\"b", "n": [1, 2]}))
            .unwrap();
        list.push(&serde_json::json!({"id": "c"})).unwrap();
        let data = list.into_result(1).data().into_owned();
        assert_eq!(
            data,
            "[\n  {\n    \"id\": \"a\\\"b\",\n    \"n\": [\n      1,\n      2\n    ]\n  },\n  {\n    \"id\": \"c\"\n  }\n]"
        );
        assert_eq!(JsonArrayBuilder::indented().into_result(1).data(), "[]");
        // Deeper than the one-write indent: still pretty and the same value.
        let mut deep = serde_json::json!(1);
        for _ in 0..20 {
            deep = serde_json::json!([deep]);
        }
        let mut list = JsonArrayBuilder::indented();
        list.push(&deep).unwrap();
        let data = list.into_result(1).data().into_owned();
        assert!(data.contains(&format!("\n{}1\n", "  ".repeat(21))));
        let back: serde_json::Value = serde_json::from_str(&data).unwrap();
        assert_eq!(back, serde_json::json!([deep]));
    }

    #[test]
    fn a_pretty_result_is_serde_json_pretty_output() {
        let value = serde_json::json!({"refs": ["tk/m1", "a\"b"], "empty": [], "o": {}});
        let env = Envelope::pretty_result(1, &value);
        assert_eq!(env.data(), serde_json::to_string_pretty(&value).unwrap());
    }
}
