//! Installed plugins per scope: `$SEEKCLAW_HOME/plugins/` for the user,
//! `<workspace>/.seekclaw/plugins/` for a project, each with its
//! `installed.json` (name → source, version, enabled, installedAt).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::PluginError;
use crate::plugin::Plugin;

/// The state file's name inside a scope's plugins folder.
pub const STATE_FILE: &str = "installed.json";

/// Where a plugin is installed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    /// For every workspace of the user.
    User,
    /// For one workspace (active only where it is trusted).
    Project,
}

impl Scope {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::User => "user",
            Scope::Project => "project",
        }
    }
}

/// Where one scope's plugins live.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    /// User or project.
    pub scope: Scope,
    /// The folder holding the plugin folders and the state file.
    pub dir: PathBuf,
}

impl Location {
    /// `$SEEKCLAW_HOME/plugins`.
    pub fn user(home_root: &Path) -> Location {
        Location {
            scope: Scope::User,
            dir: home_root.join("plugins"),
        }
    }

    /// `<workspace>/.seekclaw/plugins`.
    pub fn project(workspace: &Path) -> Location {
        Location {
            scope: Scope::Project,
            dir: workspace.join(".seekclaw").join("plugins"),
        }
    }

    /// The state file.
    pub fn state_path(&self) -> PathBuf {
        self.dir.join(STATE_FILE)
    }

    /// A plugin's folder.
    pub fn plugin_dir(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }

    /// The installed plugins (a missing or unreadable file: none).
    pub fn load(&self) -> Installed {
        seekclaw_config::read_json_lenient::<Installed>(&self.state_path())
            .ok()
            .flatten()
            .unwrap_or_default()
    }

    /// Writes the state (atomically).
    pub fn save(&self, state: &Installed) -> Result<(), PluginError> {
        Ok(seekclaw_config::save_json_file(&self.state_path(), state)?)
    }

    /// Switches an installed plugin on or off.
    pub fn set_enabled(&self, name: &str, enabled: bool) -> Result<(), PluginError> {
        let mut state = self.load();
        let entry = state
            .0
            .get_mut(name)
            .ok_or_else(|| PluginError::NotInstalled(name.to_string()))?;
        entry.enabled = enabled;
        self.save(&state)
    }

    /// Removes an installed plugin: its state entry, then its folder.
    pub fn remove(&self, name: &str) -> Result<(), PluginError> {
        let mut state = self.load();
        if !crate::plugin::valid_name(name) {
            return Err(PluginError::InvalidName(name.to_string()));
        }
        if state.0.remove(name).is_none() {
            return Err(PluginError::NotInstalled(name.to_string()));
        }
        self.save(&state)?;
        let dir = self.plugin_dir(name);
        if dir.exists() {
            std::fs::remove_dir_all(&dir).map_err(|e| PluginError::io(&dir, e))?;
        }
        Ok(())
    }

    /// Every installed plugin of this scope, read (in name order).
    pub fn read_all(&self) -> Vec<InstalledPlugin> {
        self.load()
            .0
            .into_iter()
            .map(|(name, entry)| {
                // A project's state file comes with its files: a name must not
                // lead out of the plugins folder.
                let plugin = if crate::plugin::valid_name(&name) {
                    Plugin::read(&self.plugin_dir(&name)).map_err(|e| e.to_string())
                } else {
                    Err(PluginError::InvalidName(name.clone()).to_string())
                };
                InstalledPlugin {
                    scope: self.scope,
                    name,
                    entry,
                    plugin,
                }
            })
            .collect()
    }
}

/// One `installed.json`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Installed(pub BTreeMap<String, Entry>);

/// One installed plugin's record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Entry {
    /// What it was installed from, as the user gave it.
    pub source: String,
    /// Its manifest version then.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// Switched on.
    #[serde(default = "yes")]
    pub enabled: bool,
    /// RFC 3339.
    #[serde(default)]
    pub installed_at: String,
}

fn yes() -> bool {
    true
}

/// An installed plugin with its folder read.
#[derive(Debug, Clone)]
pub struct InstalledPlugin {
    /// Its scope.
    pub scope: Scope,
    /// Its name (the state key and folder).
    pub name: String,
    /// Its record.
    pub entry: Entry,
    /// The folder read, or why it could not be.
    pub plugin: Result<Plugin, String>,
}

/// The installed plugins that a workspace sees, both scopes.
#[derive(Debug, Clone, Default)]
pub struct Installation {
    /// User plugins, then project plugins, each in name order.
    pub plugins: Vec<InstalledPlugin>,
    /// The workspace is trusted (project plugins are active).
    pub trusted: bool,
}

impl Installation {
    /// Reads both scopes (`workspace` `None`: user plugins only).
    pub fn read(home_root: &Path, workspace: Option<&Path>, trusted: bool) -> Installation {
        let mut plugins = Location::user(home_root).read_all();
        if let Some(ws) = workspace {
            plugins.extend(Location::project(ws).read_all());
        }
        Installation { plugins, trusted }
    }

    /// Whether an installed plugin takes part in turns, and if not, why.
    pub fn inactive_reason(&self, p: &InstalledPlugin) -> Option<String> {
        if !p.entry.enabled {
            return Some("disabled".to_string());
        }
        if let Err(e) = &p.plugin {
            return Some(e.clone());
        }
        if p.scope == Scope::Project && !self.trusted {
            return Some(
                "the workspace is not a trusted project (open `seekclaw` in it once and choose to trust it)"
                    .to_string(),
            );
        }
        None
    }

    /// The plugins that take part in turns.
    pub fn active(&self) -> impl Iterator<Item = (Scope, &Plugin)> {
        self.plugins.iter().filter_map(|p| match &p.plugin {
            Ok(plugin) if self.inactive_reason(p).is_none() => Some((p.scope, plugin)),
            _ => None,
        })
    }

    /// Enabled plugins whose hooks count, trusted or not: a project's hooks
    /// are hashed and shown even where they do not run (the policy decides).
    pub fn enabled(&self) -> impl Iterator<Item = (Scope, &Plugin)> {
        self.plugins.iter().filter_map(|p| match &p.plugin {
            Ok(plugin) if p.entry.enabled => Some((p.scope, plugin)),
            _ => None,
        })
    }
}

/// Every path whose change changes an [`Installation::read`]: both state
/// files, and for each installed plugin its folder's parts.
pub fn sources(home_root: &Path, workspace: Option<&Path>) -> Vec<PathBuf> {
    let mut locations = vec![Location::user(home_root)];
    locations.extend(workspace.map(Location::project));
    let mut paths = Vec::new();
    for loc in locations {
        paths.push(loc.state_path());
        for name in loc.load().0.keys().filter(|n| crate::plugin::valid_name(n)) {
            paths.extend(Plugin::sources(&loc.plugin_dir(name)));
        }
    }
    paths
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn entry(enabled: bool) -> Entry {
        Entry {
            source: "./x".into(),
            version: None,
            enabled,
            installed_at: String::new(),
        }
    }

    fn plugin_folder(dir: &Path, name: &str) {
        let root = dir.join(name);
        fs::create_dir_all(&root).unwrap();
        fs::write(root.join("plugin.json"), format!(r#"{{"name":"{name}"}}"#)).unwrap();
    }

    #[test]
    fn state_round_trips_and_toggles() {
        let home = tempfile::tempdir().unwrap();
        let loc = Location::user(home.path());
        let mut st = Installed::default();
        st.0.insert("a".into(), entry(true));
        loc.save(&st).unwrap();
        let text = fs::read_to_string(loc.state_path()).unwrap();
        assert!(text.contains("\"a\""), "{text}");
        loc.set_enabled("a", false).unwrap();
        assert!(!loc.load().0["a"].enabled);
        assert!(matches!(
            loc.set_enabled("nope", true),
            Err(PluginError::NotInstalled(_))
        ));
        plugin_folder(&loc.dir, "a");
        loc.remove("a").unwrap();
        assert!(loc.load().0.is_empty());
        assert!(!loc.plugin_dir("a").exists());
    }

    #[test]
    fn a_name_that_leaves_the_plugins_folder_is_never_read_or_removed() {
        let tmp = tempfile::tempdir().unwrap();
        let ws = tmp.path().join("ws");
        plugin_folder(tmp.path(), "outside");
        let loc = Location::project(&ws);
        let mut st = Installed::default();
        st.0.insert("../../outside".into(), entry(true));
        loc.save(&st).unwrap();
        let all = loc.read_all();
        assert!(
            all[0]
                .plugin
                .as_ref()
                .unwrap_err()
                .contains("invalid plugin name")
        );
        assert!(matches!(
            loc.remove("../../outside"),
            Err(PluginError::InvalidName(_))
        ));
        assert!(tmp.path().join("outside").is_dir());
    }

    #[test]
    fn project_plugins_need_trust() {
        let home = tempfile::tempdir().unwrap();
        let ws = tempfile::tempdir().unwrap();
        for (loc, name) in [
            (Location::user(home.path()), "u"),
            (Location::project(ws.path()), "p"),
        ] {
            plugin_folder(&loc.dir, name);
            let mut st = Installed::default();
            st.0.insert(name.into(), entry(true));
            loc.save(&st).unwrap();
        }
        let untrusted = Installation::read(home.path(), Some(ws.path()), false);
        let names: Vec<_> = untrusted
            .active()
            .map(|(_, p)| p.name().to_string())
            .collect();
        assert_eq!(names, ["u"]);
        assert!(
            untrusted
                .inactive_reason(&untrusted.plugins[1])
                .unwrap()
                .contains("not a trusted")
        );
        assert_eq!(untrusted.enabled().count(), 2);
        let trusted = Installation::read(home.path(), Some(ws.path()), true);
        assert_eq!(trusted.active().count(), 2);
        let srcs = sources(home.path(), Some(ws.path()));
        assert!(srcs.contains(&Location::project(ws.path()).state_path()));
        assert!(srcs.contains(&home.path().join("plugins/u/plugin.json")));
    }
}
