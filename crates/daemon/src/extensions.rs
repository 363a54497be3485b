//! The daemon's active MCP set: the servers of its current workspace.

use seekclaw_engine::active_specs;
use seekclaw_mcp::Timeouts;

use crate::ctx::Ctx;

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
                active_specs(&daemon.engine.home, &config, &daemon.current_workspace())
            },
            restart,
        )
        .await;
}
