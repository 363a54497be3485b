//! The OpenSeek session file (reference §5.2): a header line
//! `{"version":1,"id":…,"system_prompt":…}`, then one
//! `{"sequence","ts","item":{"kind","payload"}}` per line. `seekclaw sessions
//! export` writes it and `import` reads it leniently (§5.4).
//!
//! Our items map onto OpenSeek's kinds; what OpenSeek has no field for travels
//! as extra payload fields, which OpenSeek readers ignore, so export → import →
//! export is byte-identical:
//!
//! | ours | `kind` | payload (extras after the OpenSeek fields) |
//! |---|---|---|
//! | `user` | `user` | `content`, `images`? (`id`, `name`, `media_type`, `size_bytes`, `data` base64) |
//! | `steer` | `user` | as `user`, plus `"steer": true` (OpenSeek records prompt steers as user items too) |
//! | `assistant` | `assistant` | `content`, `tool_calls` [`id`, `name`, `arguments`], `reasoning_content`?, `thinking_signature`?, `model_ref`?, `viewed_images`? (`id`, `name`), `finish_reason`? |
//! | `tool_result` | `tool_result` | `tool_call_id`, `tool_name`, `content`, `is_error` (= not success), `brief`? (the row the call showed; read from `summary` too), `diff`?, `file_path`?, `duration_ms`?, `silent`? |
//! | `runtime` | `runtime_notice` | `content`, `notice_kind`? (ours: `repair`, `warning`, …; left out for `continuation`) |
//! | `summary` | `summary` | `content`, `from_sequence`, `to_sequence` |
//! | `terminal` | `terminal` | `kind` (`finished`, `aborted`, `interrupted`, `failed`), `message`; `answer_sequence`? |
//!
//! Our turns store their final answer as an assistant message and repeat it in
//! the terminal; OpenSeek keeps a plain final answer only in the terminal and
//! replays a non-blank `finished` message as an assistant message. A terminal
//! repeating the assistant message right before it carries the answer in its
//! `message` (what OpenSeek readers show) and `answer_sequence` naming that
//! message (so our reader stores the answer once, as our turns do). A file
//! whose terminal has `answer_sequence` and an empty `message` (written
//! before the message carried it) reads its answer from the named message.
//!
//! Reading keeps a file's events exactly: same sequences, same items, no
//! event added. An OpenSeek final answer that lives only in its terminal is
//! stored so and shown as an assistant message by the projections
//! (`replays_as_answer`), so export → import → export is byte-identical.
//!
//! Optional fields are left out when absent. A `runtime_notice` without
//! `notice_kind` (written by OpenSeek, whose model reads every notice as a user
//! message) is read as a `continuation`, the kind our turns also show the
//! model, and a `continuation` is written without one.
//! Reading is strict about kinds and field types (unknown kinds, unknown
//! terminal kinds, a missing `content` are errors, as in OpenSeek) and ignores
//! unknown fields.

use serde_json::{Map, Value, json};

use crate::items::{
    AssistantMessage, EventItem, ImageAttachment, RewindMarker, RuntimeNotice, SessionEvent,
    Summary, TerminalStatus, ToolCall, ToolResult, TurnTerminal, UserMessage, ViewedImage,
};

/// The only header version there is.
pub const SESSION_FILE_VERSION: u64 = 1;

/// The runtime notice kind given to an OpenSeek `runtime_notice` that names none.
const DEFAULT_NOTICE_KIND: &str = "continuation";

/// A session file that could not be read: the line (from 1) and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct SessionFileError {
    /// The offending line, counted from 1.
    pub line: usize,
    /// What is wrong with it.
    pub message: String,
}

/// A session file as read: its header and events.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionFile {
    /// The header's session id.
    pub id: String,
    /// The header's system prompt (may be empty).
    pub system_prompt: String,
    /// The events in order; `seq` is the file's `sequence`, contiguous from 1;
    /// `unix_ms` its `ts`; `turn` is always `None` (the format has no turns).
    pub events: Vec<SessionEvent>,
    /// An unterminated final line that did not decode and was left out (§5.4).
    pub skipped_tail: Option<SessionFileError>,
}

/// Whether `id` may name a session: not empty, at most 128 bytes, no `/`,
/// `\\` or NUL, not `.` or `..` (OpenSeek's rule and the daemon's).
pub fn is_valid_session_id(id: &str) -> bool {
    !(id.is_empty() || id.len() > 128 || id.contains(['/', '\\', '\0']) || id == "." || id == "..")
}

/// The header line, `\n`-terminated.
pub fn header_line(id: &str, system_prompt: &str) -> String {
    let header = json!({"version": SESSION_FILE_VERSION, "id": id, "system_prompt": system_prompt});
    format!("{header}\n")
}

/// One event's line, `\n`-terminated; `previous` is the event before it
/// (a terminal repeating the answer just before it refers to that answer).
pub fn event_line(event: &SessionEvent, previous: Option<&SessionEvent>) -> String {
    let (kind, mut payload) = encode_item(&event.item);
    if let (EventItem::Terminal(t), Some(prev)) = (&event.item, previous)
        && let EventItem::Assistant(a) = &prev.item
        && !t.text.is_empty()
        && a.text == t.text
        && let Value::Object(p) = &mut payload
    {
        p.insert("answer_sequence".into(), prev.seq.into());
    }
    let line = json!({
        "sequence": event.seq,
        "ts": event.unix_ms,
        "item": {"kind": kind, "payload": payload},
    });
    format!("{line}\n")
}

/// A whole session file: header and events.
pub fn encode_session_file(id: &str, system_prompt: &str, events: &[SessionEvent]) -> String {
    let mut out = header_line(id, system_prompt);
    let mut previous = None;
    for e in events {
        out.push_str(&event_line(e, previous));
        previous = Some(e);
    }
    out
}

/// The payload of an item and the OpenSeek kind it goes under.
fn encode_item(item: &EventItem) -> (&'static str, Value) {
    let mut p = Map::new();
    let kind = match item {
        EventItem::User(m) | EventItem::Steer(m) => {
            p.insert("content".into(), m.text.clone().into());
            if matches!(item, EventItem::Steer(_)) {
                p.insert("steer".into(), true.into());
            }
            if !m.images.is_empty() {
                let images = m.images.iter().map(|i| {
                    json!({"id": i.id, "name": i.name, "media_type": i.media_type,
                           "size_bytes": i.size_bytes, "data": i.data})
                });
                p.insert("images".into(), images.collect());
            }
            "user"
        }
        EventItem::Assistant(a) => {
            p.insert("content".into(), a.text.clone().into());
            let calls = a
                .tool_calls
                .iter()
                .map(|c| json!({"id": c.id, "name": c.name, "arguments": c.arguments_json}));
            p.insert("tool_calls".into(), calls.collect());
            let mut opt = |key: &str, v: &Option<String>| {
                if let Some(v) = v {
                    p.insert(key.into(), v.clone().into());
                }
            };
            opt("reasoning_content", &a.thinking);
            opt("thinking_signature", &a.thinking_signature);
            opt("model_ref", &a.model_ref);
            if !a.viewed_images.is_empty() {
                let viewed = a
                    .viewed_images
                    .iter()
                    .map(|v| json!({"id": v.id, "name": v.name}));
                p.insert("viewed_images".into(), viewed.collect());
            }
            if let Some(f) = &a.finish_reason {
                p.insert("finish_reason".into(), f.clone().into());
            }
            "assistant"
        }
        EventItem::ToolResult(t) => {
            p.insert("tool_call_id".into(), t.tool_call_id.clone().into());
            p.insert("tool_name".into(), t.tool_name.clone().into());
            p.insert("content".into(), t.output.clone().into());
            p.insert("is_error".into(), (!t.success).into());
            // The row the call showed: OpenSeek's `brief`.
            if let Some(s) = &t.summary {
                p.insert("brief".into(), s.clone().into());
            }
            if let Some(d) = &t.diff {
                p.insert("diff".into(), d.clone().into());
            }
            if let Some(f) = &t.file_path {
                p.insert("file_path".into(), f.clone().into());
            }
            // Ours; other readers skip these keys.
            if let Some(ms) = t.duration_ms {
                p.insert("duration_ms".into(), ms.into());
            }
            if t.silent {
                p.insert("silent".into(), true.into());
            }
            "tool_result"
        }
        EventItem::Runtime(r) => {
            p.insert("content".into(), r.text.clone().into());
            // Left out when it is what a notice without one reads as, so
            // OpenSeek's notices come back as they were.
            if r.kind != DEFAULT_NOTICE_KIND {
                p.insert("notice_kind".into(), r.kind.clone().into());
            }
            "runtime_notice"
        }
        // OpenSeek has no rewind: a notice it shows, with our marker in
        // keys other readers skip.
        EventItem::Rewind(r) => {
            let text = format!(
                "[the conversation was rewound to before event {}]",
                r.from_seq
            );
            p.insert("content".into(), text.into());
            p.insert("notice_kind".into(), REWIND_KIND.into());
            p.insert("rewind_from_sequence".into(), r.from_seq.into());
            if r.code {
                p.insert("rewind_code".into(), "true".into());
            }
            "runtime_notice"
        }
        // OpenSeek has no hooks either: a notice, the record kept whole.
        EventItem::Hook(h) => {
            let text = format!("[hook {} `{}`: {}]", h.event, h.command, h.decision);
            p.insert("content".into(), text.into());
            p.insert("notice_kind".into(), HOOK_KIND.into());
            p.insert(
                "hook_record".into(),
                serde_json::to_string(h).unwrap_or_default().into(),
            );
            "runtime_notice"
        }
        EventItem::Summary(s) => {
            p.insert("content".into(), s.text.clone().into());
            p.insert("from_sequence".into(), s.from_seq.into());
            p.insert("to_sequence".into(), s.to_seq.into());
            "summary"
        }
        EventItem::Terminal(t) => {
            p.insert("kind".into(), terminal_kind(t.status).into());
            p.insert("message".into(), t.text.clone().into());
            "terminal"
        }
    };
    (kind, Value::Object(p))
}

/// The `notice_kind` a hook run is written under.
const HOOK_KIND: &str = "hook";

/// The `notice_kind` a rewind marker is written under.
const REWIND_KIND: &str = "rewind";

fn terminal_kind(s: TerminalStatus) -> &'static str {
    match s {
        TerminalStatus::Finished => "finished",
        TerminalStatus::Aborted => "aborted",
        TerminalStatus::Interrupted => "interrupted",
        TerminalStatus::Failed => "failed",
    }
}

/// Reads a session file leniently (§5.4): blank lines are skipped; an
/// unterminated final line that does not decode is left out and reported in
/// [`SessionFile::skipped_tail`]; any other bad line, a missing or
/// unsupported header, or a sequence that does not follow on is an error
/// naming the line.
pub fn parse_session_file(bytes: &[u8]) -> Result<SessionFile, SessionFileError> {
    let mut lines = bytes.split(|b| *b == b'\n').enumerate().peekable();
    let mut header: Option<(String, String)> = None;
    let mut events: Vec<SessionEvent> = Vec::new();
    let mut skipped_tail = None;
    let mut last_line = 0;
    while let Some((index, raw)) = lines.next() {
        let line = index + 1;
        last_line = line;
        // The piece after the last `\n` (empty when the file ends with one).
        let unterminated = lines.peek().is_none();
        if raw.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let decoded = std::str::from_utf8(raw)
            .map_err(|e| format!("not UTF-8: {e}"))
            .and_then(|text| match &header {
                None => decode_header(text).map(Line::Header),
                Some(_) => decode_event(text).map(|e| Line::Event(Box::new(e))),
            });
        let decoded = match decoded {
            Ok(d) => d,
            Err(message) if unterminated && header.is_some() => {
                skipped_tail = Some(SessionFileError { line, message });
                continue;
            }
            Err(message) => return Err(SessionFileError { line, message }),
        };
        match decoded {
            Line::Header(h) => header = Some(h),
            Line::Event(event) => {
                let (mut e, answer_seq) = *event;
                if let Some(n) = answer_seq {
                    let answer = events.get((n as usize).wrapping_sub(1)).map(|a| &a.item);
                    let (Some(EventItem::Assistant(a)), EventItem::Terminal(t)) =
                        (answer, &mut e.item)
                    else {
                        return Err(SessionFileError {
                            line,
                            message: format!(
                                "terminal: \"answer_sequence\" {n} names no earlier assistant event"
                            ),
                        });
                    };
                    // Files from before the answer was carried in the
                    // message too left it empty.
                    if t.text.is_empty() {
                        t.text = a.text.clone();
                    }
                }
                let expected = events.len() as u64 + 1;
                if e.seq != expected {
                    return Err(SessionFileError {
                        line,
                        message: format!(
                            "sequence {} does not follow on (expected {expected})",
                            e.seq
                        ),
                    });
                }
                events.push(e);
            }
        }
    }
    let Some((id, system_prompt)) = header else {
        return Err(SessionFileError {
            line: last_line.max(1),
            message: "no header line (the file is empty)".into(),
        });
    };
    Ok(SessionFile {
        id,
        system_prompt,
        events,
        skipped_tail,
    })
}

enum Line {
    Header((String, String)),
    /// An event and, for a terminal repeating an earlier answer, that answer's sequence.
    /// Boxed: an event is much bigger than a header.
    Event(Box<(SessionEvent, Option<u64>)>),
}

/// A line's JSON object, or why not.
fn object(text: &str) -> Result<Map<String, Value>, String> {
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(m)) => Ok(m),
        Ok(_) => Err("not a JSON object".into()),
        Err(e) => Err(format!("invalid JSON: {e}")),
    }
}

fn decode_header(text: &str) -> Result<(String, String), String> {
    let mut h = object(text).map_err(|e| format!("header: {e}"))?;
    let version = h.get("version").and_then(Value::as_u64);
    if version != Some(SESSION_FILE_VERSION) {
        return Err(match h.get("version") {
            None => "no header (the first line has no \"version\")".into(),
            Some(v) => format!("unsupported version {v} (only 1 is read)"),
        });
    }
    let id = match h.remove("id") {
        Some(Value::String(id)) => id,
        _ => return Err("header: \"id\" must be a string".into()),
    };
    if !is_valid_session_id(&id) {
        return Err(format!("header: invalid session id {id:?}"));
    }
    let prompt = match h.remove("system_prompt") {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s,
        Some(_) => return Err("header: \"system_prompt\" must be a string".into()),
    };
    Ok((id, prompt))
}

fn decode_event(text: &str) -> Result<(SessionEvent, Option<u64>), String> {
    let mut line = object(text)?;
    let seq = line
        .get("sequence")
        .and_then(Value::as_u64)
        .ok_or("\"sequence\" must be a positive integer")?;
    let ts = line
        .get("ts")
        .and_then(Value::as_i64)
        .ok_or("\"ts\" must be an integer (unix ms)")?;
    let mut item = match line.remove("item") {
        Some(Value::Object(m)) => m,
        _ => return Err("\"item\" must be an object".into()),
    };
    let kind = match item.remove("kind") {
        Some(Value::String(k)) => k,
        _ => return Err("\"item.kind\" must be a string".into()),
    };
    let payload = match item.remove("payload") {
        Some(Value::Object(m)) => m,
        _ => return Err(format!("{kind}: \"payload\" must be an object")),
    };
    let mut payload = Payload {
        kind: &kind,
        map: payload,
    };
    let answer_seq = match kind.as_str() {
        "terminal" if payload.map.contains_key("answer_sequence") => {
            Some(payload.u64("answer_sequence")?)
        }
        _ => None,
    };
    let item = decode_item(&kind, payload)?;
    let event = SessionEvent {
        seq,
        unix_ms: ts,
        turn: None,
        item,
    };
    Ok((event, answer_seq))
}

/// A payload object with typed getters whose errors name the kind and field.
struct Payload<'a> {
    kind: &'a str,
    map: Map<String, Value>,
}

impl Payload<'_> {
    fn err(&self, field: &str, what: &str) -> String {
        format!("{}: \"{field}\" {what}", self.kind)
    }

    fn string(&mut self, field: &str) -> Result<String, String> {
        match self.map.remove(field) {
            Some(Value::String(s)) => Ok(s),
            None => Err(self.err(field, "is missing")),
            Some(_) => Err(self.err(field, "must be a string")),
        }
    }

    fn opt_string(&mut self, field: &str) -> Result<Option<String>, String> {
        match self.map.remove(field) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(_) => Err(self.err(field, "must be a string")),
        }
    }

    fn bool(&mut self, field: &str) -> Result<bool, String> {
        match self.map.remove(field) {
            None | Some(Value::Null) => Ok(false),
            Some(Value::Bool(b)) => Ok(b),
            Some(_) => Err(self.err(field, "must be a boolean")),
        }
    }

    fn u64(&mut self, field: &str) -> Result<u64, String> {
        match self.map.remove(field) {
            Some(v) => v
                .as_u64()
                .ok_or_else(|| self.err(field, "must be a non-negative integer")),
            None => Err(self.err(field, "is missing")),
        }
    }

    fn opt_u64(&mut self, field: &str) -> Result<Option<u64>, String> {
        match self.map.remove(field) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => v
                .as_u64()
                .map(Some)
                .ok_or_else(|| self.err(field, "must be a non-negative integer")),
        }
    }

    /// The objects of an array field (absent or null: none).
    fn objects(&mut self, field: &str) -> Result<Vec<Payload<'static>>, String> {
        let items = match self.map.remove(field) {
            None | Some(Value::Null) => return Ok(Vec::new()),
            Some(Value::Array(items)) => items,
            Some(_) => return Err(self.err(field, "must be an array")),
        };
        let label: &'static str = match field {
            "images" => "image",
            "tool_calls" => "tool call",
            _ => "viewed image",
        };
        items
            .into_iter()
            .map(|v| match v {
                Value::Object(map) => Ok(Payload { kind: label, map }),
                _ => Err(self.err(field, "must hold objects")),
            })
            .collect()
    }
}

fn decode_item(kind: &str, mut p: Payload<'_>) -> Result<EventItem, String> {
    Ok(match kind {
        "user" => {
            let text = p.string("content")?;
            let steer = p.bool("steer")?;
            let mut images = Vec::new();
            for mut i in p.objects("images")? {
                images.push(ImageAttachment {
                    id: i.string("id")?,
                    name: i.string("name")?,
                    media_type: i.string("media_type")?,
                    size_bytes: i.u64("size_bytes")?,
                    data: i.string("data")?,
                });
            }
            let m = UserMessage { text, images };
            if steer {
                EventItem::Steer(m)
            } else {
                EventItem::User(m)
            }
        }
        "assistant" => {
            let text = p.string("content")?;
            let mut tool_calls = Vec::new();
            for mut c in p.objects("tool_calls")? {
                tool_calls.push(ToolCall {
                    id: c.string("id")?,
                    name: c.string("name")?,
                    arguments_json: c.string("arguments")?,
                });
            }
            let mut viewed_images = Vec::new();
            for mut v in p.objects("viewed_images")? {
                viewed_images.push(ViewedImage {
                    id: v.string("id")?,
                    name: v.string("name")?,
                });
            }
            EventItem::Assistant(AssistantMessage {
                text,
                thinking: p.opt_string("reasoning_content")?,
                thinking_signature: p.opt_string("thinking_signature")?,
                model_ref: p.opt_string("model_ref")?,
                tool_calls,
                viewed_images,
                finish_reason: p.opt_string("finish_reason")?,
                // A session file carries no usage: no call of this home served it.
                usage: None,
            })
        }
        "tool_result" => EventItem::ToolResult(ToolResult {
            tool_call_id: p.string("tool_call_id")?,
            tool_name: p.string("tool_name")?,
            output: p.string("content")?,
            success: !p.bool("is_error")?,
            diff: p.opt_string("diff")?,
            file_path: p.opt_string("file_path")?,
            summary: match p.opt_string("brief")? {
                Some(brief) => Some(brief),
                // Files we wrote before the row was written as `brief`.
                None => p.opt_string("summary")?,
            },
            duration_ms: p.opt_u64("duration_ms")?,
            silent: p.bool("silent")?,
        }),
        "runtime_notice"
            if p.map.get("notice_kind").and_then(Value::as_str) == Some(REWIND_KIND) =>
        {
            EventItem::Rewind(RewindMarker {
                from_seq: p.u64("rewind_from_sequence")?,
                code: p.opt_string("rewind_code")?.as_deref() == Some("true"),
            })
        }
        "runtime_notice" if p.map.get("notice_kind").and_then(Value::as_str) == Some(HOOK_KIND) => {
            let record = p.string("hook_record")?;
            EventItem::Hook(serde_json::from_str(&record).map_err(|e| format!("hook_record: {e}"))?)
        }
        "runtime_notice" => EventItem::Runtime(RuntimeNotice {
            text: p.string("content")?,
            kind: p
                .opt_string("notice_kind")?
                .unwrap_or_else(|| DEFAULT_NOTICE_KIND.to_string()),
        }),
        "summary" => EventItem::Summary(Summary {
            text: p.string("content")?,
            from_seq: p.u64("from_sequence")?,
            to_seq: p.u64("to_sequence")?,
        }),
        "terminal" => {
            let status = match p.string("kind")?.as_str() {
                "finished" => TerminalStatus::Finished,
                "aborted" => TerminalStatus::Aborted,
                "interrupted" => TerminalStatus::Interrupted,
                "failed" => TerminalStatus::Failed,
                other => return Err(format!("terminal: unknown kind {other:?}")),
            };
            EventItem::Terminal(TurnTerminal {
                status,
                text: p.string("message")?,
            })
        }
        other => return Err(format!("unknown item kind {other:?}")),
    })
}

#[cfg(test)]
#[path = "session_file_tests.rs"]
mod tests;
