//! SeekClaw plugins: folders in the Claude Code / Open Plugins layout that
//! bring skills, commands, agents, hooks and MCP servers together.
//!
//! - [`Plugin::read`]: one folder → what it brings ([`Summary`] to show it).
//! - [`Location`], [`Installation`]: the installed state per user and project
//!   scope, and which plugins take part in turns (project ones only where the
//!   workspace is trusted).
//! - [`parse_source`], [`prepare`], [`Prepared::commit`]: installing from a
//!   folder, a git URL, `owner/repo` or `NAME@MARKET`.
//! - [`marketplace`]: `marketplace.json` files and the known marketplaces.
//! - What the rest of the engine takes from active plugins: [`skill_name`],
//!   [`server_name`], [`mcp_servers`].
#![warn(missing_docs)]
#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used))]

mod error;
mod expand;
mod install;
pub mod marketplace;
mod plugin;
mod state;
mod summary;

use std::path::PathBuf;

pub use error::PluginError;
pub use expand::{expand, expand_value};
pub use install::{Prepared, Source, parse_source, prepare};
pub use plugin::{Command, Manifest, Plugin, hooks_path, manifest_paths, mcp_path, valid_name};
pub use state::{
    Entry, Installation, Installed, InstalledPlugin, Location, STATE_FILE, Scope, sources,
};
pub use summary::{HookLine, ServerLine, Summary};

/// The name a plugin's skill carries: `plugin:skill`.
pub fn skill_name(plugin: &str, skill: &str) -> String {
    format!("{plugin}:{skill}")
}

/// The name a plugin's MCP server carries: `plugin_<plugin>_<server>`, with
/// anything a tool name cannot hold made `_` (Claude Code's naming).
pub fn server_name(plugin: &str, server: &str) -> String {
    let clean = |s: &str| -> String {
        s.chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                    c
                } else {
                    '_'
                }
            })
            .collect()
    };
    format!("plugin_{}_{}", clean(plugin), clean(server))
}

/// The active plugins' MCP servers, by their namespaced name, each with
/// whether it comes from a project plugin.
pub fn mcp_servers(
    installation: &Installation,
) -> Vec<(String, seekclaw_config::McpServer, Scope)> {
    installation
        .active()
        .flat_map(|(scope, p)| {
            p.mcp_servers
                .iter()
                .map(move |(name, c)| (server_name(p.name(), name), c.clone(), scope))
        })
        .collect()
}

/// The active plugins' skill folders: (`plugin:skill`, folder, scope).
pub fn skill_dirs(installation: &Installation) -> Vec<(String, PathBuf, Scope)> {
    installation
        .active()
        .flat_map(|(scope, p)| {
            p.skills
                .iter()
                .map(move |(name, dir)| (skill_name(p.name(), name), dir.clone(), scope))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_namespaced_and_tool_safe() {
        assert_eq!(skill_name("demo", "tabs"), "demo:tabs");
        assert_eq!(
            server_name("my.plugin", "fs srv"),
            "plugin_my_plugin_fs_srv"
        );
    }
}
