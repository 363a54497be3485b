//! `project.*`: the desktop's project registry.

use std::path::Path;

use seekclaw_config::{normalize_path, path_key, scope_key_workspace, user_home, workspace_name};
use seekclaw_protocol::{Envelope, ErrorCode, MethodError, Params, method};

use super::Reply;
use crate::ctx::Ctx;

/// A trimmed value, none when blank.
fn non_blank(value: Option<String>) -> Option<String> {
    value
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

pub async fn list(daemon: &Ctx, id: i64) -> Reply {
    let projects = daemon.db(|s| s.list_projects()).await?;
    Ok(Envelope::json_result(id, &projects))
}

/// The user's home and the SeekClaw state directory are never projects: sessions
/// scoped there would merge unrelated work.
fn forbidden(daemon: &Ctx, path: &Path) -> bool {
    let home = user_home();
    let default_state = home.as_ref().map(|h| h.join(".seekclaw"));
    home.as_deref() == Some(path)
        || path.starts_with(daemon.engine.home.root())
        || default_state.is_some_and(|d| path.starts_with(d))
}

pub async fn upsert(daemon: &Ctx, id: i64, p: &Params) -> Reply {
    let params = p.read::<method::ProjectUpsert>()?;
    let raw = params.path.0.trim();
    if raw.contains('\0') {
        return Err(MethodError::invalid_param(
            "path",
            format!("Invalid project path: {raw}"),
        ));
    }
    let path = normalize_path(Path::new(raw), daemon.cwd());
    if forbidden(daemon, &path) {
        return Err(MethodError::new(
            ErrorCode::Forbidden,
            "The user profile or the SeekClaw state directory cannot be registered as a project.",
        ));
    }
    let project_id = non_blank(params.id).unwrap_or_else(|| uuid::Uuid::new_v4().to_string());
    let name = non_blank(params.name).unwrap_or_else(|| workspace_name(&path));
    let key = path_key(&path);
    let path = path.display().to_string();
    let project = daemon
        .db(move |s| s.upsert_project(&project_id, &path, &key, &name))
        .await?;
    Ok(Envelope::json_result(id, &project))
}

pub async fn remove(daemon: &Ctx, id: i64, p: &Params) -> Reply {
    let params = p.read::<method::ProjectRemove>()?;
    let project = params.id.trimmed();
    let pid = project.clone();
    let keep = params.keep_sessions.unwrap_or(false);
    let (removed, deleted) = daemon
        .db(move |s| {
            let Some(project) = s.project(&pid)? else {
                return Ok((false, Vec::new()));
            };
            let mut deleted = Vec::new();
            if !keep {
                let scope = scope_key_workspace(Path::new(&project.path));
                deleted = s.list_sessions(&scope, true)?;
                s.delete_scope(&scope)?;
            }
            Ok((s.remove_project(&pid)?, deleted))
        })
        .await?;
    // The deleted sessions' checkpoints go too (their bytes with them).
    for session in deleted {
        daemon.engine.forget_session(&session.id).await;
    }
    if !removed {
        return Err(MethodError::not_found(format!(
            "Project not found: {project}"
        )));
    }
    Ok(Envelope::result(id, project))
}
