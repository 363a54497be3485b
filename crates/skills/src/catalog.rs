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
    /// The skill.
    pub skill: Skill,
    /// Switched on (not disabled globally or in the workspace).
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
    /// Skill name.
    pub name: String,
    /// One-line description.
    pub description: String,
    /// Version, if the skill declares one.
    pub version: Option<String>,
    /// Switched on.
    pub enabled: bool,
    /// Absolute path of the skill directory.
    pub directory: String,
    /// Global or workspace.
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
    list_with(
        global_dir,
        workspace_root,
        Vec::new(),
        global_disabled,
        workspace_disabled,
    )
}

/// A plugin's skill folder as a skill named `name` (`plugin:skill`): its
/// own declared name gives way to the namespaced one.
pub fn plugin_skill(name: &str, dir: &Path, scope: SkillScope) -> Option<Skill> {
    let mut skill = load_skill(dir, scope)?;
    skill.name = name.to_string();
    Some(skill)
}

/// [`list`] plus the skills active plugins bring ([`plugin_skill`]); their
/// `plugin:` names never shadow a skill of the roots, nor are shadowed.
pub fn list_with<I, S>(
    global_dir: &Path,
    workspace_root: Option<&Path>,
    plugin_skills: Vec<Skill>,
    global_disabled: I,
    workspace_disabled: &[String],
) -> Vec<SkillEntry>
where
    I: IntoIterator<Item = S>,
    S: AsRef<str>,
{
    let mut merged: BTreeMap<String, Skill> = BTreeMap::new();
    for skill in plugin_skills {
        merged.insert(fold(&skill.name), skill);
    }
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
mod tests {
    use std::collections::BTreeMap;
    use std::fs;
    use std::path::Path;

    use super::*;
    use crate::skill::{PROMPT_TXT, SKILL_MD, SKILL_YAML};

    fn write(dir: &Path, rel: &str, content: &str) {
        let path = dir.join(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, content).unwrap();
    }

    fn names(entries: &[SkillEntry]) -> Vec<&str> {
        entries.iter().map(|e| e.skill.name.as_str()).collect()
    }

    const NONE: [&str; 0] = [];

    #[test]
    fn plugin_skills_are_namespaced_and_toggle_by_name() {
        let tmp = tempfile::tempdir().unwrap();
        let global = tmp.path().join("g");
        write(&global, "tabs/prompt.txt", "global tabs");
        let dir = tmp.path().join("plugin/skills/tabs");
        write(&dir, "SKILL.md", "---\nname: tabs\n---\nplugin tabs");
        let skill = plugin_skill("demo:tabs", &dir, SkillScope::Global).unwrap();
        let entries = list_with(&global, None, vec![skill.clone()], NONE, &[]);
        assert_eq!(names(&entries), ["demo:tabs", "tabs"]);
        assert_eq!(entries[0].skill.text, "plugin tabs");
        let off = list_with(&global, None, vec![skill], ["demo:tabs"], &[]);
        assert!(!off[0].enabled);
    }

    #[test]
    fn missing_roots_have_no_skills() {
        let tmp = tempfile::tempdir().unwrap();
        let missing = tmp.path().join("nope");
        assert!(discover(&missing, SkillScope::Global).is_empty());
        assert!(list(&missing, Some(&missing), NONE, &[]).is_empty());
    }

    #[test]
    fn hidden_and_non_directory_entries_are_ignored() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        write(root, "visible/prompt.txt", "v");
        write(root, ".hidden/prompt.txt", "h");
        write(root, "loose.md", "not a dir");
        write(root, PROMPT_TXT, "not a dir either");
        write(root, "no-skill/notes.txt", "n");
        let skills = discover(root, SkillScope::Global);
        let names: Vec<_> = skills.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["visible"]);
    }

    #[test]
    fn sorted_case_insensitively_then_exactly() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        for dir in ["b", "C", "a"] {
            write(root, &format!("{dir}/prompt.txt"), "x");
        }
        write(root, "d1/skill.yaml", "name: B\n");
        let entries = list(root, None, NONE, &[]);
        // "b" and "B" are the same name within one root: the first dir wins.
        assert_eq!(names(&entries), ["a", "b", "C"]);
        assert_eq!(by_name("B", "b"), Ordering::Less);
        assert_eq!(by_name("a", "B"), Ordering::Less);
    }

    #[test]
    fn workspace_shadows_global_case_insensitively() {
        let tmp = tempfile::tempdir().unwrap();
        let global = tmp.path().join("home/skills");
        let ws = tmp.path().join("ws");
        let ws_skills = workspace_skills_dir(&ws);
        write(&global, "lint/prompt.txt", "global lint");
        write(&global, "only-global/prompt.txt", "g");
        write(
            &ws_skills,
            "x/SKILL.md",
            "---\nname: LINT\n---\nworkspace lint",
        );
        write(&ws_skills, "only-ws/prompt.txt", "w");

        let entries = list(&global, Some(&ws), NONE, &[]);
        assert_eq!(names(&entries), ["LINT", "only-global", "only-ws"]);
        assert_eq!(entries[0].skill.scope, SkillScope::Workspace);
        assert_eq!(entries[0].skill.text, "workspace lint");
        assert_eq!(entries[1].skill.scope, SkillScope::Global);
        assert_eq!(entries[2].skill.scope, SkillScope::Workspace);

        // Global scope: no workspace skills at all.
        let entries = list(&global, None, NONE, &[]);
        assert_eq!(names(&entries), ["lint", "only-global"]);
    }

    #[test]
    fn enabled_state_from_both_sources() {
        let tmp = tempfile::tempdir().unwrap();
        let global = tmp.path().join("g");
        let ws = tmp.path().join("ws");
        for name in ["a", "b", "c"] {
            write(&global, &format!("{name}/prompt.txt"), name);
        }
        let mut state_disabled = BTreeMap::new();
        state_disabled.insert("a".to_string(), String::new());
        let entries = list(
            &global,
            Some(&ws),
            state_disabled.keys(),
            &["c".to_string()],
        );
        let flags: Vec<_> = entries
            .iter()
            .map(|e| (e.skill.name.as_str(), e.enabled))
            .collect();
        assert_eq!(flags, [("a", false), ("b", true), ("c", false)]);
        let on: Vec<_> = enabled(&entries).iter().map(|s| s.name.as_str()).collect();
        assert_eq!(on, ["b"]);
    }

    #[test]
    fn broken_skill_does_not_break_the_listing() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        write(root, "bad/skill.yaml", ": : :\n  - [");
        write(root, "good/prompt.txt", "fine");
        let entries = list(root, None, NONE, &[]);
        assert_eq!(names(&entries), ["bad", "good"]);
        assert!(entries[0].skill.error.is_some());
    }

    #[test]
    fn listing_json_shape_and_key_order() {
        let tmp = tempfile::tempdir().unwrap();
        let global = tmp.path().join("g");
        let ws = tmp.path().join("ws");
        write(
            &global,
            &format!("lint/{SKILL_YAML}"),
            "name: lint\ndescription: Lints\nversion: '1.0'\n",
        );
        write(
            &workspace_skills_dir(&ws),
            &format!("docs/{SKILL_MD}"),
            "Docs",
        );
        let entries = list(&global, Some(&ws), ["lint"], &[]);
        let json: Vec<String> = entries
            .iter()
            .map(|e| serde_json::to_string(&e.listing()).unwrap())
            .collect();
        let docs_dir = workspace_skills_dir(&ws).join("docs");
        let lint_dir = global.join("lint");
        assert_eq!(
            json[0],
            format!(
                r#"{{"name":"docs","description":"","version":null,"enabled":true,"directory":{},"scope":"workspace"}}"#,
                serde_json::to_string(&docs_dir.to_string_lossy()).unwrap()
            )
        );
        assert_eq!(
            json[1],
            format!(
                r#"{{"name":"lint","description":"Lints","version":"1.0","enabled":false,"directory":{},"scope":"global"}}"#,
                serde_json::to_string(&lint_dir.to_string_lossy()).unwrap()
            )
        );
        let back: SkillListing = serde_json::from_str(&json[1]).unwrap();
        assert_eq!(back, entries[1].listing());
    }

    #[cfg(unix)]
    #[test]
    fn workspace_skills_whose_files_leave_the_workspace_are_dropped() {
        let tmp = tempfile::tempdir().unwrap();
        let global = tmp.path().join("global");
        std::fs::create_dir_all(&global).unwrap();
        let ws = tmp.path().join("ws");
        let secret = tmp.path().join("secret.txt");
        std::fs::write(&secret, "AWS_SECRET=1").unwrap();
        let linked = ws.join(".seekclaw/skills/linked");
        std::fs::create_dir_all(&linked).unwrap();
        std::os::unix::fs::symlink(&secret, linked.join("prompt.txt")).unwrap();
        let outside = tmp.path().join("outside-skill");
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(outside.join("prompt.txt"), "outside").unwrap();
        std::os::unix::fs::symlink(&outside, ws.join(".seekclaw/skills/dirlink")).unwrap();
        let fine = ws.join(".seekclaw/skills/fine");
        std::fs::create_dir_all(&fine).unwrap();
        std::fs::write(fine.join("prompt.txt"), "ok").unwrap();
        let names: Vec<String> = list(&global, Some(&ws), Vec::<String>::new(), &[])
            .into_iter()
            .map(|e| e.skill.name)
            .collect();
        assert_eq!(names, ["fine"]);
    }

    #[test]
    fn sources_name_every_path_a_listing_reads() {
        let home = tempfile::tempdir().unwrap();
        let ws = tempfile::tempdir().unwrap();
        let global = home.path().join("skills");
        write(&global, "tabs/SKILL.md", "---\nname: tabs\n---\nUse tabs.");
        write(
            &ws.path().join(".seekclaw/skills"),
            "deploy/skill.yaml",
            "name: deploy\nprompt: steps/how.md\n",
        );
        write(
            &ws.path().join(".seekclaw/skills"),
            "deploy/steps/how.md",
            "Ship it.",
        );
        fs::create_dir_all(global.join("empty")).unwrap();
        let sources = sources(&global, Some(ws.path()));
        let ws_skills = ws.path().join(".seekclaw/skills");
        for path in [
            global.clone(),
            global.join("tabs"),
            global.join("tabs").join(SKILL_MD),
            global.join("tabs").join(PROMPT_TXT),
            // A folder that is no skill yet becomes one when a skill file appears.
            global.join("empty"),
            global.join("empty").join(SKILL_YAML),
            ws_skills.clone(),
            ws_skills.join("deploy").join(SKILL_YAML),
            ws_skills.join("deploy/steps/how.md"),
        ] {
            assert!(
                sources.contains(&path),
                "{} missing from {sources:?}",
                path.display()
            );
        }
    }
}
