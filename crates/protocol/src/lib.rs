//! Wire types of the SeekClaw daemon protocol 2.1, and (in [`openseek`]) of
//! the OpenSeek stdio protocol `seekclaw serve` speaks.
//!
//! Pure data: requests, envelopes, the one method table, typed parameters and the
//! `protocol.info` document, every method's params and result types (both
//! ways: the daemon reads params and writes results, `seekclaw-client` the
//! reverse), the event payloads and the JSON Schema of all of it. No I/O and
//! no async runtime, so every client and the daemon share exactly one
//! definition of the wire.
#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used))]
#![warn(missing_docs)]

mod adapter;
pub mod api;
pub mod elicitation;
mod envelope;
mod error;
pub mod events;
mod methods;
pub mod openseek;
pub mod params;
mod request;
mod schema;
pub mod wording;

pub use api::ScopeParams;
pub use envelope::{Envelope, JsonArrayBuilder, write_text_line};
pub use error::{ErrorCode, MethodError};
pub use events::{EVENTS, EventDetails, EventSpec, event};
pub use methods::{
    BUILTIN_TOOLS, CAPABILITIES, Capability, METHODS, Method, MethodSpec, MethodType, ProtocolInfo,
    Reply, SchemaFn, Serving, TextWithDetails, TurnEnd, TurnOutcome, method,
};
pub use params::Params;
pub use request::{Request, RequestError, parse_request};
pub use schema::schema;

/// Protocol version reported by `protocol.info`.
pub const PROTOCOL_VERSION: &str = "2.1";
/// Transport name reported by `protocol.info`.
pub const TRANSPORT: &str = "jsonl";
/// Longest accepted request line (image turns carry tens of MB of base64).
pub const MAX_LINE_BYTES: usize = 64 * 1024 * 1024;
