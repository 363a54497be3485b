//! What turns get from MCP servers and skills: the merged MCP configuration of a
//! scope, the shared connections for it, and the enabled skills.

use std::path::{Path, PathBuf};

use seekclaw_agent::prompt::PromptFiles;
use seekclaw_agent::{TurnExtras, TurnRuntime};
use seekclaw_config::{
    Config, Home, McpSettings, State, WorkspaceConfig, read_json_lenient, workspace_config_path,
};
use seekclaw_mcp::{McpManager, Merged, ServerSpec, Timeouts, merge};

use crate::daemon::Daemon;

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
    global: &McpSettings,
    root: Option<&Path>,
    workspace: Option<&WorkspaceConfig>,
) -> Merged {
    let inline = workspace.and_then(|w| w.mcp.as_ref());
    merge(global, own_workspace(home, root).map(|r| (r, inline)))
}

/// Where a scope's stdio servers run: the workspace root, or the global scratch dir.
pub fn mcp_cwd(home: &Home, root: Option<&Path>) -> PathBuf {
    root.map(Path::to_path_buf)
        .unwrap_or_else(|| home.global_dir())
}

/// The servers to connect for the daemon's current workspace.
pub fn active_specs(home: &Home, config: &Config, root: &Path) -> Vec<ServerSpec> {
    let ws = workspace_config(home, Some(root));
    mcp_config(home, &config.mcp, Some(root), ws.as_ref()).specs(&mcp_cwd(home, Some(root)))
}

/// Connects the daemon's current workspace's servers (one at a time) as the
/// active set. Config and workspace are read once any earlier switch is done, so
/// racing callers (start-up, `workspace.open`, `mcp.*`) end on the latest state.
pub async fn activate(daemon: &Daemon, restart: bool) {
    daemon
        .mcp
        .activate_with(
            || {
                let config = daemon.config.load();
                daemon
                    .mcp
                    .set_timeouts(Timeouts::from_settings(&config.mcp));
                active_specs(&daemon.home, &config, &daemon.current_workspace())
            },
            restart,
        )
        .await;
}

/// A turn's MCP tools and prompts and its skills section.
pub async fn turn_extras(mcp: &McpManager, rt: &TurnRuntime<'_>) -> TurnExtras {
    mcp.set_timeouts(Timeouts::from_settings(&rt.config.mcp));
    let (home, global, ws) = (rt.home.clone(), rt.config.mcp.clone(), rt.workspace.clone());
    let root = rt.workspace_root.clone();
    // All small disk reads (servers.json, the skill folders, the prompt's
    // files): one trip off the async threads.
    let read = tokio::task::spawn_blocking(move || {
        let root = root.as_deref();
        let specs = mcp_config(&home, &global, root, ws.as_ref()).specs(&mcp_cwd(&home, root));
        let prompt_files = PromptFiles::read(Some(&home.prompts_dir()), root);
        (
            specs,
            enabled_skills(&home, root, ws.as_ref()),
            prompt_files,
        )
    })
    .await;
    let (specs, (skills_prompt, readable_files), prompt_files) = read.unwrap_or_default();
    let taken = rt.registry.all().map(|t| t.definition().name.clone());
    let turn = mcp.for_turn(&specs, taken).await;
    TurnExtras {
        tools: turn.tools,
        mcp_prompts: turn.prompts,
        skills_prompt,
        readable_files,
        prompt_files,
    }
}

/// The enabled skills of a scope, as a prompt section plus the files it lists.
fn enabled_skills(
    home: &Home,
    root: Option<&Path>,
    workspace: Option<&WorkspaceConfig>,
) -> (Option<String>, Vec<PathBuf>) {
    let root = own_workspace(home, root);
    let ws_disabled = workspace
        .and_then(|w| w.disabled_skills.clone())
        .unwrap_or_default();
    // Read only: a broken state.json is the config service's to move aside.
    let state = read_json_lenient::<State>(&home.state_path())
        .ok()
        .flatten()
        .unwrap_or_default();
    let entries = seekclaw_skills::list(
        &home.skills_dir(),
        root,
        state.disabled_skills.keys(),
        &ws_disabled,
    );
    let enabled = seekclaw_skills::enabled(&entries);
    (
        seekclaw_skills::prompt_section(&enabled),
        seekclaw_skills::listed_paths(&enabled),
    )
}
