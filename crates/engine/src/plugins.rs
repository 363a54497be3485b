//! Plugins as the engine sees them: which are installed for a scope, which
//! take part in its turns (a project's only where the workspace is trusted),
//! their `plugin.list` rows, and what they add to the skills and MCP servers.

use std::path::Path;

use seekclaw_config::Home;
use seekclaw_plugins::{Installation, InstalledPlugin, Location, Scope, Summary};
use seekclaw_protocol::api::{PluginCommandView, PluginHookView, PluginServerView, PluginView};
use seekclaw_skills::{Skill, SkillScope};

/// Whether `root` is (inside) a registered project: the trust project
/// plugins, hooks and allow rules need. Blocking (a store read).
pub fn workspace_trusted(store: &seekclaw_store::Store, root: &Path) -> bool {
    store
        .list_projects()
        .is_ok_and(|list| list.iter().any(|p| root.starts_with(&p.path)))
}

/// Whether the workspace has project plugins at all (a stat): only then does
/// its trust matter to the skills and servers of its turns.
pub fn has_project_plugins(home: &Home, root: Option<&Path>) -> bool {
    crate::extensions::own_workspace(home, root)
        .is_some_and(|ws| Location::project(ws).state_path().exists())
}

/// The plugins a scope sees (blocking: reads every installed folder).
pub fn installation(home: &Home, root: Option<&Path>, trusted: bool) -> Installation {
    let ws = crate::extensions::own_workspace(home, root);
    Installation::read(home.root(), ws, trusted)
}

/// The skills the active plugins bring, named `plugin:skill`.
pub fn plugin_skills(installed: &Installation) -> Vec<Skill> {
    seekclaw_plugins::skill_dirs(installed)
        .into_iter()
        .filter_map(|(name, dir, scope)| {
            let scope = match scope {
                Scope::User => SkillScope::Global,
                Scope::Project => SkillScope::Workspace,
            };
            seekclaw_skills::plugin_skill(&name, &dir, scope)
        })
        .collect()
}

/// The MCP servers the active plugins bring, for the merge.
pub fn plugin_servers(installed: &Installation) -> Vec<seekclaw_mcp::PluginServer> {
    seekclaw_plugins::mcp_servers(installed)
        .into_iter()
        .map(|(name, config, scope)| (name, config, scope == Scope::Project))
        .collect()
}

/// Every `plugin.list` row of a scope: user plugins, then project plugins.
pub fn plugin_views(installed: &Installation) -> Vec<PluginView> {
    installed
        .plugins
        .iter()
        .map(|p| plugin_view(installed, p))
        .collect()
}

/// One `plugin.list` row.
pub fn plugin_view(installed: &Installation, p: &InstalledPlugin) -> PluginView {
    let reason = installed.inactive_reason(p);
    let (summary, directory, commands, mut problems) = match &p.plugin {
        Ok(plugin) => (
            Summary::of(plugin),
            plugin.root.display().to_string(),
            plugin
                .commands
                .iter()
                .map(|c| PluginCommandView {
                    name: c.name.clone(),
                    description: c.description.clone(),
                    body: c.body.clone(),
                })
                .collect(),
            Vec::new(),
        ),
        Err(e) => (
            Summary {
                name: p.name.clone(),
                ..Summary::default()
            },
            String::new(),
            Vec::new(),
            vec![e.clone()],
        ),
    };
    problems.extend(summary.problems);
    PluginView {
        name: p.name.clone(),
        scope: p.scope.as_str().to_string(),
        source: p.entry.source.clone(),
        version: summary.version.or_else(|| p.entry.version.clone()),
        description: summary.description,
        enabled: p.entry.enabled,
        active: reason.is_none(),
        inactive_reason: reason,
        directory,
        skills: summary.skills,
        commands,
        agents: summary.agents,
        hooks: summary
            .hooks
            .into_iter()
            .map(|h| PluginHookView {
                event: h.event,
                matcher: h.matcher,
                command: h.command,
            })
            .collect(),
        mcp_servers: summary
            .mcp_servers
            .into_iter()
            .map(|s| PluginServerView {
                name: s.name,
                target: s.target,
            })
            .collect(),
        problems,
    }
}
