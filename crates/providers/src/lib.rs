//! Streaming chat providers.
//!
//! The wire layer: [`build_request`] maps a neutral [`ChatRequest`] to an HTTP
//! request for an OpenAI-compatible or Anthropic provider, and [`SseDecoder`] +
//! [`decoder`] turn the response bytes back into [`StreamEvent`]s.
#![warn(missing_docs)]
#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used))]

mod anthropic;
pub mod args;
pub mod breaker;
pub mod error;
mod inline_h1;
pub mod models;
mod openai;
pub mod presets;
mod reasoning;
pub mod router;
pub mod routing;
mod sse;
pub mod transport;
pub mod types;
pub mod usage;
mod wire;

#[cfg(test)]
mod testutil;

pub use error::{ProviderError, error_detail};
pub use reasoning::Target;
pub use router::{Completion, NoObserver, Observer, Providers};
pub use sse::{SseDecoder, SseEvent, SseEventRef};
pub use types::{
    ChatMessage, ChatRequest, FinishReason, ImageData, StreamEvent, Thinking, TokenUsage, ToolCall,
    ToolGrammar, ToolSpec,
};
pub use wire::{
    StreamDecoder, StreamParser, WireRequest, build_request, decoder, parse_completion,
};
