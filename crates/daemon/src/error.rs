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
