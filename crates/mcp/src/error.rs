//! The crate's error type. MCP failures never break a turn or the daemon: a
//! server that cannot connect is reported in `mcp.list`, a failed call becomes a
//! failed tool result.

/// Why a connection or call failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum McpError {
    /// The process could not be started or the HTTP client built.
    #[error("{0}")]
    Spawn(String),
    /// The server broke the protocol, refused, or went away.
    #[error("{0}")]
    Protocol(String),
    /// The server did not answer in time.
    #[error("{0}")]
    Timeout(String),
    /// The server asks for an OAuth login we do not have (or that expired).
    #[error("{0}")]
    NeedsLogin(String),
    /// A login could not be completed.
    #[error("{0}")]
    Auth(String),
}
