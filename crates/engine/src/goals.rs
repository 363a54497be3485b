//! Standing goals' `auto` budgets: after each turn that ends `done` on an
//! unblocked goal, another turn is started toward it, at most [`AUTO_TURNS`]
//! of them; the budget running out is reported once; a cancelled turn or a
//! cleared goal disarms it. The policy that spends them is
//! [`crate::Engine::next_goal_turn`] (`goal_policy.rs`).

use std::collections::HashMap;
use std::sync::Mutex;

use seekclaw_agent::{AUTO_TURNS, TurnOutcome};

use crate::sync::Locked;

/// What follows a turn on a session with an `auto` goal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GoalStep {
    /// Start a continuation turn; `remaining` more may follow it.
    Continue {
        /// Continuations left after this one.
        remaining: u32,
    },
    /// The budget is spent: say so (once); the goal is disarmed.
    BudgetExhausted,
    /// Nothing: the goal is not `auto`.
    Stop,
}

/// An `auto` goal's budget of continuation turns.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct GoalBudget {
    /// `None`: not armed; `Some(0)`: spent, to be reported once.
    left: Option<u32>,
}

impl GoalBudget {
    /// A full budget when `auto`, else none.
    pub fn new(auto: bool) -> GoalBudget {
        GoalBudget {
            left: auto.then_some(AUTO_TURNS),
        }
    }

    /// Armed (even with its budget spent).
    pub fn is_armed(&self) -> bool {
        self.left.is_some()
    }

    /// Continuations left (0: not armed, or spent).
    pub fn left(&self) -> u32 {
        self.left.unwrap_or(0)
    }

    /// The step a due continuation takes, spending one turn.
    pub fn spend(&mut self) -> GoalStep {
        match self.left {
            None => GoalStep::Stop,
            Some(0) => {
                self.left = None;
                GoalStep::BudgetExhausted
            }
            Some(n) => {
                self.left = Some(n - 1);
                GoalStep::Continue { remaining: n - 1 }
            }
        }
    }
}

/// The budgets of an engine's sessions whose goal is `auto`.
#[derive(Default)]
pub struct AutoGoals {
    armed: Mutex<HashMap<String, GoalBudget>>,
}

impl AutoGoals {
    fn key(sid: &str) -> String {
        sid.to_lowercase()
    }

    /// Arms (or re-arms, with a full budget) or disarms `sid`.
    pub fn set(&self, sid: &str, auto: bool) {
        let mut armed = self.armed.locked();
        if auto {
            armed.insert(Self::key(sid), GoalBudget::new(true));
        } else {
            armed.remove(&Self::key(sid));
        }
    }

    /// Continuations left (0: not armed, or spent).
    pub fn left(&self, sid: &str) -> u32 {
        self.armed
            .locked()
            .get(&Self::key(sid))
            .map_or(0, GoalBudget::left)
    }

    /// Whether the session is armed (even with its budget spent).
    pub fn armed(&self, sid: &str) -> bool {
        self.armed.locked().contains_key(&Self::key(sid))
    }

    /// The step a due continuation of `sid` takes (see [`GoalBudget::spend`]).
    pub fn next(&self, sid: &str) -> GoalStep {
        let mut armed = self.armed.locked();
        let key = Self::key(sid);
        let Some(budget) = armed.get_mut(&key) else {
            return GoalStep::Stop;
        };
        let step = budget.spend();
        if !budget.is_armed() {
            armed.remove(&key);
        }
        step
    }
}

/// How a turn ended, as the goal policy reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum EndKind {
    /// `done`.
    Done,
    /// Cancelled by a person (or a shutdown).
    Cancelled,
    /// Failed, or its end could not be saved.
    Other,
}

impl EndKind {
    pub(crate) fn of(outcome: &TurnOutcome) -> EndKind {
        match outcome {
            TurnOutcome::Done(_) => EndKind::Done,
            TurnOutcome::Cancelled(_) => EndKind::Cancelled,
            _ => EndKind::Other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_budget_counts_down_reports_its_end_once_and_disarms() {
        let mut b = GoalBudget::new(true);
        for left in (0..AUTO_TURNS).rev() {
            assert_eq!(b.spend(), GoalStep::Continue { remaining: left });
        }
        assert_eq!(b.spend(), GoalStep::BudgetExhausted);
        assert_eq!(b.spend(), GoalStep::Stop);
        assert!(!b.is_armed());
        assert_eq!(GoalBudget::new(false).spend(), GoalStep::Stop);
    }

    #[test]
    fn sessions_keep_their_own_budgets_without_case() {
        let goals = AutoGoals::default();
        goals.set("S1", true);
        assert!(goals.armed("s1"));
        assert_eq!(
            goals.next("s1"),
            GoalStep::Continue {
                remaining: AUTO_TURNS - 1
            }
        );
        assert_eq!(goals.left("S1"), AUTO_TURNS - 1);
        assert_eq!(goals.next("s2"), GoalStep::Stop);
        goals.set("s1", false);
        assert_eq!(goals.next("s1"), GoalStep::Stop);
    }
}
