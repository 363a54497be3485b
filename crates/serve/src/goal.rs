//! The standing goal of a `serve` session (reference §4.8): durable markers
//! in the log (runtime notices whose first line is `[goal]` or `[goal
//! cleared]`; the last one wins, so the goal survives compaction and restarts)
//! and `auto` continuation with a budget of turns.

use seekclaw_agent::{AUTO_TURNS, CONTINUE_PROMPT, GoalMarker, GoalStatus, StandingGoal};
use seekclaw_engine::{GoalBudget, GoalStep};

use super::Events;
use super::command::Submission;
use super::wire::WireEvent;
use seekclaw_engine::Engine;
use seekclaw_engine::Scope;

/// The goal and its continuation state.
#[derive(Debug, Default)]
pub struct Goal {
    text: Option<String>,
    /// Auto-continuation is paused while the model reports it blocked.
    blocked: bool,
    /// Continuations left (the engine's policy); armed only by a durable
    /// `auto` set.
    budget: GoalBudget,
    /// The last turn finished cleanly, so a continuation may follow.
    due: bool,
}

/// The marker for `goal` (`None`: cleared).
pub fn marker(goal: Option<&str>) -> GoalMarker {
    match goal {
        Some(text) => GoalMarker::Set(text.to_string()),
        None => GoalMarker::Cleared,
    }
}

impl Goal {
    /// The session's goal: its last marker (auto continuation is not
    /// re-armed by a restart; a user sets it again).
    pub async fn load(engine: &Engine, scope: &Scope, session_id: &str) -> Goal {
        let (store, key, id) = (
            engine.store.clone(),
            scope.key.clone(),
            session_id.to_string(),
        );
        let events = tokio::task::spawn_blocking(move || store.events(&key, &id))
            .await
            .ok()
            .and_then(Result::ok)
            .unwrap_or_default();
        let standing = StandingGoal::from_events(&events);
        Goal {
            blocked: standing.blocked.is_some(),
            text: standing.text,
            ..Goal::default()
        }
    }

    /// What the model reported in a turn.
    pub fn reported(&mut self, status: &GoalStatus) {
        match status {
            GoalStatus::Met => self.set(None, false),
            GoalStatus::Blocked(_) => self.blocked = true,
            GoalStatus::Unblocked => self.blocked = false,
        }
    }

    /// The marker is durable: take the new goal (and arm `auto`).
    pub fn set(&mut self, text: Option<String>, auto: bool) {
        self.budget = GoalBudget::new(auto && text.is_some());
        self.text = text;
        self.blocked = false;
        self.due = false;
    }

    /// Other work comes first: no continuation is due after it.
    pub fn hold(&mut self) {
        self.due = false;
    }

    /// A `cancel`: no more continuations until the goal is set again.
    pub fn disarm(&mut self) {
        self.budget = GoalBudget::new(false);
        self.due = false;
    }

    /// A turn ended; a clean end with an `auto` goal makes a continuation due.
    pub fn turn_ended(&mut self, clean: bool) {
        self.due = clean && self.budget.is_armed() && !self.blocked && self.text.is_some();
    }

    /// The continuation prompt to start now, if one is due (the engine is
    /// idle with nothing queued); reports the budget either way.
    pub fn continuation(&mut self, events: &Events) -> Option<Submission> {
        if !std::mem::take(&mut self.due) {
            return None;
        }
        match self.budget.spend() {
            GoalStep::Continue { remaining } => {
                events.emit(&WireEvent::GoalContinue { remaining });
            }
            GoalStep::BudgetExhausted => {
                events.emit(&WireEvent::GoalBudgetExhausted { turns: AUTO_TURNS });
                return None;
            }
            GoalStep::Stop => return None,
        }
        Some(Submission {
            text: CONTINUE_PROMPT.to_string(),
            images: Vec::new(),
            submission_id: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_budget_counts_down_and_cancel_disarms() {
        let mut g = Goal::default();
        g.set(Some("g".into()), true);
        assert_eq!(g.budget.left(), AUTO_TURNS);
        g.turn_ended(true);
        assert!(g.due);
        g.disarm();
        assert!(!g.due && !g.budget.is_armed());
        g.set(Some("g".into()), false);
        g.turn_ended(true);
        assert!(!g.due, "no auto, no continuation");
        g.set(Some("g".into()), true);
        g.reported(&GoalStatus::Blocked("key".into()));
        g.turn_ended(true);
        assert!(!g.due, "blocked pauses it");
        g.reported(&GoalStatus::Met);
        assert!(g.text.is_none() && !g.budget.is_armed());
    }
}
