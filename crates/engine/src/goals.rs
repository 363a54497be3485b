//! Standing goals and their `auto` continuation, the one policy every front
//! end follows, owned here: the goal is a marker in the session log; after
//! each turn that ends `done` on an unblocked `auto` goal, another turn is
//! started toward it, at most [`AUTO_TURNS`] of them; the budget running out
//! is announced once; a cancelled turn or a cleared goal disarms it. The
//! engine runs the continuation turns itself (their events go to the turn
//! bus and the log), unless the front end streams them as its own turns
//! (`serve`, [`crate::TurnOverrides::own_goal_turns`]): then it asks
//! [`crate::Engine::next_goal_turn`] and starts the turn it is told to.

use std::collections::HashMap;
use std::sync::Mutex;

use crate::error::EngineError;
use seekclaw_agent::{
    AUTO_TURNS, Approvals, CONTINUE_PROMPT, GoalMarker, StandingGoal, TurnOutcome, Unattended,
};

use crate::announce::Announcement;
use crate::engine::Engine;
use crate::launcher::{TurnOrigin, TurnRequest};
use crate::scope::Scope;
use crate::sync::Locked;
use crate::target::{SessionTarget, TurnControls};

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

/// What a session's goal asks for after a turn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GoalTurn {
    /// Start a continuation turn with this prompt now (announced already).
    Continue {
        /// The prompt of the continuation turn.
        prompt: String,
    },
    /// Nothing to start.
    Stop,
}

impl Engine {
    /// The goal in force on a session, from its log (`not_found` without
    /// the session).
    pub async fn standing_goal(
        &self,
        scope_key: &str,
        sid: &str,
    ) -> Result<StandingGoal, EngineError> {
        let (key, id) = (scope_key.to_string(), sid.to_string());
        let events = self
            .db(move |s| {
                if s.session(&key, &id)?.is_none() {
                    return Ok(None);
                }
                s.events(&key, &id).map(Some)
            })
            .await?
            .ok_or_else(|| EngineError::not_found(format!("Session {sid} not found")))?;
        Ok(StandingGoal::from_events(&events))
    }

    /// Sets (`Some`) or clears the session's goal: the marker goes into its
    /// running turn (a notice the turn records at its next step) or, idle,
    /// straight into the log; `auto` arms the continuation once the marker
    /// is durable (a cleared goal disarms it).
    pub async fn write_goal(
        &self,
        scope_key: &str,
        sid: &str,
        text: Option<&str>,
        auto: bool,
    ) -> Result<(), EngineError> {
        let marker = match text {
            Some(text) => GoalMarker::Set(text.to_string()),
            None => GoalMarker::Cleared,
        };
        if !self.notify_running(sid, &marker.text()) {
            self.append_idle(scope_key, sid, marker.item()).await?;
        }
        self.goals.set(sid, auto && text.is_some());
        Ok(())
    }

    /// The continuation a session's goal asks for now: none unless it is
    /// armed, stands and is not blocked; spends one turn of the budget and
    /// announces it (or, once, that the budget is spent).
    pub async fn next_goal_turn(&self, scope_key: &str, sid: &str) -> GoalTurn {
        if !self.goals.armed(sid) {
            return GoalTurn::Stop;
        }
        let Ok(goal) = self.standing_goal(scope_key, sid).await else {
            return GoalTurn::Stop;
        };
        let Some(text) = goal.text.filter(|_| goal.blocked.is_none()) else {
            return GoalTurn::Stop;
        };
        let session_id = sid.to_string();
        match self.goals.next(sid) {
            GoalStep::Continue { remaining } => {
                self.announcers.announce(Announcement::GoalContinues {
                    session_id,
                    goal: text,
                    remaining,
                });
                GoalTurn::Continue {
                    prompt: CONTINUE_PROMPT.to_string(),
                }
            }
            GoalStep::BudgetExhausted => {
                self.announcers.announce(Announcement::GoalBudgetExhausted {
                    session_id,
                    goal: text,
                    turns: AUTO_TURNS,
                });
                GoalTurn::Stop
            }
            GoalStep::Stop => GoalTurn::Stop,
        }
    }

    /// The policy at the end of any turn: a cancelled turn disarms the
    /// goal; a `done` one on an armed goal starts the engine's own
    /// continuation turns, unless the front end starts them itself.
    pub(crate) fn goal_turn_ended(
        &self,
        scope: &Scope,
        sid: &str,
        outcome: EndKind,
        own_goal_turns: bool,
    ) {
        match outcome {
            EndKind::Cancelled => self.goals.set(sid, false),
            EndKind::Done if !own_goal_turns && self.goals.armed(sid) => {
                let Ok(runtime) = tokio::runtime::Handle::try_current() else {
                    return;
                };
                let (engine, scope, sid) = (self.clone(), scope.clone(), sid.to_string());
                runtime.spawn(async move { engine.continue_goal(&scope, &sid).await });
            }
            _ => {}
        }
    }

    /// Runs continuation turns while the goal asks for them. Nobody reads
    /// them live but the session's watchers; the log keeps everything. A
    /// turn that ends `done` asks again through [`Engine::goal_turn_ended`].
    async fn continue_goal(&self, scope: &Scope, sid: &str) {
        if self.stopping.is_cancelled() {
            return;
        }
        let GoalTurn::Continue { prompt } = self.next_goal_turn(&scope.key, sid).await else {
            return;
        };
        // Nobody is there to answer: like a scheduled run, calls that need a
        // person's approval are refused.
        let approvals = Approvals::unattended(Unattended::Reject(
            "goal continuations do not wait for a person".into(),
        ));
        let request = TurnRequest {
            scope: scope.clone(),
            session: SessionTarget::Id(sid.to_string()),
            message: prompt,
            images: Vec::new(),
            reasoning: None,
            overrides: Default::default(),
            controls: TurnControls::child_of(&self.stopping, approvals),
            origin: TurnOrigin::new("goal"),
        };
        match self.start_turn(request).await {
            Ok(turn) => {
                turn.outcome().await;
            }
            Err(e) => {
                tracing::warn!(session = %sid, error = %e.message, "goal continuation did not start");
            }
        }
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
