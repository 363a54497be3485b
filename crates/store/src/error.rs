//! The crate-boundary error type.

/// Everything that can go wrong in the store.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// SQLite refused or failed a statement.
    #[error("database error: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// A stored payload did not parse.
    #[error("invalid stored JSON: {0}")]
    Json(#[from] serde_json::Error),
    /// No such session, project, schedule or blob.
    #[error("not found: {0}")]
    NotFound(String),
    /// The row already exists or is held by someone else.
    #[error("conflict: {0}")]
    Conflict(String),
    /// The file is not a database this build can use.
    #[error("database is corrupt or incompatible: {0}")]
    Corrupt(String),
    /// The caller passed something the store will not keep.
    #[error("invalid input: {0}")]
    InvalidInput(String),
    /// A file next to the database could not be read or written.
    #[error("I/O error on {path}: {source}")]
    Io {
        /// The file concerned.
        path: String,
        /// What the OS said.
        #[source]
        source: std::io::Error,
    },
    /// A thread panicked while holding a connection; the connection is not
    /// trusted afterwards, so callers get an error instead of a panic.
    #[error("the {0} connection is unusable after a panic in another thread")]
    Poisoned(&'static str),
}

impl StoreError {
    /// True when the caller may simply retry later (the database was busy or
    /// locked by another process for longer than the busy timeout).
    pub fn is_retryable(&self) -> bool {
        match self {
            StoreError::Sqlite(rusqlite::Error::SqliteFailure(e, _)) => matches!(
                e.code,
                rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked
            ),
            _ => false,
        }
    }
}

/// A result whose error is a [`StoreError`].
pub type Result<T, E = StoreError> = std::result::Result<T, E>;
