//! Every edit of a config file changes only the values it changes (issue 36,
//! item 2): the user's `//` and `/* */` comments, blank lines, key order,
//! trailing commas and formatting stay byte for byte, whether the edit comes
//! from the CLI without a daemon or through the daemon's methods, in
//! `config.json` and in a workspace's `.seekclaw/config.json`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use seekclaw_testkit::{DaemonProcess, ProviderServer, StartOptions};
use serde_json::{Value, json};

use crate::support::bin;

/// A config as a person writes one.
fn written(server: &ProviderServer) -> String {
    format!(
        r#"// My seekclaw setup. Keep the local model first!
{{
  /* providers: local only for now */
  "providers": [
    {{
      "id": "tk",   "kind": "openai",
      "baseUrl": "{}",
      "apiKey": "sk-tk", // test key
      "models": [ {{"id": "m1", "contextWindow": 128000, "maxOutput": 4096}}, ],
    }},
  ],

  "routing": {{
    // fail over when a model breaks
    "failoverEnabled": true,
    "retry": {{"baseDelaySeconds": 0.01, "maxDelaySeconds": 0.05}},
  }},
  agent: {{ reasoningLevel: 'medium' }}, // unquoted, single quotes
}}
"#,
        server.base_url()
    )
}

/// A temp folder holding `home/` with [`written`] as its config: (the folder, the home, the text).
fn home_with_written(server: &ProviderServer) -> (tempfile::TempDir, PathBuf, String) {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let original = written(server);
    std::fs::write(home.join("config.json"), &original).unwrap();
    (tmp, home, original)
}

fn seekclaw(home: &Path, args: &[&str]) -> Output {
    let out = Command::new(bin())
        .args(args)
        .env("SEEKCLAW_HOME", home)
        .current_dir(home)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Every line of `original` is still in `saved`, in order: the edit only added lines
/// (or changed the lines named in `changed`, old → new).
fn only_added(original: &str, saved: &str, changed: &[(&str, &str)]) {
    let mut expected = original.to_string();
    for (old, new) in changed {
        assert!(expected.contains(old), "{old:?} not in\n{expected}");
        expected = expected.replacen(old, new, 1);
    }
    let mut lines = saved.lines();
    for line in expected.lines() {
        assert!(
            lines.any(|l| l == line),
            "line {line:?} lost or moved:\n--- was\n{expected}\n--- now\n{saved}"
        );
    }
    json5::from_str::<Value>(saved).unwrap_or_else(|e| panic!("{e}:\n{saved}"));
}

#[test]
fn cli_edits_without_a_daemon_keep_comments_and_formatting() {
    let server = ProviderServer::start().unwrap();
    let (_tmp, home, original) = home_with_written(&server);
    let path = home.join("config.json");
    let read = || std::fs::read_to_string(&path).unwrap();

    seekclaw(
        &home,
        &[
            "provider",
            "add",
            "other",
            "--base-url",
            "http://127.0.0.1:9/v1",
            "--model",
            "m",
        ],
    );
    let added = read();
    only_added(&original, &added, &[]);
    assert!(added.contains("\"other\""), "{added}");

    seekclaw(&home, &["model", "use", "other/m"]);
    let used = read();
    only_added(&added, &used, &[]);
    let profile = &json5::from_str::<Value>(&used).unwrap()["profiles"]["default"];
    assert_eq!(profile["model"], "m", "{used}");

    seekclaw(&home, &["provider", "remove", "other"]);
    let removed = read();
    assert!(!removed.contains("\"other\""), "{removed}");
    only_added(&original, &removed, &[]);
}

#[test]
fn daemon_edits_keep_comments_in_the_config_and_the_workspace_file() {
    let server = ProviderServer::start().unwrap();
    let (tmp, home, original) = home_with_written(&server);
    let path = home.join("config.json");
    let project = crate::support::project_dir(tmp.path(), "proj");
    let ws_path = project.join(".seekclaw").join("config.json");
    std::fs::create_dir_all(ws_path.parent().unwrap()).unwrap();
    let ws_original = "{\n  // the team's mode\n  \"mode\": \"plan\",   /* for now */\n  \"model\": \"tk/m1\",\n}\n";
    std::fs::write(&ws_path, ws_original).unwrap();
    let read = || std::fs::read_to_string(&path).unwrap();

    let d = DaemonProcess::spawn(
        bin(),
        &home,
        &StartOptions {
            cwd: Some(project.clone()),
            ..StartOptions::default()
        },
    )
    .unwrap();
    let mut c = d.connect().unwrap();

    c.ok(
        "routing.set",
        json!({"failoverEnabled": false, "deepSeekOptimizationEnabled": false}),
    )
    .unwrap();
    let routed = read();
    only_added(
        &original,
        &routed,
        &[("\"failoverEnabled\": true,", "\"failoverEnabled\": false,")],
    );

    c.ok(
        "provider.upsert",
        json!({"id": "second", "baseUrl": "http://127.0.0.1:9/v1", "models": ["x"]}),
    )
    .unwrap();
    let upserted = read();
    only_added(&routed, &upserted, &[]);
    c.ok("model.switch", json!({"model": "tk/m1"})).unwrap();
    let switched = read();
    only_added(&upserted, &switched, &[]);
    c.ok("provider.remove", json!({"id": "second"})).unwrap();
    let removed = read();
    assert!(!removed.contains("\"second\""), "{removed}");
    only_added(&routed, &removed, &[]);

    // The workspace's own file: the mode changes, nothing else.
    c.ok("agent.mode.switch", json!({"mode": "auto"})).unwrap();
    assert_eq!(
        std::fs::read_to_string(&ws_path).unwrap(),
        ws_original.replace("\"plan\"", "\"auto\"")
    );
}
