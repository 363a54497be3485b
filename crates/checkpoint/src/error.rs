//! What can go wrong keeping or restoring checkpoints.

use std::path::Path;

/// A checkpoint could not be taken, read or restored.
#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    /// The checkpoint database failed.
    #[error("checkpoint store: {0}")]
    Db(#[from] rusqlite::Error),
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// The workspace walk failed.
    #[error("reading the workspace: {0}")]
    Scan(String),
    /// The workspace has more files than `checkpoints.maxFiles`.
    #[error(
        "the workspace has more than {0} files to track; raise checkpoints.maxFiles or add a .gitignore"
    )]
    TooManyFiles(usize),
    /// A kept blob is missing or damaged.
    #[error("checkpoint store: {0}")]
    Corrupt(String),
    /// No checkpoint of the session covers that point.
    #[error("{0}")]
    NotFound(String),
}

impl CheckpointError {
    pub(crate) fn io(path: &Path, source: std::io::Error) -> CheckpointError {
        CheckpointError::Io {
            path: path.display().to_string(),
            source,
        }
    }
}
