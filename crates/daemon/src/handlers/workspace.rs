//! `workspace.*` and `agent.mode.*`.

use std::path::Path;

use seekclaw_config::{
    AgentMode, WorkspaceConfig, init_workspace, project_kinds, read_json_lenient,
    workspace_config_path, workspace_name,
};
use seekclaw_protocol::api::{WorkspaceInfo, WorkspaceInitResult};
use seekclaw_protocol::{Envelope, MethodError, Params, method};

use super::Reply;
use crate::connection::Connection;
use crate::ctx::Ctx;
use crate::error::Wire;
use crate::scope::resolve_workspace_path;
use seekclaw_engine::config_service::save_file;

/// The workspace's own config, unless its `.seekclaw` is the SeekClaw home itself.
fn workspace_config_file(daemon: &Ctx, root: &Path) -> Option<std::path::PathBuf> {
    let path = workspace_config_path(root);
    let home_config = daemon.engine.home.config_path();
    (path != home_config).then_some(path)
}

/// The workspace's own config (`.seekclaw/config.json`), if it has a readable one.
pub fn workspace_config(daemon: &Ctx, root: &Path) -> Option<WorkspaceConfig> {
    workspace_config_file(daemon, root)
        .and_then(|p| read_json_lenient::<WorkspaceConfig>(&p).ok().flatten())
}

/// Effective mode: the workspace's `mode`, else the global `agent.mode`.
pub fn effective_mode(daemon: &Ctx, root: &Path) -> AgentMode {
    let ws_mode = workspace_config(daemon, root).and_then(|c| c.mode);
    ws_mode.unwrap_or_else(|| daemon.engine.config.load().agent.mode)
}

async fn describe(daemon: &Ctx, root: std::path::PathBuf) -> Result<WorkspaceInfo, MethodError> {
    let mode = effective_mode(daemon, &root).as_str().to_string();
    let kinds_root = root.clone();
    let project_kinds = tokio::task::spawn_blocking(move || project_kinds(&kinds_root))
        .await
        .map_err(|e| MethodError::internal(e.to_string()))?;
    Ok(WorkspaceInfo {
        path: root.display().to_string(),
        name: workspace_name(&root),
        project_kinds,
        mode,
    })
}

pub async fn get(daemon: &Ctx, id: i64) -> Reply {
    let info = describe(daemon, daemon.current_workspace()).await?;
    Ok(Envelope::json_result(id, &info))
}

pub async fn open(daemon: &Ctx, conn: &Connection, id: i64, p: &Params) -> Reply {
    let raw = p.read::<method::WorkspaceOpen>()?.path.into_inner();
    let root = resolve_workspace_path(daemon, &raw).map_err(|e| MethodError {
        param: Some("path".into()),
        ..e
    })?;
    {
        // Ordered with config writers (which may target the workspace); the
        // MCP switch below waits without the gate.
        let _gate = daemon.admin_gate.lock().await;
        daemon.set_workspace(root.clone());
    }
    conn.set_legacy(None);
    tracing::info!(workspace = %root.display(), "workspace opened");
    // The new workspace's MCP servers replace the old ones (reference: awaited).
    crate::extensions::activate(daemon, false).await;
    Ok(Envelope::json_result(id, &describe(daemon, root).await?))
}

pub async fn init(daemon: &Ctx, id: i64) -> Reply {
    let root = daemon.current_workspace();
    if root == daemon.engine.home.root()
        || Some(root.as_path()) == seekclaw_config::user_home().as_deref()
    {
        return Err(MethodError::new(
            seekclaw_protocol::ErrorCode::Forbidden,
            format!(
                "Refusing to initialize {} as a workspace; open a project folder first",
                root.display()
            ),
        ));
    }
    let target = root.clone();
    let created = tokio::task::spawn_blocking(move || init_workspace(&target))
        .await
        .map_err(|e| MethodError::internal(e.to_string()))?
        .map_err(|e| MethodError::internal(format!("Cannot initialize workspace: {e}")))?;
    Ok(Envelope::json_result(
        id,
        &WorkspaceInitResult {
            path: root.display().to_string(),
            created,
        },
    ))
}

/// The mode as `data` (what the desktop reads), and in `details` the mode
/// with the approval policy the workspace's turns run with (ours, additive).
pub async fn mode_get(daemon: &Ctx, id: i64) -> Reply {
    let root = daemon.current_workspace();
    let mode = effective_mode(daemon, &root);
    let workspace = workspace_config(daemon, &root);
    let policy =
        seekclaw_agent::effective_policy(&daemon.engine.config.load(), workspace.as_ref(), None);
    let sandbox = seekclaw_agent::effective_sandbox_mode(
        daemon.engine.config.load().agent.sandbox,
        workspace.as_ref().and_then(|w| w.sandbox),
    );
    let details = seekclaw_protocol::api::ModeDetails {
        mode: mode.as_str().into(),
        approval_policy: policy.as_str().into(),
        sandbox: sandbox.as_str().into(),
    };
    Ok(Envelope::result(id, mode.as_str()).with_details_of(&details))
}

pub async fn mode_switch(daemon: &Ctx, id: i64, p: &Params) -> Reply {
    let invalid = || {
        MethodError::invalid_param(
            "mode",
            "params.mode must be one of: plan, readonly, edit, auto",
        )
    };
    let raw = p
        .read::<method::AgentModeSwitch>()?
        .mode
        .ok_or_else(invalid)?;
    let mode = AgentMode::parse_strict(&raw).ok_or_else(invalid)?;
    daemon
        .engine
        .config
        .update(crate::error::wire, |cfg| {
            cfg.agent.mode = mode;
            cfg.active_profile_mut().mode = Some(mode);
            Ok(())
        })
        .await?;
    let root = daemon.current_workspace();
    if let Some(path) = workspace_config_file(daemon, &root) {
        // Only a workspace that already has its own config file gets the mode
        // there (reference §2.4); none is created for it.
        if !path.is_file() {
            return Ok(Envelope::result(id, mode.as_str()));
        }
        let mut ws = match read_json_lenient::<WorkspaceConfig>(&path) {
            Ok(existing) => existing.unwrap_or_default(),
            Err(e) => {
                return Err(MethodError::invalid(format!(
                    "Mode saved globally, but {} is not valid JSON ({e}); fix it to set the workspace mode",
                    path.display()
                )));
            }
        };
        ws.mode = Some(mode);
        save_file(path, ws).await.wire()?;
    }
    Ok(Envelope::result(id, mode.as_str()))
}
