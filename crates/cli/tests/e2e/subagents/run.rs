//! Subagents in `seekclaw run --events`: OpenSeek's `subrun_started` /
//! `subrun_finished` pair, and `seekclaw sessions` nesting the child.

use std::process::Command;

use seekclaw_testkit::{ProviderServer, Reply};
use serde_json::{Value, json};

use crate::support::bin;

#[test]
fn run_events_bracket_a_subagent_and_sessions_nest_it() {
    let server = ProviderServer::start().unwrap();
    server.enqueue(
        Reply::new()
            .tool_call("call_1", "explore", r#"{"query":"zeta-q"}"#)
            .usage(50, 0, 5)
            .finish("tool_calls"),
    );
    server.enqueue(
        Reply::plain("zeta at z.rs:4")
            .usage(70, 0, 7)
            .when_body_contains("zeta-q"),
    );
    server.enqueue(Reply::plain("found it"));
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let config = json!({
        "routing": {"retry": {"baseDelaySeconds": 0.01, "maxDelaySeconds": 0.05}},
        "providers": [{"id": "tk", "kind": "openai", "baseUrl": server.base_url(),
            "apiKey": "sk-tk", "models": [{"id": "m1"}]}]
    });
    std::fs::write(home.join("config.json"), config.to_string()).unwrap();
    let out = Command::new(bin())
        .args(["run", "--global", "--events", "look"])
        .env("SEEKCLAW_HOME", &home)
        .current_dir(&home)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let started = lines
        .iter()
        .find(|l| l["event"] == "subrun_started")
        .unwrap();
    let finished = lines
        .iter()
        .find(|l| l["event"] == "subrun_finished")
        .unwrap();
    assert_eq!(
        (started["kind"].as_str(), started["label"].as_str()),
        (Some("explore"), Some("zeta-q"))
    );
    assert_eq!(
        (
            finished["id"].as_str(),
            finished["status"].as_str(),
            finished["steps"].as_u64(),
            finished["prompt_tokens"].as_u64(),
            finished["completion_tokens"].as_u64(),
        ),
        (
            started["id"].as_str(),
            Some("captured"),
            Some(1),
            Some(70),
            Some(7)
        )
    );
    let pos = |name: &str| lines.iter().position(|l| l["event"] == name).unwrap();
    assert!(pos("subrun_finished") < pos("tool_result"));
    assert!(pos("tool_result") < pos("agent_finished"));
    let child = started["id"].as_str().unwrap();
    let parent = child.strip_suffix("-sr-1").unwrap();
    // `seekclaw sessions` shows the child under its parent, indented.
    let listed = Command::new(bin())
        .args(["sessions", "list", "--global"])
        .env("SEEKCLAW_HOME", &home)
        .current_dir(&home)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&listed.stdout).to_string();
    let rows: Vec<&str> = text.lines().collect();
    let p = rows
        .iter()
        .position(|r| r.contains(parent) && !r.contains(child))
        .unwrap();
    let c = rows.iter().position(|r| r.contains(child)).unwrap();
    assert_eq!(c, p + 1, "{text}");
    let indent = |r: &str| r.len() - r.trim_start().len();
    assert!(
        rows[c].contains("└") || indent(rows[c]) > indent(rows[p]),
        "{text}"
    );
    let json_list = Command::new(bin())
        .args(["sessions", "list", "--global", "--json"])
        .env("SEEKCLAW_HOME", &home)
        .current_dir(&home)
        .output()
        .unwrap();
    let all: Value = serde_json::from_slice(&json_list.stdout).unwrap();
    let row = all
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == child)
        .unwrap()
        .clone();
    assert_eq!(row["parentId"], parent);
}
