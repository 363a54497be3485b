//! What turns get from MCP servers and skills: the merged MCP configuration of a
//! scope, the shared connections for it, and the enabled skills.

use std::path::{Path, PathBuf};

use seekclaw_agent::{TurnExtras, TurnRuntime};
use seekclaw_config::{
    Config, Home, State, WorkspaceConfig, load_json_file, read_json_lenient, workspace_config_path,
};
use seekclaw_mcp::{McpManager, Merged, ServerSpec, Timeouts, merge};

/// The workspace root whose own config counts: `None` for the global scope and
/// for a "workspace" that is the SeekClaw home itself.
pub fn own_workspace<'a>(home: &Home, root: Option<&'a Path>) -> Option<&'a Path> {
    root.filter(|r| workspace_config_path(r) != home.config_path())
}

/// The workspace's `.seekclaw/config.json` (unreadable → none).
pub fn workspace_config(home: &Home, root: Option<&Path>) -> Option<WorkspaceConfig> {
    let root = own_workspace(home, root)?;
    read_json_lenient::<WorkspaceConfig>(&workspace_config_path(root))
        .ok()
        .flatten()
}

/// The merged MCP configuration of a scope (global config, then the workspace's
/// `mcp/servers.json`, then its inline config).
pub fn mcp_config(
    home: &Home,
    config: &Config,
    root: Option<&Path>,
    workspace: Option<&WorkspaceConfig>,
) -> Merged {
    let inline = workspace.and_then(|w| w.mcp.as_ref());
    merge(&config.mcp, own_workspace(home, root).map(|r| (r, inline)))
}

/// Where a scope's stdio servers run: the workspace root, or the global scratch dir.
pub fn mcp_cwd(home: &Home, root: Option<&Path>) -> PathBuf {
    root.map(Path::to_path_buf)
        .unwrap_or_else(|| home.global_dir())
}

/// The servers to connect for the daemon's current workspace.
pub fn active_specs(home: &Home, config: &Config, root: &Path) -> Vec<ServerSpec> {
    let ws = workspace_config(home, Some(root));
    mcp_config(home, config, Some(root), ws.as_ref()).specs(&mcp_cwd(home, Some(root)))
}

/// Connects the current workspace's servers (one at a time) as the active set.
pub async fn activate(mcp: &McpManager, home: &Home, config: &Config, root: &Path, restart: bool) {
    mcp.set_timeouts(Timeouts::from_settings(&config.mcp));
    mcp.activate(active_specs(home, config, root), restart)
        .await;
}

/// A turn's MCP tools and prompts and its skills section.
pub async fn turn_extras(mcp: &McpManager, rt: &TurnRuntime<'_>) -> TurnExtras {
    mcp.set_timeouts(Timeouts::from_settings(&rt.config.mcp));
    let root = rt.workspace_root.as_deref();
    let specs = mcp_config(&rt.home, &rt.config, root, rt.workspace.as_ref())
        .specs(&mcp_cwd(&rt.home, root));
    let taken = rt.registry.all().map(|t| t.definition().name.clone());
    let turn = mcp.for_turn(&specs, taken).await;
    let (skills_prompt, readable_files) = skills(&rt.home, root, rt.workspace.as_ref()).await;
    TurnExtras {
        tools: turn.tools,
        mcp_prompts: turn.prompts,
        skills_prompt,
        readable_files,
    }
}

/// The enabled skills of a scope, as a prompt section plus the files it lists.
async fn skills(
    home: &Home,
    root: Option<&Path>,
    workspace: Option<&WorkspaceConfig>,
) -> (Option<String>, Vec<PathBuf>) {
    let global = home.skills_dir();
    let state_path = home.state_path();
    let root = own_workspace(home, root).map(Path::to_path_buf);
    let ws_disabled = workspace
        .and_then(|w| w.disabled_skills.clone())
        .unwrap_or_default();
    let found = tokio::task::spawn_blocking(move || {
        let state = load_json_file::<State>(&state_path)
            .map(|l| l.value)
            .unwrap_or_default();
        let entries = seekclaw_skills::list(
            &global,
            root.as_deref(),
            state.disabled_skills.keys(),
            &ws_disabled,
        );
        let enabled = seekclaw_skills::enabled(&entries);
        (
            seekclaw_skills::prompt_section(&enabled),
            seekclaw_skills::listed_paths(&enabled),
        )
    })
    .await;
    found.unwrap_or_default()
}
