//! The announce seam: what the engine's session policy did on its own
//! (a background job's notice went into an idle session's log, a goal
//! continuation starts, an `auto` goal's budget ran out), told to the front
//! ends that show it. The policy itself lives in the engine; a front end only
//! implements [`Announce`] to show it (the daemon as events to the session's
//! clients, `serve` as its own wire events) or implements nothing (`run`,
//! `review`, fleets, ACP, `mcp serve`: the log and the next turn have it).

use std::sync::{Arc, Mutex};

use crate::sync::Locked;

/// Something the engine's policy did on a session by itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Announcement {
    /// A background job ended while no turn ran on its session: its notice
    /// is in the log, and the session's next turn reads it.
    NoticeLogged {
        /// The job's session.
        session_id: String,
        /// The job (`bg-1`, …).
        job_id: String,
        /// The notice, as the model reads it.
        text: String,
    },
    /// A continuation turn toward the session's `auto` goal starts now.
    GoalContinues {
        /// The session.
        session_id: String,
        /// The standing goal.
        goal: String,
        /// Continuations left after this one.
        remaining: u32,
    },
    /// A checkpoint taken outside a turn: a background job ended, a rewind
    /// restored files.
    Checkpoint {
        /// The session.
        session_id: String,
        /// What it recorded (or why it failed).
        note: seekclaw_agent::CheckpointNote,
    },
    /// The `auto` goal's budget of continuation turns is spent (said once):
    /// no more start until the goal is set again.
    GoalBudgetExhausted {
        /// The session.
        session_id: String,
        /// The standing goal.
        goal: String,
        /// The budget that was spent.
        turns: u32,
    },
}

impl Announcement {
    /// The session it concerns.
    pub fn session_id(&self) -> &str {
        match self {
            Announcement::NoticeLogged { session_id, .. }
            | Announcement::GoalContinues { session_id, .. }
            | Announcement::GoalBudgetExhausted { session_id, .. }
            | Announcement::Checkpoint { session_id, .. } => session_id,
        }
    }
}

/// A front end that shows what the engine's policy did.
pub trait Announce: Send + Sync {
    /// Shows `what` (called from the engine's own tasks: must not block).
    fn announce(&self, what: &Announcement);
}

type Listeners = Mutex<Vec<(u64, Arc<dyn Announce>)>>;

/// The front ends listening to one engine.
#[derive(Default)]
pub struct Announcers {
    next: std::sync::atomic::AtomicU64,
    listeners: Arc<Listeners>,
}

/// A listener's registration; dropping it stops the announcements.
#[must_use = "dropping the guard stops the announcements"]
pub struct AnnounceGuard {
    listeners: Arc<Listeners>,
    key: u64,
}

impl Drop for AnnounceGuard {
    fn drop(&mut self) {
        self.listeners.locked().retain(|(k, _)| *k != self.key);
    }
}

impl Announcers {
    /// Registers `listener` until the guard is dropped.
    pub fn listen(&self, listener: Arc<dyn Announce>) -> AnnounceGuard {
        let key = self.next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.listeners.locked().push((key, listener));
        AnnounceGuard {
            listeners: self.listeners.clone(),
            key,
        }
    }

    /// Tells every listener.
    pub fn announce(&self, what: Announcement) {
        let listeners: Vec<Arc<dyn Announce>> = self
            .listeners
            .locked()
            .iter()
            .map(|(_, l)| l.clone())
            .collect();
        for listener in listeners {
            listener.announce(&what);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Seen(Mutex<Vec<Announcement>>);

    impl Announce for Seen {
        fn announce(&self, what: &Announcement) {
            self.0.locked().push(what.clone());
        }
    }

    #[test]
    fn listeners_hear_announcements_until_their_guard_drops() {
        let announcers = Announcers::default();
        let seen = Arc::new(Seen(Mutex::new(Vec::new())));
        let guard = announcers.listen(seen.clone());
        let what = Announcement::GoalContinues {
            session_id: "s".into(),
            goal: "g".into(),
            remaining: 3,
        };
        announcers.announce(what.clone());
        drop(guard);
        announcers.announce(what.clone());
        assert_eq!(*seen.0.locked(), vec![what]);
        assert!(announcers.listeners.locked().is_empty());
    }
}
