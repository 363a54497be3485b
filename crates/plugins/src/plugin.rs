//! One plugin folder read: its manifest (`.claude-plugin/plugin.json` or
//! `plugin.json`) and what its layout brings (`skills/`, `commands/`,
//! `agents/`, `hooks/hooks.json`, `.mcp.json`).

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use seekclaw_config::McpServer;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::PluginError;
use crate::expand::expand_value;

/// The manifest fields we use (Claude Code's `plugin.json`); others are ignored.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Manifest {
    /// Plugin name; the folder name when absent.
    #[serde(default)]
    pub name: String,
    /// Version, if declared.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// One-line description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Author: a name, or Claude Code's `{name, email, url}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub author: Option<Value>,
}

/// A `commands/*.md` prompt.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Command {
    /// File stem (`/plugin:<name>`).
    pub name: String,
    /// The front matter's `description`, or empty.
    pub description: String,
    /// The text after the front matter; `$ARGUMENTS` stands for what the user typed after it.
    pub body: String,
}

/// A plugin folder as read.
#[derive(Debug, Clone, PartialEq)]
pub struct Plugin {
    /// The manifest, with `name` filled in.
    pub manifest: Manifest,
    /// The folder.
    pub root: PathBuf,
    /// Skill folders by skill folder name (`skills/<name>/`).
    pub skills: Vec<(String, PathBuf)>,
    /// Its prompts.
    pub commands: Vec<Command>,
    /// Agent file stems (listed only).
    pub agents: Vec<String>,
    /// The `hooks/hooks.json` event map, `${CLAUDE_PLUGIN_ROOT}` expanded.
    pub hooks: Option<Value>,
    /// The `.mcp.json` servers by their own name, expanded.
    pub mcp_servers: BTreeMap<String, McpServer>,
    /// Parts that could not be read (the rest is still used).
    pub problems: Vec<String>,
}

/// Largest prompt file read (a command body is sent as a message).
const MAX_COMMAND_BYTES: u64 = 256 * 1024;

/// Where the manifest may live, in order.
pub fn manifest_paths(root: &Path) -> [PathBuf; 2] {
    [
        root.join(".claude-plugin").join("plugin.json"),
        root.join("plugin.json"),
    ]
}

/// `hooks/hooks.json` of a plugin folder.
pub fn hooks_path(root: &Path) -> PathBuf {
    root.join("hooks").join("hooks.json")
}

/// `.mcp.json` of a plugin folder.
pub fn mcp_path(root: &Path) -> PathBuf {
    root.join(".mcp.json")
}

/// A name usable as a folder and inside tool names.
pub fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && !name.starts_with('.')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

impl Plugin {
    /// Reads a plugin folder. A folder with neither a manifest nor any of the
    /// layout's parts is no plugin; a broken part is a problem, not an error.
    pub fn read(root: &Path) -> Result<Plugin, PluginError> {
        Plugin::read_as(root, root)
    }

    /// Reads the folder `root` as if it were installed at `installed`
    /// (where `${CLAUDE_PLUGIN_ROOT}` points): a staged copy before it moves.
    pub fn read_as(root: &Path, installed: &Path) -> Result<Plugin, PluginError> {
        let not = |reason: &str| PluginError::NotAPlugin {
            path: root.to_path_buf(),
            reason: reason.to_string(),
        };
        if !root.is_dir() {
            return Err(not("not a folder"));
        }
        let mut problems = Vec::new();
        let mut manifest = None;
        for path in manifest_paths(root) {
            if !path.is_file() {
                continue;
            }
            match seekclaw_config::read_json_lenient::<Manifest>(&path) {
                Ok(m) => manifest = m,
                Err(e) => return Err(not(&format!("{}: {e}", path.display()))),
            }
            break;
        }
        let has_manifest = manifest.is_some();
        let mut manifest = manifest.unwrap_or_default();
        manifest.name = manifest.name.trim().to_string();
        if manifest.name.is_empty() {
            manifest.name = root
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
        }
        let skills = read_skills(root);
        let commands = read_commands(root, &mut problems);
        let agents = md_stems(&root.join("agents"));
        let hooks = read_hooks(root, installed, &mut problems);
        let mcp_servers = read_mcp(root, installed, &mut problems);
        let empty = skills.is_empty()
            && commands.is_empty()
            && agents.is_empty()
            && hooks.is_none()
            && mcp_servers.is_empty();
        if !has_manifest && empty {
            return Err(not(
                "no .claude-plugin/plugin.json, plugin.json, skills/, commands/, agents/, hooks/hooks.json or .mcp.json",
            ));
        }
        if !valid_name(&manifest.name) {
            return Err(PluginError::InvalidName(manifest.name));
        }
        Ok(Plugin {
            manifest,
            root: installed.to_path_buf(),
            skills,
            commands,
            agents,
            hooks,
            mcp_servers,
            problems,
        })
    }

    /// The plugin's name.
    pub fn name(&self) -> &str {
        &self.manifest.name
    }

    /// Every file whose change changes what [`Plugin::read`] gives (for caches).
    pub fn sources(root: &Path) -> Vec<PathBuf> {
        let mut paths: Vec<PathBuf> = manifest_paths(root).into();
        paths.extend([
            root.to_path_buf(),
            hooks_path(root),
            mcp_path(root),
            root.join("skills"),
            root.join("commands"),
        ]);
        paths
    }
}

fn sorted_entries(dir: &Path) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = fs::read_dir(dir)
        .map(|it| {
            it.filter_map(Result::ok)
                .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
                .map(|e| e.path())
                .collect()
        })
        .unwrap_or_default();
    paths.sort();
    paths
}

fn read_skills(root: &Path) -> Vec<(String, PathBuf)> {
    sorted_entries(&root.join("skills"))
        .into_iter()
        .filter(|p| p.is_dir())
        .filter_map(|p| Some((p.file_name()?.to_string_lossy().into_owned(), p)))
        .collect()
}

fn md_stems(dir: &Path) -> Vec<String> {
    sorted_entries(dir)
        .into_iter()
        .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == "md"))
        .filter_map(|p| Some(p.file_stem()?.to_string_lossy().into_owned()))
        .collect()
}

fn read_commands(root: &Path, problems: &mut Vec<String>) -> Vec<Command> {
    let dir = root.join("commands");
    let mut out = Vec::new();
    for name in md_stems(&dir) {
        let path = dir.join(format!("{name}.md"));
        let too_big = fs::metadata(&path).is_ok_and(|m| m.len() > MAX_COMMAND_BYTES);
        match fs::read_to_string(&path) {
            Ok(_) if too_big => problems.push(format!("{}: larger than 256 KiB", path.display())),
            Ok(text) => {
                let (description, body) = front_matter(&text);
                out.push(Command {
                    name,
                    description,
                    body,
                });
            }
            Err(e) => problems.push(format!("{}: {e}", path.display())),
        }
    }
    out
}

/// The `description:` of a `---` front matter, and the body after it.
pub(crate) fn front_matter(text: &str) -> (String, String) {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let Some(rest) = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
    else {
        return (String::new(), text.trim().to_string());
    };
    let Some(end) = rest.find("\n---") else {
        return (String::new(), text.trim().to_string());
    };
    let head = &rest[..end];
    let body = rest[end + 4..].trim_start_matches(['-']).trim().to_string();
    let description = head
        .lines()
        .find_map(|l| l.trim().strip_prefix("description:"))
        .map(|d| d.trim().trim_matches(['"', '\'']).to_string())
        .unwrap_or_default();
    (description, body)
}

fn read_hooks(root: &Path, installed: &Path, problems: &mut Vec<String>) -> Option<Value> {
    let path = hooks_path(root);
    let tree = match seekclaw_config::read_json_lenient::<Value>(&path) {
        Ok(tree) => tree?,
        Err(e) => {
            problems.push(format!("{}: {e}", path.display()));
            return None;
        }
    };
    // Claude Code wraps the event map in `{"hooks": …}`; a bare map is accepted too.
    let mut hooks = match tree.get("hooks") {
        Some(h) if h.is_object() => h.clone(),
        _ => tree,
    };
    if !hooks.is_object() {
        problems.push(format!("{}: expected an object of events", path.display()));
        return None;
    }
    expand_value(&mut hooks, installed);
    Some(hooks)
}

fn read_mcp(
    root: &Path,
    installed: &Path,
    problems: &mut Vec<String>,
) -> BTreeMap<String, McpServer> {
    let path = mcp_path(root);
    let tree = match seekclaw_config::read_json_lenient::<Value>(&path) {
        Ok(Some(tree)) => tree,
        Ok(None) => return BTreeMap::new(),
        Err(e) => {
            problems.push(format!("{}: {e}", path.display()));
            return BTreeMap::new();
        }
    };
    let mut servers = tree
        .get("mcpServers")
        .or_else(|| tree.get("servers"))
        .cloned()
        .unwrap_or(Value::Object(Default::default()));
    expand_value(&mut servers, installed);
    match serde_json::from_value(servers) {
        Ok(map) => map,
        Err(e) => {
            problems.push(format!("{}: {e}", path.display()));
            BTreeMap::new()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn write(dir: &Path, rel: &str, text: &str) {
        let path = dir.join(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }

    #[test]
    fn reads_the_whole_layout() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("demo");
        write(
            &root,
            ".claude-plugin/plugin.json",
            r#"{"name":"demo","version":"1.2.0","description":"Demo","author":{"name":"A"}}"#,
        );
        write(
            &root,
            "skills/tabs/SKILL.md",
            "---\nname: tabs\n---\nUse tabs.",
        );
        write(
            &root,
            "commands/review.md",
            "---\ndescription: Review it\n---\nReview $ARGUMENTS",
        );
        write(&root, "agents/helper.md", "an agent");
        write(
            &root,
            "hooks/hooks.json",
            r#"{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"${CLAUDE_PLUGIN_ROOT}/check.sh"}]}]}}"#,
        );
        write(
            &root,
            ".mcp.json",
            r#"{"mcpServers":{"srv":{"command":"python3","args":["${CLAUDE_PLUGIN_ROOT}/s.py"]}}}"#,
        );
        let p = Plugin::read(&root).unwrap();
        assert_eq!(p.name(), "demo");
        assert_eq!(p.manifest.version.as_deref(), Some("1.2.0"));
        assert_eq!(p.skills[0].0, "tabs");
        assert_eq!(p.commands[0].name, "review");
        assert_eq!(p.commands[0].description, "Review it");
        assert_eq!(p.commands[0].body, "Review $ARGUMENTS");
        assert_eq!(p.agents, ["helper"]);
        let cmd = p.hooks.as_ref().unwrap()["PreToolUse"][0]["hooks"][0]["command"]
            .as_str()
            .unwrap()
            .to_string();
        assert_eq!(cmd, format!("{}/check.sh", root.display()));
        let srv = &p.mcp_servers["srv"];
        assert_eq!(
            srv.args.as_ref().unwrap()[0],
            format!("{}/s.py", root.display())
        );
        assert!(p.problems.is_empty());
    }

    #[test]
    fn name_falls_back_to_the_folder_and_a_bare_folder_is_no_plugin() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("folder-name");
        write(&root, "plugin.json", r#"{"version":"1"}"#);
        assert_eq!(Plugin::read(&root).unwrap().name(), "folder-name");
        let empty = tmp.path().join("empty");
        fs::create_dir_all(&empty).unwrap();
        assert!(matches!(
            Plugin::read(&empty),
            Err(PluginError::NotAPlugin { .. })
        ));
        let bad = tmp.path().join("bad");
        write(&bad, "plugin.json", r#"{"name":"../evil"}"#);
        assert!(matches!(
            Plugin::read(&bad),
            Err(PluginError::InvalidName(_))
        ));
    }

    #[test]
    fn broken_parts_are_problems_not_errors() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("p");
        write(&root, "plugin.json", r#"{"name":"p"}"#);
        write(&root, ".mcp.json", "{ nope");
        write(&root, "hooks/hooks.json", "[1]");
        let p = Plugin::read(&root).unwrap();
        assert!(p.mcp_servers.is_empty());
        assert!(p.hooks.is_none());
        assert_eq!(p.problems.len(), 2, "{:?}", p.problems);
    }

    #[test]
    fn front_matter_without_a_header_is_all_body() {
        assert_eq!(
            front_matter("Just do it"),
            (String::new(), "Just do it".into())
        );
        assert_eq!(
            front_matter("---\ndescription: \"X y\"\nother: 1\n---\n\nBody\n"),
            ("X y".into(), "Body".into())
        );
    }
}
