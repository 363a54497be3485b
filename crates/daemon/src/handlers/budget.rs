//! `budget.get`, `budget.set`: spend budgets and what was spent against
//! them (the engine decides what applies; this maps it to the wire).

use seekclaw_engine::{BudgetScope, BudgetSubject, budget_status};
use seekclaw_protocol::api::{BudgetView, Scope as _, ScopeParams};
use seekclaw_protocol::{Envelope, MethodError, Params, method};
use seekclaw_store::{BudgetOwner, OwnBudget};

use crate::ctx::Ctx;
use crate::handlers::Reply;
use crate::handlers::session::{SessionRef, target};
use crate::scope;

pub async fn get(daemon: &Ctx, id: i64, p: &Params) -> Reply {
    let params = p.read::<method::BudgetGet>()?;
    let session = params
        .session_id
        .as_deref()
        .map(str::trim)
        .map(str::to_string);
    let view = view(daemon, session, params.scope()).await?;
    Ok(Envelope::json_result(id, &view).with_session(view.session_id.clone()))
}

pub async fn set(daemon: &Ctx, id: i64, p: &Params) -> Reply {
    let params = p.read::<method::BudgetSet>()?;
    let Some(which) = BudgetScope::parse(&params.scope) else {
        return Err(MethodError::invalid_param(
            "scope",
            "params.scope must be one of: session, day, project, schedule",
        ));
    };
    if params.usd.is_some_and(|u| !u.is_finite() || u < 0.0) {
        return Err(MethodError::invalid_param(
            "usd",
            "params.usd must be a number of dollars, 0 or more",
        ));
    }
    if params.tokens.is_some() && !matches!(which, BudgetScope::Session | BudgetScope::Day) {
        return Err(MethodError::invalid_param(
            "tokens",
            "params.tokens applies to the session and day budgets only",
        ));
    }
    let own = OwnBudget {
        usd: params.usd,
        tokens: params.tokens,
    };
    let session = params
        .session_id
        .as_deref()
        .map(str::trim)
        .map(str::to_string);
    let task = params.task_id.as_deref().map(str::trim).map(str::to_string);
    match (which, &session, &task) {
        (BudgetScope::Session, Some(sid), _) => {
            let scope = known_session(daemon, sid, params.scope()).await?;
            let owner = BudgetOwner::Session {
                scope: scope.key,
                id: sid.clone(),
            };
            daemon.db(move |s| s.set_own_budget(&owner, own)).await?;
        }
        (BudgetScope::Schedule, _, Some(task)) => {
            let owner = BudgetOwner::Task(task.clone());
            daemon.db(move |s| s.set_own_budget(&owner, own)).await?;
        }
        _ => set_config(daemon, which, own).await?,
    }
    let view = view(daemon, session, params.scope()).await?;
    Ok(Envelope::json_result(id, &view).with_session(view.session_id.clone()))
}

/// Writes `budgets.<which>` (and `budgets.tokens.<which>`) in config.json.
async fn set_config(daemon: &Ctx, which: BudgetScope, own: OwnBudget) -> Result<(), MethodError> {
    daemon
        .engine
        .config
        .update(crate::error::wire, |cfg| {
            let b = &mut cfg.budgets;
            match which {
                BudgetScope::Session => {
                    b.session = own.usd;
                    b.tokens.session = own.tokens;
                }
                BudgetScope::Day => {
                    b.day = own.usd;
                    b.tokens.day = own.tokens;
                }
                BudgetScope::Project => b.project = own.usd,
                BudgetScope::Schedule => b.schedule = own.usd,
            }
            Ok(())
        })
        .await
}

/// The scope of session `sid` (which must exist).
async fn known_session(
    daemon: &Ctx,
    sid: &str,
    scope: ScopeParams,
) -> Result<seekclaw_engine::Scope, MethodError> {
    let r = SessionRef {
        id: sid.to_string(),
        scope,
    };
    let found = target(daemon, &r)?;
    let (key, id) = (found.key.clone(), sid.to_string());
    match daemon.db(move |s| s.session_cost(&key, &id)).await? {
        Some(_) => Ok(found),
        None => {
            Err(MethodError::not_found(format!("Session {sid} not found")).with_session(Some(r.id)))
        }
    }
}

async fn view(
    daemon: &Ctx,
    session: Option<String>,
    scope: ScopeParams,
) -> Result<BudgetView, MethodError> {
    let named = scope.workspace.is_some() || scope.global;
    let scope_key = match &session {
        Some(sid) => Some(known_session(daemon, sid, scope).await?.key),
        None if named => Some(scope::resolve(daemon, &scope)?.key),
        None => None,
    };
    let budgets = daemon.engine.config.load().budgets;
    let subject = BudgetSubject {
        scope: scope_key,
        session: session.clone(),
        front_end: None,
    };
    let status = daemon
        .db(move |s| Ok(budget_status(s, &budgets, &subject)))
        .await?;
    Ok(status.view(session))
}
