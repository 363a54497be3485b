//! A `config.json` that is not JSON is said first, by every front end, with
//! its file, line and column, and nothing offers to write it (issue 36,
//! item 4): no key is asked for, no model listed, no daemon started, no
//! editor session opened; each exits non-zero with that message. (The daemon
//! itself still starts on such a file, so a desktop client can show
//! `config.status` plainly; it refuses turns and writes: `config_safety.rs`.)

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// A config missing the comma after `"activeProfile": "default"`: line 3,
/// column 3 is where it is missed.
const BROKEN: &str = "{\n  \"activeProfile\": \"default\"\n  \"providers\": []\n}\n";

/// `seekclaw ARGS` with stdin closed, killed (and the test failed) if it
/// does not end by itself: a front end that does not refuse would serve.
fn seekclaw(home: &Path, cwd: &Path, args: &[&str]) -> Output {
    let mut child = Command::new(crate::support::bin())
        .args(args)
        .env("SEEKCLAW_HOME", home)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
            let out = child.wait_with_output().unwrap();
            panic!(
                "{args:?} kept running on a broken config: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

#[test]
fn every_front_end_refuses_first_with_the_file_line_and_column() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let cwd = tmp.path().join("somewhere");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(&cwd).unwrap();
    std::fs::write(home.join("config.json"), BROKEN).unwrap();
    let where_ = format!(
        "{}: line 3, column 3: expected comma",
        home.join("config.json").display()
    );
    for args in [
        &["chat", "--global", "hello"][..],
        &["acp"],
        &["mcp", "serve"],
        &["mcp", "list"],
        // Not a git repository here: the config is said before the diff is looked at.
        &["review"],
        // No key given: none is asked for (nor a model list fetched) first.
        &["provider", "add", "kimi"],
        &[
            "provider",
            "add",
            "mine",
            "--base-url",
            "http://127.0.0.1:9",
        ],
        &["model", "use", "tk/m1"],
        &["run", "--global", "hello"],
    ] {
        let out = seekclaw(&home, &cwd, args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(
            stderr.contains(&where_) && stderr.contains("configuration cannot be read")
                || stderr.contains(&format!("cannot read the configuration: {where_}")),
            "{args:?}: {stderr}"
        );
        assert!(!stderr.contains("API key"), "{args:?}: {stderr}");
        assert_eq!(
            std::fs::read_to_string(home.join("config.json")).unwrap(),
            BROKEN,
            "{args:?}"
        );
        assert!(
            !home.join("daemon.sock").exists(),
            "{args:?} left a daemon running"
        );
    }

    // serve says it on its own wire too, as its first event.
    let out = seekclaw(&home, &cwd, &["serve", "--global"]);
    assert_eq!(out.status.code(), Some(1));
    let first: serde_json::Value =
        serde_json::from_slice(out.stdout.split(|b| *b == b'\n').next().unwrap()).unwrap();
    assert_eq!(first["event"], "agent_setup_failed", "{first}");
    assert!(
        first["error"]
            .as_str()
            .unwrap()
            .contains("line 3, column 3: expected comma"),
        "{first}"
    );
}
