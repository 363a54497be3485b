//! The daemon's active MCP set: the servers of its current workspace.

use seekclaw_engine::active_specs;
use seekclaw_mcp::Timeouts;

use crate::ctx::Ctx;

/// Connects the daemon's current workspace's servers (one at a time) as the
/// active set. Config and workspace are read once any earlier switch is done, so
/// racing callers (start-up, `workspace.open`, `mcp.*`) end on the latest state.
pub async fn activate(ctx: &Ctx, restart: bool) {
    ctx.engine
        .mcp
        .activate_with(
            || {
                let config = ctx.engine.config.load();
                ctx.engine
                    .mcp
                    .set_timeouts(Timeouts::from_settings(&config.mcp));
                active_specs(&ctx.engine.home, &config, &ctx.current_workspace())
            },
            restart,
        )
        .await;
}
