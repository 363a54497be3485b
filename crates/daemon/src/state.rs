//! The daemon's shared state: the handlers' context ([`Ctx`]) and what the
//! connection loops add to it. Built before anything runs; its life (bind,
//! serve, shut down) is [`crate::daemon`].

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use seekclaw_config::Home;
use seekclaw_store::Store;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::ctx::Ctx;

/// State shared by every connection and request: the handlers' context and
/// what the connection loops add to it.
pub struct Daemon {
    /// What handlers and background loops see.
    pub ctx: Ctx,
    /// Hard stop: writers are abandoned.
    pub kill: CancellationToken,
    /// Every running `chat` request, also one that outlived its connection
    /// (`detach`): shutdown waits for them to store their ends.
    pub chat_tasks: TaskTracker,
    pub slow_client_timeout: Duration,
    /// Protocols a connection may switch to (`connection.upgrade`).
    pub upgrades: crate::upgrade::Upgrades,
    next_conn: AtomicU64,
}

impl Daemon {
    /// The shared state over an open store; nothing runs yet.
    pub(crate) fn new(home: Home, cwd: PathBuf, store: Store) -> Daemon {
        let ctx = Ctx::open(home, cwd, store);
        let slow = ctx.engine.config.slow_client_timeout();
        Daemon {
            ctx,
            kill: CancellationToken::new(),
            chat_tasks: TaskTracker::new(),
            slow_client_timeout: slow,
            upgrades: crate::upgrade::Upgrades::default(),
            next_conn: AtomicU64::new(1),
        }
    }

    /// A number for a new connection.
    pub fn next_connection_id(&self) -> u64 {
        self.next_conn.fetch_add(1, Ordering::Relaxed)
    }
}
