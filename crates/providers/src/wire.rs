//! The provider-neutral face of the wire layer: a built HTTP request, the
//! stream-decoder trait, and dispatch on `provider.kind`.

use std::fmt;
use std::sync::Arc;

use serde::{Serialize, Serializer};
use serde_json::Value;

use crate::error::ProviderError;
use crate::reasoning::Target;
use crate::sse::{SseDecoder, SseEventRef};
use crate::types::{ChatRequest, StreamEvent, TokenUsage, ToolCall};
use crate::{anthropic, openai};

/// One HTTP POST, ready for the transport: send `body` and `tools` as one JSON
/// object ([`WireRequest::encode`]; the transport sets `content-type`) with
/// `headers` (auth, version, the provider's own).
#[derive(Clone, PartialEq)]
pub struct WireRequest {
    /// Where to POST.
    pub url: String,
    /// Header names and values.
    pub headers: Vec<(String, String)>,
    /// The JSON body without its `tools`.
    pub body: Value,
    /// The body's `tools` array (left out when empty). Most of a request's
    /// bytes are tool schemas: they are encoded straight from the shared
    /// schemas instead of being copied into a JSON tree at every step.
    pub tools: Vec<WireTool>,
    /// Whether `body` asks for an SSE stream (if not, expect one JSON object,
    /// or SSE anyway from some gateways: see [`parse_completion`]).
    pub stream: bool,
}

/// A tool in a request body, in its provider's shape.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum WireTool {
    /// OpenAI: `{"type": "function", "function": {name, description, parameters}}`.
    Function {
        #[serde(rename = "type")]
        kind: &'static str,
        function: FunctionSpec,
    },
    /// OpenAI's freeform tool: `{"type": "custom", "custom": {name,
    /// description, format: {type: "grammar", grammar: {syntax, definition}}}}`.
    Custom {
        #[serde(rename = "type")]
        kind: &'static str,
        custom: Value,
    },
    /// Anthropic: `{name, description, input_schema, cache_control?}`.
    Input {
        name: String,
        description: String,
        #[serde(serialize_with = "shared")]
        input_schema: Arc<Value>,
        #[serde(skip_serializing_if = "Option::is_none")]
        cache_control: Option<Value>,
    },
}

/// The `function` of an OpenAI tool.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FunctionSpec {
    pub name: String,
    pub description: String,
    #[serde(serialize_with = "shared")]
    pub parameters: Arc<Value>,
}

fn shared<S: Serializer>(value: &Arc<Value>, s: S) -> Result<S::Ok, S::Error> {
    value.as_ref().serialize(s)
}

impl WireRequest {
    /// The body as it is sent: `body` with `tools` as its last member.
    pub fn encode(&self) -> serde_json::Result<Vec<u8>> {
        let mut out = serde_json::to_vec(&self.body)?;
        if self.tools.is_empty() || out.last() != Some(&b'}') {
            return Ok(out);
        }
        // The object's closing brace makes way for the tools.
        out.pop();
        if out.len() > 1 {
            out.push(b',');
        }
        out.extend_from_slice(b"\"tools\":");
        serde_json::to_writer(&mut out, &self.tools)?;
        out.push(b'}');
        Ok(out)
    }

    /// The body as it is sent, as a JSON tree.
    #[cfg(test)]
    pub(crate) fn json(&self) -> Value {
        let mut body = self.body.clone();
        if let Value::Object(map) = &mut body
            && !self.tools.is_empty()
        {
            let tools = serde_json::to_value(&self.tools).unwrap_or_default();
            map.insert("tools".into(), tools);
        }
        body
    }

    /// The value of a header (case-insensitive name).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// Headers that carry credentials; their values never reach a log.
pub fn is_secret_header(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    lower == "authorization"
        || lower == "proxy-authorization"
        || lower == "cookie"
        || lower.contains("key")
        || lower.contains("token")
        || lower.contains("secret")
}

impl fmt::Debug for WireRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        struct Headers<'a>(&'a [(String, String)]);
        impl fmt::Debug for Headers<'_> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_map()
                    .entries(self.0.iter().map(|(n, v)| {
                        let shown = if is_secret_header(n) { "<redacted>" } else { v };
                        (n, shown)
                    }))
                    .finish()
            }
        }
        f.debug_struct("WireRequest")
            .field("url", &self.url)
            .field("headers", &Headers(&self.headers))
            .field("body", &self.body)
            .field("tools", &self.tools.len())
            .field("stream", &self.stream)
            .finish()
    }
}

/// Turns SSE events of one response into [`StreamEvent`]s.
///
/// Events are appended to a caller-owned `Vec` rather than returned, so the
/// hot path (one text delta per SSE event) allocates no vector per event; the
/// caller drains and reuses it.
///
/// Deltas (reasoning, text, tool start/argument pieces) are emitted as they
/// arrive. Tool-call completions, usage and the finish reason are held until
/// the stream's end marker (`[DONE]` / `message_stop`) or [`finish`], and then
/// emitted in this order: every `ToolCallComplete` in index order, one
/// `Usage` (if the provider reported any), `Finish` (if it gave a reason).
/// Tool-call `index` is the call's ordinal within this response (0, 1, …),
/// not the provider's wire index.
///
/// [`finish`]: StreamDecoder::finish
pub trait StreamDecoder: Send {
    /// Decodes one SSE event (comments are ignored). After the end marker
    /// further events are ignored. Takes the borrowed form so events can come
    /// straight from [`SseDecoder::feed`] without a copy; an owned
    /// [`crate::sse::SseEvent`] converts with `(&ev).into()`.
    fn on_event(
        &mut self,
        ev: SseEventRef<'_>,
        out: &mut Vec<StreamEvent>,
    ) -> Result<(), ProviderError>;

    /// The byte stream ended. Flushes what is held back (once). A stream that
    /// ended before its end marker and without a finish reason was cut off:
    /// that is a retryable [`ProviderError::Stream`].
    fn finish(&mut self, out: &mut Vec<StreamEvent>) -> Result<(), ProviderError>;

    /// The end marker was seen; the transport may stop reading.
    fn is_done(&self) -> bool;
}

fn kind_of(target: &Target) -> Result<Kind, ProviderError> {
    let kind = target.provider.kind.trim();
    if kind.eq_ignore_ascii_case("openai") {
        Ok(Kind::OpenAi)
    } else if kind.eq_ignore_ascii_case("anthropic") {
        Ok(Kind::Anthropic)
    } else {
        Err(ProviderError::Config(format!(
            "Unknown provider kind '{}' for provider '{}' (expected \"openai\" or \"anthropic\")",
            target.provider.kind, target.provider.id
        )))
    }
}

enum Kind {
    OpenAi,
    Anthropic,
}

/// Maps a neutral request to the target provider's HTTP request.
pub fn build_request(target: &Target, req: &ChatRequest) -> Result<WireRequest, ProviderError> {
    match kind_of(target)? {
        Kind::OpenAi => Ok(openai::build_request(target, req)),
        Kind::Anthropic => Ok(anthropic::build_request(target, req)),
    }
}

/// A fresh stream decoder for one response of `target`.
pub fn decoder(target: &Target) -> Result<Box<dyn StreamDecoder>, ProviderError> {
    let provider = target.provider.id.clone();
    Ok(match kind_of(target)? {
        Kind::OpenAi => Box::new(openai::OpenAiDecoder::new(provider)),
        Kind::Anthropic => Box::new(anthropic::AnthropicDecoder::new(provider)),
    })
}

/// Decodes a complete (non-streamed) response body. A body that is SSE after
/// all (a gateway that streams although `stream:false` was asked) is decoded
/// as a stream.
pub fn parse_completion(target: &Target, body: &[u8]) -> Result<Vec<StreamEvent>, ProviderError> {
    let kind = kind_of(target)?;
    if looks_like_sse(body) {
        let mut parser = StreamParser::new(target)?;
        let mut out = Vec::new();
        parser.push(body, &mut out)?;
        parser.finish(&mut out)?;
        return Ok(out);
    }
    let provider = &target.provider.id;
    match kind {
        Kind::OpenAi => openai::parse_completion(provider, body),
        Kind::Anthropic => anthropic::parse_completion(provider, body),
    }
}

/// Bytes of one streamed response in, [`StreamEvent`]s out: the SSE decoder
/// and the provider's [`StreamDecoder`] joined with no intermediate copies.
pub struct StreamParser {
    sse: SseDecoder,
    events: Box<dyn StreamDecoder>,
}

impl StreamParser {
    /// A parser for one response of `target`; fails for a provider kind it cannot decode.
    pub fn new(target: &Target) -> Result<Self, ProviderError> {
        Ok(StreamParser {
            sse: SseDecoder::new(),
            events: decoder(target)?,
        })
    }

    /// Decodes one network chunk, appending its events to `out`.
    pub fn push(&mut self, chunk: &[u8], out: &mut Vec<StreamEvent>) -> Result<(), ProviderError> {
        let events = &mut self.events;
        self.sse.feed(chunk, |ev| events.on_event(ev, out))
    }

    /// The body ended: flushes both decoders (see [`StreamDecoder::finish`]).
    pub fn finish(&mut self, out: &mut Vec<StreamEvent>) -> Result<(), ProviderError> {
        let events = &mut self.events;
        self.sse.finish_with(|ev| events.on_event(ev, out))?;
        self.events.finish(out)
    }

    /// The provider's end marker was seen.
    pub fn is_done(&self) -> bool {
        self.events.is_done()
    }
}

fn looks_like_sse(body: &[u8]) -> bool {
    let body = body.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(body);
    let start = body
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(body.len());
    let body = &body[start..];
    body.starts_with(b"data:") || body.starts_with(b"event:") || body.starts_with(b":")
}

/// A body that is not JSON at all (cut off, an HTML error page) is worth a
/// retry; JSON of the wrong shape is not.
pub(crate) fn json_error(provider: &str, err: &serde_json::Error) -> ProviderError {
    if err.is_syntax() || err.is_eof() {
        ProviderError::Stream {
            provider: provider.to_string(),
            message: format!("invalid JSON: {err}"),
            retryable: true,
        }
    } else {
        ProviderError::InvalidResponse {
            provider: provider.to_string(),
            message: err.to_string(),
        }
    }
}

pub(crate) fn cut_off(provider: &str) -> ProviderError {
    ProviderError::Stream {
        provider: provider.to_string(),
        message: "the stream ended before the response was complete".to_string(),
        retryable: true,
    }
}

/// `base` + `path` with exactly one slash between them; `path` is not added
/// twice when `base` already ends with it.
pub(crate) fn join_url(base: &str, path: &str) -> String {
    let base = base.trim().trim_end_matches('/');
    if base.ends_with(path) {
        base.to_string()
    } else {
        format!("{base}{path}")
    }
}

/// Fixed headers, then the provider's custom `headers`, which replace a
/// fixed header of the same name.
pub(crate) fn with_custom_headers(
    target: &Target,
    mut headers: Vec<(String, String)>,
) -> Vec<(String, String)> {
    for (name, value) in target.provider.headers.iter().flatten() {
        headers.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
        headers.push((name.clone(), value.clone()));
    }
    headers
}

/// A non-blank API key, if configured.
pub(crate) fn api_key<'a>(target: &Target<'a>) -> Option<&'a str> {
    target
        .provider
        .api_key
        .as_deref()
        .map(str::trim)
        .filter(|k| !k.is_empty())
}

/// A JSON string borrowed from the input when it has no escapes. A newtype
/// because serde only borrows a `Cow` that is a field's whole type, not one
/// inside an `Option`.
#[derive(Debug, serde::Deserialize)]
pub(crate) struct Text<'a>(#[serde(borrow)] pub std::borrow::Cow<'a, str>);

impl<'a> Text<'a> {
    /// `Some(text)` unless empty.
    pub fn non_empty(opt: Option<Text<'a>>) -> Option<std::borrow::Cow<'a, str>> {
        opt.map(|t| t.0).filter(|s| !s.is_empty())
    }
}

/// One tool call being assembled from stream pieces.
#[derive(Debug, Default)]
pub(crate) struct PendingCall {
    pub id: String,
    pub name: String,
    pub args: String,
    pub started: bool,
    /// A freeform (custom) call: `args` is `{"input":"` plus the escaped
    /// text so far, closed when the call completes.
    pub custom: bool,
}

/// What every decoder holds back until the end of the stream.
#[derive(Debug, Default)]
pub(crate) struct Held {
    pub calls: Vec<PendingCall>,
    pub usage: Option<TokenUsage>,
    pub finish: Option<crate::types::FinishReason>,
    pub flushed: bool,
}

impl Held {
    /// Emits completions in index order, then usage, then the finish reason;
    /// only the first call does anything.
    pub fn flush(&mut self, out: &mut Vec<StreamEvent>) {
        if self.flushed {
            return;
        }
        self.flushed = true;
        for (index, mut call) in self.calls.drain(..).enumerate() {
            if call.custom {
                call.args.push_str(CUSTOM_CLOSE);
                let delta = CUSTOM_CLOSE.to_string();
                out.push(StreamEvent::ToolCallArgsDelta { index, delta });
            }
            let id = if call.id.is_empty() {
                synthetic_call_id(index)
            } else {
                call.id
            };
            out.push(StreamEvent::ToolCallComplete {
                index,
                call: ToolCall {
                    id,
                    name: call.name,
                    arguments: call.args,
                },
            });
        }
        if let Some(u) = self.usage.take() {
            out.push(StreamEvent::Usage(u));
        }
        if let Some(f) = self.finish.take() {
            out.push(StreamEvent::Finish(f));
        }
    }
}

/// How a freeform call's text starts and ends as JSON arguments.
pub(crate) const CUSTOM_OPEN: &str = "{\"input\":\"";
pub(crate) const CUSTOM_CLOSE: &str = "\"}";

/// `text` escaped as the inside of a JSON string: pieces escaped one by one
/// join to the escape of the whole.
pub(crate) fn json_string_inside(text: &str) -> String {
    let quoted = serde_json::to_string(text).unwrap_or_default();
    quoted
        .strip_prefix('"')
        .and_then(|q| q.strip_suffix('"'))
        .unwrap_or_default()
        .to_string()
}

/// For servers that omit tool-call ids (some local ones); the id must only be
/// stable within the conversation we send back.
pub(crate) fn synthetic_call_id(index: usize) -> String {
    format!("call_{index}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use seekclaw_config::{Model, Provider};
    use serde_json::json;

    #[test]
    fn tools_are_encoded_last_into_the_body() {
        let schema = Arc::new(json!({"type": "object", "properties": {"p": {"type": "string"}}}));
        let tool = WireTool::Function {
            kind: "function",
            function: FunctionSpec {
                name: "read_file".into(),
                description: "Reads \"a\" file".into(),
                parameters: schema.clone(),
            },
        };
        let mut req = WireRequest {
            url: "http://x".into(),
            headers: Vec::new(),
            body: json!({"model": "m", "stream": true}),
            tools: vec![tool.clone(), tool],
            stream: true,
        };
        let bytes = req.encode().unwrap();
        let text = String::from_utf8(bytes.clone()).unwrap();
        assert!(
            text.starts_with(r#"{"model":"m","stream":true,"tools":[{"type":"function""#),
            "{text}"
        );
        let parsed: Value = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(parsed, req.json());
        assert_eq!(parsed["tools"][1]["function"]["parameters"], *schema);
        assert_eq!(
            parsed["tools"][0]["function"]["description"],
            "Reads \"a\" file"
        );
        // An empty body object still makes valid JSON; no tools, no member.
        req.body = json!({});
        assert_eq!(
            serde_json::from_slice::<Value>(&req.encode().unwrap()).unwrap(),
            json!({"tools": req.json()["tools"].clone()})
        );
        req.tools.clear();
        assert_eq!(req.encode().unwrap(), b"{}");
        assert_eq!(req.json(), json!({}));
    }

    #[test]
    fn debug_redacts_secrets() {
        let req = WireRequest {
            url: "https://api.example.com/v1/chat/completions".into(),
            headers: vec![
                ("Authorization".into(), "Bearer sk-secret-1".into()),
                ("x-api-key".into(), "sk-secret-2".into()),
                ("X-Goog-Api-Key".into(), "sk-secret-3".into()),
                ("X-Auth-Token".into(), "sk-secret-4".into()),
                ("anthropic-version".into(), "2023-06-01".into()),
                ("accept".into(), "application/json".into()),
            ],
            body: json!({"model": "m"}),
            tools: Vec::new(),
            stream: true,
        };
        let shown = format!("{req:?} {req:#?}");
        assert!(!shown.contains("sk-secret"), "{shown}");
        assert!(shown.contains("2023-06-01") && shown.contains("application/json"));
        assert_eq!(shown.matches("<redacted>").count(), 8);
        assert_eq!(req.header("AUTHORIZATION"), Some("Bearer sk-secret-1"));
    }

    #[test]
    fn unknown_kind_is_a_config_error() {
        let p = Provider {
            id: "g".into(),
            kind: "gemini".into(),
            ..Provider::default()
        };
        let m = Model::default();
        let t = Target::new(&p, &m);
        let err = build_request(&t, &ChatRequest::default()).unwrap_err();
        assert!(
            matches!(&err, ProviderError::Config(msg) if msg.contains("Unknown provider kind 'gemini'"))
        );
        assert!(decoder(&t).is_err());
        assert!(parse_completion(&t, b"{}").is_err());
        let p = Provider {
            kind: " Anthropic ".into(),
            ..p
        };
        assert!(build_request(&Target::new(&p, &m), &ChatRequest::default()).is_ok());
    }

    #[test]
    fn url_joining() {
        assert_eq!(
            join_url("https://a/v1/", "/chat/completions"),
            "https://a/v1/chat/completions"
        );
        assert_eq!(
            join_url("https://a/v1", "/chat/completions"),
            "https://a/v1/chat/completions"
        );
        assert_eq!(
            join_url("https://a/v1/chat/completions", "/chat/completions"),
            "https://a/v1/chat/completions"
        );
    }

    #[test]
    fn sse_sniffing() {
        assert!(looks_like_sse(b"data: {}"));
        assert!(looks_like_sse(b"\n\nevent: x"));
        assert!(looks_like_sse(b": comment\n"));
        assert!(!looks_like_sse(b"  {\"choices\":[]}"));
    }
}

#[cfg(test)]
#[path = "wire_proptests.rs"]
mod proptests;
