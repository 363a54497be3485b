use seekclaw_testkit::StartOptions;
use serde_json::{Value, json};

use crate::support::{project_dir, start_with};

#[test]
fn workspace_get_open_and_init() {
    let tmp = tempfile::tempdir().unwrap();
    let first = project_dir(tmp.path(), "first");
    let second = tmp.path().join("second");
    std::fs::create_dir_all(second.join(".git")).unwrap();
    std::fs::create_dir_all(second.join("deep/er")).unwrap();
    std::fs::write(
        second.join("package.json"),
        r#"{"dependencies":{"vue":"3"}}"#,
    )
    .unwrap();
    let d = start_with(StartOptions {
        cwd: Some(first.join("src")),
        ..Default::default()
    });
    let mut c = d.connect().unwrap();

    let ws = c.ok_json("workspace.get", json!({})).unwrap();
    assert_eq!(
        ws,
        json!({"path": first.display().to_string(), "name": "first", "projectKinds": ["rust"], "mode": "edit"})
    );

    let opened = c
        .ok_json(
            "workspace.open",
            json!({"path": second.join("deep/er").display().to_string()}),
        )
        .unwrap();
    assert_eq!(opened["path"], second.display().to_string());
    assert_eq!(opened["projectKinds"], json!(["git", "node", "vue"]));
    assert_eq!(c.ok_json("workspace.get", json!({})).unwrap(), opened);

    let missing = tmp.path().join("missing");
    let err = c
        .err(
            "workspace.open",
            json!({"path": missing.display().to_string()}),
        )
        .unwrap();
    assert_eq!(
        err["data"],
        format!("Workspace directory not found: {}", missing.display())
    );
    assert_eq!(
        c.err("workspace.open", json!({})).unwrap()["data"],
        "params.path is required"
    );

    let init = c.ok_json("workspace.init", json!({})).unwrap();
    assert_eq!(init["path"], second.display().to_string());
    let created: Vec<String> = serde_json::from_value(init["created"].clone()).unwrap();
    assert!(created.iter().any(|c| c == ".seekclaw"), "{created:?}");
    assert!(second.join(".seekclaw/config.json").is_file());
    let gitignore = std::fs::read_to_string(second.join(".gitignore")).unwrap();
    assert!(gitignore.contains(".seekclaw/"));
    assert_eq!(
        c.ok_json("workspace.init", json!({})).unwrap()["created"],
        json!([])
    );
}

#[test]
fn mode_switch_persists_globally_and_in_the_workspace() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = project_dir(tmp.path(), "ws");
    let d = start_with(StartOptions {
        cwd: Some(ws.clone()),
        ..Default::default()
    });
    let mut c = d.connect().unwrap();
    assert_eq!(c.ok("agent.mode.get", json!({})).unwrap(), "edit");
    assert_eq!(
        c.ok("agent.mode.switch", json!({"mode": " ReadOnly "}))
            .unwrap(),
        "readonly"
    );
    assert_eq!(c.ok("agent.mode.get", json!({})).unwrap(), "readonly");
    let global: Value =
        serde_json::from_slice(&std::fs::read(d.home.join("config.json")).unwrap()).unwrap();
    assert_eq!(global["agent"]["mode"], "readonly");
    // A workspace without its own config file does not get one (reference §2.4)…
    assert!(!ws.join(".seekclaw").exists());
    // …one that has it gets the mode there.
    std::fs::create_dir_all(ws.join(".seekclaw")).unwrap();
    std::fs::write(ws.join(".seekclaw/config.json"), "{\"model\": \"m9\"}").unwrap();
    assert_eq!(
        c.ok("agent.mode.switch", json!({"mode": "readonly"}))
            .unwrap(),
        "readonly"
    );
    let local: Value =
        serde_json::from_slice(&std::fs::read(ws.join(".seekclaw/config.json")).unwrap()).unwrap();
    assert_eq!(
        (local["mode"].as_str(), local["model"].as_str()),
        (Some("readonly"), Some("m9"))
    );
    let err = c.err("agent.mode.switch", json!({"mode": "yolo"})).unwrap();
    assert_eq!(
        err["data"],
        "params.mode must be one of: plan, readonly, edit, auto"
    );
    assert_eq!(c.ok("agent.mode.get", json!({})).unwrap(), "readonly");
    // A workspace's own mode wins over the global one.
    std::fs::write(
        ws.join(".seekclaw/config.json"),
        "{ // mine\n \"mode\": \"plan\",\n}",
    )
    .unwrap();
    assert_eq!(c.ok("agent.mode.get", json!({})).unwrap(), "plan");
    assert_eq!(
        c.ok_json("workspace.get", json!({})).unwrap()["mode"],
        "plan"
    );
}
