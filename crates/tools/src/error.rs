//! The crate's error type. Tools never fail a turn: every error becomes a
//! `success:false` result whose text tells the model what to do next.

use crate::confine::PathError;
use crate::locks::LockError;
use crate::tool::ToolOutput;

/// Why a tool call failed; turned into a `success:false` result, never a failed turn.
#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    /// Arguments that do not fit the tool's schema.
    #[error("Invalid tool arguments: {0}. Regenerate the tool call with valid JSON arguments.")]
    InvalidArgs(String),
    /// The path was refused.
    #[error(transparent)]
    Path(#[from] PathError),
    /// The file's write lock was not taken.
    #[error(transparent)]
    Lock(#[from] LockError),
    /// An I/O failure, with what was being done.
    #[error("{action}: {source}")]
    Io {
        /// What was being done, e.g. `Reading src/a.rs`.
        action: String,
        /// What the OS said.
        #[source]
        source: std::io::Error,
    },
    /// A refusal or failure whose message is already written for the model.
    #[error("{0}")]
    Failed(String),
}

impl ToolError {
    /// A [`ToolError::Failed`] with this message.
    pub fn failed(message: impl Into<String>) -> Self {
        ToolError::Failed(message.into())
    }

    /// An [`ToolError::Io`] while doing `action`.
    pub fn io(action: impl Into<String>, source: std::io::Error) -> Self {
        ToolError::Io {
            action: action.into(),
            source,
        }
    }
}

impl From<ToolError> for ToolOutput {
    fn from(err: ToolError) -> Self {
        ToolOutput {
            invalid_args: matches!(err, ToolError::InvalidArgs(_)),
            ..ToolOutput::error(err.to_string())
        }
    }
}

/// Flattens a tool body's result into the output the model sees.
pub(crate) fn into_output(result: Result<ToolOutput, ToolError>) -> ToolOutput {
    result.unwrap_or_else(ToolOutput::from)
}
