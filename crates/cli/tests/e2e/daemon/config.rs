use seekclaw_testkit::{DaemonProcess, StartOptions};
use serde_json::{Value, json};

use crate::support::{bin, start, start_with};

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
fn doctor_lines_and_json_checks() {
    let d = start();
    let mut c = d.connect().unwrap();
    let text = c.ok("doctor", json!({})).unwrap();
    for line in text.lines() {
        assert!(
            ["[OK] ", "[INFO] ", "[WARN] ", "[FAIL] "]
                .iter()
                .any(|p| line.starts_with(p)),
            "{line}"
        );
        // Every failure names its fix.
        assert!(
            !line.starts_with("[FAIL] ") || line.contains(" (fix: "),
            "{line}"
        );
    }
    assert!(text.contains(
        "[FAIL] Provider Config: No providers configured (fix: add one: `seekclaw provider add"
    ));
    // Optional things are information, not failures.
    assert!(text.contains("[INFO] SeekClaw Metadata Dir: "), "{text}");
    assert!(text.contains("[INFO] Workspace Memory: "), "{text}");
    assert!(!text.contains("run seekclaw init)"), "{text}");
    let checks = c.ok_json("doctor.run", json!({})).unwrap();
    for check in checks.as_array().unwrap() {
        let keys: Vec<&String> = check.as_object().unwrap().keys().collect();
        let fails = check["level"] == "fail";
        assert_eq!(check["ok"].as_bool(), Some(!fails), "{check}");
        if fails {
            assert_eq!(keys, ["name", "ok", "detail", "kind", "level", "fix"]);
        } else {
            assert_eq!(keys[..5], ["name", "ok", "detail", "kind", "level"]);
        }
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
