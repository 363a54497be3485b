//! Streaming chat providers.
//!
//! The wire layer: [`wire::build_request`] maps a neutral [`types::ChatRequest`]
//! to an HTTP request for an OpenAI-compatible or Anthropic provider, and
//! [`sse::SseDecoder`] + [`wire::decoder`] turn the response bytes back into
//! [`types::StreamEvent`]s.
#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used))]

pub mod anthropic;
pub mod args;
pub mod breaker;
pub mod error;
pub mod inline_h1;
pub mod models;
pub mod openai;
pub mod presets;
pub mod reasoning;
pub mod router;
pub mod routing;
pub mod sse;
pub mod transport;
pub mod types;
pub mod usage;
pub mod wire;

#[cfg(test)]
mod testutil;

pub use error::{ProviderError, error_detail};
pub use reasoning::Target;
pub use router::{Completion, NoObserver, Observer, Providers};
pub use sse::{SseDecoder, SseEvent, SseEventRef};
pub use types::{
    ChatMessage, ChatRequest, FinishReason, ImageData, StreamEvent, Thinking, TokenUsage, ToolCall,
    ToolSpec,
};
pub use wire::{
    StreamDecoder, StreamParser, WireRequest, build_request, decoder, parse_completion,
};
