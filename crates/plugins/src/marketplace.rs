//! Marketplaces: a `marketplace.json` (Claude Code's
//! `.claude-plugin/marketplace.json`: `name`, `plugins[{name, source,
//! description}]`) in a folder or git repository, remembered in
//! `$SEEKCLAW_HOME/plugins/marketplaces.json` so `plugin add NAME@MARKET` works.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::PluginError;
use crate::install::{Source, clone};

/// The marketplaces file's name inside the user's plugins folder.
pub const MARKETPLACES_FILE: &str = "marketplaces.json";

/// A marketplace as remembered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Known {
    /// What the user added it from.
    pub source: String,
    /// The local folder holding its `marketplace.json`.
    pub path: PathBuf,
}

/// A `marketplace.json`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Marketplace {
    /// Its name (`NAME@<this>`).
    #[serde(default)]
    pub name: String,
    /// Its plugins.
    #[serde(default)]
    pub plugins: Vec<Listed>,
}

/// One plugin a marketplace lists.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Listed {
    /// Plugin name.
    pub name: String,
    /// A path relative to the marketplace, a git URL, or `{source: github|git|url, repo|url}`.
    pub source: Value,
    /// One line.
    #[serde(default)]
    pub description: Option<String>,
}

fn file(home_root: &Path) -> PathBuf {
    home_root.join("plugins").join(MARKETPLACES_FILE)
}

/// The remembered marketplaces by name.
pub fn known(home_root: &Path) -> BTreeMap<String, Known> {
    seekclaw_config::read_json_lenient(&file(home_root))
        .ok()
        .flatten()
        .unwrap_or_default()
}

/// Reads the `marketplace.json` of a folder (or the file itself).
pub fn read(at: &Path) -> Result<Marketplace, PluginError> {
    let candidates = [
        at.join(".claude-plugin").join("marketplace.json"),
        at.join("marketplace.json"),
        at.to_path_buf(),
    ];
    let path = candidates.iter().find(|p| p.is_file()).ok_or_else(|| {
        PluginError::Marketplace(format!("no marketplace.json in {}", at.display()))
    })?;
    let m: Marketplace = seekclaw_config::read_json_lenient(path)
        .map_err(|e| PluginError::Marketplace(format!("{}: {e}", path.display())))?
        .unwrap_or_default();
    if !crate::plugin::valid_name(&m.name) {
        return Err(PluginError::Marketplace(format!(
            "{}: missing or invalid `name`",
            path.display()
        )));
    }
    Ok(m)
}

/// Adds a marketplace from a folder (or its `marketplace.json`) or a git
/// URL (cloned into `$SEEKCLAW_HOME/plugins/marketplaces/<name>`). Adding
/// one again refreshes it.
pub fn add(home_root: &Path, text: &str, cwd: &Path) -> Result<(String, Marketplace), PluginError> {
    let local = cwd.join(text);
    let (folder, market) = if local.exists() {
        let folder = if local.is_file() {
            // `.claude-plugin/marketplace.json` → the repository folder.
            let parent = local.parent().unwrap_or(cwd);
            if parent.file_name().is_some_and(|n| n == ".claude-plugin") {
                parent.parent().unwrap_or(parent).to_path_buf()
            } else {
                parent.to_path_buf()
            }
        } else {
            local
        };
        let market = read(&folder)?;
        (folder, market)
    } else {
        let url = match crate::install::parse_source(text, home_root, cwd)? {
            Source::Git(url) => url,
            Source::Path(p) => return Err(PluginError::UnknownSource(p.display().to_string())),
        };
        let dir = home_root.join("plugins").join("marketplaces");
        std::fs::create_dir_all(&dir).map_err(|e| PluginError::io(&dir, e))?;
        let staging = tempfile::Builder::new()
            .prefix(".staging-")
            .tempdir_in(&dir)
            .map_err(|e| PluginError::io(&dir, e))?;
        let cloned = staging.path().join("m");
        clone(&url, &cloned)?;
        let market = read(&cloned)?;
        let target = dir.join(&market.name);
        if target.exists() {
            std::fs::remove_dir_all(&target).map_err(|e| PluginError::io(&target, e))?;
        }
        std::fs::rename(&cloned, &target).map_err(|e| PluginError::io(&target, e))?;
        (target, market)
    };
    let mut all = known(home_root);
    all.insert(
        market.name.clone(),
        Known {
            source: text.to_string(),
            path: std::fs::canonicalize(&folder).unwrap_or(folder),
        },
    );
    seekclaw_config::save_json_file(&file(home_root), &all)?;
    Ok((market.name.clone(), market))
}

/// Where `NAME@MARKET` comes from.
pub fn resolve(home_root: &Path, name: &str, market: &str) -> Result<Source, PluginError> {
    let all = known(home_root);
    let known = all.get(market).ok_or_else(|| {
        PluginError::Marketplace(format!(
            "unknown marketplace '{market}' (add it with `seekclaw plugin marketplace add <path|url>`)"
        ))
    })?;
    let m = read(&known.path)?;
    let listed =
        m.plugins.iter().find(|p| p.name == name).ok_or_else(|| {
            PluginError::Marketplace(format!("'{market}' lists no plugin '{name}'"))
        })?;
    source_of(&listed.source, &known.path)
        .ok_or_else(|| PluginError::Marketplace(format!("'{name}@{market}': unsupported source")))
}

fn source_of(source: &Value, base: &Path) -> Option<Source> {
    match source {
        Value::String(s) if s.starts_with("./") || s.starts_with("../") || !s.contains(':') => {
            let path = base.join(s);
            // A listed folder must stay inside the marketplace.
            let real = std::fs::canonicalize(&path).ok()?;
            let base = std::fs::canonicalize(base).ok()?;
            real.starts_with(&base).then_some(Source::Path(real))
        }
        Value::String(s) => Some(Source::Git(s.clone())),
        Value::Object(o) => {
            let kind = o.get("source").and_then(Value::as_str).unwrap_or("");
            match kind {
                "github" => {
                    let repo = o.get("repo").and_then(Value::as_str)?;
                    Some(Source::Git(format!("https://github.com/{repo}.git")))
                }
                "git" | "url" => o
                    .get("url")
                    .and_then(Value::as_str)
                    .map(|u| Source::Git(u.to_string())),
                _ => None,
            }
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn add_a_folder_and_resolve_its_plugins() {
        let tmp = tempfile::tempdir().unwrap();
        let home = tmp.path().join("home");
        let m = tmp.path().join("market");
        std::fs::create_dir_all(m.join(".claude-plugin")).unwrap();
        std::fs::create_dir_all(m.join("plugins/demo")).unwrap();
        std::fs::write(
            m.join(".claude-plugin/marketplace.json"),
            r#"{"name":"acme","plugins":[
                {"name":"demo","source":"./plugins/demo","description":"D"},
                {"name":"gh","source":{"source":"github","repo":"o/r"}},
                {"name":"out","source":"../.."}]}"#,
        )
        .unwrap();
        let (name, market) = add(&home, "market", tmp.path()).unwrap();
        assert_eq!(name, "acme");
        assert_eq!(market.plugins.len(), 3);
        assert!(known(&home).contains_key("acme"));
        let demo = resolve(&home, "demo", "acme").unwrap();
        assert_eq!(
            demo,
            Source::Path(std::fs::canonicalize(m.join("plugins/demo")).unwrap())
        );
        assert_eq!(
            resolve(&home, "gh", "acme").unwrap(),
            Source::Git("https://github.com/o/r.git".into())
        );
        assert!(resolve(&home, "out", "acme").is_err());
        assert!(resolve(&home, "missing", "acme").is_err());
        assert!(resolve(&home, "demo", "nope").is_err());
    }
}
