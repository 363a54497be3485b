//! What a turn runs with, captured at its start: later config, workspace or
//! mode changes do not reach a running turn.

use std::path::PathBuf;

use crate::error::EngineError;
use seekclaw_agent::TurnRuntime;
use seekclaw_config::{Config, WorkspaceConfig, read_json_lenient, workspace_config_path};

use crate::engine::Engine;
use crate::scope::Scope;

/// The runtime of a turn on `scope` with `config`: the workspace's own config
/// and mode, and the engine's shared pieces (store, providers, tools, locks).
/// Load-balancing inputs are added by the launcher.
pub fn build_runtime(
    engine: &Engine,
    config: Config,
    scope: &Scope,
) -> Result<TurnRuntime, EngineError> {
    let home = &engine.home;
    let (workspace, work_dir): (Option<WorkspaceConfig>, PathBuf) = match &scope.workspace {
        Some(root) => {
            let path = workspace_config_path(root);
            let ws = if path == home.config_path() {
                None
            } else {
                read_json_lenient::<WorkspaceConfig>(&path).ok().flatten()
            };
            (ws, root.clone())
        }
        None => {
            let dir = home.global_dir();
            std::fs::create_dir_all(&dir).map_err(|e| {
                EngineError::internal(format!("Cannot create {}: {e}", dir.display()))
            })?;
            (None, dir)
        }
    };
    let mode = workspace
        .as_ref()
        .and_then(|w| w.mode)
        .unwrap_or(config.agent.mode);
    Ok(TurnRuntime {
        config,
        workspace,
        workspace_root: scope.workspace.clone(),
        work_dir,
        home: home.clone(),
        mode,
        store: engine.store.clone(),
        providers: engine.providers.clone(),
        registry: engine.tools.clone(),
        locks: engine.locks.clone(),
        balance: seekclaw_agent::Balance::default(),
        pinned_model: None,
    })
}
