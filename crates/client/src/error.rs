//! What can go wrong talking to the daemon.

use std::path::PathBuf;

use seekclaw_protocol::ErrorCode;
use serde_json::Value;

/// A failed call: the daemon could not be reached or understood, or it
/// answered with an `error` envelope ([`ClientError::Daemon`]).
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// Nothing answers on the socket (no daemon, or one that died).
    #[error("cannot connect to the daemon at {}: {source}", path.display())]
    Connect {
        /// The socket tried.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// Reading or writing the connection failed (a read timeout included).
    #[error("connection to the daemon failed: {0}")]
    Io(#[from] std::io::Error),
    /// The daemon closed the connection (it stopped or restarted).
    #[error("the daemon closed the connection")]
    Closed,
    /// The daemon sent a line that is not an envelope.
    #[error("the daemon sent a line that is not an envelope ({source}): {line}")]
    BadLine {
        /// The line as read.
        line: String,
        /// The parse failure.
        source: serde_json::Error,
    },
    /// Params that do not serialize (a map with non-string keys, a float NaN).
    #[error("cannot encode the params of {method}: {source}")]
    Encode {
        /// The method.
        method: String,
        /// The serializer's failure.
        source: serde_json::Error,
    },
    /// A terminal envelope that does not read as the method's result type.
    #[error(
        "{method} answered {event} with data that does not read as its result ({source}): {data}"
    )]
    BadResult {
        /// The method.
        method: &'static str,
        /// The terminal event.
        event: String,
        /// Its `data`.
        data: String,
        /// Why it does not read.
        source: serde_json::Error,
    },
    /// No answer within the time the caller allowed (the async client's
    /// `call_within`; the blocking client's read timeout is an `Io` error).
    #[error("the daemon did not answer {method} in time")]
    Timeout {
        /// The method.
        method: String,
    },
    /// The request failed: the daemon's `error` envelope (boxed: it is the
    /// large variant, and results are passed around a lot).
    #[error(transparent)]
    Daemon(Box<DaemonError>),
}

impl ClientError {
    /// The daemon's error code, for an `error` envelope that carried one.
    pub fn code(&self) -> Option<ErrorCode> {
        match self {
            ClientError::Daemon(e) => e.code,
            _ => None,
        }
    }

    /// Whether the connection is gone (a new one may work: the daemon may
    /// have restarted), as opposed to an answer the daemon gave.
    pub fn is_disconnect(&self) -> bool {
        matches!(self, ClientError::Closed | ClientError::Io(_))
    }
}

/// An `error` envelope: `data` as the message, `details` read where known.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{message}")]
pub struct DaemonError {
    /// The readable message (`data`).
    pub message: String,
    /// `details.code`; `None` from an old daemon or for a code this client
    /// does not know (see `details`).
    pub code: Option<ErrorCode>,
    /// `details.param`: the parameter to blame, when one is.
    pub param: Option<String>,
    /// The envelope's `sessionId`, for turn failures.
    pub session_id: Option<String>,
    /// The whole `details` object, as sent.
    pub details: Option<Value>,
}
