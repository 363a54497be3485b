//! Why a headless run could not do what it was asked: one sentence a person
//! can act on, printed by the caller.

use std::path::Path;

use seekclaw_engine::EngineError;

use crate::fleet::tasks::TaskError;

#[derive(Debug, thiserror::Error)]
pub enum ExecError {
    /// The engine refused or could not start (its own message).
    #[error("{0}")]
    Engine(String),
    /// A file, folder or process operation failed; `what` says on what.
    /// (The cause is in the message, not a source: callers print one line.)
    #[error("{what}: {error}")]
    Io { what: String, error: std::io::Error },
    /// What was asked cannot be done; the message says why and what to do.
    #[error("{0}")]
    Refused(String),
    /// An operation on a file failed (the message names it when the OS does).
    #[error("{0}")]
    Os(std::io::Error),
    /// `--task-file`.
    #[error(transparent)]
    Task(#[from] TaskError),
}

/// The engine's errors, mapped here once.
impl From<EngineError> for ExecError {
    fn from(e: EngineError) -> ExecError {
        ExecError::Engine(e.message)
    }
}

impl From<std::io::Error> for ExecError {
    fn from(e: std::io::Error) -> ExecError {
        ExecError::Os(e)
    }
}

impl From<tokio::task::JoinError> for ExecError {
    fn from(e: tokio::task::JoinError) -> ExecError {
        ExecError::Refused(format!("a worker stopped: {e}"))
    }
}

impl ExecError {
    pub(crate) fn io(what: impl Into<String>, error: std::io::Error) -> ExecError {
        ExecError::Io {
            what: what.into(),
            error,
        }
    }
}

/// `anyhow`'s `with_context` for I/O results: the error says on what.
pub(crate) trait IoContext<T> {
    fn at(self, what: impl FnOnce() -> String) -> Result<T, ExecError>;
    /// "cannot read PATH" style: `verb` then the path.
    fn on(self, verb: &str, path: &Path) -> Result<T, ExecError>;
}

impl<T> IoContext<T> for std::io::Result<T> {
    fn at(self, what: impl FnOnce() -> String) -> Result<T, ExecError> {
        self.map_err(|e| ExecError::io(what(), e))
    }

    fn on(self, verb: &str, path: &Path) -> Result<T, ExecError> {
        self.map_err(|e| ExecError::io(format!("{verb} {}", path.display()), e))
    }
}

/// Returns a [`ExecError::Refused`] with a formatted message.
macro_rules! refuse {
    ($($arg:tt)*) => {
        return Err($crate::error::ExecError::Refused(format!($($arg)*)))
    };
}
pub(crate) use refuse;
