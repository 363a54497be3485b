//! The steering queue of a running turn: guidance is queued at any time, drained
//! at step boundaries, and never lost — a steer that races the turn's completion
//! still gets one more step.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use crate::turn::UserImage;

#[derive(Debug, Clone, PartialEq)]
pub struct Steer {
    pub text: String,
    pub images: Vec<UserImage>,
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

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("The active turn is already finishing")]
pub struct TurnFinishing;

impl SteerQueue {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn push(&self, steer: Steer) -> Result<(), TurnFinishing> {
        let mut s = self.state.lock().map_err(|_| TurnFinishing)?;
        if s.closed {
            return Err(TurnFinishing);
        }
        s.items.push_back(steer);
        Ok(())
    }

    pub fn drain(&self) -> Vec<Steer> {
        self.state
            .lock()
            .map(|mut s| s.items.drain(..).collect())
            .unwrap_or_default()
    }

    pub fn has_pending(&self) -> bool {
        self.state
            .lock()
            .map(|s| !s.items.is_empty())
            .unwrap_or(false)
    }

    /// Closes the queue if it is empty (the turn may finish). Returns false when
    /// guidance is waiting: the turn must take one more step.
    pub fn close_if_empty(&self) -> bool {
        match self.state.lock() {
            Ok(mut s) if s.items.is_empty() => {
                s.closed = true;
                true
            }
            Ok(_) => false,
            Err(_) => true,
        }
    }

    /// Closes unconditionally (cancellation, failure); returns what was left.
    pub fn close(&self) -> Vec<Steer> {
        self.state
            .lock()
            .map(|mut s| {
                s.closed = true;
                s.items.drain(..).collect()
            })
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn steer(t: &str) -> Steer {
        Steer {
            text: t.into(),
            images: Vec::new(),
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
