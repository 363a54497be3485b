//! The crate-boundary error type.

/// Everything that can go wrong in the store.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("database error: {0}")]
    Sqlite(#[from] rusqlite::Error),
    #[error("invalid stored JSON: {0}")]
    Json(#[from] serde_json::Error),
    #[error("not found: {0}")]
    NotFound(String),
    #[error("conflict: {0}")]
    Conflict(String),
    #[error("database is corrupt or incompatible: {0}")]
    Corrupt(String),
    #[error("invalid input: {0}")]
    InvalidInput(String),
    #[error("I/O error on {path}: {source}")]
    Io {
        path: String,
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

pub type Result<T, E = StoreError> = std::result::Result<T, E>;
