//! Issue 39 through the official ACP client (`js/always.mjs`): a call the
//! engine can cover with a permission rule is offered "always allow" (kind
//! `allow_always`, the rule in its name); choosing it saves the rule in the
//! config, and the next identical call is not asked. Hook runs reach the
//! editor as lines of the turn's thoughts.

use std::process::Command;

use seekclaw_testkit::{ProviderServer, Reply, capability_missing};
use serde_json::{Value, json};

use super::session::{js_dir, node_missing};
use crate::support::bin;
use crate::support::serve::home_with;

#[test]
fn the_official_client_is_offered_allow_always_and_the_saved_rule_answers_next_time() {
    if capability_missing("node", node_missing()) {
        return;
    }
    let server = ProviderServer::start().unwrap();
    let (_tmp, home) = home_with(&server);
    // A user hook after every call (the user's own: no trust needed).
    let path = home.join("config.json");
    let mut config: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    config["hooks"] = json!({"PostToolUse": [{"hooks": [{"type": "command", "command": "true"}]}]});
    std::fs::write(&path, config.to_string()).unwrap();
    let ws = tempfile::tempdir().unwrap();
    let ws_path = ws.path().canonicalize().unwrap();
    for (id, answer) in [("c1", "Written."), ("c2", "Written again.")] {
        server.enqueue(Reply::new().tool_call(
            id,
            "bash",
            json!({"command": "echo ran > ran.txt"}).to_string(),
        ));
        server.enqueue(Reply::plain(answer));
    }
    let out = Command::new("node")
        .arg(js_dir().join("always.mjs"))
        .arg(bin())
        .arg(&home)
        .arg(&ws_path)
        .current_dir(js_dir())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "driver failed\nstdout: {stdout}\nstderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let result: Value = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
    assert_eq!(result["ok"], true, "{stdout}");
    // The rule is in a config file (the workspace's or the user's).
    let rule = result["rule"].as_str().unwrap();
    let saved = [
        ws_path.join(".seekclaw/config.json"),
        home.join("config.json"),
    ]
    .iter()
    .filter_map(|p| std::fs::read_to_string(p).ok())
    .any(|text| {
        serde_json::from_str::<Value>(&text).is_ok_and(|c| {
            c["permissions"]["allow"]
                .as_array()
                .is_some_and(|a| a.iter().any(|r| r == rule))
        })
    });
    assert!(saved, "{rule} saved in a config");
    // Each call's hook run was reported as a thought.
    let thoughts: Vec<String> = serde_json::from_value(result["thoughts"].clone()).unwrap();
    let runs = thoughts
        .iter()
        .filter(|t| t.contains("hook PostToolUse `true`: ok (exit 0"))
        .count();
    assert_eq!(runs, 2, "{thoughts:?}");
}
