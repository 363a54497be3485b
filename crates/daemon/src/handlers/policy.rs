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
