//! `plugin.*`: plugins installed for the user and for the workspace, what
//! each brings, and installing, switching and removing them. Turns see a
//! change at their next start (the engine's caches watch the state files);
//! the daemon's background MCP set is refreshed here.

use std::path::{Path, PathBuf};

use seekclaw_plugins::{Location, PluginError, Scope};
use seekclaw_protocol::api::PluginView;
use seekclaw_protocol::{Envelope, ErrorCode, MethodError, Params, method};

use super::Reply;
use crate::ctx::Ctx;

/// The workspace a request names (its project root), else the daemon's current one.
fn workspace(daemon: &Ctx, raw: Option<&str>) -> Result<PathBuf, MethodError> {
    match raw.map(str::trim).filter(|s| !s.is_empty()) {
        Some(raw) => crate::scope::resolve_workspace_path(daemon, raw),
        None => Ok(daemon.current_workspace()),
    }
}

fn scope(raw: Option<&str>) -> Result<Scope, MethodError> {
    match raw.map(str::trim).unwrap_or("user") {
        "" | "user" | "global" => Ok(Scope::User),
        "project" | "workspace" => Ok(Scope::Project),
        other => Err(MethodError::invalid_param(
            "scope",
            format!("params.scope must be user or project, not '{other}'"),
        )),
    }
}

fn location(daemon: &Ctx, scope: Scope, root: &Path) -> Result<Location, MethodError> {
    match scope {
        Scope::User => Ok(Location::user(daemon.engine.home.root())),
        Scope::Project => seekclaw_engine::own_workspace(&daemon.engine.home, Some(root))
            .map(Location::project)
            .ok_or_else(|| {
                MethodError::invalid_param("workspace", "a project plugin needs a workspace")
            }),
    }
}

fn wire(e: PluginError) -> MethodError {
    let code = match &e {
        PluginError::NotInstalled(_) => ErrorCode::NotFound,
        PluginError::AlreadyInstalled(_) => ErrorCode::Conflict,
        PluginError::Io { .. } | PluginError::Config(_) => ErrorCode::Internal,
        _ => ErrorCode::InvalidRequest,
    };
    MethodError::new(code, e.to_string())
}

/// Blocking work off the async threads.
async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, MethodError> + Send + 'static,
) -> Result<T, MethodError> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| MethodError::internal(e.to_string()))?
}

/// Both scopes' rows as `root` sees them.
async fn views(daemon: &Ctx, root: PathBuf) -> Result<Vec<PluginView>, MethodError> {
    let (home, store) = (daemon.engine.home.clone(), daemon.engine.store.clone());
    blocking(move || {
        let trusted = seekclaw_engine::workspace_trusted(&store, &root);
        let installed = seekclaw_engine::plugin_installation(&home, Some(&root), trusted);
        Ok(seekclaw_engine::plugin_views(&installed))
    })
    .await
}

/// After a change: the daemon's own MCP set follows (in the background).
fn refresh(daemon: &Ctx) {
    let ctx = daemon.clone();
    tokio::spawn(async move { crate::extensions::activate(&ctx, false).await });
}

pub async fn list(daemon: &Ctx, id: i64, p: &Params) -> Reply {
    let params = p.read::<method::PluginList>()?;
    let root = workspace(daemon, params.workspace.as_deref())?;
    Ok(Envelope::json_result(id, &views(daemon, root).await?))
}

/// Installs without asking: the client showed what the plugin brings. A
/// project install needs the workspace trusted, as its plugins run only there.
pub async fn install(daemon: &Ctx, id: i64, p: &Params) -> Reply {
    let params = p.read::<method::PluginInstall>()?;
    let root = workspace(daemon, params.workspace.as_deref())?;
    let scope = scope(params.scope.as_deref())?;
    let loc = location(daemon, scope, &root)?;
    let text = params.source.trimmed();
    let force = params.force.unwrap_or(false);
    let (home, store) = (daemon.engine.home.clone(), daemon.engine.store.clone());
    let cwd = root.clone();
    let name = blocking(move || {
        if scope == Scope::Project && !seekclaw_engine::workspace_trusted(&store, &cwd) {
            return Err(MethodError::new(
                ErrorCode::Forbidden,
                seekclaw_protocol::wording::plugin_untrusted(&cwd.display().to_string()),
            ));
        }
        let source = seekclaw_plugins::parse_source(&text, home.root(), &cwd).map_err(wire)?;
        let prepared = seekclaw_plugins::prepare(&source, &text, &loc).map_err(wire)?;
        let summary = prepared.commit(force).map_err(wire)?;
        Ok(summary.name)
    })
    .await?;
    refresh(daemon);
    let row = views(daemon, root)
        .await?
        .into_iter()
        .find(|v| v.name == name && v.scope == scope.as_str())
        .ok_or_else(|| {
            MethodError::internal(format!("plugin '{name}' not listed after install"))
        })?;
    Ok(Envelope::json_result(id, &row))
}

pub async fn toggle(daemon: &Ctx, id: i64, p: &Params) -> Reply {
    let params = p.read::<method::PluginToggle>()?;
    let enabled = params
        .enabled
        .ok_or_else(|| MethodError::invalid_param("enabled", "params.enabled is required"))?;
    let root = workspace(daemon, params.workspace.as_deref())?;
    let loc = location(daemon, scope(params.scope.as_deref())?, &root)?;
    let name = params.name.trimmed();
    blocking(move || loc.set_enabled(&name, enabled).map_err(wire)).await?;
    refresh(daemon);
    Ok(Envelope::json_result(id, &views(daemon, root).await?))
}

pub async fn remove(daemon: &Ctx, id: i64, p: &Params) -> Reply {
    let params = p.read::<method::PluginRemove>()?;
    let root = workspace(daemon, params.workspace.as_deref())?;
    let loc = location(daemon, scope(params.scope.as_deref())?, &root)?;
    let name = params.name.trimmed();
    blocking(move || loc.remove(&name).map_err(wire)).await?;
    refresh(daemon);
    Ok(Envelope::json_result(id, &views(daemon, root).await?))
}
