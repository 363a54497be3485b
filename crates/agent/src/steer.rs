//! The steering queue of a running turn: guidance is queued at any time, drained
//! at step boundaries, and never lost — a steer that races the turn's completion
//! still gets one more step.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use crate::turn::UserImage;

/// Who a steer comes from (all reach the model as user-role messages).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SteerKind {
    /// The user redirects the turn.
    #[default]
    Prompt,
    /// Output of a command the user ran (a front end's `!cmd`).
    Command,
    /// A notice of the runtime (a background job ended).
    Notice,
}

impl SteerKind {
    /// The name `serve`'s `steer_applied` carries.
    pub fn as_str(self) -> &'static str {
        match self {
            SteerKind::Prompt => "prompt",
            SteerKind::Command => "command",
            SteerKind::Notice => "notice",
        }
    }
}

/// Guidance for a running turn: text and images the model reads at its next step.
#[derive(Debug, Clone, PartialEq)]
pub struct Steer {
    /// What the user adds.
    pub text: String,
    /// Images that come with it.
    pub images: Vec<UserImage>,
    /// Who sent it.
    pub kind: SteerKind,
}

#[derive(Debug, Default)]
struct State {
    items: VecDeque<Steer>,
    closed: bool,
}

/// Shared by the turn and whoever steers it.
#[derive(Debug, Clone, Default)]
pub struct SteerQueue {
    state: Arc<Mutex<State>>,
}

/// Guidance refused: the turn has decided to finish and takes no more steps.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("The active turn is already finishing")]
pub struct TurnFinishing;

impl SteerQueue {
    /// An open, empty queue.
    pub fn new() -> Self {
        Self::default()
    }

    /// The queue's state. Every change under the lock is a single push,
    /// drain or flag, so a holder that panicked left it consistent: a
    /// poisoned lock is taken over rather than losing guidance.
    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Queues guidance for the turn's next step; refused once the turn is finishing.
    pub fn push(&self, steer: Steer) -> Result<(), TurnFinishing> {
        let mut s = self.state();
        if s.closed {
            return Err(TurnFinishing);
        }
        s.items.push_back(steer);
        Ok(())
    }

    /// Takes everything queued (the turn, at a step boundary).
    pub fn drain(&self) -> Vec<Steer> {
        self.state().items.drain(..).collect()
    }

    /// Whether guidance is waiting.
    pub fn has_pending(&self) -> bool {
        !self.state().items.is_empty()
    }

    /// Closes the queue if it is empty (the turn may finish). Returns false when
    /// guidance is waiting: the turn must take one more step.
    pub fn close_if_empty(&self) -> bool {
        let mut s = self.state();
        if !s.items.is_empty() {
            return false;
        }
        s.closed = true;
        true
    }

    /// Closes unconditionally (cancellation, failure); returns what was left.
    pub fn close(&self) -> Vec<Steer> {
        let mut s = self.state();
        s.closed = true;
        s.items.drain(..).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn steer(t: &str) -> Steer {
        Steer {
            text: t.into(),
            images: Vec::new(),
            kind: SteerKind::Prompt,
        }
    }

    #[test]
    fn order_is_kept_and_a_racing_steer_is_never_lost() {
        let q = SteerQueue::new();
        q.push(steer("a")).unwrap();
        q.push(steer("b")).unwrap();
        assert!(q.has_pending());
        let got: Vec<String> = q.drain().into_iter().map(|s| s.text).collect();
        assert_eq!(got, ["a", "b"]);
        q.push(steer("late")).unwrap();
        assert!(!q.close_if_empty(), "pending guidance keeps the turn going");
        assert_eq!(q.drain().len(), 1);
        assert!(q.close_if_empty());
        assert_eq!(q.push(steer("x")), Err(TurnFinishing));
    }
}
