//! The crate's error type.

use std::io;
use std::path::{Path, PathBuf};

/// Errors at the `seekclaw-config` boundary.
///
/// A file that exists but does not parse is *not* an error for
/// [`crate::load_json_file`]: it is moved aside and reported as a
/// [`crate::FileProblem`]. `Io` is for what we could not read or write at all.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("{}: {message}", path.display())]
    Json { path: PathBuf, message: String },
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
