//! `seekclaw inspect`: a browser view of the session store. A small HTTP
//! server on 127.0.0.1 only, over a read-only store connection (it works
//! whether or not the daemon runs, and has no write path), guarded by a
//! random token (URL, then an HttpOnly cookie), a `Host` check against DNS
//! rebinding and a strict Content-Security-Policy. The page is three
//! hand-written assets embedded in the binary; session content is only ever
//! inserted as text. [`export_html`] bakes sessions into one self-contained
//! file that renders from `file://`.
#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used))]

mod checkpoints;
mod data;
mod export;
mod security;
mod server;

pub use data::Data;
pub use export::export_html;
pub use server::{Options, Server};

/// What can go wrong in the inspector.
#[derive(Debug, thiserror::Error)]
pub enum InspectError {
    /// The store could not be opened or read.
    #[error(transparent)]
    Store(#[from] seekclaw_store::StoreError),
    /// No session with this id (in this scope).
    #[error("session not found: {0}")]
    NotFound(String),
    /// The id names sessions in more than one scope.
    #[error("session {0} exists in several scopes; pass its scope")]
    Ambiguous(String),
    /// Binding or serving failed.
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// The checkpoint store could not be read.
    #[error(transparent)]
    Checkpoint(#[from] seekclaw_checkpoint::CheckpointError),
    /// A blocking store task did not finish.
    #[error("internal: {0}")]
    Internal(String),
}

/// The embedded page.
pub(crate) mod assets {
    pub const INDEX_HTML: &str = include_str!("../assets/index.html");
    pub const APP_JS: &str = include_str!("../assets/app.js");
    pub const APP_CSS: &str = include_str!("../assets/app.css");
}
