use seekclaw_testkit::{DaemonProcess, StartOptions};
use serde_json::{Value, json};

use crate::{bin, start, start_with};

#[test]
fn config_with_comments_and_trailing_commas_is_read() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(
        home.join("config.json"),
        "{\n  // my settings\n  \"agent\": { \"reasoningLevel\": \"medium\", /* why not */ },\n}\n",
    )
    .unwrap();
    let d = DaemonProcess::spawn(bin(), &home, &StartOptions::default()).unwrap();
    let mut c = d.connect().unwrap();
    let id = c.ok("session.new", json!({"global": true})).unwrap();
    let got = c
        .ok_json("session.get", json!({"id": id, "global": true}))
        .unwrap();
    assert_eq!(got["reasoningLevel"], "medium");
    let doctor = c.ok("doctor", json!({})).unwrap();
    assert!(doctor.contains("[OK] Config File config.json"), "{doctor}");
}

#[test]
fn corrupt_config_is_moved_aside_and_reported() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(home.join("config.json"), "{ this is not json").unwrap();
    let d = DaemonProcess::spawn(bin(), &home, &StartOptions::default()).unwrap();
    let moved: Vec<_> = std::fs::read_dir(&home)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().to_string())
        .filter(|n| n.starts_with("config.json.bad-"))
        .collect();
    assert_eq!(moved.len(), 1, "{moved:?}");
    assert_eq!(
        std::fs::read_to_string(home.join(&moved[0])).unwrap(),
        "{ this is not json"
    );
    let fresh: Value =
        serde_json::from_slice(&std::fs::read(home.join("config.json")).unwrap()).unwrap();
    assert_eq!(fresh["activeProfile"], "default");
    let mut c = d.connect().unwrap();
    let doctor = c.ok("doctor", json!({})).unwrap();
    assert!(
        doctor
            .lines()
            .any(|l| l.starts_with("[FAIL] Config File config.json") && l.contains(&moved[0])),
        "{doctor}"
    );
    let checks = c.ok_json("doctor.run", json!({})).unwrap();
    let bad = checks
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "Config File config.json")
        .unwrap();
    assert_eq!(
        (bad["ok"].as_bool(), bad["kind"].as_str()),
        (Some(false), Some("runtime"))
    );
}

#[test]
fn doctor_lines_and_json_checks() {
    let d = start();
    let mut c = d.connect().unwrap();
    let text = c.ok("doctor", json!({})).unwrap();
    for line in text.lines() {
        assert!(
            line.starts_with("[OK] ") || line.starts_with("[FAIL] "),
            "{line}"
        );
    }
    assert!(text.contains("[FAIL] Provider Config: No providers configured"));
    let checks = c.ok_json("doctor.run", json!({})).unwrap();
    for check in checks.as_array().unwrap() {
        let keys: Vec<&String> = check.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["name", "ok", "detail", "kind"]);
    }
    assert_eq!(c.ok_json("lock.list", json!({})).unwrap(), json!([]));
}

#[test]
fn factory_reset_clears_sessions_and_config() {
    let d = start_with(StartOptions {
        config: Some(json!({"agent": {"mode": "plan"}})),
        ..Default::default()
    });
    let mut c = d.connect().unwrap();
    let id = c.ok("session.new", json!({"global": true})).unwrap();
    std::fs::write(d.home.join("skills").join("x.txt"), "x").unwrap();
    let out = c.ok_json("factory.reset", json!({})).unwrap();
    assert_eq!(
        out,
        json!({"ok": true, "home": d.home.display().to_string()})
    );
    assert_eq!(
        c.err("session.get", json!({"id": id, "global": true}))
            .unwrap()["details"]["code"],
        "not_found"
    );
    let cfg: Value =
        serde_json::from_slice(&std::fs::read(d.home.join("config.json")).unwrap()).unwrap();
    assert_eq!(cfg["agent"]["mode"], "edit");
    assert!(!d.home.join("skills").join("x.txt").exists());
    // Still fully working afterwards.
    let id2 = c.ok("session.new", json!({"global": true})).unwrap();
    assert!(
        c.ok_json("session.get", json!({"id": id2, "global": true}))
            .is_ok()
    );
}
