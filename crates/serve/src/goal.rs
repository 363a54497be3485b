//! The standing goal of a `serve` session (reference §4.8): durable markers
//! in the log (runtime notices whose first line is `[goal]` or `[goal
//! cleared]`; the last one wins, so the goal survives compaction and
//! restarts). The `auto` continuation policy (budget, blocked goals,
//! announcements) is the engine's; `serve` only starts the continuation
//! turns itself, in its queue, so its controller streams and steers them
//! like any other turn.

use seekclaw_agent::{GoalMarker, GoalStatus};
use seekclaw_engine::{Engine, GoalTurn, Scope};

use super::command::Submission;

/// What `serve` keeps of the goal between turns.
#[derive(Debug, Default)]
pub struct Goal {
    text: Option<String>,
    /// Auto-continuation is paused while the model reports it blocked.
    blocked: bool,
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
        let standing = engine
            .standing_goal(&scope.key, session_id)
            .await
            .unwrap_or_default();
        Goal {
            blocked: standing.blocked.is_some(),
            text: standing.text,
            due: false,
        }
    }

    /// What the model reported in a turn (a met goal is cleared and
    /// disarmed).
    pub fn reported(&mut self, status: &GoalStatus, engine: &Engine, sid: Option<&str>) {
        match status {
            GoalStatus::Met => self.set(None, false, engine, sid),
            GoalStatus::Blocked(_) => self.blocked = true,
            GoalStatus::Unblocked => self.blocked = false,
        }
    }

    /// The marker is durable: take the new goal and arm (or disarm) the
    /// engine's `auto` continuation.
    pub fn set(&mut self, text: Option<String>, auto: bool, engine: &Engine, sid: Option<&str>) {
        if let Some(sid) = sid {
            engine.goals.set(sid, auto && text.is_some());
        }
        self.text = text;
        self.blocked = false;
        self.due = false;
    }

    /// Other work comes first: no continuation is due after it.
    pub fn hold(&mut self) {
        self.due = false;
    }

    /// A `cancel`: no more continuations until the goal is set again.
    pub fn disarm(&mut self, engine: &Engine, sid: Option<&str>) {
        if let Some(sid) = sid {
            engine.goals.set(sid, false);
        }
        self.due = false;
    }

    /// A turn ended; a clean end with an armed goal makes a continuation due.
    pub fn turn_ended(&mut self, clean: bool, engine: &Engine, sid: Option<&str>) {
        let armed = sid.is_some_and(|sid| engine.goals.armed(sid));
        self.due = clean && armed && !self.blocked && self.text.is_some();
    }

    /// The continuation prompt to start now, if one is due (the engine is
    /// idle with nothing queued); the engine spends the budget and
    /// announces it either way.
    pub async fn continuation(
        &mut self,
        engine: &Engine,
        scope: &Scope,
        sid: Option<&str>,
    ) -> Option<Submission> {
        if !std::mem::take(&mut self.due) {
            return None;
        }
        match engine.next_goal_turn(&scope.key, sid?).await {
            GoalTurn::Continue { prompt } => Some(Submission {
                text: prompt,
                images: Vec::new(),
                submission_id: None,
            }),
            GoalTurn::Stop => None,
        }
    }
}
