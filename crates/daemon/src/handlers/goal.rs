//! `goal.get`, `goal.set`, `goal.clear`: a session's standing goal.

use seekclaw_agent::GoalMarker;
use seekclaw_protocol::api::Scope as _;
use seekclaw_protocol::{Envelope, MethodError, Params, method};

use crate::ctx::Ctx;
use crate::error::Wire;
use crate::goals;
use crate::handlers::Reply;
use crate::handlers::session::{SessionRef, target};

pub async fn get(daemon: &Ctx, id: i64, p: &Params) -> Reply {
    let r = SessionRef::from(&p.read::<method::GoalGet>()?);
    let scope = target(daemon, &r)?;
    let goal = goals::standing(daemon, &scope, &r.id).await?;
    Ok(Envelope::json_result(id, &goals::view(daemon, &r.id, goal)).with_session(Some(r.id)))
}

pub async fn set(daemon: &Ctx, id: i64, p: &Params) -> Reply {
    let params = p.read::<method::GoalSet>()?;
    let r = SessionRef {
        id: params.id.trimmed(),
        scope: params.scope(),
    };
    let text = params.text.into_inner();
    if text.trim().is_empty() {
        return Err(MethodError::invalid_param(
            "text",
            "params.text must not be blank",
        ));
    }
    let scope = target(daemon, &r)?;
    let mut goal = goals::standing(daemon, &scope, &r.id).await?;
    let marker = GoalMarker::Set(text.clone());
    let auto = params.auto == Some(true);
    (daemon.engine)
        .write_goal(&scope.key, &r.id, Some(&text), auto)
        .await
        .wire()?;
    goal.apply(&marker);
    goals::announce(daemon, &r.id, "set", Some(&text), None);
    Ok(Envelope::json_result(id, &goals::view(daemon, &r.id, goal)).with_session(Some(r.id)))
}

pub async fn clear(daemon: &Ctx, id: i64, p: &Params) -> Reply {
    let r = SessionRef::from(&p.read::<method::GoalClear>()?);
    let scope = target(daemon, &r)?;
    let mut goal = goals::standing(daemon, &scope, &r.id).await?;
    daemon.engine.goals.set(&r.id, false);
    if goal.text.is_some() {
        (daemon.engine)
            .write_goal(&scope.key, &r.id, None, false)
            .await
            .wire()?;
        goal.apply(&GoalMarker::Cleared);
        goals::announce(daemon, &r.id, "cleared", None, None);
    }
    Ok(Envelope::json_result(id, &goals::view(daemon, &r.id, goal)).with_session(Some(r.id)))
}
