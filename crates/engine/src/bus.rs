//! The turn bus: every turn the engine runs on a session, whoever started it
//! (a client, the scheduler, a goal continuation, `serve`), published to the
//! session's watchers (the daemon's `session.watch`, and the front ends to
//! come). The [`crate::TurnHandle`] publishes as it is read; with no watcher
//! anywhere that costs one atomic load per event.

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use seekclaw_agent::{AgentEvent, TurnOutcome};
use tokio::sync::mpsc;

use crate::sync::Locked;

/// Items a watcher may hold before it is dropped for falling behind.
const WATCH_QUEUE: usize = 4096;

/// What a watcher sees.
#[derive(Debug, Clone)]
pub enum Watched {
    /// A turn started on the session.
    TurnStart {
        /// The user message (or the scheduled/goal prompt).
        message: String,
        /// Who started it: `chat`, `schedule`, `goal`, `run` or `serve`.
        origin: &'static str,
    },
    /// One of the turn's events.
    Event(AgentEvent),
    /// The turn ended.
    TurnEnd(TurnOutcome),
}

/// A watcher: its key, its reader (a front end's own tag, e.g. a
/// connection), its queue.
type Watcher = (u64, u64, mpsc::Sender<Watched>);

/// The watchers of every session.
#[derive(Default)]
pub struct TurnBus {
    next: AtomicU64,
    count: AtomicUsize,
    by_session: Mutex<HashMap<String, Vec<Watcher>>>,
}

/// A watcher's registration; dropping it unregisters.
pub struct WatchGuard<'a> {
    watchers: &'a TurnBus,
    session: String,
    key: u64,
}

impl Drop for WatchGuard<'_> {
    fn drop(&mut self) {
        self.watchers.remove(&self.session, self.key);
    }
}

impl TurnBus {
    /// Registers a watcher of `session_id` for reader `conn`.
    pub fn add(&self, session_id: &str, conn: u64) -> (WatchGuard<'_>, mpsc::Receiver<Watched>) {
        let (tx, rx) = mpsc::channel(WATCH_QUEUE);
        let key = self.next.fetch_add(1, Ordering::Relaxed);
        let session = session_id.to_lowercase();
        self.by_session
            .locked()
            .entry(session.clone())
            .or_default()
            .push((key, conn, tx));
        self.count.fetch_add(1, Ordering::Release);
        (
            WatchGuard {
                watchers: self,
                session,
                key,
            },
            rx,
        )
    }

    fn remove(&self, session: &str, key: u64) {
        let mut map = self.by_session.locked();
        if let Some(list) = map.get_mut(session) {
            let before = list.len();
            list.retain(|(k, _, _)| *k != key);
            if list.len() < before {
                self.count.fetch_sub(1, Ordering::Release);
            }
            if list.is_empty() {
                map.remove(session);
            }
        }
    }

    /// Hands `item` (built only if someone watches) to the session's
    /// watchers, except those of reader `from` (a client's own turn
    /// already streams to it). A watcher whose queue is full is dropped: its
    /// watch ends.
    pub fn publish(&self, session_id: &str, from: Option<u64>, item: impl FnOnce() -> Watched) {
        if self.count.load(Ordering::Acquire) == 0 {
            return;
        }
        let mut map = self.by_session.locked();
        let Some(list) = map.get_mut(&session_id.to_lowercase()) else {
            return;
        };
        if list.iter().all(|(_, conn, _)| Some(*conn) == from) {
            return;
        }
        let item = item();
        let before = list.len();
        list.retain(|(_, conn, tx)| Some(*conn) == from || tx.try_send(item.clone()).is_ok());
        let dropped = before - list.len();
        if dropped > 0 {
            self.count.fetch_sub(dropped, Ordering::Release);
        }
        if list.is_empty() {
            map.remove(&session_id.to_lowercase());
        }
    }

    /// A copy of a turn's message, only when anyone watches at all (the
    /// message is moved into the turn before its session is known).
    pub fn clone_message_if_watched(&self, message: &str) -> Option<String> {
        (self.count.load(Ordering::Acquire) > 0).then(|| message.to_string())
    }

    /// Whether a reader other than `reader` watches `session_id` (a turn
    /// whose own client leaves still has someone to run for).
    pub fn watched_by_others(&self, session_id: &str, reader: u64) -> bool {
        if self.count.load(Ordering::Acquire) == 0 {
            return false;
        }
        self.by_session
            .locked()
            .get(&session_id.to_lowercase())
            .is_some_and(|list| {
                list.iter()
                    .any(|(_, r, tx)| *r != reader && !tx.is_closed())
            })
    }

    /// An event of a turn on `session_id` (run for reader `from`).
    pub fn event(&self, session_id: &str, from: Option<u64>, ev: &AgentEvent) {
        self.publish(session_id, from, || Watched::Event(ev.clone()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn watchers_get_items_and_are_dropped_when_behind_or_gone() {
        let w = TurnBus::default();
        w.publish("s", None, || unreachable!("nobody watches"));
        let (guard, mut rx) = w.add("S", 1);
        assert!(!w.watched_by_others("s", 1) && w.watched_by_others("s", 2));
        w.publish("s", Some(1), || unreachable!("its own connection's turn"));
        w.event("s", None, &AgentEvent::Delta("hi".into()));
        assert!(matches!(rx.recv().await, Some(Watched::Event(AgentEvent::Delta(t))) if t == "hi"));
        drop(guard);
        assert_eq!(w.count.load(Ordering::Acquire), 0);
        let (_guard, mut rx) = w.add("s", 1);
        for _ in 0..WATCH_QUEUE + 1 {
            w.event("s", None, &AgentEvent::Delta("x".into()));
        }
        assert_eq!(
            w.count.load(Ordering::Acquire),
            0,
            "a full queue drops the watcher"
        );
        let mut n = 0;
        while rx.recv().await.is_some() {
            n += 1;
        }
        assert_eq!(n, WATCH_QUEUE);
    }
}
