//! `session.watch`: every turn on a session, whoever started it (another
//! client, the scheduler, a goal continuation), streamed to the watchers of
//! that session until `session.unwatch` or disconnect. Turn owners publish
//! here; with no watcher anywhere that costs one atomic load per event.

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use seekclaw_agent::{AgentEvent, TurnOutcome};
use tokio::sync::mpsc;

use seekclaw_engine::sync::Locked;

/// Items a watcher may hold before it is dropped for falling behind.
const WATCH_QUEUE: usize = 4096;

/// What a watcher sees.
#[derive(Debug, Clone)]
pub enum Watched {
    /// A turn started on the session.
    TurnStart {
        /// The user message (or the scheduled/goal prompt).
        message: String,
        /// `chat`, `schedule` or `goal`.
        origin: &'static str,
    },
    /// One of the turn's events.
    Event(AgentEvent),
    /// The turn ended.
    TurnEnd(TurnOutcome),
}

/// A watcher: its key, its connection, its queue.
type Watcher = (u64, u64, mpsc::Sender<Watched>);

/// The watchers of every session.
#[derive(Default)]
pub struct Watchers {
    next: AtomicU64,
    count: AtomicUsize,
    by_session: Mutex<HashMap<String, Vec<Watcher>>>,
}

/// A watcher's registration; dropping it unregisters.
pub struct WatchGuard<'a> {
    watchers: &'a Watchers,
    session: String,
    key: u64,
}

impl Drop for WatchGuard<'_> {
    fn drop(&mut self) {
        self.watchers.remove(&self.session, self.key);
    }
}

impl Watchers {
    /// Registers a watcher of `session_id` on connection `conn`.
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
    /// watchers, except those on connection `from` (a client's own turn
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

    /// An event of a turn on `session_id` (run for connection `from`).
    pub fn event(&self, session_id: &str, from: Option<u64>, ev: &AgentEvent) {
        self.publish(session_id, from, || Watched::Event(ev.clone()));
    }
}

/// Runs `turn` (started with `message` by `origin`) to its end, publishing
/// its events to the session's watchers (front ends that read no events
/// themselves: scheduled runs, goal turns).
pub async fn drive(
    watchers: &Watchers,
    mut turn: seekclaw_engine::TurnHandle,
    message: &str,
    origin: &'static str,
) -> TurnOutcome {
    let sid = turn.session().id.clone();
    watchers.publish(&sid, None, || Watched::TurnStart {
        message: message.to_string(),
        origin,
    });
    while let Some(ev) = turn.next_event().await {
        watchers.event(&sid, None, &ev);
    }
    let outcome = turn.outcome().await;
    watchers.publish(&sid, None, || Watched::TurnEnd(outcome.clone()));
    outcome
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn watchers_get_items_and_are_dropped_when_behind_or_gone() {
        let w = Watchers::default();
        w.publish("s", None, || unreachable!("nobody watches"));
        let (guard, mut rx) = w.add("S", 1);
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
