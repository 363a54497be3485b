//! OpenAI-compatible responses: SSE chunks and whole completion objects.

use serde::Deserialize;
use serde_json::Value;

use crate::error::ProviderError;
use crate::sse::SseEventRef;
use crate::types::{FinishReason, StreamEvent, TokenUsage};
use crate::wire::{
    CUSTOM_OPEN, Held, PendingCall, StreamDecoder, Text, cut_off, json_error, json_string_inside,
    synthetic_call_id,
};

#[derive(Deserialize)]
struct Chunk<'a> {
    #[serde(default, borrow)]
    choices: Option<Vec<Choice<'a>>>,
    #[serde(default)]
    usage: Option<WireUsage>,
    #[serde(default)]
    error: Option<Value>,
}

#[derive(Deserialize)]
struct Choice<'a> {
    #[serde(default, borrow)]
    delta: Option<Delta<'a>>,
    #[serde(default, borrow)]
    finish_reason: Option<Text<'a>>,
    /// Moonshot reports streamed usage inside the final choice.
    #[serde(default)]
    usage: Option<WireUsage>,
}

#[derive(Deserialize)]
struct Delta<'a> {
    #[serde(default, borrow)]
    content: Option<Text<'a>>,
    #[serde(default, borrow)]
    reasoning_content: Option<Text<'a>>,
    /// OpenRouter's name for the reasoning text.
    #[serde(default, borrow)]
    reasoning: Option<Text<'a>>,
    #[serde(default, borrow)]
    tool_calls: Option<Vec<ToolDelta<'a>>>,
}

#[derive(Deserialize)]
struct ToolDelta<'a> {
    #[serde(default)]
    index: Option<usize>,
    #[serde(default, borrow)]
    id: Option<Text<'a>>,
    #[serde(default, borrow)]
    function: Option<FunctionDelta<'a>>,
    /// A freeform (custom) tool's call: its name and raw input text.
    #[serde(default, borrow)]
    custom: Option<CustomDelta<'a>>,
}

#[derive(Deserialize)]
struct CustomDelta<'a> {
    #[serde(default, borrow)]
    name: Option<Text<'a>>,
    #[serde(default, borrow)]
    input: Option<Text<'a>>,
}

#[derive(Deserialize)]
struct FunctionDelta<'a> {
    #[serde(default, borrow)]
    name: Option<Text<'a>>,
    #[serde(default, borrow)]
    arguments: Option<Text<'a>>,
}

#[derive(Deserialize, Default)]
struct WireUsage {
    #[serde(default)]
    prompt_tokens: Option<u64>,
    #[serde(default)]
    completion_tokens: Option<u64>,
    /// DeepSeek.
    #[serde(default)]
    prompt_cache_hit_tokens: Option<u64>,
    /// Moonshot.
    #[serde(default)]
    cached_tokens: Option<u64>,
    /// OpenAI.
    #[serde(default)]
    prompt_tokens_details: Option<PromptDetails>,
    /// OpenAI (reasoning models).
    #[serde(default)]
    completion_tokens_details: Option<CompletionDetails>,
}

#[derive(Deserialize, Default)]
struct CompletionDetails {
    #[serde(default)]
    reasoning_tokens: Option<u64>,
}

#[derive(Deserialize, Default)]
struct PromptDetails {
    #[serde(default)]
    cached_tokens: Option<u64>,
}

impl WireUsage {
    fn to_usage(&self) -> TokenUsage {
        let cached = self
            .prompt_cache_hit_tokens
            .or(self.cached_tokens)
            .or_else(|| self.prompt_tokens_details.as_ref()?.cached_tokens)
            .unwrap_or(0);
        TokenUsage {
            total_input_tokens: self.prompt_tokens.unwrap_or(0),
            cached_input_tokens: cached,
            cache_creation_input_tokens: 0,
            output_tokens: self.completion_tokens.unwrap_or(0),
            reasoning_tokens: self
                .completion_tokens_details
                .as_ref()
                .and_then(|d| d.reasoning_tokens)
                .unwrap_or(0),
        }
    }
}

/// An `{"error": …}` frame or body. Retryable only when the provider says it
/// is overloaded or rate limited (or gives a retryable HTTP-like code).
fn error_frame(provider: &str, err: &Value) -> ProviderError {
    let message = err
        .get("message")
        .and_then(Value::as_str)
        .or_else(|| err.as_str())
        .map(str::to_string)
        .unwrap_or_else(|| err.to_string());
    let text = err.to_string().to_ascii_lowercase();
    let code_says = err
        .get("code")
        .and_then(Value::as_u64)
        .is_some_and(|c| matches!(c, 408 | 409 | 429) || c >= 500);
    let text_says = [
        "overloaded",
        "rate limit",
        "rate_limit",
        "ratelimit",
        "too many requests",
    ]
    .iter()
    .any(|w| text.contains(w));
    ProviderError::Stream {
        provider: provider.to_string(),
        message,
        retryable: code_says || text_says,
    }
}

/// Streaming decoder for `chat.completion.chunk` frames.
#[derive(Debug)]
pub struct OpenAiDecoder {
    provider: String,
    held: Held,
    /// Provider tool-call index → ordinal in `held.calls` (latest wins).
    wire_index: Vec<(usize, usize)>,
    done: bool,
}

impl OpenAiDecoder {
    pub fn new(provider: impl Into<String>) -> Self {
        OpenAiDecoder {
            provider: provider.into(),
            held: Held::default(),
            wire_index: Vec::new(),
            done: false,
        }
    }

    fn chunk(&mut self, chunk: Chunk<'_>, out: &mut Vec<StreamEvent>) {
        for choice in chunk.choices.into_iter().flatten() {
            if let Some(delta) = choice.delta {
                let reasoning = Text::non_empty(delta.reasoning_content)
                    .or_else(|| Text::non_empty(delta.reasoning));
                if let Some(r) = reasoning {
                    out.push(StreamEvent::ReasoningDelta(r.into_owned()));
                }
                if let Some(c) = Text::non_empty(delta.content) {
                    out.push(StreamEvent::TextDelta(c.into_owned()));
                }
                for td in delta.tool_calls.into_iter().flatten() {
                    self.tool_delta(td, out);
                }
            }
            if let Some(f) = Text::non_empty(choice.finish_reason) {
                self.held.finish = Some(FinishReason::from_wire(&f));
            }
            if let Some(u) = choice.usage {
                self.held.usage = Some(u.to_usage());
            }
        }
        if let Some(u) = chunk.usage {
            self.held.usage = Some(u.to_usage());
        }
    }

    fn tool_delta(&mut self, td: ToolDelta<'_>, out: &mut Vec<StreamEvent>) {
        let id = Text::non_empty(td.id);
        let custom = td.custom.is_some();
        let (name, args) = match (td.custom, td.function) {
            // Raw text, kept as the JSON arguments `{"input": …}` it stands for.
            (Some(c), _) => (
                Text::non_empty(c.name),
                Text::non_empty(c.input).map(|t| std::borrow::Cow::Owned(json_string_inside(&t))),
            ),
            (None, Some(f)) => (Text::non_empty(f.name), Text::non_empty(f.arguments)),
            (None, None) => (None, None),
        };
        let index = self.ordinal(td.index, id.as_deref(), name.as_deref());
        let Some(call) = self.held.calls.get_mut(index) else {
            return;
        };
        if custom && !call.custom {
            call.custom = true;
            call.args.insert_str(0, CUSTOM_OPEN);
            if call.started {
                let delta = CUSTOM_OPEN.to_string();
                out.push(StreamEvent::ToolCallArgsDelta { index, delta });
            }
        }
        if call.id.is_empty()
            && let Some(id) = id
        {
            call.id = id.into_owned();
        }
        if !call.started
            && let Some(name) = name
        {
            call.started = true;
            call.name = name.into_owned();
            let id = if call.id.is_empty() {
                synthetic_call_id(index)
            } else {
                call.id.clone()
            };
            let name = call.name.clone();
            out.push(StreamEvent::ToolCallStart { index, id, name });
            // Argument pieces that came before the name.
            if !call.args.is_empty() {
                let delta = call.args.clone();
                out.push(StreamEvent::ToolCallArgsDelta { index, delta });
            }
        }
        if let Some(args) = args {
            call.args.push_str(&args);
            if call.started {
                let delta = args.into_owned();
                out.push(StreamEvent::ToolCallArgsDelta { index, delta });
            }
        }
    }

    /// Which call a delta belongs to. By wire index normally; without one,
    /// by id, else the latest call. A different id or name than the call
    /// already has (or, without an index, any name once the call has one)
    /// starts a new call: some servers number every call 0 or omit `index`.
    fn ordinal(&mut self, wire: Option<usize>, id: Option<&str>, name: Option<&str>) -> usize {
        let calls = &self.held.calls;
        let existing = match (wire, id) {
            (Some(w), _) => self
                .wire_index
                .iter()
                .rev()
                .find(|(wi, _)| *wi == w)
                .map(|&(_, o)| o),
            (None, Some(id)) => calls.iter().position(|c| c.id == id),
            (None, None) => calls.len().checked_sub(1),
        };
        if let Some(o) = existing
            && let Some(c) = calls.get(o)
        {
            let same_id = id.is_none_or(|id| c.id.is_empty() || c.id == id);
            let same_name = match name {
                Some(n) if c.started => wire.is_some() && c.name == n,
                _ => true,
            };
            if same_id && same_name {
                return o;
            }
        }
        let o = calls.len();
        self.held.calls.push(PendingCall::default());
        if let Some(w) = wire {
            self.wire_index.push((w, o));
        }
        o
    }
}

impl StreamDecoder for OpenAiDecoder {
    fn on_event(
        &mut self,
        ev: SseEventRef<'_>,
        out: &mut Vec<StreamEvent>,
    ) -> Result<(), ProviderError> {
        let SseEventRef::Message { event, data } = ev else {
            return Ok(());
        };
        if self.done {
            return Ok(());
        }
        let data = data.trim_ascii();
        if data == b"[DONE]" {
            self.done = true;
            self.held.flush(out);
            return Ok(());
        }
        // Keep-alive and status frames some gateways send as data.
        if data.first() != Some(&b'{') {
            return Ok(());
        }
        let chunk: Chunk =
            serde_json::from_slice(data).map_err(|e| json_error(&self.provider, &e))?;
        if let Some(err) = &chunk.error {
            return Err(error_frame(&self.provider, err));
        }
        if event == Some("error") {
            let whole: Value = serde_json::from_slice(data).unwrap_or(Value::Null);
            return Err(error_frame(&self.provider, &whole));
        }
        self.chunk(chunk, out);
        Ok(())
    }

    fn finish(&mut self, out: &mut Vec<StreamEvent>) -> Result<(), ProviderError> {
        if !self.done && self.held.finish.is_none() && !self.held.flushed {
            return Err(cut_off(&self.provider));
        }
        self.done = true;
        self.held.flush(out);
        Ok(())
    }

    fn is_done(&self) -> bool {
        self.done
    }
}

#[derive(Deserialize)]
struct Completion {
    #[serde(default)]
    choices: Option<Vec<CompletionChoice>>,
    #[serde(default)]
    usage: Option<WireUsage>,
    #[serde(default)]
    error: Option<Value>,
}

#[derive(Deserialize)]
struct CompletionChoice {
    #[serde(default)]
    message: Option<CompletionMessage>,
    #[serde(default)]
    finish_reason: Option<String>,
}

#[derive(Deserialize)]
struct CompletionMessage {
    /// A string, or an array of `{type:"text", text}` parts.
    #[serde(default)]
    content: Option<Value>,
    #[serde(default)]
    reasoning_content: Option<String>,
    #[serde(default)]
    reasoning: Option<String>,
    #[serde(default)]
    tool_calls: Option<Vec<CompletionToolCall>>,
}

#[derive(Deserialize)]
struct CompletionToolCall {
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    function: Option<CompletionFunction>,
    #[serde(default)]
    custom: Option<CompletionCustom>,
}

/// A freeform (custom) tool's call.
#[derive(Deserialize)]
struct CompletionCustom {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    input: Option<String>,
}

#[derive(Deserialize)]
struct CompletionFunction {
    #[serde(default)]
    name: Option<String>,
    /// A JSON string per the API; some servers send the object itself.
    #[serde(default)]
    arguments: Option<Value>,
}

fn content_text(content: Option<Value>) -> String {
    match content {
        Some(Value::String(s)) => s,
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect(),
        _ => String::new(),
    }
}

/// A whole `chat.completion` object, as the same events a stream would give.
pub(crate) fn parse_completion(
    provider: &str,
    body: &[u8],
) -> Result<Vec<StreamEvent>, ProviderError> {
    let c: Completion = serde_json::from_slice(body).map_err(|e| json_error(provider, &e))?;
    if let Some(err) = &c.error {
        return Err(error_frame(provider, err));
    }
    let Some(choice) = c.choices.and_then(|cs| cs.into_iter().next()) else {
        return Err(ProviderError::InvalidResponse {
            provider: provider.to_string(),
            message: "the completion has no choices".to_string(),
        });
    };
    let mut out = Vec::new();
    let mut held = Held::default();
    if let Some(msg) = choice.message {
        let reasoning = msg
            .reasoning_content
            .filter(|r| !r.is_empty())
            .or(msg.reasoning.filter(|r| !r.is_empty()));
        if let Some(r) = reasoning {
            out.push(StreamEvent::ReasoningDelta(r));
        }
        let text = content_text(msg.content);
        if !text.is_empty() {
            out.push(StreamEvent::TextDelta(text));
        }
        for (index, tc) in msg.tool_calls.into_iter().flatten().enumerate() {
            let (name, args) = match (tc.custom, tc.function) {
                (Some(c), _) => (
                    c.name.unwrap_or_default(),
                    serde_json::json!({"input": c.input.unwrap_or_default()}).to_string(),
                ),
                (None, Some(f)) => {
                    let args = match f.arguments {
                        Some(Value::String(s)) => s,
                        Some(Value::Null) | None => String::new(),
                        Some(other) => other.to_string(),
                    };
                    (f.name.unwrap_or_default(), args)
                }
                (None, None) => (String::new(), String::new()),
            };
            let id = tc
                .id
                .filter(|i| !i.is_empty())
                .unwrap_or_else(|| synthetic_call_id(index));
            out.push(StreamEvent::ToolCallStart {
                index,
                id: id.clone(),
                name: name.clone(),
            });
            if !args.is_empty() {
                let delta = args.clone();
                out.push(StreamEvent::ToolCallArgsDelta { index, delta });
            }
            held.calls.push(PendingCall {
                id,
                name,
                args,
                started: true,
                custom: false,
            });
        }
    }
    held.usage = c.usage.map(|u| u.to_usage());
    held.finish = choice
        .finish_reason
        .filter(|f| !f.is_empty())
        .map(|f| FinishReason::from_wire(&f));
    held.flush(&mut out);
    Ok(out)
}

#[cfg(test)]
#[path = "decode_tests.rs"]
mod tests;
