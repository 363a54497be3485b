//! Anthropic responses: SSE `message_*` / `content_block_*` events and whole
//! Message objects.

use serde::Deserialize;
use serde_json::Value;

use crate::error::ProviderError;
use crate::sse::SseEventRef;
use crate::types::{FinishReason, StreamEvent, TokenUsage};
use crate::wire::{Held, PendingCall, StreamDecoder, Text, cut_off, json_error, synthetic_call_id};

/// Every stream event shape in one struct, so a frame is parsed in one pass
/// without buffering (an internally tagged enum would buffer each frame).
#[derive(Deserialize)]
struct Frame<'a> {
    #[serde(rename = "type", default, borrow)]
    kind: Option<Text<'a>>,
    #[serde(default)]
    index: Option<usize>,
    #[serde(default)]
    message: Option<StartMessage>,
    #[serde(default, borrow)]
    content_block: Option<Block<'a>>,
    #[serde(default, borrow)]
    delta: Option<Delta<'a>>,
    #[serde(default)]
    usage: Option<WireUsage>,
    #[serde(default)]
    error: Option<Value>,
}

#[derive(Deserialize)]
struct StartMessage {
    #[serde(default)]
    usage: Option<WireUsage>,
}

#[derive(Deserialize)]
struct Block<'a> {
    #[serde(rename = "type", default, borrow)]
    kind: Option<Text<'a>>,
    #[serde(default, borrow)]
    id: Option<Text<'a>>,
    #[serde(default, borrow)]
    name: Option<Text<'a>>,
    #[serde(default)]
    input: Option<Value>,
    #[serde(default, borrow)]
    text: Option<Text<'a>>,
    #[serde(default, borrow)]
    thinking: Option<Text<'a>>,
    #[serde(default, borrow)]
    signature: Option<Text<'a>>,
}

/// `content_block_delta.delta` and `message_delta.delta` together.
#[derive(Deserialize)]
struct Delta<'a> {
    #[serde(rename = "type", default, borrow)]
    kind: Option<Text<'a>>,
    #[serde(default, borrow)]
    text: Option<Text<'a>>,
    #[serde(default, borrow)]
    thinking: Option<Text<'a>>,
    #[serde(default, borrow)]
    signature: Option<Text<'a>>,
    #[serde(default, borrow)]
    partial_json: Option<Text<'a>>,
    #[serde(default, borrow)]
    stop_reason: Option<Text<'a>>,
}

#[derive(Debug, Deserialize, Default, Clone, Copy)]
struct WireUsage {
    #[serde(default)]
    input_tokens: Option<u64>,
    #[serde(default)]
    output_tokens: Option<u64>,
    #[serde(default)]
    cache_read_input_tokens: Option<u64>,
    #[serde(default)]
    cache_creation_input_tokens: Option<u64>,
}

impl WireUsage {
    /// Later reports (message_delta) are cumulative: present fields replace.
    fn merge(&mut self, newer: WireUsage) {
        self.input_tokens = newer.input_tokens.or(self.input_tokens);
        self.output_tokens = newer.output_tokens.or(self.output_tokens);
        self.cache_read_input_tokens = newer
            .cache_read_input_tokens
            .or(self.cache_read_input_tokens);
        self.cache_creation_input_tokens = newer
            .cache_creation_input_tokens
            .or(self.cache_creation_input_tokens);
    }

    fn to_usage(self) -> TokenUsage {
        let input = self.input_tokens.unwrap_or(0);
        let read = self.cache_read_input_tokens.unwrap_or(0);
        let creation = self.cache_creation_input_tokens.unwrap_or(0);
        TokenUsage {
            // The counts are the server's; absurd ones must not overflow.
            total_input_tokens: input.saturating_add(read).saturating_add(creation),
            cached_input_tokens: read,
            cache_creation_input_tokens: creation,
            output_tokens: self.output_tokens.unwrap_or(0),
            // Anthropic counts thinking inside the output without a split.
            reasoning_tokens: 0,
        }
    }
}

/// `{"type":"error","error":{"type":…,"message":…}}`; overload, API and rate
/// errors are transient.
fn error_event(provider: &str, err: Option<&Value>) -> ProviderError {
    let kind = err
        .and_then(|e| e.get("type"))
        .and_then(Value::as_str)
        .unwrap_or("");
    let message = err
        .and_then(|e| e.get("message"))
        .and_then(Value::as_str)
        .map(str::to_string)
        .unwrap_or_else(|| match err {
            Some(e) => e.to_string(),
            None => "error event without details".to_string(),
        });
    let message = if kind.is_empty() {
        message
    } else {
        format!("{kind}: {message}")
    };
    ProviderError::Stream {
        provider: provider.to_string(),
        message,
        retryable: matches!(kind, "overloaded_error" | "api_error" | "rate_limit_error"),
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum BlockKind {
    Other,
    /// The ordinal of the tool call, and whether its arguments so far came
    /// from the start block's `input` (replaced by the first delta).
    Tool(usize, bool),
}

/// The block started under `index`; deltas go to the latest block, so the
/// search from the back ends at once.
fn block_mut(blocks: &mut [(usize, BlockKind)], index: usize) -> Option<&mut BlockKind> {
    blocks
        .iter_mut()
        .rev()
        .find(|(i, _)| *i == index)
        .map(|(_, kind)| kind)
}

/// Streaming decoder for Messages API events.
#[derive(Debug)]
pub struct AnthropicDecoder {
    provider: String,
    held: Held,
    usage: Option<WireUsage>,
    /// Content block index → what it is (the latest start of an index wins).
    /// Pairs, not a vector indexed by it: the index is the server's number,
    /// and a huge one must not size an allocation.
    blocks: Vec<(usize, BlockKind)>,
    done: bool,
}

impl AnthropicDecoder {
    pub fn new(provider: impl Into<String>) -> Self {
        AnthropicDecoder {
            provider: provider.into(),
            held: Held::default(),
            usage: None,
            blocks: Vec::new(),
            done: false,
        }
    }

    fn add_usage(&mut self, u: WireUsage) {
        self.usage.get_or_insert_with(WireUsage::default).merge(u);
    }

    fn flush(&mut self, out: &mut Vec<StreamEvent>) {
        // A tool without parameters streams no argument text; its input is `{}`.
        for call in &mut self.held.calls {
            if call.args.is_empty() {
                call.args.push_str("{}");
            }
        }
        if let Some(u) = self.usage.take() {
            self.held.usage = Some(u.to_usage());
        }
        self.held.flush(out);
    }

    fn block_start(&mut self, index: usize, block: Block<'_>, out: &mut Vec<StreamEvent>) {
        let kind = block.kind.as_ref().map_or("", |k| k.0.as_ref());
        let entry = match kind {
            "tool_use" => {
                let ordinal = self.held.calls.len();
                let id = Text::non_empty(block.id)
                    .map(|i| i.into_owned())
                    .unwrap_or_else(|| synthetic_call_id(ordinal));
                let name = Text::non_empty(block.name)
                    .map(|n| n.into_owned())
                    .unwrap_or_default();
                // Normally `{}` with the arguments following as deltas.
                let args = match block.input {
                    Some(Value::Object(m)) if !m.is_empty() => Value::Object(m).to_string(),
                    _ => String::new(),
                };
                out.push(StreamEvent::ToolCallStart {
                    index: ordinal,
                    id: id.clone(),
                    name: name.clone(),
                });
                if !args.is_empty() {
                    let delta = args.clone();
                    out.push(StreamEvent::ToolCallArgsDelta {
                        index: ordinal,
                        delta,
                    });
                }
                let prefilled = !args.is_empty();
                self.held.calls.push(PendingCall {
                    id,
                    name,
                    args,
                    started: true,
                    custom: false,
                });
                BlockKind::Tool(ordinal, prefilled)
            }
            "thinking" => {
                if let Some(t) = Text::non_empty(block.thinking) {
                    out.push(StreamEvent::ReasoningDelta(t.into_owned()));
                }
                if let Some(s) = Text::non_empty(block.signature) {
                    out.push(StreamEvent::ReasoningSignature(s.into_owned()));
                }
                BlockKind::Other
            }
            "text" => {
                if let Some(t) = Text::non_empty(block.text) {
                    out.push(StreamEvent::TextDelta(t.into_owned()));
                }
                BlockKind::Other
            }
            _ => BlockKind::Other,
        };
        match block_mut(&mut self.blocks, index) {
            Some(slot) => *slot = entry,
            None => self.blocks.push((index, entry)),
        }
    }

    fn block_delta(&mut self, index: usize, delta: Delta<'_>, out: &mut Vec<StreamEvent>) {
        let kind = delta.kind.as_ref().map_or("", |k| k.0.as_ref());
        match kind {
            "text_delta" => {
                if let Some(t) = Text::non_empty(delta.text) {
                    out.push(StreamEvent::TextDelta(t.into_owned()));
                }
            }
            "thinking_delta" => {
                if let Some(t) = Text::non_empty(delta.thinking) {
                    out.push(StreamEvent::ReasoningDelta(t.into_owned()));
                }
            }
            "signature_delta" => {
                if let Some(s) = Text::non_empty(delta.signature) {
                    out.push(StreamEvent::ReasoningSignature(s.into_owned()));
                }
            }
            "input_json_delta" => {
                let Some(&mut BlockKind::Tool(ordinal, prefilled)) =
                    block_mut(&mut self.blocks, index)
                else {
                    return;
                };
                let Some(piece) = Text::non_empty(delta.partial_json) else {
                    return;
                };
                if let Some(call) = self.held.calls.get_mut(ordinal) {
                    if prefilled {
                        call.args.clear();
                        if let Some(slot) = block_mut(&mut self.blocks, index) {
                            *slot = BlockKind::Tool(ordinal, false);
                        }
                    }
                    call.args.push_str(&piece);
                }
                out.push(StreamEvent::ToolCallArgsDelta {
                    index: ordinal,
                    delta: piece.into_owned(),
                });
            }
            _ => {}
        }
    }
}

impl StreamDecoder for AnthropicDecoder {
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
        if data.first() != Some(&b'{') {
            return Ok(());
        }
        let frame: Frame =
            serde_json::from_slice(data).map_err(|e| json_error(&self.provider, &e))?;
        let kind = match &frame.kind {
            Some(k) => k.0.as_ref(),
            None => event.unwrap_or(""),
        };
        let index = frame.index.unwrap_or(0);
        match kind {
            "message_start" => {
                if let Some(u) = frame.message.and_then(|m| m.usage) {
                    self.add_usage(u);
                }
            }
            "content_block_start" => {
                if let Some(block) = frame.content_block {
                    self.block_start(index, block, out);
                }
            }
            "content_block_delta" => {
                if let Some(delta) = frame.delta {
                    self.block_delta(index, delta, out);
                }
            }
            "message_delta" => {
                if let Some(reason) = frame.delta.and_then(|d| Text::non_empty(d.stop_reason)) {
                    self.held.finish = Some(FinishReason::from_wire(&reason));
                }
                if let Some(u) = frame.usage {
                    self.add_usage(u);
                }
            }
            "message_stop" => {
                self.done = true;
                self.flush(out);
            }
            "error" => return Err(error_event(&self.provider, frame.error.as_ref())),
            // ping, content_block_stop and event types newer than this code.
            _ => {}
        }
        Ok(())
    }

    fn finish(&mut self, out: &mut Vec<StreamEvent>) -> Result<(), ProviderError> {
        if !self.done && self.held.finish.is_none() && !self.held.flushed {
            return Err(cut_off(&self.provider));
        }
        self.done = true;
        self.flush(out);
        Ok(())
    }

    fn is_done(&self) -> bool {
        self.done
    }
}

#[derive(Deserialize)]
struct MessageBody {
    #[serde(rename = "type", default)]
    kind: Option<String>,
    #[serde(default)]
    content: Option<Vec<FullBlock>>,
    #[serde(default)]
    stop_reason: Option<String>,
    #[serde(default)]
    usage: Option<WireUsage>,
    #[serde(default)]
    error: Option<Value>,
}

#[derive(Deserialize)]
struct FullBlock {
    #[serde(rename = "type", default)]
    kind: String,
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    thinking: Option<String>,
    #[serde(default)]
    signature: Option<String>,
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    input: Option<Value>,
}

/// A whole Message object, as the same events a stream would give.
pub(crate) fn parse_completion(
    provider: &str,
    body: &[u8],
) -> Result<Vec<StreamEvent>, ProviderError> {
    let msg: MessageBody = serde_json::from_slice(body).map_err(|e| json_error(provider, &e))?;
    if msg.kind.as_deref() == Some("error") || msg.error.is_some() {
        return Err(error_event(provider, msg.error.as_ref()));
    }
    let Some(content) = msg.content else {
        return Err(ProviderError::InvalidResponse {
            provider: provider.to_string(),
            message: "the message has no content".to_string(),
        });
    };
    let mut out = Vec::new();
    let mut held = Held::default();
    for block in content {
        match block.kind.as_str() {
            "thinking" => {
                if let Some(t) = block.thinking.filter(|t| !t.is_empty()) {
                    out.push(StreamEvent::ReasoningDelta(t));
                }
                if let Some(s) = block.signature.filter(|s| !s.is_empty()) {
                    out.push(StreamEvent::ReasoningSignature(s));
                }
            }
            "text" => {
                if let Some(t) = block.text.filter(|t| !t.is_empty()) {
                    out.push(StreamEvent::TextDelta(t));
                }
            }
            "tool_use" => {
                let index = held.calls.len();
                let id = block
                    .id
                    .filter(|i| !i.is_empty())
                    .unwrap_or_else(|| synthetic_call_id(index));
                let name = block.name.unwrap_or_default();
                let args = match block.input {
                    Some(v @ Value::Object(_)) => v.to_string(),
                    _ => "{}".to_string(),
                };
                out.push(StreamEvent::ToolCallStart {
                    index,
                    id: id.clone(),
                    name: name.clone(),
                });
                out.push(StreamEvent::ToolCallArgsDelta {
                    index,
                    delta: args.clone(),
                });
                held.calls.push(PendingCall {
                    id,
                    name,
                    args,
                    started: true,
                    custom: false,
                });
            }
            _ => {}
        }
    }
    held.usage = msg.usage.map(WireUsage::to_usage);
    held.finish = msg
        .stop_reason
        .filter(|r| !r.is_empty())
        .map(|r| FinishReason::from_wire(&r));
    held.flush(&mut out);
    Ok(out)
}
