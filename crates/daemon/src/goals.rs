//! Standing goals on the daemon (`goal.*`): the markers live in the session
//! log (as `seekclaw serve` writes them); `auto` goals keep the daemon
//! starting turns toward them after each turn that ends `done`, like a
//! scheduled run (events go to the log; `goal_updated` is broadcast), at most
//! `AUTO_TURNS` turns (the engine's [`seekclaw_engine::AutoGoals`]), disarmed by a cancelled turn or `goal.clear`.

use std::sync::Arc;

use seekclaw_agent::{
    Approvals, CONTINUE_PROMPT, GoalMarker, StandingGoal, TurnOutcome, Unattended,
};
use seekclaw_protocol::api::GoalView;
use seekclaw_protocol::events::GoalUpdatedDetails;
use seekclaw_protocol::{Envelope, MethodError};

use crate::daemon::Daemon;
use crate::error::Wire;
use crate::scope::Scope;
use seekclaw_engine::{GoalStep, SessionTarget, TurnControls, TurnOrigin, TurnRequest};

/// The goal in force on a session, from its log.
pub async fn standing(
    daemon: &Daemon,
    scope: &Scope,
    sid: &str,
) -> Result<StandingGoal, MethodError> {
    let (key, id) = (scope.key.clone(), sid.to_string());
    let events = daemon
        .db(move |s| {
            if s.session(&key, &id)?.is_none() {
                return Ok(None);
            }
            s.events(&key, &id).map(Some)
        })
        .await?
        .ok_or_else(|| MethodError::not_found(format!("Session {sid} not found")))?;
    Ok(StandingGoal::from_events(&events))
}

/// The wire view of a session's goal.
pub fn view(daemon: &Daemon, sid: &str, goal: StandingGoal) -> GoalView {
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

/// Writes `marker` to the session: into its running turn (a notice the turn
/// records at its next step) or, when idle, straight into the log (holding
/// the session as a turn would; `busy` while another process runs a turn).
pub async fn write_marker(
    daemon: &Daemon,
    scope: &Scope,
    sid: &str,
    marker: &GoalMarker,
) -> Result<(), MethodError> {
    let engine = &daemon.engine;
    if !engine.notify_running(sid, &marker.text()) {
        engine
            .append_idle(&scope.key, sid, marker.item())
            .await
            .wire()?;
    }
    Ok(())
}

/// Broadcasts a goal change of `sid`.
pub fn announce(
    daemon: &Daemon,
    sid: &str,
    status: &str,
    goal: Option<&str>,
    reason: Option<String>,
) {
    let details = GoalUpdatedDetails {
        session_id: sid.to_string(),
        status: status.to_string(),
        reason,
        auto: daemon.engine.goals.left(sid) > 0,
    };
    let env = Envelope::event(0, goal.unwrap_or_default().to_string(), &details)
        .with_session(Some(sid.to_string()));
    daemon.connections.broadcast(&env);
}

/// After a client's turn on `sid` ended: a cancelled turn disarms the goal;
/// a `done` one starts the continuation turns of an armed goal.
pub fn after_turn(daemon: &Arc<Daemon>, scope: &Scope, sid: &str, outcome: &TurnOutcome) {
    match outcome {
        TurnOutcome::Cancelled(_) => daemon.engine.goals.set(sid, false),
        TurnOutcome::Done(_) if daemon.engine.goals.armed(sid) => {
            let (daemon, scope, sid) = (daemon.clone(), scope.clone(), sid.to_string());
            tokio::spawn(async move { continue_goal(&daemon, &scope, &sid).await });
        }
        _ => {}
    }
}

/// Runs continuation turns while the goal stands unblocked, is armed and
/// each turn ends `done`.
async fn continue_goal(daemon: &Arc<Daemon>, scope: &Scope, sid: &str) {
    loop {
        if daemon.shutdown.is_cancelled() {
            return;
        }
        let goal = match standing(daemon, scope, sid).await {
            Ok(g) => g,
            Err(_) => return,
        };
        let Some(text) = goal.text.filter(|_| goal.blocked.is_none()) else {
            return;
        };
        match daemon.engine.goals.next(sid) {
            GoalStep::Continue { .. } => {}
            // The budget is spent: said once, when a continuation is due.
            GoalStep::BudgetExhausted => {
                announce(daemon, sid, "budget_exhausted", Some(&text), None);
                return;
            }
            GoalStep::Stop => return,
        }
        announce(daemon, sid, "continue", Some(&text), None);
        match continuation(daemon, scope, sid).await {
            Ok(TurnOutcome::Done(_)) => {}
            Ok(TurnOutcome::Cancelled(_)) => {
                daemon.engine.goals.set(sid, false);
                return;
            }
            Ok(_) => return,
            Err(e) => {
                tracing::warn!(session = %sid, error = %e.message, "goal continuation did not start");
                return;
            }
        }
    }
}

/// One continuation turn, run to its end (nobody reads it live: the log
/// keeps everything).
async fn continuation(
    daemon: &Daemon,
    scope: &Scope,
    sid: &str,
) -> Result<TurnOutcome, MethodError> {
    // Nobody is there to answer: like a scheduled run, calls that need a
    // person's approval are refused.
    let approvals = Approvals::unattended(Unattended::Reject(
        "goal continuations do not wait for a person".into(),
    ));
    let request = TurnRequest {
        scope: scope.clone(),
        session: SessionTarget::Id(sid.to_string()),
        message: CONTINUE_PROMPT.to_string(),
        images: Vec::new(),
        reasoning: None,
        overrides: Default::default(),
        controls: TurnControls::child_of(&daemon.shutdown, approvals),
        origin: TurnOrigin::new("goal"),
    };
    // Nobody reads it live: the turn bus and the log have everything.
    Ok(daemon
        .engine
        .start_turn(request)
        .await
        .wire()?
        .outcome()
        .await)
}
