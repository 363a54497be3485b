//! The daemon's active MCP set: the servers of its current workspace.

use seekclaw_engine::active_specs;
use seekclaw_mcp::Timeouts;

use crate::ctx::Ctx;

/// Whether `root`'s project plugins take part: it has some and is trusted
/// (trust is a store read, asked only then).
pub fn plugins_trusted(daemon: &Ctx, root: &std::path::Path) -> bool {
    seekclaw_engine::has_project_plugins(&daemon.engine.home, Some(root))
        && seekclaw_engine::workspace_trusted(&daemon.engine.store, root)
}

/// Connects the daemon's current workspace's servers (one at a time) as the
/// active set. Config and workspace are read once any earlier switch is done, so
/// racing callers (start-up, `workspace.open`, `mcp.*`) end on the latest state.
pub async fn activate(daemon: &Ctx, restart: bool) {
    daemon
        .engine
        .mcp
        .activate_with(
            || {
                let config = daemon.engine.config.load();
                daemon
                    .engine
                    .mcp
                    .set_timeouts(Timeouts::from_settings(&config.mcp));
                let root = daemon.current_workspace();
                let trusted = plugins_trusted(daemon, &root);
                active_specs(&daemon.engine.home, &config, &root, trusted)
            },
            restart,
        )
        .await;
}
