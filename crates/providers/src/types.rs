//! Provider-neutral request and stream types. Adapters turn a [`ChatRequest`] into
//! a wire body and a wire stream into [`StreamEvent`]s.

use seekclaw_config::ReasoningLevel;
use serde::{Deserialize, Serialize};

/// One model request, before it is mapped to a provider's wire format.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ChatRequest {
    pub system: String,
    pub messages: Vec<ChatMessage>,
    pub tools: Vec<ToolSpec>,
    /// Output cap; `None` uses the model's `maxOutput`.
    pub max_output: Option<u64>,
    pub temperature: Option<f64>,
    /// The requested neutral level; adapters clamp it to the model (see `reasoning`).
    pub reasoning: ReasoningLevel,
    /// `agent.thinkingBudgetTokens`, the base of the Anthropic budget formula.
    pub thinking_budget_tokens: u64,
}

/// A conversation message in neutral form.
#[derive(Debug, Clone, PartialEq)]
pub enum ChatMessage {
    User {
        text: String,
        /// Only the current turn's images are sent; history carries none.
        images: Vec<ImageData>,
    },
    Assistant {
        text: String,
        /// Reasoning of this step: passed back to DeepSeek/Kimi as `reasoning_content`
        /// and to Anthropic as a signed thinking block.
        thinking: Option<Thinking>,
        tool_calls: Vec<ToolCall>,
    },
    Tool {
        call_id: String,
        name: String,
        content: String,
        is_error: bool,
        images: Vec<ImageData>,
    },
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Thinking {
    pub text: String,
    /// Anthropic's signature of the thinking block (must be sent back unchanged).
    pub signature: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ImageData {
    /// `image/png`, `image/jpeg`, `image/webp` or `image/gif`.
    pub media_type: String,
    /// Base64 without a data-URL prefix.
    pub data_base64: String,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    /// The arguments as JSON text, exactly as the model produced them.
    pub arguments: String,
}

/// A tool offered to the model.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolSpec {
    pub name: String,
    pub description: String,
    /// JSON Schema of the arguments (an object schema), shared with the tool.
    pub parameters: std::sync::Arc<serde_json::Value>,
}

/// Token counts of one provider attempt.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TokenUsage {
    /// Every input token, cached or not (OpenAI `prompt_tokens`; Anthropic
    /// input + cache read + cache creation).
    pub total_input_tokens: u64,
    /// Input tokens read from the provider's prompt cache.
    pub cached_input_tokens: u64,
    /// Input tokens written to the prompt cache (Anthropic).
    pub cache_creation_input_tokens: u64,
    pub output_tokens: u64,
}

impl TokenUsage {
    /// Input billed at the plain input price.
    pub fn uncached_input_tokens(&self) -> u64 {
        self.total_input_tokens
            .saturating_sub(self.cached_input_tokens)
            .saturating_sub(self.cache_creation_input_tokens)
    }
}

/// Why the model stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FinishReason {
    Stop,
    ToolCalls,
    /// Output cap reached (`length`, `max_tokens`, `incomplete`): the turn continues.
    Length,
    ContentFilter,
    Other(String),
}

impl FinishReason {
    /// A stable name, as stored with an assistant step: the OpenAI wire
    /// names, or the provider's own for anything else.
    pub fn as_str(&self) -> &str {
        match self {
            FinishReason::Stop => "stop",
            FinishReason::ToolCalls => "tool_calls",
            FinishReason::Length => "length",
            FinishReason::ContentFilter => "content_filter",
            FinishReason::Other(raw) => raw,
        }
    }

    pub fn from_wire(raw: &str) -> FinishReason {
        match raw {
            "stop" | "end_turn" | "stop_sequence" => FinishReason::Stop,
            "tool_calls" | "tool_use" | "function_call" => FinishReason::ToolCalls,
            "length" | "max_tokens" | "incomplete" => FinishReason::Length,
            "content_filter" | "refusal" => FinishReason::ContentFilter,
            other => FinishReason::Other(other.to_string()),
        }
    }
}

/// What a provider stream yields, in order.
#[derive(Debug, Clone, PartialEq)]
pub enum StreamEvent {
    ReasoningDelta(String),
    /// Anthropic signature of the current thinking block.
    ReasoningSignature(String),
    TextDelta(String),
    /// A tool call is announced when its name first appears.
    ToolCallStart {
        index: usize,
        id: String,
        name: String,
    },
    ToolCallArgsDelta {
        index: usize,
        delta: String,
    },
    /// A finished call with its whole argument text; emitted in index order at the end.
    ToolCallComplete {
        index: usize,
        call: ToolCall,
    },
    Usage(TokenUsage),
    Finish(FinishReason),
}
