//! Standing goals on the daemon (`goal.*`): the policy (markers in the
//! session log, `auto` continuation turns and their budget) is the engine's;
//! here is the wire view and the `goal_updated` broadcast.

use seekclaw_agent::StandingGoal;
use seekclaw_protocol::api::GoalView;
use seekclaw_protocol::events::GoalUpdatedDetails;
use seekclaw_protocol::{Envelope, MethodError};

use crate::connections::Connections;
use crate::ctx::Ctx;
use crate::error::Wire;
use crate::scope::Scope;

/// The goal in force on a session, from its log.
pub async fn standing(daemon: &Ctx, scope: &Scope, sid: &str) -> Result<StandingGoal, MethodError> {
    daemon.engine.standing_goal(&scope.key, sid).await.wire()
}

/// The wire view of a session's goal.
pub fn view(daemon: &Ctx, sid: &str, goal: StandingGoal) -> GoalView {
    let left = if goal.text.is_some() {
        daemon.engine.goals.left(sid)
    } else {
        0
    };
    GoalView {
        session_id: sid.to_string(),
        goal: goal.text,
        blocked: goal.blocked.is_some(),
        reason: goal.blocked,
        auto: left > 0,
        auto_turns_left: left,
    }
}

/// Broadcasts a goal change of `sid`.
pub fn announce(daemon: &Ctx, sid: &str, status: &str, goal: Option<&str>, reason: Option<String>) {
    let auto = daemon.engine.goals.left(sid) > 0;
    broadcast(&daemon.connections, sid, status, goal, reason, auto);
}

/// Broadcasts a goal change of `sid` whose `auto` state is known.
pub fn broadcast(
    connections: &Connections,
    sid: &str,
    status: &str,
    goal: Option<&str>,
    reason: Option<String>,
    auto: bool,
) {
    let details = GoalUpdatedDetails {
        session_id: sid.to_string(),
        status: status.to_string(),
        reason,
        auto,
    };
    let env = Envelope::event(0, goal.unwrap_or_default().to_string(), &details)
        .with_session(Some(sid.to_string()));
    connections.broadcast(&env);
}
