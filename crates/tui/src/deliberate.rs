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

/// What a key did in a numbered question.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    /// The choice at this index.
    Pick(usize),
    /// Esc.
    Esc,
    /// Ctrl-C or Ctrl-D.
    Quit,
}

/// A numbered question's state that keys move.
pub struct Choosing<'a> {
    /// The highlighted choice.
    pub selected: &'a mut usize,
    /// When it appeared and whether the user picked in it.
    pub guard: &'a mut Deliberate,
    /// Text typed at it (the chat's first draft, never an answer).
    pub draft: &'a mut String,
    /// Set by an Enter that chose nothing (the question says how to choose).
    pub hint: &'a mut bool,
}

impl Choosing<'_> {
    /// A key of a question with `count` (at most 9) choices: ↑↓ then Enter,
    /// a digit, Esc, Ctrl-C. Keys typed ahead answer nothing; other text
    /// goes to the draft.
    pub fn key(self, key: crossterm::event::KeyEvent, count: usize) -> Option<Answer> {
        use crossterm::event::{KeyCode, KeyModifiers};
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let ahead = self.guard.typed_ahead();
        let digit = |c: char| {
            c.to_digit(10)
                .and_then(|d| usize::try_from(d).ok())
                .filter(|d| (1..=count).contains(d))
        };
        match key.code {
            KeyCode::Char('c' | 'd') if ctrl => return Some(Answer::Quit),
            KeyCode::Char(c) if !ctrl && (ahead || digit(c).is_none()) => self.draft.push(c),
            KeyCode::Backspace => {
                self.draft.pop();
            }
            _ if ahead => {}
            KeyCode::Esc => return Some(Answer::Esc),
            KeyCode::Up => {
                *self.selected = (*self.selected + count - 1) % count;
                self.guard.pick();
            }
            KeyCode::Down | KeyCode::Tab => {
                if self.guard.picked() {
                    *self.selected = (*self.selected + 1) % count;
                }
                self.guard.pick();
            }
            KeyCode::Enter if self.guard.enter_confirms() => {
                return Some(Answer::Pick(*self.selected));
            }
            KeyCode::Enter => *self.hint = true,
            KeyCode::Char(c) => return digit(c).map(|d| Answer::Pick(d - 1)),
            _ => {}
        }
        None
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
