//! Provider-neutral request and stream types. Adapters turn a [`ChatRequest`] into
//! a wire body and a wire stream into [`StreamEvent`]s.

use seekclaw_config::ReasoningLevel;
use serde::{Deserialize, Serialize};

/// One model request, before it is mapped to a provider's wire format.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ChatRequest {
    /// The system prompt.
    pub system: String,
    /// The conversation, oldest first.
    pub messages: Vec<ChatMessage>,
    /// Tools the model may call.
    pub tools: Vec<ToolSpec>,
    /// Output cap; `None` uses the model's `maxOutput`.
    pub max_output: Option<u64>,
    /// Sampling temperature; `None` leaves the provider's default.
    pub temperature: Option<f64>,
    /// The requested neutral level; adapters clamp it to the model (see `reasoning`).
    pub reasoning: ReasoningLevel,
    /// `agent.thinkingBudgetTokens`, the base of the Anthropic budget formula.
    pub thinking_budget_tokens: u64,
}

/// A conversation message in neutral form.
#[derive(Debug, Clone, PartialEq)]
pub enum ChatMessage {
    /// What the user said.
    User {
        /// The message text.
        text: String,
        /// Only the current turn's images are sent; history carries none.
        images: Vec<ImageData>,
    },
    /// One model step.
    Assistant {
        /// The answer text.
        text: String,
        /// Reasoning of this step: passed back to DeepSeek/Kimi as `reasoning_content`
        /// and to Anthropic as a signed thinking block.
        thinking: Option<Thinking>,
        /// Tool calls the step made.
        tool_calls: Vec<ToolCall>,
    },
    /// A tool's result.
    Tool {
        /// Id of the call it answers.
        call_id: String,
        /// Name of the tool.
        name: String,
        /// What the tool returned.
        content: String,
        /// The tool failed.
        is_error: bool,
        /// Images the tool returned.
        images: Vec<ImageData>,
    },
}

/// A model's reasoning text.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Thinking {
    /// The reasoning text.
    pub text: String,
    /// Anthropic's signature of the thinking block (must be sent back unchanged).
    pub signature: Option<String>,
}

/// An image sent to the model.
#[derive(Debug, Clone, PartialEq)]
pub struct ImageData {
    /// `image/png`, `image/jpeg`, `image/webp` or `image/gif`.
    pub media_type: String,
    /// Base64 without a data-URL prefix.
    pub data_base64: String,
}

/// A tool call made by the model.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    /// Call id, matched by the tool result.
    pub id: String,
    /// Name of the tool called.
    pub name: String,
    /// The arguments as JSON text, exactly as the model produced them.
    pub arguments: String,
}

/// A tool offered to the model.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolSpec {
    /// Tool name.
    pub name: String,
    /// What the tool does, for the model.
    pub description: String,
    /// JSON Schema of the arguments (an object schema), shared with the tool.
    pub parameters: std::sync::Arc<serde_json::Value>,
    /// Sent as a freeform (custom) tool with this grammar where the model
    /// takes one (OpenAI's custom tools); its raw text input then arrives as
    /// the arguments `{"input": "<text>"}`, which `parameters` must describe.
    pub freeform: Option<ToolGrammar>,
}

/// The grammar a freeform tool's input follows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolGrammar {
    /// `lark` or `regex`.
    pub syntax: String,
    /// The grammar.
    pub definition: String,
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
    /// Output tokens.
    pub output_tokens: u64,
    /// Output tokens spent on reasoning (part of `output_tokens`), when the
    /// provider reports them (OpenAI's `completion_tokens_details`).
    pub reasoning_tokens: u64,
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
    /// The model finished its answer.
    Stop,
    /// The model asked for tool calls.
    ToolCalls,
    /// Output cap reached (`length`, `max_tokens`, `incomplete`): the turn continues.
    Length,
    /// The provider's content filter stopped the output.
    ContentFilter,
    /// Any other reason, as the provider named it.
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

    /// The reason for a provider's wire name (OpenAI or Anthropic).
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
    /// A piece of reasoning text.
    ReasoningDelta(String),
    /// Anthropic signature of the current thinking block.
    ReasoningSignature(String),
    /// A piece of answer text.
    TextDelta(String),
    /// A tool call is announced when its name first appears.
    ToolCallStart {
        /// Position of the call in the step.
        index: usize,
        /// Call id.
        id: String,
        /// Name of the tool.
        name: String,
    },
    /// A piece of a tool call's argument text.
    ToolCallArgsDelta {
        /// Position of the call in the step.
        index: usize,
        /// The next piece of argument text.
        delta: String,
    },
    /// A finished call with its whole argument text; emitted in index order at the end.
    ToolCallComplete {
        /// Position of the call in the step.
        index: usize,
        /// The whole call.
        call: ToolCall,
    },
    /// Token counts of the attempt.
    Usage(TokenUsage),
    /// Why the model stopped.
    Finish(FinishReason),
}
