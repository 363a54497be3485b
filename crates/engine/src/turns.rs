//! Active turns: one per session engine-wide (a second `chat` is `busy`).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use seekclaw_agent::{Approvals, SteerQueue};
use tokio_util::sync::CancellationToken;

use crate::sync::Locked;

/// Handles of a running turn.
#[derive(Clone)]
pub struct ActiveTurn {
    /// The session it runs on.
    pub session_id: String,
    /// Stops it.
    pub cancel: CancellationToken,
    /// Feeds it guidance.
    pub steer: SteerQueue,
    /// Answers what its approval policy asks.
    pub approvals: Approvals,
}

/// The registry; clones share it.
#[derive(Default, Clone)]
pub struct Turns {
    /// By session id.
    active: Arc<Mutex<HashMap<String, ActiveTurn>>>,
}

/// Removes the turn from the registry when it ends, however it ends.
pub struct TurnGuard {
    turns: Turns,
    session_id: String,
    /// The session's cross-process lock ([`crate::session_lock`]), released with
    /// the registry entry.
    held: Option<crate::session_lock::SessionLock>,
}

impl TurnGuard {
    /// Keeps `lock` until the turn ends.
    pub fn hold(&mut self, lock: crate::session_lock::SessionLock) {
        self.held = Some(lock);
    }
}

impl Drop for TurnGuard {
    fn drop(&mut self) {
        self.turns.active.locked().remove(&self.session_id);
    }
}

impl Turns {
    /// Registers a turn; `None` when the session already has one.
    pub fn start(&self, turn: ActiveTurn) -> Option<TurnGuard> {
        let mut active = self.active.locked();
        if active.contains_key(&turn.session_id) {
            return None;
        }
        let session_id = turn.session_id.clone();
        active.insert(session_id.clone(), turn);
        Some(TurnGuard {
            turns: self.clone(),
            session_id,
            held: None,
        })
    }

    /// The turn running on `session_id` (any case).
    pub fn by_session(&self, session_id: &str) -> Option<ActiveTurn> {
        let active = self.active.locked();
        active
            .values()
            .find(|t| t.session_id.eq_ignore_ascii_case(session_id))
            .cloned()
    }

    /// How many turns run.
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
