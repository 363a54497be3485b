//! The crate's error type.

use std::io;
use std::path::{Path, PathBuf};

/// Errors at the `seekclaw-config` boundary.
///
/// A file that is not JSON(5) is [`ConfigError::Invalid`]; it is never moved
/// or rewritten. `Io` is for what we could not read or write at all.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// A file or directory could not be read, written or created.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or directory concerned.
        path: PathBuf,
        /// What the OS reported.
        #[source]
        source: io::Error,
    },
    /// A file exists but is not JSON(5) (or its top level is the wrong kind of
    /// value): it was left untouched, and nothing may be written over it.
    #[error("{0}")]
    Invalid(crate::jsonfile::FileProblem),
    /// A value could not be serialized for saving.
    #[error("{}: {message}", path.display())]
    Json {
        /// The file it was to be saved to.
        path: PathBuf,
        /// The serializer's explanation.
        message: String,
    },
    /// Neither `SEEKCLAW_HOME` nor the user's home directory is known.
    #[error("cannot determine the user's home directory; set SEEKCLAW_HOME")]
    NoHome,
}

impl ConfigError {
    pub(crate) fn io(path: &Path, source: io::Error) -> Self {
        ConfigError::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}

/// `Result` with [`ConfigError`] as the default error.
pub type Result<T, E = ConfigError> = std::result::Result<T, E>;
