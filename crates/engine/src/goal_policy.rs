//! Standing goals and their `auto` continuation, the one policy every front
//! end follows, owned here: the goal is a marker in the session log; after
//! each turn that ends `done` on an unblocked `auto` goal, another turn is
//! started toward it, at most [`AUTO_TURNS`] of them; the budget running out
//! is announced once; a cancelled turn or a cleared goal disarms it. The
//! engine runs the continuation turns itself (their events go to the turn
//! bus and the log), unless the front end streams them as its own turns
//! (`serve`, [`crate::TurnOverrides::own_goal_turns`]): then it asks
//! [`crate::Engine::next_goal_turn`] and starts the turn it is told to.

use seekclaw_agent::{
    AUTO_TURNS, Approvals, CONTINUE_PROMPT, GoalMarker, StandingGoal, Unattended,
};

use crate::announce::Announcement;
use crate::engine::Engine;
use crate::error::EngineError;
use crate::goals::{EndKind, GoalStep};
use crate::launcher::{TurnOrigin, TurnRequest};
use crate::scope::Scope;
use crate::target::{SessionTarget, TurnControls};

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
