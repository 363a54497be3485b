//! The user's hooks and permission rules through the real binary: the
//! engine applies them to every front end's turns (a one-shot `run` with a
//! subagent, a scheduled turn, a daemon chat), with real hook scripts.

use std::path::Path;
use std::process::Command;

use seekclaw_testkit::{ProviderServer, Reply, StartOptions};
use serde_json::{Value, json};

use crate::support::turns::{chat, setup};
use crate::support::{bin, project_dir};

/// Claude Code's logging example: every input, one JSON line per run.
const LOGGER: &str = r#"#!/usr/bin/env python3
import json, sys
data = json.load(sys.stdin)
with open(sys.argv[1], "a") as f:
    f.write(json.dumps(data) + "\n")
"#;

/// A logger hook for `events`, writing to `log`.
fn logging_hooks(dir: &Path, log: &Path, events: &[&str]) -> Value {
    let script = dir.join("log.py");
    std::fs::write(&script, LOGGER).unwrap();
    let command = format!("python3 {} {}", script.display(), log.display());
    let mut hooks = json!({"importClaude": false});
    for e in events {
        hooks[*e] = json!([{"hooks": [{"type": "command", "command": command}]}]);
    }
    hooks
}

fn logged(log: &Path) -> Vec<Value> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn count(log: &[Value], event: &str) -> usize {
    log.iter().filter(|v| v["hook_event_name"] == event).count()
}

fn first<'a>(log: &'a [Value], event: &str) -> &'a Value {
    log.iter()
        .find(|v| v["hook_event_name"] == event)
        .unwrap_or_else(|| panic!("no {event} in {log:#?}"))
}

#[test]
fn run_fires_every_event_once_and_a_subagents_hooks_are_its_own() {
    let server = ProviderServer::start().unwrap();
    server.enqueue(
        Reply::new()
            .tool_call("call_1", "explore", r#"{"query":"zeta-q"}"#)
            .finish("tool_calls"),
    );
    server.enqueue(Reply::plain("zeta at z.rs:4").when_body_contains("zeta-q"));
    server.enqueue(Reply::plain("found it"));
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let log = tmp.path().join("hooks.log");
    let all = [
        "SessionStart",
        "UserPromptSubmit",
        "PreToolUse",
        "PostToolUse",
        "Stop",
        "SubagentStart",
        "SubagentStop",
        "SessionEnd",
    ];
    let config = json!({
        "routing": {"retry": {"baseDelaySeconds": 0.01, "maxDelaySeconds": 0.05}},
        "providers": [{"id": "tk", "kind": "openai", "baseUrl": server.base_url(),
            "apiKey": "sk-tk", "models": [{"id": "m1"}]}],
        "hooks": logging_hooks(tmp.path(), &log, &all),
    });
    std::fs::write(home.join("config.json"), config.to_string()).unwrap();
    let out = Command::new(bin())
        .args(["run", "--global", "look for zeta"])
        .env("SEEKCLAW_HOME", &home)
        .current_dir(&home)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let log = logged(&log);
    let counts: Vec<usize> = all.iter().map(|e| count(&log, e)).collect();
    assert_eq!(counts, [1, 1, 1, 1, 1, 1, 1, 1], "{log:#?}");
    assert_eq!(first(&log, "SessionStart")["source"], "startup");
    assert_eq!(first(&log, "UserPromptSubmit")["prompt"], "look for zeta");
    let pre = first(&log, "PreToolUse");
    assert_eq!(
        (
            pre["tool_name"].as_str(),
            pre["seekclaw_tool_name"].as_str()
        ),
        (Some("Task"), Some("explore"))
    );
    assert_eq!(first(&log, "SubagentStart")["agent_type"], "explore");
    assert_eq!(first(&log, "SubagentStop")["agent_type"], "explore");
    // The child's hooks name the child's session; the rest the parent's.
    let parent = first(&log, "Stop")["session_id"].clone();
    assert_eq!(first(&log, "SessionEnd")["session_id"], parent);
    assert_eq!(first(&log, "SessionEnd")["reason"], "other");
    assert_ne!(first(&log, "SubagentStop")["session_id"], parent);
}

#[test]
fn a_scheduled_turn_runs_the_users_hooks() {
    let server = ProviderServer::start().unwrap();
    server.enqueue(Reply::plain("report written"));
    let tmp = tempfile::tempdir().unwrap();
    let ws = project_dir(tmp.path(), "proj");
    let log = tmp.path().join("hooks.log");
    let mut opts = crate::support::schedule::options(&server, json!({}), Vec::new());
    if let Some(config) = opts.config.as_mut() {
        config["hooks"] = logging_hooks(
            tmp.path(),
            &log,
            &["SessionStart", "UserPromptSubmit", "Stop", "SessionEnd"],
        );
    }
    let d = crate::support::start_with(opts);
    let mut c = d.connect().unwrap();
    let task = crate::support::schedule::create(
        &mut c,
        json!({"name": "Nightly", "prompt": "write the report", "cron": "0 9 * * *",
               "workspace": ws.display().to_string()}),
    );
    let id = task["id"].as_str().unwrap().to_string();
    assert_eq!(c.ok("schedule.run", json!({"id": id})).unwrap(), "started");
    let ev = crate::support::schedule::wait_event(&mut c, "schedule.updated");
    assert_eq!(ev["details"]["status"], "success", "{ev}");
    let log = logged(&log);
    assert_eq!(
        (count(&log, "UserPromptSubmit"), count(&log, "Stop")),
        (1, 1),
        "{log:#?}"
    );
    assert_eq!(
        first(&log, "UserPromptSubmit")["prompt"],
        "write the report"
    );
    assert_eq!(first(&log, "Stop")["cwd"], ws.display().to_string());
}

#[test]
fn in_a_daemon_chat_a_managed_deny_beats_a_user_allow_and_a_blocked_prompt_is_dropped() {
    let server = ProviderServer::start().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let ws = project_dir(tmp.path(), "proj");
    let managed = tmp.path().join("managed.json");
    std::fs::write(
        &managed,
        json!({"permissions": {"deny": ["Bash(curl:*)"]}}).to_string(),
    )
    .unwrap();
    let guard = tmp.path().join("prompt-guard.sh");
    std::fs::write(
        &guard,
        "#!/bin/sh\nif grep -q 'password'; then echo 'prompts must not hold secrets' >&2; exit 2; fi\n",
    )
    .unwrap();
    std::fs::set_permissions(&guard, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let config = json!({
        "agent": {"approvalPolicy": "never", "autoVerify": false},
        "permissions": {"allow": ["Bash(curl:*)"]},
        "hooks": {"importClaude": false, "UserPromptSubmit": [{"hooks": [{"type": "command", "command": guard.display().to_string()}]}]},
    });
    let d = setup(
        &server,
        StartOptions {
            config: Some(config),
            env: vec![(
                "SEEKCLAW_MANAGED_CONFIG".into(),
                managed.display().to_string(),
            )],
            ..StartOptions::default()
        },
    );
    let mut c = d.connect().unwrap();
    let w = ws.display().to_string();
    server.enqueue(Reply::new().tool_call(
        "c1",
        "bash",
        json!({"command": "curl -s https://example.com"}).to_string(),
    ));
    server.enqueue(Reply::plain("could not fetch"));
    let all = chat(&mut c, json!({"message": "fetch it", "workspace": w}));
    assert_eq!(all.last().unwrap()["event"], "done", "{all:?}");
    let sent = server.requests()[1].body["messages"].to_string();
    assert!(
        sent.contains("denied by the user's permission rule `Bash(curl:*)` (managed rules"),
        "{sent}"
    );

    let before = server.requests().len();
    let all = chat(
        &mut c,
        json!({"message": "my password is hunter2", "workspace": w}),
    );
    let last = all.last().unwrap();
    assert_eq!(last["event"], "error", "{all:?}");
    assert!(
        last.to_string().contains("prompts must not hold secrets"),
        "{last}"
    );
    assert_eq!(
        server.requests().len(),
        before,
        "the prompt never reached the model"
    );
    let sid = all[0]["sessionId"].as_str().map(str::to_string);
    if let Some(sid) = sid {
        let session = c
            .ok_json("session.get", json!({"id": sid, "workspace": w}))
            .unwrap();
        assert!(!session.to_string().contains("hunter2"), "{session}");
    }
}
