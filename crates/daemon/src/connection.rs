//! One client connection's state, shared by its request tasks: its outbox,
//! its chats and watches, the session its chats continue. The loop that
//! reads and writes it is [`crate::serve`].

use std::sync::{Arc, Mutex};

use tokio_util::sync::CancellationToken;

use crate::chats::Chats;
use crate::outbox::Outbox;
use crate::scope::Scope;
use seekclaw_engine::sync::Locked;

/// The session a connection last created or resumed; used by chats without `sessionId`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LegacySession {
    pub scope: String,
    pub id: String,
}

/// Per-connection state shared by its request tasks.
pub struct Connection {
    /// The daemon's number for it.
    pub id: u64,
    pub outbox: Outbox,
    pub legacy: Mutex<Option<LegacySession>>,
    /// Fires when the connection closes (its turns stop or outlive it as
    /// the serving loop decides).
    pub closing: CancellationToken,
    /// Its chats, registered as their lines are read.
    pub chats: Arc<Chats>,
    /// Its `session.watch`es: session id (lower case) and what ends the watch.
    pub watching: Mutex<Vec<(String, CancellationToken)>>,
    /// The sessions it ran turns on (not detached ones): when it closes, its
    /// user has left them, and their `SessionEnd` hooks run.
    pub ran: Mutex<Vec<(Scope, String)>>,
}

impl Connection {
    /// Connection `id`, writing to `outbox`, closed by `closing`; no chats,
    /// watches or session yet.
    pub fn new(id: u64, outbox: Outbox, closing: CancellationToken) -> Connection {
        Connection {
            id,
            outbox,
            legacy: Mutex::new(None),
            closing,
            chats: Arc::default(),
            watching: Mutex::new(Vec::new()),
            ran: Mutex::new(Vec::new()),
        }
    }

    /// Records that this connection ran a turn on session `id` in `scope`.
    pub fn ran_on(&self, scope: &Scope, id: &str) {
        let mut ran = self.ran.locked();
        if !ran.iter().any(|(_, s)| s == id) {
            ran.push((scope.clone(), id.to_string()));
        }
    }

    pub fn set_legacy(&self, session: Option<LegacySession>) {
        *self.legacy.locked() = session;
    }

    pub fn legacy(&self) -> Option<LegacySession> {
        self.legacy.locked().clone()
    }

    /// Forgets the legacy session if it is `id` (archive, delete).
    pub fn clear_legacy_if(&self, id: &str) {
        let mut slot = self.legacy.locked();
        if slot.as_ref().is_some_and(|s| s.id == id) {
            *slot = None;
        }
    }
}
