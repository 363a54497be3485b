//! Issue 39 in `seekclaw serve`: hook runs on its stream in its own event
//! format (`hook_started` / `hook_finished`), the `approval` command's
//! `allow_always` (the rule saved, the next identical call not asked), and
//! the session's `SessionEnd` hooks when serve exits.

use std::path::Path;

use seekclaw_testkit::{ProviderServer, Reply};
use serde_json::{Value, json};

use crate::support::serve::{Serve, home_with};

/// Adds `hooks` (Claude Code's shape) and `extra` keys to the home's config.
fn configure(home: &Path, hooks: Value, extra: Value) {
    let path = home.join("config.json");
    let mut config: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    config["hooks"] = hooks;
    for (k, v) in extra.as_object().unwrap() {
        config[k] = v.clone();
    }
    std::fs::write(path, config.to_string()).unwrap();
}

fn command_hook(command: String) -> Value {
    json!([{"hooks": [{"type": "command", "command": command}]}])
}

fn shell_call(server: &ProviderServer, id: &str, answer: &str) {
    server.enqueue(Reply::new().tool_call(
        id,
        "bash",
        json!({"command": "echo ran > ran.txt"}).to_string(),
    ));
    server.enqueue(Reply::plain(answer));
}

fn named<'a>(events: &'a [Value], name: &str) -> Vec<&'a Value> {
    events.iter().filter(|e| e["event"] == name).collect()
}

#[test]
fn hook_runs_are_on_the_stream_and_session_end_fires_at_exit() {
    let server = ProviderServer::start().unwrap();
    let (tmp, home) = home_with(&server);
    let out = tmp.path().join("hooks");
    std::fs::create_dir_all(&out).unwrap();
    // The user's own hooks: no trust or approval needed.
    configure(
        &home,
        json!({
            "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command",
                "command": format!("cat > '{}'", out.join("pre.json").display())}]}],
            "SessionEnd": command_hook(format!("cat > '{}'", out.join("end.json").display())),
        }),
        json!({}),
    );
    let ws = tempfile::tempdir().unwrap();
    shell_call(&server, "c1", "Done.");
    let mut serve = Serve::start(&home, &["--workspace", ws.path().to_str().unwrap()]);
    serve.send(r#"{"command":"prompt","text":"go"}"#);
    let events = serve.until("agent_finished");
    let started = named(&events, "hook_started");
    let finished = named(&events, "hook_finished");
    assert_eq!((started.len(), finished.len()), (1, 1), "{events:#?}");
    let (s, f) = (started[0], finished[0]);
    assert_eq!(s["hook_event_name"], "PreToolUse");
    assert_eq!(s["source"], "user");
    assert_eq!(s["tool_call_id"], "c1");
    assert_eq!(s["tool_name"], "Bash");
    assert_eq!(f["run_id"], s["run_id"]);
    assert_eq!(f["exit_code"], 0);
    assert_eq!(f["decision"], "ok");
    assert!(f["duration_ms"].as_f64().is_some());
    // Before the call's result: the hook ran first.
    let at = |name: &str| events.iter().position(|e| e["event"] == name).unwrap();
    assert!(at("hook_finished") < at("tool_result"));
    let input: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("pre.json")).unwrap()).unwrap();
    assert_eq!(input["tool_input"]["command"], "echo ran > ran.txt");
    assert!(!out.join("end.json").exists(), "the session is still open");

    let (_, code) = serve.finish();
    assert_eq!(code, Some(0));
    let end: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("end.json")).unwrap()).unwrap();
    assert_eq!(end["hook_event_name"], "SessionEnd");
    assert_eq!(end["reason"], "other");
}

#[test]
fn allow_always_saves_the_rule_and_the_next_identical_call_is_not_asked() {
    let server = ProviderServer::start().unwrap();
    let (_tmp, home) = home_with(&server);
    // A user with a rule already (see asks39: with none, the engine offers
    // no rule to save yet).
    configure(
        &home,
        json!({}),
        json!({"permissions": {"deny": ["Bash(rm -rf /:*)"]}}),
    );
    let ws = tempfile::tempdir().unwrap();
    shell_call(&server, "c1", "First.");
    shell_call(&server, "c2", "Second.");
    let args = [
        "--workspace",
        ws.path().to_str().unwrap(),
        "--approval",
        "on-request",
    ];
    let mut serve = Serve::start(&home, &args);
    serve.send(r#"{"command":"prompt","text":"write it"}"#);
    let asked = serve.until("approval_requested");
    let request = asked.last().unwrap();
    let rule = request["always_rule"]
        .as_str()
        .unwrap_or_else(|| panic!("{request}"));
    assert!(rule.starts_with("Bash("), "{rule}");
    let target = request["always_target"].as_str().unwrap();
    assert!(["workspace", "user"].contains(&target), "{target}");
    let id = request["id"].as_str().unwrap();
    serve.send(&json!({"command": "approval", "id": id, "decision": "allow_always"}).to_string());
    let events = serve.until("agent_finished");
    let resolved = named(&events, "approval_resolved");
    assert_eq!(resolved[0]["outcome"], "allowed_always");
    assert!(ws.path().join("ran.txt").exists());
    let config = match target {
        "workspace" => ws.path().join(".seekclaw/config.json"),
        _ => home.join("config.json"),
    };
    let config: Value = serde_json::from_str(&std::fs::read_to_string(config).unwrap()).unwrap();
    let allow = config["permissions"]["allow"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert!(allow.iter().any(|r| r == rule), "{config}");

    std::fs::remove_file(ws.path().join("ran.txt")).unwrap();
    serve.send(r#"{"command":"prompt","text":"write it again"}"#);
    let events = serve.until("agent_finished");
    assert!(
        named(&events, "approval_requested").is_empty(),
        "{events:#?}"
    );
    assert!(ws.path().join("ran.txt").exists());
    let (_, code) = serve.finish();
    assert_eq!(code, Some(0));
}

/// A folder that is not a trusted project: its hooks stay off, serve says so
/// once (`hooks_off`), and none of them runs.
#[test]
fn an_untrusted_workspaces_hooks_stay_off_and_serve_says_so() {
    let server = ProviderServer::start().unwrap();
    let (_tmp, home) = home_with(&server);
    let ws = tempfile::tempdir().unwrap();
    let ran = ws.path().join("hook-ran");
    std::fs::create_dir_all(ws.path().join(".seekclaw")).unwrap();
    let hooks =
        json!({"hooks": {"PreToolUse": command_hook(format!("touch '{}'", ran.display()))}});
    std::fs::write(ws.path().join(".seekclaw/config.json"), hooks.to_string()).unwrap();
    shell_call(&server, "c1", "Done.");
    let mut serve = Serve::start(&home, &["--workspace", ws.path().to_str().unwrap()]);
    serve.send(r#"{"command":"prompt","text":"go"}"#);
    let events = serve.until("agent_finished");
    let off = named(&events, "hooks_off");
    assert_eq!(off.len(), 1, "{events:#?}");
    let said = off[0]["content"].as_str().unwrap();
    assert!(
        said.contains("not a trusted project") && said.contains("touch"),
        "{said}"
    );
    assert!(named(&events, "hook_started").is_empty(), "{events:#?}");
    assert!(ws.path().join("ran.txt").exists(), "the call ran");
    assert!(!ran.exists(), "the hook did not");
    let (_, code) = serve.finish();
    assert_eq!(code, Some(0));
}
