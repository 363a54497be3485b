//! `hooks.list`, `hooks.approve`, `permissions.check`: the user's hooks and
//! permission rules as the engine applies them (it enforces them; these only
//! show them, and record the user's approval of a workspace's hook set).

use std::path::PathBuf;

use seekclaw_protocol::{Envelope, MethodError, Params, method};

use crate::ctx::Ctx;
use crate::error::Wire;
use crate::handlers::Reply;
use crate::policy;

/// The workspace a request names (its project root), else the daemon's current one.
fn workspace(daemon: &Ctx, raw: Option<&str>) -> Result<PathBuf, MethodError> {
    match raw.map(str::trim).filter(|s| !s.is_empty()) {
        Some(raw) => crate::scope::resolve_workspace_path(daemon, raw),
        None => Ok(daemon.current_workspace()),
    }
}

pub async fn hooks_list(daemon: &Ctx, id: i64, p: &Params) -> Reply {
    let params = p.read::<method::HooksList>()?;
    let root = workspace(daemon, params.workspace.as_deref())?;
    let view = policy::hooks_list(&daemon.engine, Some(&root))
        .await
        .wire()?;
    Ok(Envelope::json_result(id, &view))
}

pub async fn hooks_approve(daemon: &Ctx, id: i64, p: &Params) -> Reply {
    let params = p.read::<method::HooksApprove>()?;
    let root = workspace(daemon, Some(&params.workspace.trimmed()))?;
    (daemon.engine)
        .approve_hooks(&root, params.hash.trimmed().as_str())
        .await
        .wire()?;
    let view = policy::hooks_list(&daemon.engine, Some(&root))
        .await
        .wire()?;
    Ok(Envelope::json_result(id, &view))
}

pub async fn permissions_check(daemon: &Ctx, id: i64, p: &Params) -> Reply {
    let params = p.read::<method::PermissionsCheck>()?;
    if params.probe.iter().all(|w| w.trim().is_empty()) {
        return Err(MethodError::invalid_param(
            "probe",
            "params.probe must name a tool call or a command, e.g. [\"Bash(git push)\"] or [\"git\", \"push\"]",
        ));
    }
    let root = workspace(daemon, params.workspace.as_deref())?;
    let view = policy::permission_check(&daemon.engine, Some(&root), &params.probe)
        .await
        .wire()?;
    Ok(Envelope::json_result(id, &view))
}

/// Claude Code's `SessionEnd` reasons a client may give.
const END_REASONS: [&str; 4] = ["prompt_input_exit", "clear", "logout", "other"];

/// `session.end`: the client's user is done with a session; its
/// `SessionEnd` hooks run after the answer (a quitting window never waits
/// for them).
pub async fn session_end(daemon: &Ctx, id: i64, p: &Params) -> Reply {
    let params = p.read::<method::SessionEnd>()?;
    let reason = params
        .reason
        .as_deref()
        .map(str::trim)
        .filter(|r| !r.is_empty())
        .unwrap_or("prompt_input_exit")
        .to_string();
    if !END_REASONS.contains(&reason.as_str()) {
        return Err(MethodError::invalid_param(
            "reason",
            format!(
                "params.reason must be one of {}, not {reason:?}",
                END_REASONS.join(", ")
            ),
        ));
    }
    let r = crate::handlers::session::SessionRef::from(&seekclaw_protocol::api::SessionRefParams {
        id: params.id.clone(),
        workspace: params.workspace.clone(),
        global: params.global,
    });
    let scope = crate::handlers::session::target(daemon, &r)?;
    let open = daemon.engine.close_session(&r.id);
    if open {
        let (engine, sid) = (daemon.engine.clone(), r.id.clone());
        tokio::spawn(async move { engine.fire_end(&scope, &sid, &reason).await });
    }
    let text = if open { "ended" } else { "not open" };
    Ok(Envelope::result(id, text).with_session(Some(r.id)))
}
