//! A question is answered only by an act taken after it was shown and seen.
//! Keys that arrive within [`GRACE`] of a question appearing were typed
//! ahead (meant for the editor, or still in the terminal's buffer) and never
//! answer it; Enter confirms only a choice the user selected in the question
//! itself (an arrow), never the one highlighted on arrival.

use std::time::{Duration, Instant};

/// How long after a question appears keys count as typed ahead.
pub const GRACE: Duration = Duration::from_millis(500);

/// When a question appeared and whether the user has chosen in it since.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Deliberate {
    shown: Instant,
    picked: bool,
}

impl Default for Deliberate {
    fn default() -> Self {
        Deliberate::new()
    }
}

impl Deliberate {
    /// A question shown now.
    pub fn new() -> Deliberate {
        Deliberate {
            shown: Instant::now(),
            picked: false,
        }
    }

    /// A question shown at `shown` (tests).
    pub fn shown_at(shown: Instant) -> Deliberate {
        Deliberate {
            shown,
            picked: false,
        }
    }

    /// Whether a key now was typed ahead of the question.
    pub fn typed_ahead(&self) -> bool {
        self.shown.elapsed() < GRACE
    }

    /// The user moved the selection in the question.
    pub fn pick(&mut self) {
        self.picked = true;
    }

    /// Whether Enter now confirms the selection: it was made in the question,
    /// after the grace.
    pub fn enter_confirms(&self) -> bool {
        self.picked && !self.typed_ahead()
    }

    /// Whether a selection was made in the question.
    pub fn picked(&self) -> bool {
        self.picked
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_selection_made_after_the_grace_lets_enter_confirm() {
        let mut fresh = Deliberate::new();
        assert!(fresh.typed_ahead());
        fresh.pick();
        assert!(!fresh.enter_confirms(), "within the grace");
        let mut seen = Deliberate::shown_at(Instant::now() - GRACE * 2);
        assert!(!seen.typed_ahead());
        assert!(!seen.enter_confirms(), "nothing selected yet");
        seen.pick();
        assert!(seen.enter_confirms());
    }
}
