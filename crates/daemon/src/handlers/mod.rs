//! Method handlers, one file per domain. Each returns the request's terminal envelope.

pub mod approve;
pub mod budget;
pub mod chat;
pub mod checkpoint;
pub mod goal;
pub mod mcp;
pub mod model;
pub mod plugin;
pub mod policy;
pub mod profile;
pub mod project;
pub mod provider;
pub mod schedule;
pub mod search;
pub mod session;
pub mod skill;
pub mod system;
pub mod watch;
pub mod workspace;

use seekclaw_config::ReasoningLevel;
use seekclaw_protocol::{Envelope, MethodError};

pub type Reply = Result<Envelope, MethodError>;

/// Validates a neutral reasoning level name.
pub fn parse_reasoning_level(raw: &str) -> Result<ReasoningLevel, MethodError> {
    ReasoningLevel::parse(raw).ok_or_else(|| {
        MethodError::invalid_param(
            "reasoningLevel",
            "params.reasoningLevel must be one of: none, low, medium, high, max, xhigh, ultra",
        )
    })
}

#[cfg(test)]
mod tests;
