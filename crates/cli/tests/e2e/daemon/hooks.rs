//! Hooks and permission rules over the socket (issue 39): a trusted
//! workspace's approved `PreToolUse` hook runs and its `hook_started` /
//! `hook_finished` reach the chat stream, `session.watch`, the timeline and
//! `sessions show`; `allow_always` saves a rule (keeping the file's
//! comments) and the next identical call is not asked; `config.status` and
//! `doctor` report a skipped entry and a hook that cannot run; a closing
//! connection ends the sessions it ran (`SessionEnd`), not a detached one.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use seekclaw_testkit::{Client, DaemonProcess, ProviderServer, Reply, StartOptions};
use serde_json::{Value, json};

use crate::support::turns::{chat, events, setup};
use crate::support::{bin, project_dir};

/// `ws/.seekclaw/config.json` with `text` as written.
fn workspace_config(ws: &Path, text: &str) {
    std::fs::create_dir_all(ws.join(".seekclaw")).unwrap();
    std::fs::write(ws.join(".seekclaw/config.json"), text).unwrap();
}

/// A hook set whose `PreToolUse` hook on `Bash` saves its stdin in the workspace.
const STDIN_HOOK: &str = r#"{
  // The team's hooks.
  "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
    {"type": "command", "command": "cat > \"$CLAUDE_PROJECT_DIR/pre.json\"", "timeout": 10}
  ]}]}
}"#;

/// Registers `ws` (trusting it) and approves its hook set as `hooks.list` shows it.
fn trust_and_approve(c: &mut Client, ws: &Path) -> Value {
    let w = ws.display().to_string();
    c.ok_json("project.upsert", json!({"path": w})).unwrap();
    let before = c.ok_json("hooks.list", json!({"workspace": w})).unwrap();
    assert_eq!(before["trusted"], true, "{before}");
    assert_eq!(before["hooksApproved"], false, "{before}");
    assert!(
        before["hooks"]
            .as_array()
            .unwrap()
            .iter()
            .all(|h| h["active"] == false),
        "unapproved hooks are off: {before}"
    );
    let hash = before["hooksHash"].as_str().unwrap().to_string();
    let stale = c
        .err(
            "hooks.approve",
            json!({"workspace": w, "hash": "not-the-hash"}),
        )
        .unwrap();
    assert_eq!(stale["event"], "error", "{stale}");
    let after = c
        .ok_json("hooks.approve", json!({"workspace": w, "hash": hash}))
        .unwrap();
    assert_eq!(after["hooksApproved"], true, "{after}");
    assert_eq!(after["hooks"][0]["active"], true, "{after}");
    after
}

fn hook_pair(all: &[Value]) -> (Value, Value) {
    let started = events(all, "hook_started");
    let finished = events(all, "hook_finished");
    assert_eq!((started.len(), finished.len()), (1, 1), "{all:?}");
    (started[0].clone(), finished[0].clone())
}

#[test]
fn an_approved_hook_streams_to_the_chat_and_its_watchers_and_is_logged() {
    let server = ProviderServer::start().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let ws = project_dir(tmp.path(), "proj");
    workspace_config(&ws, STDIN_HOOK);
    let d = setup(&server, StartOptions::default());
    let mut c = d.connect().unwrap();
    trust_and_approve(&mut c, &ws);
    let w = ws.display().to_string();

    server.enqueue(Reply::plain("first"));
    let first = chat(&mut c, json!({"message": "hello", "workspace": w}));
    let sid = first.last().unwrap()["sessionId"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        events(&first, "hook_started").is_empty(),
        "no tool, no PreToolUse"
    );

    let mut watcher = d.connect().unwrap();
    let watch = watcher
        .send("session.watch", json!({"id": sid, "workspace": w}))
        .unwrap();
    // `session.watch` acknowledges nothing until it ends.
    std::thread::sleep(Duration::from_millis(200));
    server.enqueue(Reply::new().tool_call("b1", "bash", r#"{"command":"echo hi"}"#));
    server.enqueue(Reply::plain("done"));
    let all = chat(
        &mut c,
        json!({"message": "run it", "workspace": w, "sessionId": sid}),
    );
    assert_eq!(all.last().unwrap()["event"], "done", "{all:?}");
    let (started, finished) = hook_pair(&all);
    assert_eq!(started["data"], "PreToolUse");
    assert_eq!(started["sessionId"], sid.as_str());
    let s = &started["details"];
    assert_eq!(
        (s["event"].as_str(), s["tool"].as_str()),
        (Some("PreToolUse"), Some("Bash"))
    );
    assert_eq!(
        (s["callId"].as_str(), s["source"].as_str()),
        (Some("b1"), Some("workspace"))
    );
    let f = &finished["details"];
    assert_eq!(f["runId"], s["runId"]);
    assert_eq!(
        (f["exitCode"].as_i64(), f["decision"].as_str()),
        (Some(0), Some("ok"))
    );
    assert!(f["durationMs"].as_f64().unwrap() >= 0.0);
    // The hook started before the call ran.
    let at = |name: &str| all.iter().position(|e| e["event"] == name).unwrap();
    assert!(at("hook_finished") < at("tool_done"), "{all:?}");
    // Claude Code's fields on its stdin.
    let input: Value =
        serde_json::from_str(&std::fs::read_to_string(ws.join("pre.json")).unwrap()).unwrap();
    assert_eq!(input["hook_event_name"], "PreToolUse", "{input}");
    assert_eq!(input["tool_name"], "Bash", "{input}");
    assert_eq!(input["tool_input"]["command"], "echo hi", "{input}");
    assert_eq!(input["session_id"], sid.as_str(), "{input}");

    // The watcher saw the same pair.
    let mut seen = Vec::new();
    loop {
        let env = watcher.next_envelope().unwrap();
        if env["id"] != watch {
            continue;
        }
        let end = env["event"] == "turn_end";
        seen.push(env);
        if end {
            break;
        }
    }
    let (ws_started, ws_finished) = hook_pair(&seen);
    assert_eq!(ws_started["details"], started["details"]);
    assert_eq!(ws_finished["details"]["decision"], "ok");

    // The log keeps the run: the timeline and `sessions show`.
    let timeline = c
        .ok_json("session.timeline", json!({"id": sid, "workspace": w}))
        .unwrap();
    let hooks: Vec<&Value> = timeline["entries"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["kind"] == "hook")
        .collect();
    assert_eq!(hooks.len(), 1, "{timeline}");
    assert_eq!(hooks[0]["event"], "PreToolUse");
    assert_eq!(hooks[0]["exitCode"], 0);
    let shown = Command::new(bin())
        .args(["sessions", "show", &sid, "--workspace", &w])
        .env("SEEKCLAW_HOME", &d.home)
        .output()
        .unwrap();
    let log = String::from_utf8_lossy(&shown.stdout);
    assert!(
        log.contains("── hook PreToolUse Bash [b1] ok · exit 0 · "),
        "{log}{}",
        String::from_utf8_lossy(&shown.stderr)
    );
    assert!(
        log.contains("$ cat > \"$CLAUDE_PROJECT_DIR/pre.json\""),
        "{log}"
    );
}

/// The first `approval_request` of chat `id` (other envelopes stay queued).
fn next_request(c: &mut Client, id: i64) -> Value {
    loop {
        let env = c.next_envelope().unwrap();
        if env["id"].as_i64() == Some(id) {
            assert_ne!(env["event"], "done", "the turn ended without asking");
            if env["event"] == "approval_request" {
                return env;
            }
        }
    }
}

#[test]
fn allow_always_saves_a_rule_keeping_the_comments_and_is_not_asked_again() {
    let server = ProviderServer::start().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let ws = project_dir(tmp.path(), "proj");
    std::fs::write(ws.join("a.txt"), "one\n").unwrap();
    workspace_config(
        &ws,
        "{\n  // keep me: the team's notes\n  \"permissions\": {\"deny\": [\"Read(./secrets/**)\"]}\n}\n",
    );
    // A short approval timeout: a second ask would fail the turn's check, not hang it.
    let d = setup(
        &server,
        StartOptions {
            config: Some(
                json!({"agent": {"approvalPolicy": "on-request", "approvalTimeoutSeconds": 5}}),
            ),
            ..StartOptions::default()
        },
    );
    let mut c = d.connect().unwrap();
    let w = ws.display().to_string();
    c.ok_json("project.upsert", json!({"path": w})).unwrap();
    let write = |content: &str| {
        Reply::new().tool_call(
            "w1",
            "write_file",
            json!({"path": "a.txt", "content": content}).to_string(),
        )
    };
    server.enqueue(write("two\n"));
    server.enqueue(Reply::plain("Written."));
    let id = c
        .send(
            "chat",
            json!({"message": "edit", "workspace": w, "approvals": true}),
        )
        .unwrap();
    let ask = next_request(&mut c, id);
    let rule = ask["details"]["alwaysRule"]
        .as_str()
        .unwrap_or_else(|| panic!("{ask}"))
        .to_string();
    assert_eq!(ask["details"]["alwaysTarget"], "workspace", "{ask}");
    let answer = c
        .request(
            "agent.approve",
            json!({"requestId": id, "approvalId": ask["details"]["approvalId"], "decision": "allow_always"}),
        )
        .unwrap();
    assert_eq!(answer["data"], "approved", "{answer}");
    let all = c.collect(id).unwrap();
    assert_eq!(all.last().unwrap()["event"], "done", "{all:?}");
    assert_eq!(events(&all, "approval_resolved")[0]["data"], "allow_always");
    let saved = std::fs::read_to_string(ws.join(".seekclaw/config.json")).unwrap();
    assert!(saved.contains("// keep me: the team's notes"), "{saved}");
    assert!(saved.contains(&rule), "{rule} missing from {saved}");

    // The same call again: not asked.
    let sid = all.last().unwrap()["sessionId"]
        .as_str()
        .unwrap()
        .to_string();
    server.enqueue(write("three\n"));
    server.enqueue(Reply::plain("Again."));
    let again = chat(
        &mut c,
        json!({"message": "again", "workspace": w, "sessionId": sid, "approvals": true}),
    );
    assert_eq!(again.last().unwrap()["event"], "done", "{again:?}");
    assert!(events(&again, "approval_request").is_empty(), "{again:?}");
    assert_eq!(
        std::fs::read_to_string(ws.join("a.txt")).unwrap(),
        "three\n"
    );
}

#[test]
fn config_status_and_doctor_report_a_skipped_entry_and_a_hook_that_cannot_run() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = project_dir(tmp.path(), "proj");
    std::fs::write(ws.join("guard.sh"), "#!/bin/sh\nexit 0\n").unwrap();
    workspace_config(
        &ws,
        r#"{"hooks": {"PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command"}]},
            {"hooks": [{"type": "command", "command": "./guard.sh"}]}
        ]}}"#,
    );
    let d = DaemonProcess::start_with(
        bin(),
        StartOptions {
            config: Some(json!({"permissions": {"allow": [42, "Bash(npm test:*)"]}})),
            cwd: Some(ws.clone()),
            ..StartOptions::default()
        },
    )
    .unwrap();
    let mut c = d.connect().unwrap();
    let status = c.ok_json("config.status", json!({})).unwrap();
    let problems = status["policyProblems"]
        .as_array()
        .unwrap_or_else(|| panic!("{status}"));
    let config_json = d.home.join("config.json").display().to_string();
    let ws_json = ws.join(".seekclaw/config.json").display().to_string();
    assert!(
        problems.iter().any(|p| p["file"] == config_json.as_str()
            && p["path"].as_str().unwrap().starts_with("permissions.allow")),
        "{status}"
    );
    assert!(
        problems.iter().any(|p| p["file"] == ws_json.as_str()
            && p["path"].as_str().unwrap().starts_with("hooks.PreToolUse")),
        "{status}"
    );
    // The user's file shows its own among its warnings (old clients read those).
    let warnings = status["files"][0]["warnings"].as_array().unwrap();
    assert!(
        warnings
            .iter()
            .any(|w| w.as_str().unwrap().starts_with("permissions.allow")),
        "{status}"
    );
    // The valid rule still applies.
    let view = c
        .ok_json("hooks.list", json!({"workspace": ws.display().to_string()}))
        .unwrap();
    assert!(
        view["rules"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["rule"] == "Bash(npm test:*)"),
        "{view}"
    );

    let out = Command::new(bin())
        .arg("doctor")
        .current_dir(&ws)
        .env("SEEKCLAW_HOME", &d.home)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("Permission rules"), "{text}");
    assert!(text.contains("1 rule(s): 1 allow, 0 ask, 0 deny"), "{text}");
    assert!(text.contains("Policy entry skipped"), "{text}");
    assert!(text.contains("guard.sh is not executable"), "{text}");
}

/// Polls until `path` exists (the hook runs off the closing connection's task).
fn wait_file(path: &Path) -> String {
    let start = std::time::Instant::now();
    loop {
        if let Ok(text) = std::fs::read_to_string(path)
            && !text.is_empty()
        {
            return text;
        }
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "{} never written",
            path.display()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_closing_connection_ends_the_sessions_it_ran_a_detached_chat_too_once_its_turn_is_over() {
    let server = ProviderServer::start().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let ws = project_dir(tmp.path(), "proj");
    workspace_config(
        &ws,
        r#"{"hooks": {
            "SessionStart": [{"hooks": [{"type": "command", "command": "cat > \"$CLAUDE_PROJECT_DIR/start-$(date +%s%N).json\""}]}],
            "SessionEnd": [{"hooks": [{"type": "command", "command": "cat > \"$CLAUDE_PROJECT_DIR/end-$(date +%s%N).json\""}]}]
        }}"#,
    );
    let d = setup(&server, StartOptions::default());
    let mut admin = d.connect().unwrap();
    trust_and_approve(&mut admin, &ws);
    let w = ws.display().to_string();
    let ends = |ws: &Path| -> Vec<Value> {
        let mut all: Vec<_> = std::fs::read_dir(ws)
            .unwrap()
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().starts_with("end-"))
            .map(|e| serde_json::from_str(&wait_file(&e.path())).unwrap())
            .collect();
        all.sort_by_key(|v: &Value| v["session_id"].as_str().unwrap_or_default().to_string());
        all
    };

    // The terminal UI's chats are detached (a turn may outlive its window);
    // one whose turn is over when its connection leaves is ended too.
    let mut detached = d.connect().unwrap();
    server.enqueue(Reply::plain("kept"));
    let kept = chat(
        &mut detached,
        json!({"message": "hi", "workspace": w, "detach": true}),
    );
    let kept_sid = kept.last().unwrap()["sessionId"]
        .as_str()
        .unwrap()
        .to_string();
    drop(detached);

    let mut c = d.connect().unwrap();
    // A session of its own (a chat naming none would resume the newest: the detached one's).
    let sid = c.ok("session.new", json!({"workspace": w})).unwrap();
    assert_ne!(sid, kept_sid);
    server.enqueue(Reply::plain("hello"));
    let all = chat(
        &mut c,
        json!({"message": "hi", "workspace": w, "sessionId": sid}),
    );
    assert_eq!(all.last().unwrap()["event"], "done", "{all:?}");
    assert!(
        ends(&ws).iter().all(|e| e["session_id"] != sid.as_str()),
        "its client has not left yet"
    );
    drop(c);
    let start = std::time::Instant::now();
    let end = loop {
        let found = ends(&ws);
        if let Some(end) = found.into_iter().find(|e| e["session_id"] == sid.as_str()) {
            break end;
        }
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "no SessionEnd for {sid}"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(end["hook_event_name"], "SessionEnd", "{end}");
    assert_eq!(end["reason"], "other", "{end}");
    let start = std::time::Instant::now();
    while !ends(&ws)
        .iter()
        .any(|e| e["session_id"] == kept_sid.as_str())
    {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "no SessionEnd for the detached chat's session {kept_sid}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn session_end_runs_the_hooks_once_with_the_clients_reason() {
    let server = ProviderServer::start().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let ws = project_dir(tmp.path(), "proj");
    let log = tmp.path().join("end.json");
    let config = json!({"hooks": {"importClaude": false, "SessionEnd": [{"hooks": [
        {"type": "command", "command": format!("cat >> {}", log.display())}
    ]}]}});
    let d = setup(
        &server,
        StartOptions {
            config: Some(config),
            ..StartOptions::default()
        },
    );
    let mut c = d.connect().unwrap();
    let w = ws.display().to_string();
    server.enqueue(Reply::plain("hello"));
    let all = chat(&mut c, json!({"message": "hi", "workspace": w}));
    let sid = all.last().unwrap()["sessionId"]
        .as_str()
        .unwrap()
        .to_string();
    let bad = c
        .err(
            "session.end",
            json!({"id": sid, "workspace": w, "reason": "bored"}),
        )
        .unwrap();
    assert!(bad.to_string().contains("prompt_input_exit"), "{bad}");
    let first = c
        .ok(
            "session.end",
            json!({"id": sid, "workspace": w, "reason": "clear"}),
        )
        .unwrap();
    assert_eq!(first, "ended");
    let again = c
        .ok("session.end", json!({"id": sid, "workspace": w}))
        .unwrap();
    assert_eq!(again, "not open");
    let ended: Value = serde_json::from_str(wait_file(&log).trim()).unwrap();
    assert_eq!(
        (ended["reason"].as_str(), ended["session_id"].as_str()),
        (Some("clear"), Some(sid.as_str()))
    );
    // The connection closing later does not end it a second time.
    drop(c);
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(std::fs::read_to_string(&log).unwrap().lines().count(), 1);
}

#[test]
fn a_sessions_hook_transcript_goes_with_it_and_a_factory_reset_forgets_every_hook_file() {
    let server = ProviderServer::start().unwrap();
    server.set_default(Reply::plain("ok"));
    let tmp = tempfile::tempdir().unwrap();
    let ws = project_dir(tmp.path(), "proj");
    let config = json!({"hooks": {"importClaude": false,
        "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "true"}]}]}});
    let d = setup(
        &server,
        StartOptions {
            config: Some(config),
            ..StartOptions::default()
        },
    );
    let mut c = d.connect().unwrap();
    let w = ws.display().to_string();
    let transcript = |sid: &str| d.home.join("transcripts").join(format!("{sid}.jsonl"));
    let all = chat(&mut c, json!({"message": "first", "workspace": w}));
    let first = all.last().unwrap()["sessionId"]
        .as_str()
        .unwrap()
        .to_string();
    // Written before the prompt hook ran (the session's log so far).
    assert!(transcript(&first).exists());
    c.ok("session.delete", json!({"id": first, "workspace": w}))
        .unwrap();
    assert!(!transcript(&first).exists(), "deleted with its session");

    let sid = c.ok("session.new", json!({"workspace": w})).unwrap();
    chat(
        &mut c,
        json!({"message": "second", "workspace": w, "sessionId": sid}),
    );
    assert!(transcript(&sid).exists());
    std::fs::write(d.home.join("hooks-approved.json"), "{}").unwrap();
    c.ok_json("factory.reset", json!({})).unwrap();
    assert!(!d.home.join("transcripts").exists());
    assert!(!d.home.join("hooks-approved.json").exists());
}

#[test]
fn a_client_that_leaves_mid_turn_ends_its_session_once_the_cancelled_turn_is_over() {
    let server = ProviderServer::start().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let ws = project_dir(tmp.path(), "proj");
    let log = tmp.path().join("end.json");
    let config = json!({"hooks": {"importClaude": false, "SessionEnd": [{"hooks": [
        {"type": "command", "command": format!("cat >> {}", log.display())}
    ]}]}});
    let d = setup(
        &server,
        StartOptions {
            config: Some(config),
            ..StartOptions::default()
        },
    );
    // An answer that streams for a long while: the client leaves in the middle.
    server.enqueue(Reply::plain("a b c d e f g h").chunk_delay(Duration::from_secs(2)));
    let mut c = d.connect().unwrap();
    let w = ws.display().to_string();
    c.send("chat", json!({"message": "hi", "workspace": w}))
        .unwrap();
    let first = c.next_envelope().unwrap();
    let sid = first["sessionId"].as_str().unwrap().to_string();
    drop(c);
    let ended: Value = serde_json::from_str(wait_file(&log).trim()).unwrap();
    assert_eq!(
        (ended["reason"].as_str(), ended["session_id"].as_str()),
        (Some("other"), Some(sid.as_str()))
    );
}
