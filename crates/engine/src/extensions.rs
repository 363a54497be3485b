//! What turns get from MCP servers and skills: the merged MCP configuration of a
//! scope, the shared connections for it, and the enabled skills.

use std::future::Future;
use std::path::{Path, PathBuf};

use seekclaw_agent::{PromptFiles, PromptSources};
use seekclaw_agent::{TurnExtras, TurnRuntime};
use seekclaw_config::{
    Config, Home, McpSettings, State, WorkspaceConfig, read_json_lenient, workspace_config_path,
};
use seekclaw_mcp::{Merged, ServerSpec, Timeouts, merge_with_plugins};

use crate::engine::Engine;
use crate::extras_cache::{DiskExtras, ExtrasInputs, ReadExtras};
use crate::launcher::TurnOverrides;

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
    let installed = crate::plugins::installation(home, root, false);
    mcp_config_with(home, global, root, workspace, &installed)
}

/// [`mcp_config`] with the servers of these plugins' active ones first.
fn mcp_config_with(
    home: &Home,
    global: &McpSettings,
    root: Option<&Path>,
    workspace: Option<&WorkspaceConfig>,
    plugins: &seekclaw_plugins::Installation,
) -> Merged {
    let inline = workspace.and_then(|w| w.mcp.as_ref());
    merge_with_plugins(
        global,
        own_workspace(home, root).map(|r| (r, inline)),
        &crate::plugins::plugin_servers(plugins),
    )
}

/// Where a scope's stdio servers run: the workspace root, or the global scratch dir.
pub fn mcp_cwd(home: &Home, root: Option<&Path>) -> PathBuf {
    root.map(Path::to_path_buf)
        .unwrap_or_else(|| home.global_dir())
}

/// The servers to connect for the daemon's current workspace (`trusted`:
/// its project plugins' servers too).
pub fn active_specs(home: &Home, config: &Config, root: &Path, trusted: bool) -> Vec<ServerSpec> {
    active_config(home, config, root, trusted).specs(&mcp_cwd(home, Some(root)))
}

/// The merged MCP configuration of the daemon's workspace `root`: a trusted
/// workspace's project plugins' servers included (as its turns get them).
pub fn active_config(home: &Home, config: &Config, root: &Path, trusted: bool) -> Merged {
    let ws = workspace_config(home, Some(root));
    let installed = crate::plugins::installation(home, Some(root), trusted);
    mcp_config_with(home, &config.mcp, Some(root), ws.as_ref(), &installed)
}

/// A turn's MCP tools and prompts, its skills section and its prompt files.
/// What it needs of the runtime is taken now, so the future borrows only the
/// engine's shared services and can run beside the turn's own set-up.
pub fn turn_extras(
    engine: Engine,
    rt: &TurnRuntime,
    overrides: &TurnOverrides,
) -> impl Future<Output = TurnExtras> + Send + use<> {
    engine
        .mcp
        .set_timeouts(Timeouts::from_settings(&rt.config.mcp));
    let mut inputs = ExtrasInputs {
        root: rt.workspace_root.clone(),
        start: start_below(rt.workspace_root.as_deref(), overrides.start_dir.as_deref()),
        global_mcp: rt.config.mcp.clone(),
        workspace: rt.workspace.clone(),
        instructions: rt.config.instructions.clone(),
        trusted: false,
    };
    let home = rt.home.clone();
    // Trust is a store read: asked only of a workspace with project plugins.
    let project_plugins = crate::plugins::has_project_plugins(&home, inputs.root.as_deref());
    let extra_mcp = overrides.extra_mcp.clone();
    let taken: Vec<String> = rt
        .registry
        .all()
        .map(|t| t.definition().name.clone())
        .collect();
    async move {
        if project_plugins && let Some(root) = inputs.root.clone() {
            let store = engine.store.clone();
            inputs.trusted = tokio::task::spawn_blocking(move || {
                crate::plugins::workspace_trusted(&store, &root)
            })
            .await
            .unwrap_or(false);
        }
        let (mcp, cache) = (&engine.mcp, &engine.extras);
        let disk = match cache.fresh(&inputs) {
            Some(disk) => disk,
            None => {
                // All small disk reads (servers.json, the skill folders, the
                // prompt's files): one trip off the async threads.
                let cache = cache.clone();
                tokio::task::spawn_blocking(move || {
                    cache.read_with(inputs, |inputs| read_disk(&home, inputs))
                })
                .await
                .unwrap_or_default()
            }
        };
        let turn = if extra_mcp.is_empty() {
            mcp.for_turn(&disk.specs, taken).await
        } else {
            let specs: Vec<ServerSpec> = disk.specs.iter().cloned().chain(extra_mcp).collect();
            mcp.for_turn(&specs, taken).await
        };
        TurnExtras {
            tools: turn.tools,
            mcp_prompts: turn.prompts,
            skills_prompt: disk.skills_prompt,
            readable_files: disk.readable_files,
            prompt_files: disk.prompt_files,
        }
    }
}

/// `start` when it is a folder strictly below `root` (else the root's own
/// files are all there is to read).
fn start_below(root: Option<&Path>, start: Option<&Path>) -> Option<PathBuf> {
    let (root, start) = (root?, start?);
    let start = seekclaw_config::normalize_path(start, root);
    (start != root && start.starts_with(root) && start.is_dir()).then_some(start)
}

/// Reads the disk side of a scope's extras, and says which paths it read.
fn read_disk(home: &Home, inputs: &ExtrasInputs) -> ReadExtras {
    let root = inputs.root.as_deref();
    let ws = inputs.workspace.as_ref();
    let plugins = crate::plugins::installation(home, root, inputs.trusted);
    let specs =
        mcp_config_with(home, &inputs.global_mcp, root, ws, &plugins).specs(&mcp_cwd(home, root));
    let (prompt_files, mut sources) = PromptFiles::read_with_sources(&PromptSources {
        home: Some(home.root()),
        workspace: root,
        start: inputs.start.as_deref(),
        instructions: &inputs.instructions,
    });
    let skills = enabled_skills(home, root, ws, &plugins);
    sources.extend(skills.sources);
    // Installing, toggling or removing a plugin changes these: the next turn sees it.
    sources.extend(seekclaw_plugins::sources(
        home.root(),
        own_workspace(home, root),
    ));
    if let Some(own) = own_workspace(home, root) {
        sources.push(seekclaw_mcp::servers_file(own));
    }
    ReadExtras {
        extras: DiskExtras {
            specs,
            skills_prompt: skills.prompt,
            readable_files: skills.readable_files,
            prompt_files,
        },
        sources,
    }
}

/// A scope's enabled skills as the prompt sees them.
struct EnabledSkills {
    /// The prompt section.
    prompt: Option<String>,
    /// The files it lists for the model to read.
    readable_files: Vec<PathBuf>,
    /// Every path the listing depended on.
    sources: Vec<PathBuf>,
}

/// The enabled skills of a scope.
fn enabled_skills(
    home: &Home,
    root: Option<&Path>,
    workspace: Option<&WorkspaceConfig>,
    plugins: &seekclaw_plugins::Installation,
) -> EnabledSkills {
    let root = own_workspace(home, root);
    let ws_disabled = workspace
        .and_then(|w| w.disabled_skills.clone())
        .unwrap_or_default();
    // Read only: a broken state.json is the config service's to move aside.
    let state = read_json_lenient::<State>(&home.state_path())
        .ok()
        .flatten()
        .unwrap_or_default();
    let plugin_skills = crate::plugins::plugin_skills(plugins);
    let mut sources = seekclaw_skills::sources(&home.skills_dir(), root);
    sources.extend(plugin_skills.iter().map(|s| s.prompt_path.clone()));
    let entries = seekclaw_skills::list_with(
        &home.skills_dir(),
        root,
        plugin_skills,
        state.disabled_skills.keys(),
        &ws_disabled,
    );
    let enabled = seekclaw_skills::enabled(&entries);
    sources.push(home.state_path());
    EnabledSkills {
        prompt: seekclaw_skills::prompt_section(&enabled),
        readable_files: seekclaw_skills::listed_paths(&enabled),
        sources,
    }
}
