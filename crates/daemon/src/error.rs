//! The daemon's own failures ([`DaemonError`]) and the one mapping of the
//! engine's ([`EngineError`]) to the daemon protocol's errors.

use seekclaw_agent::FailureKind;
use seekclaw_engine::{EngineError, ErrorKind};
use seekclaw_protocol::{ErrorCode, MethodError};
use seekclaw_providers::ProviderError;
use seekclaw_store::StoreError;

/// Why the daemon could not start or run.
#[derive(Debug, thiserror::Error)]
pub enum DaemonError {
    /// The home's lock file is held by a live daemon.
    #[error("another daemon is running (pid {pid}){hint}")]
    AlreadyRunning {
        /// The pid the lock file names.
        pid: String,
        /// What to do about it, when known (starts with a separator).
        hint: String,
    },
    /// The socket (or pipe) could not be made ready.
    #[error("cannot prepare the endpoint {path}: {source}")]
    Endpoint {
        /// The socket path.
        path: String,
        /// What the OS said.
        source: std::io::Error,
    },
    /// The home could not be prepared or its config read.
    #[error(transparent)]
    Config(seekclaw_config::ConfigError),
    /// The session database could not be opened or migrated.
    #[error("cannot open the database: {0}")]
    Store(StoreError),
    /// Anything else that stopped the start (the runtime, a thread).
    #[error("startup failed: {0}")]
    Startup(String),
}

/// The daemon protocol's reading of an engine failure: its `details.code`
/// and, where the daemon has a request for it, what to do next. Every
/// engine error a handler returns passes here (through [`Wire::wire`]).
pub fn wire(e: EngineError) -> MethodError {
    let message = match (e.kind, e.session_id.as_deref()) {
        (ErrorKind::Busy, _) => format!(
            "{}; use agent.steer to add guidance or agent.cancel to stop it",
            e.message
        ),
        (ErrorKind::BusyElsewhere, Some(sid)) => format!(
            "Session {sid} is running a turn in another seekclaw process (a daemon, `seekclaw serve` or `seekclaw run`); wait for it to finish or cancel it there"
        ),
        _ => e.message,
    };
    MethodError {
        code: code(e.kind),
        message,
        param: e.param,
        session_id: e.session_id,
    }
}

/// The `details.code` of each kind of engine failure.
pub fn code(kind: ErrorKind) -> ErrorCode {
    match kind {
        ErrorKind::Invalid => ErrorCode::InvalidRequest,
        ErrorKind::NotFound => ErrorCode::NotFound,
        ErrorKind::Conflict => ErrorCode::Conflict,
        ErrorKind::Busy | ErrorKind::BusyElsewhere => ErrorCode::Busy,
        ErrorKind::TooLarge => ErrorCode::TooLarge,
        ErrorKind::Provider => ErrorCode::Provider,
        ErrorKind::NoModel => ErrorCode::NoModel,
        ErrorKind::Timeout => ErrorCode::Timeout,
        ErrorKind::StepLimit => ErrorCode::StepLimit,
        ErrorKind::Storage => ErrorCode::Storage,
        ErrorKind::Cancelled => ErrorCode::Cancelled,
        ErrorKind::ConfigInvalid => ErrorCode::ConfigInvalid,
        ErrorKind::Internal => ErrorCode::Internal,
        ErrorKind::Budget => ErrorCode::Budget,
    }
}

/// The `details.code` of a failed turn.
pub fn failure_code(kind: FailureKind) -> ErrorCode {
    code(kind.into())
}

/// A store failure on the wire (through the engine's classification).
pub fn store_error(err: StoreError) -> MethodError {
    wire(err.into())
}

/// A provider failure outside a turn on the wire.
pub fn provider_error(err: &ProviderError) -> MethodError {
    wire(seekclaw_engine::provider_error(err))
}

/// `.wire()?` on an engine result in a handler.
pub trait Wire<T> {
    /// The result with its error in the daemon protocol's terms.
    fn wire(self) -> Result<T, MethodError>;
}

impl<T> Wire<T> for Result<T, EngineError> {
    fn wire(self) -> Result<T, MethodError> {
        self.map_err(wire)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The messages the desktop and the e2e suites read stay as they were
    /// when the engine still spoke the daemon protocol.
    #[test]
    fn busy_keeps_the_daemon_hint() {
        let e = wire(EngineError::busy("s1"));
        assert_eq!(e.code, ErrorCode::Busy);
        assert_eq!(e.session_id.as_deref(), Some("s1"));
        assert_eq!(
            e.message,
            "Session s1 is already running a turn; use agent.steer to add guidance or agent.cancel to stop it"
        );
        let e = wire(EngineError::busy_elsewhere("s1"));
        assert_eq!(e.code, ErrorCode::Busy);
        assert_eq!(
            e.message,
            "Session s1 is running a turn in another seekclaw process (a daemon, `seekclaw serve` or `seekclaw run`); wait for it to finish or cancel it there"
        );
    }

    #[test]
    fn every_kind_keeps_its_code_param_and_session() {
        let pairs = [
            (ErrorKind::Invalid, "invalid_request"),
            (ErrorKind::NotFound, "not_found"),
            (ErrorKind::Conflict, "conflict"),
            (ErrorKind::Busy, "busy"),
            (ErrorKind::BusyElsewhere, "busy"),
            (ErrorKind::TooLarge, "too_large"),
            (ErrorKind::Provider, "provider"),
            (ErrorKind::NoModel, "no_model"),
            (ErrorKind::Timeout, "timeout"),
            (ErrorKind::StepLimit, "step_limit"),
            (ErrorKind::Storage, "storage"),
            (ErrorKind::Cancelled, "cancelled"),
            (ErrorKind::ConfigInvalid, "config_invalid"),
            (ErrorKind::Internal, "internal"),
            (ErrorKind::Budget, "budget"),
        ];
        for (kind, name) in pairs {
            assert_eq!(code(kind).as_str(), name);
        }
        let e = wire(
            EngineError::invalid_param("model", "Unknown model").with_session(Some("s".into())),
        );
        assert_eq!(
            (
                e.code,
                e.message.as_str(),
                e.param.as_deref(),
                e.session_id.as_deref()
            ),
            (
                ErrorCode::InvalidRequest,
                "Unknown model",
                Some("model"),
                Some("s")
            )
        );
        assert_eq!(failure_code(FailureKind::StepLimit), ErrorCode::StepLimit);
    }
}
