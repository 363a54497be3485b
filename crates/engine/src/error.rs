//! The engine's failures as every front end receives them: a kind, the
//! session concerned and a sentence that names no front end's methods,
//! flags or commands. Each front end maps them to its own wire once (the
//! daemon's `details.code`, ACP's JSON-RPC codes, serve's and MCP's shapes)
//! and adds its own hint there (e.g. which request steers a busy turn).

use seekclaw_agent::{FailureKind, TurnFailure};
use seekclaw_providers::ProviderError;
use seekclaw_store::StoreError;

/// What went wrong, as much as a front end needs to choose its wire code:
/// one kind per error class the daemon protocol tells apart (plus where a
/// busy session is busy, so front ends can say where to steer or cancel).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// Bad input: a missing, mistyped or out-of-range value
    /// ([`EngineError::param`] names it when one is to blame).
    Invalid,
    /// The named item (session, workspace, image file, …) does not exist.
    NotFound,
    /// The request clashes with the current state.
    Conflict,
    /// The session is running a turn in this process.
    Busy,
    /// The session is running a turn in another process sharing the home.
    BusyElsewhere,
    /// Over a limit (images: count, size).
    TooLarge,
    /// The model provider failed.
    Provider,
    /// No configured model can serve the request.
    NoModel,
    /// A provider request timed out.
    Timeout,
    /// A turn reached its step limit unfinished.
    StepLimit,
    /// The store could not write or read what was needed (disk, I/O).
    Storage,
    /// The work was cancelled.
    Cancelled,
    /// `config.json` or `state.json` cannot be read, and nothing was changed.
    ConfigInvalid,
    /// An engine fault (a task that died, a file that could not be made).
    Internal,
    /// A spend budget stopped the turn before a model request.
    Budget,
}

impl From<FailureKind> for ErrorKind {
    fn from(kind: FailureKind) -> ErrorKind {
        match kind {
            FailureKind::Provider => ErrorKind::Provider,
            FailureKind::NoModel => ErrorKind::NoModel,
            FailureKind::Timeout => ErrorKind::Timeout,
            FailureKind::StepLimit => ErrorKind::StepLimit,
            FailureKind::Storage => ErrorKind::Storage,
            FailureKind::Internal => ErrorKind::Internal,
            // The user's own hook refused the prompt.
            FailureKind::Blocked => ErrorKind::Invalid,
            FailureKind::Budget => ErrorKind::Budget,
        }
    }
}

/// A failure at the engine's boundary.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct EngineError {
    /// What kind of failure.
    pub kind: ErrorKind,
    /// What happened, for a person, in no front end's vocabulary.
    pub message: String,
    /// The offending input, when one is to blame (`message`, `model`,
    /// `images`, `workspace`).
    pub param: Option<String>,
    /// The session it concerns, when there is one.
    pub session_id: Option<String>,
}

impl EngineError {
    /// A failure of `kind`.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        EngineError {
            kind,
            message: message.into(),
            param: None,
            session_id: None,
        }
    }

    /// Bad input.
    pub fn invalid(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Invalid, message)
    }

    /// Bad input, blaming `param`.
    pub fn invalid_param(param: &str, message: impl Into<String>) -> Self {
        EngineError {
            param: Some(param.to_string()),
            ..Self::invalid(message)
        }
    }

    /// Something named does not exist.
    pub fn conflict(message: impl Into<String>) -> Self {
        EngineError::new(ErrorKind::Conflict, message)
    }

    /// Something that does not exist.
    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::NotFound, message)
    }

    /// An engine fault.
    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Internal, message)
    }

    /// A second turn on a session that is running one in this process.
    pub fn busy(session_id: &str) -> Self {
        Self::new(
            ErrorKind::Busy,
            format!("Session {session_id} is already running a turn"),
        )
        .with_session(Some(session_id.to_string()))
    }

    /// A turn on a session another process is running one on (which
    /// process is not known: any that shares the home).
    pub fn busy_elsewhere(session_id: &str) -> Self {
        Self::new(
            ErrorKind::BusyElsewhere,
            format!(
                "Session {session_id} is running a turn in another seekclaw process; \
                 wait for it to finish or cancel it there"
            ),
        )
        .with_session(Some(session_id.to_string()))
    }

    /// A failed turn (or compaction) as an error.
    pub fn from_failure(failure: TurnFailure) -> Self {
        Self::new(failure.kind.into(), failure.message)
    }

    /// Sets the session it concerns.
    pub fn with_session(mut self, session_id: Option<String>) -> Self {
        self.session_id = session_id;
        self
    }

    /// Whether the same request may succeed later unchanged (the session
    /// frees up, the provider recovers).
    pub fn is_retryable(&self) -> bool {
        matches!(
            self.kind,
            ErrorKind::Busy | ErrorKind::BusyElsewhere | ErrorKind::Provider | ErrorKind::Timeout
        )
    }
}

/// Missing rows are `NotFound`, clashes `Conflict`, a database or file that
/// could not be written `Storage`, anything else `Internal`.
impl From<StoreError> for EngineError {
    fn from(err: StoreError) -> EngineError {
        match err {
            StoreError::NotFound(msg) => EngineError::not_found(msg),
            StoreError::Conflict(msg) => EngineError::new(ErrorKind::Conflict, msg),
            other @ (StoreError::Sqlite(_) | StoreError::Io { .. }) => {
                tracing::error!(error = %other, "store error");
                EngineError::new(ErrorKind::Storage, format!("Database error: {other}"))
            }
            other => {
                tracing::error!(error = %other, "store error");
                EngineError::internal(format!("Database error: {other}"))
            }
        }
    }
}

/// A store failure as an engine error (for `map_err`).
pub fn store_error(err: StoreError) -> EngineError {
    err.into()
}

/// A provider failure outside a turn (a side request, a model listing):
/// the turn's own classification, `Cancelled` when it was cancelled.
pub fn provider_error(err: &ProviderError) -> EngineError {
    if matches!(err, ProviderError::Cancelled) {
        return EngineError::new(ErrorKind::Cancelled, err.to_string());
    }
    EngineError::from_failure(TurnFailure::from_provider(err))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn busy_names_the_session_and_no_front_end() {
        for e in [EngineError::busy("s1"), EngineError::busy_elsewhere("s1")] {
            assert_eq!(e.session_id.as_deref(), Some("s1"));
            assert!(e.is_retryable());
            for word in ["agent.", "seekclaw serve", "seekclaw run", "--", "session/"] {
                assert!(!e.message.contains(word), "{}", e.message);
            }
        }
        assert_eq!(EngineError::busy("s1").kind, ErrorKind::Busy);
        assert_eq!(
            EngineError::busy_elsewhere("s1").kind,
            ErrorKind::BusyElsewhere
        );
    }

    #[test]
    fn store_failures_keep_their_class() {
        let e: EngineError = StoreError::NotFound("Session x not found".into()).into();
        assert_eq!(
            (e.kind, e.message.as_str()),
            (ErrorKind::NotFound, "Session x not found")
        );
        let e: EngineError = StoreError::Conflict("taken".into()).into();
        assert_eq!(e.kind, ErrorKind::Conflict);
    }

    #[test]
    fn failure_kinds_map_one_to_one() {
        let pairs = [
            (FailureKind::Provider, ErrorKind::Provider),
            (FailureKind::NoModel, ErrorKind::NoModel),
            (FailureKind::Timeout, ErrorKind::Timeout),
            (FailureKind::StepLimit, ErrorKind::StepLimit),
            (FailureKind::Storage, ErrorKind::Storage),
            (FailureKind::Internal, ErrorKind::Internal),
        ];
        for (failure, kind) in pairs {
            assert_eq!(ErrorKind::from(failure), kind);
        }
    }

    #[test]
    fn a_cancelled_provider_call_is_cancelled() {
        assert_eq!(
            provider_error(&ProviderError::Cancelled).kind,
            ErrorKind::Cancelled
        );
    }
}
