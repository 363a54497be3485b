//! Wire types of the SeekClaw daemon protocol 2.1.
//!
//! Pure data: requests, envelopes, the one method table, typed parameters and the
//! `protocol.info` document. No I/O and no async runtime, so every client and the
//! daemon share exactly one definition of the wire.
#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used))]

mod envelope;
mod error;
mod methods;
pub mod params;
mod request;

pub use envelope::{Envelope, JsonArrayBuilder, event, write_text_line};
pub use error::{ErrorCode, MethodError};
pub use methods::{CAPABILITIES, Capability, METHODS, Method, MethodSpec, ProtocolInfo, Serving};
pub use params::{Params, ScopeParams};
pub use request::{Request, RequestError, parse_request};

/// Protocol version reported by `protocol.info`.
pub const PROTOCOL_VERSION: &str = "2.1";
/// Transport name reported by `protocol.info`.
pub const TRANSPORT: &str = "jsonl";
/// Longest accepted request line (image turns carry tens of MB of base64).
pub const MAX_LINE_BYTES: usize = 64 * 1024 * 1024;
