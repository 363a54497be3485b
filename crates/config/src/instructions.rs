//! `instructions`: the project instruction files the system prompt includes
//! (`AGENTS.md` and the files other agents read), and how much of them.

use std::path::{Component, Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::unknown::{UnknownFields, extra};

/// The names looked for in each directory, first found wins: Codex's override,
/// the shared `AGENTS.md`, then Claude Code's and Gemini CLI's files.
pub const DEFAULT_INSTRUCTION_FILE_NAMES: [&str; 4] =
    ["AGENTS.override.md", "AGENTS.md", "CLAUDE.md", "GEMINI.md"];

/// The most instruction text a prompt carries unless `instructions.maxBytes` says otherwise (64 KiB).
pub const DEFAULT_INSTRUCTIONS_MAX_BYTES: usize = 64 * 1024;

/// `instructions`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct InstructionSettings {
    /// File names looked for in each directory, in order; the first that
    /// exists is used (default: `AGENTS.override.md`, `AGENTS.md`,
    /// `CLAUDE.md`, `GEMINI.md`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file_names: Option<Vec<String>>,
    /// The most bytes of instruction text in a prompt, all files together
    /// (default 65536); the files farthest from the working directory are
    /// cut first.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_bytes: Option<usize>,
    /// Unknown keys of `instructions`, kept so a newer config round-trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl InstructionSettings {
    /// Nothing configured (left out of a written config).
    pub fn is_empty(&self) -> bool {
        *self == InstructionSettings::default()
    }

    /// The names in effect (an empty list or blank names fall back to the defaults).
    pub fn names(&self) -> Vec<String> {
        let configured: Vec<String> = self
            .file_names
            .iter()
            .flatten()
            .map(|n| n.trim().to_string())
            .filter(|n| !n.is_empty() && !n.contains(['/', '\\']))
            .collect();
        if configured.is_empty() {
            DEFAULT_INSTRUCTION_FILE_NAMES
                .iter()
                .map(|n| n.to_string())
                .collect()
        } else {
            configured
        }
    }

    /// The budget in effect.
    pub fn budget(&self) -> usize {
        self.max_bytes.unwrap_or(DEFAULT_INSTRUCTIONS_MAX_BYTES)
    }
}

/// An instruction file found for a turn, before it is read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstructionPath {
    /// Where it is.
    pub path: PathBuf,
    /// How the prompt names it: relative to the workspace root, or
    /// `~seekclaw/NAME` for the user's own (in the SeekClaw home).
    pub label: String,
    /// The user's own file, not the workspace's.
    pub user: bool,
}

/// The instruction files of a turn, most general first: the first of `names`
/// in the SeekClaw `home`, then in each folder from the workspace `root` down
/// to `start` (just the root when `start` is not inside it). Every path
/// looked at goes to `looked_at` (a file created there later changes the
/// outcome).
pub fn instruction_paths(
    home: Option<&Path>,
    root: Option<&Path>,
    start: Option<&Path>,
    names: &[String],
    looked_at: &mut Vec<PathBuf>,
) -> Vec<InstructionPath> {
    let mut found = Vec::new();
    if let Some(path) = home.and_then(|home| first_existing(home, names, looked_at)) {
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        found.push(InstructionPath {
            label: format!("~seekclaw/{name}"),
            path,
            user: true,
        });
    }
    let Some(root) = root else {
        return found;
    };
    for dir in folder_chain(root, start) {
        if let Some(path) = first_existing(&dir, names, looked_at) {
            let label = path
                .strip_prefix(root)
                .map(|p| p.display().to_string())
                .unwrap_or_else(|_| path.display().to_string());
            found.push(InstructionPath {
                path,
                label,
                user: false,
            });
        }
    }
    found
}

/// The folders from `root` down to `start` (just `root` when `start` is
/// not inside it).
fn folder_chain(root: &Path, start: Option<&Path>) -> Vec<PathBuf> {
    let mut dirs = vec![root.to_path_buf()];
    let Some(rest) = start.and_then(|s| s.strip_prefix(root).ok()) else {
        return dirs;
    };
    let mut dir = root.to_path_buf();
    for part in rest.components() {
        match part {
            Component::Normal(name) => {
                dir.push(name);
                dirs.push(dir.clone());
            }
            // A start that climbs (`..`) is not below the root: root only.
            _ => return vec![root.to_path_buf()],
        }
    }
    dirs
}

/// The first of `names` that is a file in `dir`.
fn first_existing(dir: &Path, names: &[String], looked_at: &mut Vec<PathBuf>) -> Option<PathBuf> {
    for name in names {
        let path = dir.join(name);
        looked_at.push(path.clone());
        if path.is_file() {
            return Some(path);
        }
    }
    None
}

impl UnknownFields for InstructionSettings {
    fn unknown_fields(&self, at: &str, out: &mut Vec<String>) {
        extra(&self.extra, at, out);
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn names_default_and_configured() {
        let empty = InstructionSettings::default();
        assert_eq!(empty.names()[1], "AGENTS.md");
        assert_eq!(empty.budget(), 65536);
        let own: InstructionSettings = serde_json::from_value(
            serde_json::json!({"fileNames": ["RULES.md", " ", "a/b.md"], "maxBytes": 10}),
        )
        .unwrap();
        assert_eq!(own.names(), vec!["RULES.md".to_string()]);
        assert_eq!(own.budget(), 10);
        let blank: InstructionSettings =
            serde_json::from_value(serde_json::json!({"fileNames": []})).unwrap();
        assert_eq!(blank.names().len(), 4);
    }
}
