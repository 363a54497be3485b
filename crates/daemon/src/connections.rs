//! The daemon's open connections: for broadcasts (`schedule.updated`, …) and
//! for counting clients (the on-demand idle exit, `doctor`).

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use seekclaw_engine::sync::Locked;
use seekclaw_protocol::Envelope;

use crate::outbox::Outbox;

/// Open connections, for broadcasts (`schedule.updated`, …).
pub struct Connections {
    open: Mutex<HashMap<u64, Outbox>>,
    /// Upgraded connections (`connection.upgrade`): clients that take no
    /// broadcasts but keep an on-demand daemon up like any other.
    upgraded: AtomicUsize,
    /// How many are open, for whoever waits on it (the on-demand idle exit).
    count: tokio::sync::watch::Sender<usize>,
}

impl Default for Connections {
    fn default() -> Self {
        Connections {
            open: Mutex::default(),
            upgraded: AtomicUsize::new(0),
            count: tokio::sync::watch::Sender::new(0),
        }
    }
}

impl Connections {
    pub fn insert(&self, id: u64, outbox: Outbox) {
        let mut open = self.open.locked();
        open.insert(id, outbox);
        // Under the lock, so the counts are published in order.
        self.count
            .send_replace(open.len() + self.upgraded.load(Ordering::SeqCst));
    }

    pub fn remove(&self, id: u64) {
        let mut open = self.open.locked();
        open.remove(&id);
        self.count
            .send_replace(open.len() + self.upgraded.load(Ordering::SeqCst));
    }

    /// Turns open connection `id` into an upgraded one: no more broadcasts,
    /// still counted until the guard drops.
    pub fn upgrade(&self, id: u64) -> UpgradedClient<'_> {
        let mut open = self.open.locked();
        open.remove(&id);
        let upgraded = self.upgraded.fetch_add(1, Ordering::SeqCst) + 1;
        self.count.send_replace(open.len() + upgraded);
        UpgradedClient { connections: self }
    }

    /// The number of open connections, as it changes.
    pub fn watch_count(&self) -> tokio::sync::watch::Receiver<usize> {
        self.count.subscribe()
    }

    pub fn count(&self) -> usize {
        self.open.locked().len() + self.upgraded.load(Ordering::SeqCst)
    }

    /// Sends `env` to every open connection without waiting: a client that is
    /// slow to read delays (and eventually disconnects) only itself, and what
    /// waits for it is bounded ([`Outbox::post_line`]).
    pub fn broadcast(&self, env: &Envelope) {
        let outboxes: Vec<Outbox> = self.open.locked().values().cloned().collect();
        if outboxes.is_empty() {
            return;
        }
        let line = env.to_line();
        for outbox in outboxes {
            outbox.post_line(line.clone());
        }
    }
}

/// An upgraded connection, counted as a client while it lives.
pub struct UpgradedClient<'a> {
    connections: &'a Connections,
}

impl Drop for UpgradedClient<'_> {
    fn drop(&mut self) {
        let open = self.connections.open.locked();
        let upgraded = self.connections.upgraded.fetch_sub(1, Ordering::SeqCst) - 1;
        self.connections.count.send_replace(open.len() + upgraded);
    }
}
