//! Discovery in the global and workspace roots, shadowing, ordering and
//! enabled state, plus the wire shape of a listing.

use std::cmp::Ordering;
use std::collections::{BTreeMap, HashSet};
use std::fs;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::skill::{PROMPT_TXT, SKILL_MD, SKILL_YAML, SKILL_YML, Skill, SkillScope, load_skill};

/// A skill plus whether it is switched on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkillEntry {
    pub skill: Skill,
    pub enabled: bool,
}

impl SkillEntry {
    /// The wire shape of this entry.
    pub fn listing(&self) -> SkillListing {
        SkillListing::from(self)
    }
}

/// What clients see of a skill. Field order is the JSON key order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SkillListing {
    pub name: String,
    pub description: String,
    pub version: Option<String>,
    pub enabled: bool,
    /// Absolute path of the skill directory.
    pub directory: String,
    pub scope: SkillScope,
}

impl From<&SkillEntry> for SkillListing {
    fn from(entry: &SkillEntry) -> Self {
        let skill = &entry.skill;
        SkillListing {
            name: skill.name.clone(),
            description: skill.description.clone(),
            version: skill.version.clone(),
            enabled: entry.enabled,
            directory: skill.directory.to_string_lossy().into_owned(),
            scope: skill.scope,
        }
    }
}

/// `<workspace_root>/.seekclaw/skills`.
pub fn workspace_skills_dir(workspace_root: &Path) -> PathBuf {
    workspace_root.join(".seekclaw").join("skills")
}

/// The skills directly under `root`. A missing or unreadable root has no
/// skills; hidden entries and plain files are ignored. When two directories
/// carry the same name (case-insensitively) the one whose directory name
/// sorts first wins, so the outcome does not depend on `read_dir` order.
pub fn discover(root: &Path, scope: SkillScope) -> Vec<Skill> {
    let Ok(entries) = fs::read_dir(root) else {
        return Vec::new();
    };
    let mut dirs: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
        .map(|e| e.path())
        // is_dir follows symlinks: a linked skill directory is a skill.
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    let mut seen = HashSet::new();
    let mut skills: Vec<Skill> = dirs
        .iter()
        .filter_map(|dir| load_skill(dir, scope))
        .filter(|skill| seen.insert(fold(&skill.name)))
        .collect();
    skills.sort_by(|a, b| by_name(&a.name, &b.name));
    skills
}

/// Every path a [`list`] of these roots depends on: the roots and their
/// folders (entries come and go), each folder's possible skill files and the
/// prompt files of the skills found (also of those [`list`] leaves out). For a
/// caller that keeps the outcome while none of these changed.
pub fn sources(global_dir: &Path, workspace_root: Option<&Path>) -> Vec<PathBuf> {
    let roots = std::iter::once((global_dir.to_path_buf(), SkillScope::Global))
        .chain(workspace_root.map(|root| (workspace_skills_dir(root), SkillScope::Workspace)));
    let mut paths = Vec::new();
    for (root, scope) in roots {
        let folders: Vec<PathBuf> = fs::read_dir(&root)
            .map(|entries| {
                entries
                    .filter_map(Result::ok)
                    .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
                    .map(|e| e.path())
                    .filter(|p| p.is_dir())
                    .collect()
            })
            .unwrap_or_default();
        for folder in &folders {
            paths.extend([SKILL_YAML, SKILL_YML, SKILL_MD, PROMPT_TXT].map(|f| folder.join(f)));
            if let Some(skill) = load_skill(folder, scope) {
                paths.push(skill.prompt_path);
            }
        }
        paths.push(root);
        paths.extend(folders);
    }
    paths
}

/// A workspace skill comes with the repository, so its files must really live in
/// it: a symlinked `prompt.txt -> ~/.aws/credentials` would otherwise put a
/// secret into the prompt (or make it readable through the skill listing).
fn stays_inside(skill: &Skill, workspace_root: &Path) -> bool {
    let Ok(root) = fs::canonicalize(workspace_root) else {
        return false;
    };
    let inside = |p: &Path| fs::canonicalize(p).is_ok_and(|real| real.starts_with(&root));
    let prompt_ok = !skill.prompt_path.exists() || inside(&skill.prompt_path);
    inside(&skill.directory) && prompt_ok
}

/// All skills for a workspace (or global scope when `workspace_root` is
/// `None`), workspace skills shadowing global ones of the same name, sorted
/// by name. A skill is enabled unless its exact name is in either disabled
/// list (`global_disabled` is typically the keys of state.json's
/// `disabledSkills`).
pub fn list<I, S>(
    global_dir: &Path,
    workspace_root: Option<&Path>,
    global_disabled: I,
    workspace_disabled: &[String],
) -> Vec<SkillEntry>
where
    I: IntoIterator<Item = S>,
    S: AsRef<str>,
{
    let mut merged: BTreeMap<String, Skill> = BTreeMap::new();
    for skill in discover(global_dir, SkillScope::Global) {
        merged.insert(fold(&skill.name), skill);
    }
    if let Some(root) = workspace_root {
        for skill in discover(&workspace_skills_dir(root), SkillScope::Workspace) {
            if stays_inside(&skill, root) {
                merged.insert(fold(&skill.name), skill);
            }
        }
    }
    let disabled: HashSet<String> = global_disabled
        .into_iter()
        .map(|s| s.as_ref().to_string())
        .chain(workspace_disabled.iter().cloned())
        .collect();
    let mut entries: Vec<SkillEntry> = merged
        .into_values()
        .map(|skill| SkillEntry {
            enabled: !disabled.contains(&skill.name),
            skill,
        })
        .collect();
    entries.sort_by(|a, b| by_name(&a.skill.name, &b.skill.name));
    entries
}

/// The enabled skills of a listing, in listing order.
pub fn enabled(entries: &[SkillEntry]) -> Vec<&Skill> {
    entries
        .iter()
        .filter(|e| e.enabled)
        .map(|e| &e.skill)
        .collect()
}

/// Case-insensitive first, then exact, so the order is total and stable.
pub(crate) fn by_name(a: &str, b: &str) -> Ordering {
    fold(a).cmp(&fold(b)).then_with(|| a.cmp(b))
}

/// The key under which names compare equal.
pub(crate) fn fold(name: &str) -> String {
    name.to_lowercase()
}

#[cfg(test)]
#[path = "catalog_tests.rs"]
mod tests;
