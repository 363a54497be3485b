//! Active turns: one per session daemon-wide (a second `chat` is `busy`).
//! A connection's chats by request id are in [`crate::chats`].

use std::collections::HashMap;
use std::sync::Mutex;

use seekclaw_agent::{Approvals, SteerQueue};
use tokio_util::sync::CancellationToken;

use crate::sync::Locked;

/// Handles of a running turn.
#[derive(Clone)]
pub struct ActiveTurn {
    pub session_id: String,
    pub cancel: CancellationToken,
    pub steer: SteerQueue,
    pub approvals: Approvals,
}

#[derive(Default)]
pub struct Turns {
    /// By session id.
    active: Mutex<HashMap<String, ActiveTurn>>,
}

/// Removes the turn from the registry when it ends, however it ends.
pub struct TurnGuard<'a> {
    turns: &'a Turns,
    session_id: String,
    /// The session's cross-process lock ([`crate::engine`]), released with
    /// the registry entry.
    held: Option<crate::engine::SessionLock>,
}

impl TurnGuard<'_> {
    /// Keeps `lock` until the turn ends.
    pub fn hold(&mut self, lock: crate::engine::SessionLock) {
        self.held = Some(lock);
    }
}

impl Drop for TurnGuard<'_> {
    fn drop(&mut self) {
        self.turns.active.locked().remove(&self.session_id);
    }
}

impl Turns {
    /// Registers a turn; `None` when the session already has one.
    pub fn start(&self, turn: ActiveTurn) -> Option<TurnGuard<'_>> {
        let mut active = self.active.locked();
        if active.contains_key(&turn.session_id) {
            return None;
        }
        let session_id = turn.session_id.clone();
        active.insert(session_id.clone(), turn);
        Some(TurnGuard {
            turns: self,
            session_id,
            held: None,
        })
    }

    pub fn by_session(&self, session_id: &str) -> Option<ActiveTurn> {
        let active = self.active.locked();
        active
            .values()
            .find(|t| t.session_id.eq_ignore_ascii_case(session_id))
            .cloned()
    }

    pub fn count(&self) -> usize {
        self.active.locked().len()
    }

    /// Cancels every turn (shutdown).
    pub fn cancel_all(&self) {
        for t in self.active.locked().values() {
            t.cancel.cancel();
        }
    }
}
