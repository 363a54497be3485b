//! What the scripted server answers: a wire format, a script of steps and faults.

use std::time::Duration;

use serde_json::Value;

use super::{anthropic, openai};

/// The provider wire format of a reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wire {
    /// OpenAI-compatible `chat.completions` (DeepSeek, Kimi, OpenRouter, Ollama, ...).
    OpenAi,
    /// Anthropic `messages`.
    Anthropic,
}

/// Whether the body is an SSE stream or one JSON object.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BodyMode {
    /// SSE when the request body has `"stream": true`, else a JSON completion
    /// (the real APIs' default is non-streaming).
    #[default]
    Auto,
    /// Always SSE, e.g. a gateway that streams although `stream:false` was asked.
    Sse,
    /// Always one JSON completion object.
    Json,
}

/// One step of a scripted answer. Neutral: rendered per wire format.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// A reasoning delta (`reasoning_content` / Anthropic `thinking_delta`).
    Reasoning(String),
    /// A text delta.
    Text(String),
    /// A tool call; `arguments` (JSON text) is split across several chunks,
    /// the name travels in the first one.
    ToolCall {
        id: String,
        name: String,
        arguments: String,
    },
    /// Token usage. `input` counts every prompt token including the `cached`
    /// ones (OpenAI `prompt_tokens`); Anthropic gets `input_tokens = input - cached`
    /// and `cache_read_input_tokens = cached`.
    Usage {
        input: u64,
        cached: u64,
        output: u64,
    },
    /// The finish reason. OpenAI and Anthropic names are translated for the
    /// other wire (`stop`<->`end_turn`, `tool_calls`<->`tool_use`, `length`<->`max_tokens`);
    /// anything else is sent verbatim.
    Finish(String),
    /// Literal bytes sent as one SSE chunk where they stand (e.g. `"data: oops\n\n"`,
    /// an Anthropic `event: error`). Ignored in JSON mode.
    Raw(String),
}

/// An HTTP error answer instead of a completion.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct StatusReply {
    pub code: u16,
    pub body: Value,
    pub retry_after: Option<u64>,
}

/// A scripted answer to one completion request. Build with the methods below;
/// `Reply::default()` is an empty script (only the framing events are sent).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Reply {
    pub(crate) wire: Option<Wire>,
    pub(crate) mode: BodyMode,
    pub(crate) steps: Vec<Step>,
    pub(crate) status: Option<StatusReply>,
    pub(crate) headers: Vec<(String, String)>,
    pub(crate) header_delay: Duration,
    pub(crate) chunk_delay: Duration,
    pub(crate) stall_after: Option<usize>,
    pub(crate) reset_after: Option<usize>,
    pub(crate) keepalive: Option<Duration>,
    pub(crate) split_utf8: bool,
    pub(crate) args_chunk_chars: Option<usize>,
    pub(crate) flood: Option<(String, usize)>,
    /// Taken only by a request whose body contains this text.
    pub(crate) matching: Option<String>,
    /// Held until the server has received this many requests in all.
    pub(crate) after_requests: Option<usize>,
}

/// Default size of the pieces tool-call arguments are cut into.
pub(crate) const ARGS_CHUNK_CHARS: usize = 8;

impl Reply {
    /// An empty script; add steps with the builder methods.
    pub fn new() -> Reply {
        Reply::default()
    }

    /// A plain text answer: `Text(text)` then `Finish("stop")`.
    pub fn plain(text: impl Into<String>) -> Reply {
        Reply::new().text(text).finish("stop")
    }

    /// An HTTP error answer; see [`Reply::status`].
    pub fn http_error(code: u16, body: Value, retry_after: Option<u64>) -> Reply {
        Reply::new().status(code, body, retry_after)
    }

    pub fn step(mut self, step: Step) -> Reply {
        self.steps.push(step);
        self
    }

    pub fn reasoning(self, text: impl Into<String>) -> Reply {
        self.step(Step::Reasoning(text.into()))
    }

    pub fn text(self, text: impl Into<String>) -> Reply {
        self.step(Step::Text(text.into()))
    }

    pub fn tool_call(
        self,
        id: impl Into<String>,
        name: impl Into<String>,
        arguments: impl Into<String>,
    ) -> Reply {
        self.step(Step::ToolCall {
            id: id.into(),
            name: name.into(),
            arguments: arguments.into(),
        })
    }

    pub fn usage(self, input: u64, cached: u64, output: u64) -> Reply {
        self.step(Step::Usage {
            input,
            cached,
            output,
        })
    }

    pub fn finish(self, reason: impl Into<String>) -> Reply {
        self.step(Step::Finish(reason.into()))
    }

    pub fn raw(self, chunk: impl Into<String>) -> Reply {
        self.step(Step::Raw(chunk.into()))
    }

    /// Forces the wire format instead of choosing it from the request path.
    pub fn wire(mut self, wire: Wire) -> Reply {
        self.wire = Some(wire);
        self
    }

    /// Forces SSE or JSON instead of following the request's `stream` flag.
    pub fn mode(mut self, mode: BodyMode) -> Reply {
        self.mode = mode;
        self
    }

    /// Answers `code` with `body` instead of a completion, plus `Retry-After: secs`.
    /// A `Value::String` body is sent as plain text (an HTML gateway page, say),
    /// anything else as JSON.
    pub fn status(mut self, code: u16, body: Value, retry_after: Option<u64>) -> Reply {
        self.status = Some(StatusReply {
            code,
            body,
            retry_after,
        });
        self
    }

    /// An extra response header.
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Reply {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// Waits this long before sending the response headers (response-header timeouts).
    /// Answers only a request whose body contains `needle` (such a reply is
    /// preferred over the queue's unmatched ones): concurrent requests get
    /// their own replies whatever order they arrive in.
    pub fn when_body_contains(mut self, needle: impl Into<String>) -> Reply {
        self.matching = Some(needle.into());
        self
    }

    /// Holds the answer until the server has received `n` requests in all
    /// (at most 10 s, then it answers anyway): proves requests overlap.
    pub fn after_requests(mut self, n: usize) -> Reply {
        self.after_requests = Some(n);
        self
    }

    pub fn header_delay(mut self, delay: Duration) -> Reply {
        self.header_delay = delay;
        self
    }

    /// Waits this long before every body chunk (slow deltas).
    pub fn chunk_delay(mut self, delay: Duration) -> Reply {
        self.chunk_delay = delay;
        self
    }

    /// Sends `n` chunks, then nothing more while keeping the connection open
    /// (until the client goes away or the server is dropped). A chunk is one SSE
    /// event; in JSON mode the body is two chunks (its halves).
    pub fn stall_after(mut self, n: usize) -> Reply {
        self.stall_after = Some(n);
        self
    }

    /// Sends `n` chunks, then aborts the body: HTTP/1.1 closes the connection
    /// without the terminating chunk, HTTP/2 resets the stream. The client must
    /// see an error, never a clean end.
    pub fn reset_after(mut self, n: usize) -> Reply {
        self.reset_after = Some(n);
        self
    }

    /// Sends an SSE comment `: ping` every `every` while waiting (chunk delays, stalls).
    pub fn keepalive_comments(mut self, every: Duration) -> Reply {
        self.keepalive = Some(every);
        self
    }

    /// Splits every multi-byte UTF-8 character inside a chunk across separate
    /// writes (a short pause between the parts so they leave as separate segments).
    pub fn split_utf8(mut self) -> Reply {
        self.split_utf8 = true;
        self
    }

    /// Size in characters of the pieces tool-call arguments are cut into (default 8).
    pub fn args_chunk_chars(mut self, n: usize) -> Reply {
        self.args_chunk_chars = Some(n.max(1));
        self
    }

    /// Streams `times` more text deltas of `text` right after the opening
    /// chunk, made as they are sent: an answer of any size (say 120 MB) without
    /// holding it in memory. OpenAI SSE only (ignored otherwise).
    pub fn text_flood(mut self, text: impl Into<String>, times: usize) -> Reply {
        self.flood = Some((text.into(), times));
        self
    }

    /// The SSE events of this script for `wire`, each a complete event ending in a
    /// blank line, as the server sends them (one body chunk each). Useful to build
    /// recorded streams for parser tests and benchmarks.
    pub fn render_sse(&self, wire: Wire, model: &str) -> Vec<String> {
        let ids = ResponseIds::fixed(model);
        match wire {
            Wire::OpenAi => openai::sse_events(self, &ids),
            Wire::Anthropic => anthropic::sse_events(self, &ids),
        }
    }

    /// The non-streaming completion object of this script for `wire`.
    pub fn render_json(&self, wire: Wire, model: &str) -> Value {
        let ids = ResponseIds::fixed(model);
        match wire {
            Wire::OpenAi => openai::completion(self, &ids),
            Wire::Anthropic => anthropic::message(self, &ids),
        }
    }

    pub(crate) fn args_chunk(&self) -> usize {
        self.args_chunk_chars.unwrap_or(ARGS_CHUNK_CHARS)
    }

    /// The finish reason of the script, if it has one (the last wins).
    pub(crate) fn finish_reason(&self) -> Option<&str> {
        self.steps.iter().rev().find_map(|s| match s {
            Step::Finish(r) => Some(r.as_str()),
            _ => None,
        })
    }

    pub(crate) fn has_tool_calls(&self) -> bool {
        self.steps
            .iter()
            .any(|s| matches!(s, Step::ToolCall { .. }))
    }

    /// The last usage step as (input, cached, output).
    pub(crate) fn usage_totals(&self) -> Option<(u64, u64, u64)> {
        self.steps.iter().rev().find_map(|s| match s {
            Step::Usage {
                input,
                cached,
                output,
            } => Some((*input, *cached, *output)),
            _ => None,
        })
    }
}

/// Identity of one response: completion id and the model it claims to be.
#[derive(Debug, Clone)]
pub(crate) struct ResponseIds {
    pub id: String,
    pub model: String,
}

impl ResponseIds {
    pub fn fixed(model: &str) -> ResponseIds {
        ResponseIds {
            id: "testkit-0".to_string(),
            model: model.to_string(),
        }
    }
}

/// Finish reason as OpenAI spells it.
pub(crate) fn openai_reason(reason: &str) -> &str {
    match reason {
        "end_turn" | "stop_sequence" => "stop",
        "tool_use" => "tool_calls",
        "max_tokens" => "length",
        other => other,
    }
}

/// Finish reason as Anthropic spells it.
pub(crate) fn anthropic_reason(reason: &str) -> &str {
    match reason {
        "stop" => "end_turn",
        "tool_calls" => "tool_use",
        "length" => "max_tokens",
        other => other,
    }
}

/// Cuts `s` into pieces of at most `n` characters (never inside a character).
pub(crate) fn split_chars(s: &str, n: usize) -> Vec<String> {
    let chars: Vec<char> = s.chars().collect();
    chars
        .chunks(n.max(1))
        .map(|c| c.iter().collect::<String>())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reasons_translate_both_ways() {
        assert_eq!(anthropic_reason("stop"), "end_turn");
        assert_eq!(anthropic_reason("tool_calls"), "tool_use");
        assert_eq!(openai_reason("max_tokens"), "length");
        assert_eq!(openai_reason("content_filter"), "content_filter");
    }

    #[test]
    fn split_chars_keeps_characters_whole() {
        assert_eq!(
            split_chars("{\"a\":\"é\"}", 4),
            vec!["{\"a\"", ":\"é\"", "}"]
        );
        assert_eq!(split_chars("", 4), Vec::<String>::new());
    }

    #[test]
    fn builder_collects_steps_in_order() {
        let r = Reply::new()
            .reasoning("r")
            .text("t")
            .usage(10, 4, 2)
            .finish("stop");
        assert_eq!(r.steps.len(), 4);
        assert_eq!(r.finish_reason(), Some("stop"));
        assert_eq!(r.usage_totals(), Some((10, 4, 2)));
        assert!(!r.has_tool_calls());
    }
}
