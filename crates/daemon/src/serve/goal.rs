//! The standing goal of a `serve` session (reference §4.8): durable markers
//! in the log (runtime notices whose first line is `[goal]` or `[goal
//! cleared]`; the last one wins, so the goal survives compaction and restarts)
//! and `auto` continuation with a budget of turns.

use seekclaw_store::{EventItem, RuntimeNotice};

use super::Events;
use super::command::Submission;
use super::wire::WireEvent;
use crate::headless::LocalEngine;
use crate::scope::Scope;

/// Turns the engine starts on its own toward one `auto` goal.
pub const AUTO_BUDGET: u32 = 20;

const SET: &str = "[goal]";
const CLEARED: &str = "[goal cleared]";
const CONTINUE: &str =
    "Continue working toward the standing goal. When it is fully met, say so plainly.";

/// The goal and its continuation state.
#[derive(Debug, Default)]
pub struct Goal {
    text: Option<String>,
    auto: bool,
    /// Continuations left; armed only by a durable `auto` set.
    remaining: u32,
    /// The last turn finished cleanly, so a continuation may follow.
    due: bool,
}

/// The marker text for `goal` (`None`: cleared).
pub fn marker(goal: Option<&str>) -> String {
    match goal {
        Some(text) => format!("{SET}\n{text}"),
        None => CLEARED.to_string(),
    }
}

/// The marker as a log item.
pub fn marker_item(goal: Option<&str>) -> EventItem {
    EventItem::Runtime(RuntimeNotice {
        kind: "goal".into(),
        text: marker(goal),
    })
}

/// The goal a marker sets (`Some(None)`: cleared), if `text` is one.
fn parse_marker(text: &str) -> Option<Option<String>> {
    if text == CLEARED {
        return Some(None);
    }
    text.strip_prefix(SET)
        .and_then(|rest| rest.strip_prefix('\n'))
        .map(|goal| Some(goal.to_string()))
}

impl Goal {
    /// The session's goal: its last marker (auto continuation is not
    /// re-armed by a restart; a user sets it again).
    pub async fn load(engine: &LocalEngine, scope: &Scope, session_id: &str) -> Goal {
        let (store, key, id) = (
            engine.store().clone(),
            scope.key.clone(),
            session_id.to_string(),
        );
        let events = tokio::task::spawn_blocking(move || store.events(&key, &id))
            .await
            .ok()
            .and_then(Result::ok)
            .unwrap_or_default();
        let text = events
            .iter()
            .rev()
            .find_map(|ev| match &ev.item {
                EventItem::Runtime(n) => parse_marker(&n.text),
                EventItem::Steer(u) => parse_marker(&u.text),
                _ => None,
            })
            .flatten();
        Goal {
            text,
            ..Goal::default()
        }
    }

    /// The marker is durable: take the new goal (and arm `auto`).
    pub fn set(&mut self, text: Option<String>, auto: bool) {
        self.auto = auto && text.is_some();
        self.remaining = if self.auto { AUTO_BUDGET } else { 0 };
        self.text = text;
        self.due = false;
    }

    /// The turn-start reminder of a standing goal (it reaches the model as a
    /// runtime notice at the turn's first step, so the goal survives
    /// compaction of the marker).
    pub fn reminder(&self) -> Option<String> {
        self.text.as_ref().map(|goal| {
            format!(
                "[goal reminder]\nThe standing goal: {goal}\nAssess it first: if it is met, say so plainly; \
                 if it is truly blocked, say what blocks it; otherwise keep working toward it."
            )
        })
    }

    /// A `cancel`: no more continuations until the goal is set again.
    pub fn disarm(&mut self) {
        self.auto = false;
        self.due = false;
    }

    /// A turn ended; a clean end with an `auto` goal makes a continuation due.
    pub fn turn_ended(&mut self, clean: bool, _continuation: bool) {
        self.due = clean && self.auto && self.text.is_some();
    }

    /// The continuation prompt to start now, if one is due (the engine is
    /// idle with nothing queued); reports the budget either way.
    pub fn continuation(&mut self, events: &Events) -> Option<Submission> {
        if !std::mem::take(&mut self.due) {
            return None;
        }
        if self.remaining == 0 {
            self.auto = false;
            events.emit(&WireEvent::GoalBudgetExhausted { turns: AUTO_BUDGET });
            return None;
        }
        self.remaining -= 1;
        events.emit(&WireEvent::GoalContinue {
            remaining: self.remaining,
        });
        Some(Submission {
            text: CONTINUE.to_string(),
            images: Vec::new(),
            submission_id: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_round_trip() {
        assert_eq!(
            parse_marker(&marker(Some("ship it\nall"))),
            Some(Some("ship it\nall".into()))
        );
        assert_eq!(parse_marker(&marker(None)), Some(None));
        assert_eq!(parse_marker("[goalx]"), None);
        assert_eq!(parse_marker("hello"), None);
    }

    #[test]
    fn auto_budget_counts_down_and_cancel_disarms() {
        let mut g = Goal::default();
        g.set(Some("g".into()), true);
        assert_eq!(g.remaining, AUTO_BUDGET);
        g.turn_ended(true, false);
        assert!(g.due);
        g.disarm();
        assert!(!g.due && !g.auto);
        g.set(Some("g".into()), false);
        g.turn_ended(true, false);
        assert!(!g.due, "no auto, no continuation");
    }
}
