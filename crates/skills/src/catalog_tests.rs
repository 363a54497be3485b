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
