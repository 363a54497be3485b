//! Skills through the real daemon: listing, shadowing, toggling, importing, and
//! what a turn's system prompt gets from them.

use std::path::Path;

use seekclaw_testkit::{ProviderServer, Reply, StartOptions};
use serde_json::{Value, json};

use crate::support::project_dir;
use crate::support::turns::{chat, events, setup};

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn names(list: &Value) -> Vec<String> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap().to_string())
        .collect()
}

fn skill<'a>(list: &'a Value, name: &str) -> &'a Value {
    list.as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == name)
        .unwrap_or_else(|| panic!("{name} not in {list}"))
}

#[test]
fn list_toggle_and_import() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = project_dir(tmp.path(), "proj");
    let d = crate::support::start_with(StartOptions {
        cwd: Some(ws.clone()),
        ..StartOptions::default()
    });
    let global = d.home.join("skills");
    write(
        &global.join("review/skill.yaml"),
        "name: review\ndescription: Review code carefully\nversion: 1.2.0\n",
    );
    write(&global.join("review/prompt.txt"), "Look for bugs first.");
    write(
        &global.join("deploy/SKILL.md"),
        "---\nname: deploy\ndescription: Global deploy steps\n---\nRun the global deploy.",
    );
    // The workspace's `deploy` shadows the global one.
    write(
        &ws.join(".seekclaw/skills/deploy/SKILL.md"),
        "---\nname: deploy\ndescription: Project deploy steps\n---\nRun make deploy.",
    );
    let mut c = d.connect().unwrap();
    let list = c.ok_json("skill.list", json!({})).unwrap();
    assert_eq!(names(&list), ["deploy", "review"]);
    let deploy = skill(&list, "deploy");
    let keys: Vec<&str> = deploy
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "name",
            "description",
            "version",
            "enabled",
            "directory",
            "scope"
        ]
    );
    assert_eq!(deploy["scope"], "workspace");
    assert_eq!(deploy["description"], "Project deploy steps");
    assert!(
        deploy["directory"]
            .as_str()
            .unwrap()
            .ends_with(".seekclaw/skills/deploy")
    );
    let review = skill(&list, "review");
    assert_eq!(
        (
            review["scope"].as_str(),
            review["version"].as_str(),
            review["enabled"].as_bool()
        ),
        (Some("global"), Some("1.2.0"), Some(true))
    );

    let list = c
        .ok_json("skill.toggle", json!({"name": "review", "enabled": false}))
        .unwrap();
    assert_eq!(skill(&list, "review")["enabled"], false);
    let state: Value =
        serde_json::from_str(&std::fs::read_to_string(d.home.join("state.json")).unwrap()).unwrap();
    assert!(state["disabledSkills"]["review"].is_string(), "{state}");
    let list = c
        .ok_json("skill.toggle", json!({"name": "review", "enabled": true}))
        .unwrap();
    assert_eq!(skill(&list, "review")["enabled"], true);
    let err = c
        .err("skill.toggle", json!({"name": "ghost", "enabled": true}))
        .unwrap();
    assert_eq!(err["data"], "Skill not found: ghost");
    let err = c.err("skill.toggle", json!({"name": "review"})).unwrap();
    assert_eq!(err["data"], "params.enabled is required");
    let err = c
        .err("skill.toggle", json!({"name": "review", "enabled": "yes"}))
        .unwrap();
    assert!(err["data"].as_str().unwrap().contains("enabled"), "{err}");

    let md = tmp.path().join("changelog.md");
    write(&md, "Write changelog entries in the past tense.");
    let list = c
        .ok_json("skill.import", json!({"path": md.display().to_string()}))
        .unwrap();
    let imported = skill(&list, "changelog");
    assert_eq!(imported["scope"], "global");
    assert!(global.join("changelog/prompt.txt").exists());
    let err = c
        .err("skill.import", json!({"path": md.display().to_string()}))
        .unwrap();
    assert!(
        err["data"]
            .as_str()
            .unwrap()
            .starts_with("Skill import failed: "),
        "{err}"
    );
    let err = c
        .err("skill.import", json!({"path": "/nonexistent/x.md"}))
        .unwrap();
    assert!(
        err["data"]
            .as_str()
            .unwrap()
            .starts_with("Invalid skill import path: "),
        "{err}"
    );
}

/// Small enabled skills are inlined; a big one is listed by path and `read_file`
/// may open that path although it is outside the workspace; disabled skills are absent.
#[test]
fn turns_get_enabled_skills_inline_or_by_path() {
    let server = ProviderServer::start().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let ws = project_dir(tmp.path(), "proj");
    std::fs::create_dir_all(ws.join(".seekclaw")).unwrap();
    std::fs::write(
        ws.join(".seekclaw/config.json"),
        r#"{"disabledSkills": ["secret"]}"#,
    )
    .unwrap();
    let d = setup(
        &server,
        StartOptions {
            cwd: Some(ws.clone()),
            ..StartOptions::default()
        },
    );
    let global = d.home.join("skills");
    write(
        &global.join("tabs/SKILL.md"),
        "---\nname: tabs\ndescription: Indentation\n---\nINLINE-SKILL: indent with tabs.",
    );
    let big = format!("BIG-SKILL-HEAD\n{}", "step.\n".repeat(2000));
    write(
        &global.join("release/SKILL.md"),
        &format!("---\nname: release\ndescription: How to cut a release\n---\n{big}"),
    );
    write(
        &global.join("secret/prompt.txt"),
        "DISABLED-SKILL must not appear",
    );
    let big_path = global.join("release/SKILL.md");
    server.enqueue(Reply::new().tool_call(
        "r1",
        "read_file",
        json!({"path": big_path.display().to_string(), "limit": 6}).to_string(),
    ));
    server.enqueue(Reply::new().tool_call(
        "r2",
        "read_file",
        json!({"path": global.join("secret/prompt.txt").display().to_string()}).to_string(),
    ));
    server.enqueue(Reply::plain("done"));
    let mut c = d.connect().unwrap();
    let all = chat(
        &mut c,
        json!({"message": "release it", "workspace": ws.display().to_string()}),
    );
    assert_eq!(all.last().unwrap()["event"], "done", "{all:?}");
    let first = &server.requests()[0].body;
    let system = first["messages"][0]["content"].as_str().unwrap();
    assert!(
        system.contains("INLINE-SKILL: indent with tabs."),
        "{system}"
    );
    assert!(
        !system.contains("BIG-SKILL-HEAD"),
        "a big skill is not inlined"
    );
    assert!(
        system.contains(&big_path.display().to_string()),
        "a big skill is listed by path"
    );
    assert!(system.contains("How to cut a release"));
    assert!(!system.contains("DISABLED-SKILL"));
    let done: Vec<bool> = events(&all, "tool_done")
        .iter()
        .map(|e| e["details"]["success"].as_bool().unwrap())
        .collect();
    // The listed skill file is readable; other files outside the workspace are not.
    assert_eq!(done, [true, false]);
    let last = &server.requests()[2].body;
    let tool_texts: Vec<&str> = last["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| m["content"].as_str().unwrap())
        .collect();
    assert!(tool_texts[0].contains("BIG-SKILL-HEAD"), "{tool_texts:?}");
    assert!(!tool_texts[1].contains("DISABLED-SKILL"), "{tool_texts:?}");
}

/// Sets the mtime of `dir`, of everything in it and of `also` 10 s back, as
/// after a while without changes (what the daemon keeps per scope is then kept).
fn age_tree(dir: &Path, also: &[&Path]) {
    let past = std::time::SystemTime::now() - std::time::Duration::from_secs(10);
    let mut stack = vec![dir.to_path_buf()];
    while let Some(path) = stack.pop() {
        if path.is_dir() {
            for entry in std::fs::read_dir(&path).unwrap() {
                stack.push(entry.unwrap().path());
            }
        }
        // Sockets and the like cannot be opened; they are not sources anyway.
        if let Ok(f) = std::fs::File::open(&path) {
            f.set_modified(past).unwrap();
        }
    }
    for path in also {
        std::fs::File::open(path)
            .unwrap()
            .set_modified(past)
            .unwrap();
    }
}

/// The prompt's files and the skills are read again once they change, even
/// when the daemon kept them from an earlier turn: an edit of the same length,
/// a file that appears, a new skill.
#[test]
fn edits_between_turns_reach_the_next_turn() {
    let server = ProviderServer::start().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let ws = project_dir(tmp.path(), "proj");
    write(&ws.join("AGENTS.md"), "RULE-ONE");
    let d = setup(
        &server,
        StartOptions {
            cwd: Some(ws.clone()),
            ..StartOptions::default()
        },
    );
    let skills = d.home.join("skills");
    write(
        &skills.join("tabs/SKILL.md"),
        "---\nname: tabs\ndescription: Indentation\n---\nSKILL-ONE",
    );
    age_tree(&d.home, &[&ws, &ws.join("AGENTS.md"), &ws.join("src")]);
    let mut c = d.connect().unwrap();
    let mut system_of = |n: usize| {
        server.enqueue(Reply::plain("ok"));
        let all = chat(
            &mut c,
            json!({"message": "go", "workspace": ws.display().to_string()}),
        );
        assert_eq!(all.last().unwrap()["event"], "done", "{all:?}");
        let request = &server.requests()[n].body;
        request["messages"][0]["content"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let first = system_of(0);
    assert!(
        first.contains("RULE-ONE") && first.contains("SKILL-ONE"),
        "{first}"
    );
    // Once more unchanged: what was kept is used.
    let again = system_of(1);
    assert_eq!(again, first);

    write(&ws.join("AGENTS.md"), "RULE-TWO");
    write(
        &skills.join("tabs/SKILL.md"),
        "---\nname: tabs\ndescription: Indentation\n---\nSKILL-TWO",
    );
    write(&ws.join(".seekclaw/memory/MEMORY.md"), "MEMORY-NEW");
    write(
        &skills.join("docs/SKILL.md"),
        "---\nname: docs\ndescription: Docs\n---\nSKILL-NEW",
    );
    let second = system_of(2);
    for text in ["RULE-TWO", "SKILL-TWO", "MEMORY-NEW", "SKILL-NEW"] {
        assert!(second.contains(text), "{text} missing: {second}");
    }
    assert!(!second.contains("RULE-ONE") && !second.contains("SKILL-ONE"));
}
