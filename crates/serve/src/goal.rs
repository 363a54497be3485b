//! The standing goal of a `serve` session (reference §4.8): durable markers
//! in the log (runtime notices whose first line is `[goal]` or `[goal
//! cleared]`; the last one wins, so the goal survives compaction and
//! restarts). The `auto` continuation policy (whether the goal stands and is
//! not blocked, the budget, the announcements) is the engine's; `serve`
//! only starts the continuation turns itself, in its queue, so its
//! controller streams and steers them like any other turn.

use seekclaw_agent::{GoalMarker, GoalStatus};
use seekclaw_engine::{Engine, GoalTurn, Scope};

use super::command::Submission;

/// Whether a continuation may follow the work that just ended.
#[derive(Debug, Default)]
pub struct Goal {
    /// The last turn finished cleanly on an armed goal.
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
    /// What the model reported in a turn: a met goal is disarmed (the log
    /// has the rest).
    pub fn reported(&mut self, status: &GoalStatus, engine: &Engine, sid: Option<&str>) {
        if let GoalStatus::Met = status {
            self.disarm(engine, sid);
        }
    }

    /// The marker is durable: arm (or disarm) the engine's `auto`
    /// continuation of the new goal.
    pub fn set(&mut self, text: Option<&str>, auto: bool, engine: &Engine, sid: Option<&str>) {
        if let Some(sid) = sid {
            engine.goals.set(sid, auto && text.is_some());
        }
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
        self.due = clean && sid.is_some_and(|sid| engine.goals.armed(sid));
    }

    /// The continuation prompt to start now, if one is due (the engine is
    /// idle with nothing queued); the engine checks the goal, spends the
    /// budget and announces it.
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
