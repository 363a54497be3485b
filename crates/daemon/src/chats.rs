//! A connection's chats by request id, from the moment their line is read.
//!
//! Requests on a connection run concurrently, so an `agent.cancel` or
//! `agent.steer` written right behind its `chat` may be handled before that
//! chat has claimed its session. The read loop registers each chat before it
//! reads the next line (as the reference's read loop does), so they find it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use seekclaw_agent::{Approvals, SteerQueue};
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use seekclaw_engine::TurnControls;
use seekclaw_engine::sync::Locked;

/// A chat as `agent.cancel` and `agent.steer` see it.
#[derive(Clone)]
pub struct ChatEntry {
    serial: u64,
    pub cancel: CancellationToken,
    pub steer: SteerQueue,
    /// Where `agent.approve` answers the turn's approval requests.
    pub approvals: Approvals,
    /// `params.sessionId` of the chat, if it named one.
    pub requested: Option<String>,
    /// `params.detach`: the turn outlives the connection.
    pub detach: bool,
    session: watch::Receiver<Option<String>>,
}

impl ChatEntry {
    /// The session the chat runs on, once claimed; `None` when the chat ended
    /// (an error, or the connection closed) without claiming one.
    pub async fn session(&self) -> Option<String> {
        let mut rx = self.session.clone();
        let claimed = rx.wait_for(Option::is_some).await.ok()?;
        claimed.clone()
    }

    /// The session the chat runs on now: the one it claimed, else the one
    /// it asked for (`None` for a new session not made yet).
    pub fn session_now(&self) -> Option<String> {
        let claimed = self.session.borrow().clone();
        claimed.or_else(|| self.requested.clone())
    }
}

/// One connection's chats.
#[derive(Default)]
pub struct Chats {
    entries: Mutex<Entries>,
}

#[derive(Default)]
struct Entries {
    next_serial: u64,
    /// Every running chat, by serial.
    live: HashMap<u64, ChatEntry>,
    /// Request id → serial of the newest chat with it (the one requests find).
    newest: HashMap<i64, u64>,
}

impl Entries {
    /// The chats a request can name: the newest of each request id.
    fn findable(&self) -> impl Iterator<Item = (i64, &ChatEntry)> {
        self.newest
            .iter()
            .filter_map(|(id, serial)| Some((*id, self.live.get(serial)?)))
    }
}

impl Chats {
    /// Registers chat `request_id`. A reused id hides the older chat from
    /// `agent.cancel`/`agent.steer` (as in the reference) while it still runs;
    /// [`Chats::all`] still sees it. Its handler keeps the returned start;
    /// dropping it removes the entry.
    pub fn register(
        self: &Arc<Self>,
        request_id: i64,
        requested: Option<String>,
        (cancel, approvals): (CancellationToken, Approvals),
        detach: bool,
    ) -> ChatStart {
        let (session_tx, session) = watch::channel(None);
        let steer = SteerQueue::new();
        let serial = {
            let mut e = self.entries.locked();
            e.next_serial += 1;
            let serial = e.next_serial;
            let entry = ChatEntry {
                serial,
                cancel: cancel.clone(),
                steer: steer.clone(),
                approvals: approvals.clone(),
                requested,
                detach,
                session,
            };
            e.live.insert(serial, entry);
            e.newest.insert(request_id, serial);
            serial
        };
        ChatStart {
            chats: self.clone(),
            request_id,
            serial,
            controls: TurnControls {
                cancel,
                steer,
                approvals,
            },
            session_tx,
        }
    }

    pub fn get(&self, request_id: i64) -> Option<ChatEntry> {
        let e = self.entries.locked();
        e.live.get(e.newest.get(&request_id)?).cloned()
    }

    /// The chats requests can name, by request id.
    pub fn findable(&self) -> Vec<(i64, ChatEntry)> {
        let e = self.entries.locked();
        let mut all: Vec<_> = e.findable().map(|(id, c)| (id, c.clone())).collect();
        all.sort_by_key(|(id, _)| *id);
        all
    }

    /// Every running chat, a hidden older one of a reused id included.
    pub fn all(&self) -> Vec<ChatEntry> {
        self.entries.locked().live.values().cloned().collect()
    }

    /// The newest findable chat that asked for session `id` (without case).
    pub fn asking_for(&self, id: &str) -> Option<ChatEntry> {
        let e = self.entries.locked();
        e.findable()
            .map(|(_, c)| c)
            .filter(|c| {
                c.requested
                    .as_deref()
                    .is_some_and(|r| r.eq_ignore_ascii_case(id))
            })
            .max_by_key(|c| c.serial)
            .cloned()
    }
}

/// A chat handler's side of its entry.
pub struct ChatStart {
    chats: Arc<Chats>,
    request_id: i64,
    serial: u64,
    /// The turn's cancel, steer and approvals, registered here from the
    /// moment the line was read.
    pub controls: TurnControls,
    session_tx: watch::Sender<Option<String>>,
}

impl ChatStart {
    /// The chat now runs on session `id` (steers waiting for it go ahead).
    pub fn claimed(&self, id: &str) {
        let _ = self.session_tx.send(Some(id.to_string()));
    }
}

impl Drop for ChatStart {
    fn drop(&mut self) {
        {
            let mut e = self.chats.entries.locked();
            e.live.remove(&self.serial);
            if e.newest.get(&self.request_id) == Some(&self.serial) {
                e.newest.remove(&self.request_id);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn controls() -> (CancellationToken, Approvals) {
        (CancellationToken::new(), Approvals::default())
    }

    #[test]
    fn a_chat_runs_on_its_requested_session_until_it_claims_one() {
        let chats = Arc::new(Chats::default());
        let start = chats.register(2, Some("asked".into()), controls(), true);
        let entry = chats.get(2).unwrap();
        assert!(entry.detach);
        assert_eq!(entry.session_now().as_deref(), Some("asked"));
        start.claimed("claimed");
        assert_eq!(entry.session_now().as_deref(), Some("claimed"));
        let fresh = chats.register(4, None, controls(), false);
        assert_eq!(chats.get(4).unwrap().session_now(), None);
        drop((start, fresh));
    }

    #[tokio::test]
    async fn a_chat_is_found_until_its_start_is_dropped() {
        let chats = Arc::new(Chats::default());
        let start = chats.register(7, Some("S1".into()), controls(), false);
        let entry = chats.get(7).unwrap();
        assert!(chats.asking_for("s1").is_some());
        let waiting = tokio::spawn(async move { entry.session().await });
        start.claimed("s1");
        assert_eq!(waiting.await.unwrap().as_deref(), Some("s1"));
        drop(start);
        assert!(chats.get(7).is_none());
        assert!(chats.all().is_empty() && chats.findable().is_empty());
    }

    #[tokio::test]
    async fn a_chat_that_ends_unclaimed_answers_no_session() {
        let chats = Arc::new(Chats::default());
        let start = chats.register(1, None, controls(), false);
        let entry = chats.get(1).unwrap();
        drop(start);
        assert_eq!(entry.session().await, None);
    }

    #[test]
    fn a_reused_id_replaces_the_older_entry_and_outlives_it() {
        let chats = Arc::new(Chats::default());
        let old = chats.register(3, None, controls(), false);
        let new = chats.register(3, None, controls(), false);
        assert_eq!(chats.findable().len(), 1, "the older chat is hidden");
        assert_eq!(chats.all().len(), 2, "but still counted as running");
        drop(old);
        assert!(
            chats.get(3).is_some(),
            "the older chat's end keeps the newer entry"
        );
        drop(new);
        assert!(chats.get(3).is_none());
    }
}
