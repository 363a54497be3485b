//! Elicitation: a tool (an MCP server, during its call) asks the person for
//! a few values described by a flat schema. The turn's front end answers
//! through [`Elicit`]; [`validate`] (the wire's rule, shared with the
//! front ends) checks an answer against the schema.

use std::future::Future;
use std::pin::Pin;

pub use seekclaw_protocol::elicitation::{enum_values, validate};
use serde_json::{Map, Value};

/// What a tool asks the person.
#[derive(Debug, Clone, PartialEq)]
pub struct ElicitRequest {
    /// The MCP server asking.
    pub server: String,
    /// The server's message to the person.
    pub message: String,
    /// The fields it wants: `{type:"object", properties, required}`.
    pub requested_schema: Value,
}

/// How the person answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ElicitAction {
    /// Submitted the form (with content).
    Accept,
    /// Said no.
    Decline,
    /// Dismissed it without choosing (also: nobody answered in time, the turn
    /// was cancelled).
    Cancel,
}

impl ElicitAction {
    /// `accept`, `decline` or `cancel`.
    pub fn parse(word: &str) -> Option<ElicitAction> {
        match word.trim().to_ascii_lowercase().as_str() {
            "accept" => Some(ElicitAction::Accept),
            "decline" => Some(ElicitAction::Decline),
            "cancel" => Some(ElicitAction::Cancel),
            _ => None,
        }
    }

    /// The wire word.
    pub fn as_str(self) -> &'static str {
        match self {
            ElicitAction::Accept => "accept",
            ElicitAction::Decline => "decline",
            ElicitAction::Cancel => "cancel",
        }
    }
}

/// The person's answer; `content` only with [`ElicitAction::Accept`].
#[derive(Debug, Clone, PartialEq)]
pub struct ElicitAnswer {
    /// Accept, decline or cancel.
    pub action: ElicitAction,
    /// The values, already validated against the schema.
    pub content: Option<Map<String, Value>>,
}

impl ElicitAnswer {
    /// A decline without content.
    pub fn decline() -> ElicitAnswer {
        ElicitAnswer {
            action: ElicitAction::Decline,
            content: None,
        }
    }

    /// A cancel without content.
    pub fn cancel() -> ElicitAnswer {
        ElicitAnswer {
            action: ElicitAction::Cancel,
            content: None,
        }
    }
}

/// The future [`Elicit::elicit`] returns.
pub type ElicitFuture<'a> = Pin<Box<dyn Future<Output = ElicitAnswer> + Send + 'a>>;

/// Puts a tool's question to the person of the turn (one tool call's view:
/// the turn binds it to the call that is running).
pub trait Elicit: Send + Sync {
    /// Asks and waits for the answer (a turn that ends meanwhile: cancel).
    fn elicit(&self, request: ElicitRequest) -> ElicitFuture<'_>;
}
