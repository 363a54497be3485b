//! Approvals through the real daemon: each policy asks exactly when it
//! should; allow once, allow for the session, reject (its message reaches
//! the model), timeout and cancel while pending; a client that announced no
//! approval support is never left waiting.

use seekclaw_testkit::{Client, ProviderServer, Reply, StartOptions};
use serde_json::{Value, json};

use crate::support::project_dir;
use crate::support::turns::{events, setup};

/// A daemon whose `agent` settings are `agent`.
fn daemon(server: &ProviderServer, agent: Value) -> seekclaw_testkit::DaemonProcess {
    setup(
        server,
        StartOptions {
            config: Some(json!({ "agent": agent })),
            ..StartOptions::default()
        },
    )
}

/// Reads until chat `id`'s next `approval_request` (other envelopes stay
/// queued for `collect`) and returns it.
fn next_request(c: &mut Client, id: i64, seen: &mut Vec<Value>) -> Value {
    loop {
        let env = c.next_envelope().unwrap();
        if env["id"].as_i64() == Some(id) {
            assert_ne!(
                env["event"], "done",
                "the turn ended without asking: {seen:?}"
            );
            seen.push(env.clone());
            if env["event"] == "approval_request" {
                return env;
            }
        }
    }
}

/// The text of the tool message the model read in request `n`.
fn tool_result(server: &ProviderServer, n: usize) -> String {
    let body = &server.requests()[n].body;
    let msgs = body["messages"].as_array().unwrap();
    let tool = msgs.iter().rev().find(|m| m["role"] == "tool").unwrap();
    tool["content"].as_str().unwrap().to_string()
}

#[test]
fn on_request_asks_for_an_edit_not_for_reads_and_allow_once_runs_it() {
    let server = ProviderServer::start().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let ws = project_dir(tmp.path(), "proj");
    std::fs::write(ws.join("a.txt"), "one\n").unwrap();
    server.enqueue(
        Reply::new()
            .tool_call("r1", "read_file", r#"{"path":"a.txt"}"#)
            .tool_call("b1", "bash", r#"{"command":"git status; ls"}"#),
    );
    server.enqueue(Reply::new().tool_call(
        "w1",
        "write_file",
        r#"{"path":"a.txt","content":"two\n"}"#,
    ));
    server.enqueue(Reply::plain("Written."));
    let d = daemon(&server, json!({"approvalPolicy": "on-request"}));
    let mut c = d.connect().unwrap();
    let w = ws.display().to_string();
    let id = c
        .send(
            "chat",
            json!({"message": "edit", "workspace": w, "approvals": true}),
        )
        .unwrap();
    let mut seen = Vec::new();
    let ask = next_request(&mut c, id, &mut seen);
    let details = &ask["details"];
    assert_eq!(details["tool"], "write_file", "{ask}");
    assert_eq!(details["callId"], "w1");
    assert_eq!(details["arguments"]["path"], "a.txt");
    assert!(
        details["diff"].as_str().unwrap().contains("-one\n+two\n"),
        "{ask}"
    );
    assert!(ask["sessionId"].is_string());
    // Asked before the tool ran: nothing written, no write lock held.
    assert_eq!(std::fs::read_to_string(ws.join("a.txt")).unwrap(), "one\n");
    assert_eq!(c.ok_json("lock.list", json!({})).unwrap(), json!([]));
    let approval = details["approvalId"].as_str().unwrap();
    let answer = c
        .request(
            "agent.approve",
            json!({"requestId": id, "approvalId": approval, "decision": "allow_once"}),
        )
        .unwrap();
    assert_eq!(answer["data"], "approved", "{answer}");
    let all = c.collect(id).unwrap();
    assert_eq!(all.last().unwrap()["event"], "done", "{all:?}");
    assert_eq!(std::fs::read_to_string(ws.join("a.txt")).unwrap(), "two\n");
    let resolved = events(&all, "approval_resolved");
    assert_eq!(resolved.len(), 1);
    assert_eq!(resolved[0]["data"], "allow_once");
    assert_eq!(resolved[0]["details"]["approvalId"], approval);
    // Reads and the safe shell chain never asked.
    let asked = seen
        .iter()
        .chain(&all)
        .filter(|e| e["event"] == "approval_request")
        .count();
    assert_eq!(asked, 1);
    // An answer to nothing pending is not found.
    let stale = c
        .err(
            "agent.approve",
            json!({"sessionId": ask["sessionId"], "approvalId": approval, "decision": "reject"}),
        )
        .unwrap();
    assert_eq!(stale["details"]["code"], "not_found", "{stale}");
}

#[test]
fn untrusted_asks_for_a_shell_read_and_a_rejection_message_reaches_the_model() {
    let server = ProviderServer::start().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let ws = project_dir(tmp.path(), "proj");
    server.enqueue(Reply::new().tool_call("b1", "bash", r#"{"command":"touch made.txt"}"#));
    server.enqueue(Reply::plain("Understood."));
    let d = daemon(&server, json!({"approvalPolicy": "untrusted"}));
    let mut c = d.connect().unwrap();
    let w = ws.display().to_string();
    let id = c
        .send(
            "chat",
            json!({"message": "go", "workspace": w, "approvals": true}),
        )
        .unwrap();
    let ask = next_request(&mut c, id, &mut Vec::new());
    let bad = c
        .err(
            "agent.approve",
            json!({"requestId": id, "approvalId": ask["details"]["approvalId"], "decision": "maybe"}),
        )
        .unwrap();
    assert!(
        bad["data"].as_str().unwrap().contains("allow_once"),
        "{bad}"
    );
    let answer = c
        .request(
            "agent.approve",
            json!({"sessionId": ask["sessionId"], "approvalId": ask["details"]["approvalId"],
                   "decision": "reject", "message": "use the scratch dir instead"}),
        )
        .unwrap();
    assert_eq!(answer["data"], "rejected");
    let all = c.collect(id).unwrap();
    assert_eq!(all.last().unwrap()["data"], "Understood.");
    assert!(!ws.join("made.txt").exists());
    let done = &events(&all, "tool_done")[0];
    assert_eq!(done["details"]["success"], false);
    let read = tool_result(&server, 1);
    assert!(
        read.ends_with("The user said: use the scratch dir instead"),
        "{read}"
    );
}

#[test]
fn allow_for_the_session_is_kept_and_shown_and_the_session_policy_wins() {
    let server = ProviderServer::start().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let ws = project_dir(tmp.path(), "proj");
    let call = r#"{"command":"echo hi >> log.txt"}"#;
    server.enqueue(Reply::new().tool_call("b1", "bash", call));
    server.enqueue(Reply::plain("Once."));
    server.enqueue(Reply::new().tool_call("b2", "bash", call));
    server.enqueue(Reply::plain("Twice."));
    let d = daemon(&server, json!({}));
    let mut c = d.connect().unwrap();
    let w = ws.display().to_string();
    let sid = c.ok("session.new", json!({"workspace": w})).unwrap();
    let bad = c
        .err(
            "session.update",
            json!({"id": sid, "workspace": w, "approvalPolicy": "sometimes"}),
        )
        .unwrap();
    assert!(
        bad["data"].as_str().unwrap().contains("on-request"),
        "{bad}"
    );
    c.ok(
        "session.update",
        json!({"id": sid, "workspace": w, "approvalPolicy": "untrusted"}),
    )
    .unwrap();
    let params = json!({"message": "log", "workspace": w, "sessionId": sid, "approvals": true});
    let id = c.send("chat", params.clone()).unwrap();
    let ask = next_request(&mut c, id, &mut Vec::new());
    c.ok(
        "agent.approve",
        json!({"requestId": id, "approvalId": ask["details"]["approvalId"], "decision": "allow_session"}),
    )
    .unwrap();
    assert_eq!(c.collect(id).unwrap().last().unwrap()["data"], "Once.");
    // The same command again: allowed without asking.
    let id = c.send("chat", params).unwrap();
    let again = c.collect(id).unwrap();
    assert!(events(&again, "approval_request").is_empty(), "{again:?}");
    assert_eq!(again.last().unwrap()["data"], "Twice.");
    assert_eq!(
        std::fs::read_to_string(ws.join("log.txt")).unwrap(),
        "hi\nhi\n"
    );
    let s = c
        .ok_json("session.get", json!({"id": sid, "workspace": w}))
        .unwrap();
    assert_eq!(s["approvalPolicy"], "untrusted");
    assert_eq!(
        s["approvalRules"],
        json!([{"tool": "bash", "command": "echo hi >> log.txt"}])
    );
    // The config's policy is still `never`; the workspace shows it.
    let mode = c.request("agent.mode.get", json!({})).unwrap();
    assert_eq!(mode["details"]["approvalPolicy"], "never", "{mode}");
    c.ok(
        "session.update",
        json!({"id": sid, "workspace": w, "approvalPolicy": null}),
    )
    .unwrap();
    let s = c
        .ok_json("session.get", json!({"id": sid, "workspace": w}))
        .unwrap();
    assert_eq!(s["approvalPolicy"], "never");
}

#[test]
fn a_pending_approval_times_out_as_a_rejection_and_cancel_resolves_it() {
    let server = ProviderServer::start().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let ws = project_dir(tmp.path(), "proj");
    server.enqueue(Reply::new().tool_call("b1", "bash", r#"{"command":"rm -f x"}"#));
    server.enqueue(Reply::plain("Gave up."));
    server.enqueue(Reply::new().tool_call("b2", "bash", r#"{"command":"rm -f y"}"#));
    let d = daemon(
        &server,
        json!({"approvalPolicy": "on-request", "approvalTimeoutSeconds": 1}),
    );
    let mut c = d.connect().unwrap();
    let w = ws.display().to_string();
    let id = c
        .send(
            "chat",
            json!({"message": "a", "workspace": w, "approvals": true}),
        )
        .unwrap();
    next_request(&mut c, id, &mut Vec::new());
    let all = c.collect(id).unwrap();
    assert_eq!(events(&all, "approval_resolved")[0]["data"], "timeout");
    assert!(tool_result(&server, 1).contains("agent.approvalTimeoutSeconds"));
    let id = c
        .send(
            "chat",
            json!({"message": "b", "workspace": w, "approvals": true}),
        )
        .unwrap();
    next_request(&mut c, id, &mut Vec::new());
    c.ok("agent.cancel", json!({"requestId": id})).unwrap();
    let all = c.collect(id).unwrap();
    assert_eq!(all.last().unwrap()["event"], "cancelled", "{all:?}");
    assert_eq!(events(&all, "approval_resolved")[0]["data"], "cancelled");
}

#[test]
fn a_client_that_announced_no_approvals_is_refused_at_once() {
    let server = ProviderServer::start().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let ws = project_dir(tmp.path(), "proj");
    server.enqueue(Reply::new().tool_call("w1", "write_file", r#"{"path":"a.txt","content":"x"}"#));
    server.enqueue(Reply::plain("Could not."));
    let d = daemon(&server, json!({"approvalPolicy": "on-request"}));
    let mut c = d.connect().unwrap();
    let w = ws.display().to_string();
    let id = c
        .send("chat", json!({"message": "write", "workspace": w}))
        .unwrap();
    let all = c.collect(id).unwrap();
    assert!(events(&all, "approval_request").is_empty());
    assert_eq!(all.last().unwrap()["data"], "Could not.");
    assert!(!ws.join("a.txt").exists());
    let read = tool_result(&server, 1);
    assert!(read.contains("cannot ask for approvals"), "{read}");
    assert!(read.contains("on-request"), "{read}");
    // What the desktop user reads says where to change it, in no wire terms.
    assert!(read.contains("agent.approvalPolicy"), "{read}");
    assert!(!read.contains("approvals: true"), "{read}");
    let done = events(&all, "tool_done");
    let shown = done[0]["data"].as_str().unwrap();
    assert!(shown.contains("needs approval"), "{shown}");
    assert!(!shown.contains("approvals: true"), "{shown}");
}

#[test]
fn serve_asks_with_approval_requested_and_the_approval_command_decides() {
    use crate::support::serve::{Serve, home_with};
    let server = ProviderServer::start().unwrap();
    let (tmp, home) = home_with(&server);
    // The config says `never`: `--approval ask` (OpenSeek's name for
    // on-request) is the front end's choice and wins.
    let ws = project_dir(tmp.path(), "proj");
    server.enqueue(Reply::new().tool_call(
        "w1",
        "write_file",
        r#"{"path":"a.txt","content":"yes\n"}"#,
    ));
    server.enqueue(Reply::new().tool_call("b1", "bash", r#"{"command":"rm a.txt"}"#));
    server.enqueue(Reply::plain("done"));
    server.enqueue(Reply::new().tool_call("b2", "bash", r#"{"command":"rm a.txt"}"#));
    server.enqueue(Reply::plain("stopped"));
    let mut s = Serve::start(
        &home,
        &["--workspace", ws.to_str().unwrap(), "--approval", "ask"],
    );
    s.send(r#"{"command":"prompt","text":"go"}"#);
    let asked = s.until("approval_requested");
    let ask = asked.last().unwrap();
    assert_eq!(ask["tool_name"], "write_file", "{ask}");
    assert!(ask["body"].as_str().unwrap().contains("+yes"), "{ask}");
    s.send(&json!({"command": "approval", "id": ask["id"], "allow": true}).to_string());
    assert_eq!(
        s.until("approval_resolved").last().unwrap()["outcome"],
        "allowed_once"
    );
    let ask = s.until("approval_requested").last().unwrap().clone();
    assert_eq!(ask["body"], "rm a.txt");
    s.send(&json!({"command": "approval", "id": ask["id"], "allow": false}).to_string());
    assert_eq!(
        s.until("approval_resolved").last().unwrap()["outcome"],
        "rejected"
    );
    s.until("agent_finished");
    assert!(ws.join("a.txt").exists());
    // An unknown id is a command error; stdin's end rejects what still waits.
    s.send(r#"{"command":"approval","id":"ap_nope","allow":true}"#);
    assert!(
        s.until("command_error").last().unwrap()["error"]
            .as_str()
            .unwrap()
            .contains("ap_nope")
    );
    s.send(r#"{"command":"prompt","text":"again"}"#);
    s.until("approval_requested");
    let (rest, code) = s.finish();
    assert_eq!(code, Some(0));
    let resolved: Vec<&Value> = rest
        .iter()
        .filter(|e| e["event"] == "approval_resolved")
        .collect();
    assert_eq!(resolved[0]["outcome"], "rejected", "{rest:?}");
    assert!(ws.join("a.txt").exists());
}

#[test]
fn scheduled_runs_never_wait_the_task_says_reject_or_allow() {
    use crate::support::schedule::{create, setup, wait_event};
    let server = ProviderServer::start().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let ws = project_dir(tmp.path(), "proj");
    let d = setup(&server, json!({"agent": {"approvalPolicy": "on-request"}}));
    let mut c = d.connect().unwrap();
    let w = ws.display().to_string();
    let call = r#"{"path":"out.txt","content":"x"}"#;
    let rejecting = create(
        &mut c,
        json!({"name": "r", "prompt": "write", "cron": "0 9 * * *", "workspace": w}),
    );
    assert!(rejecting.get("approval").is_none(), "{rejecting}");
    server.enqueue(Reply::new().tool_call("w1", "write_file", call));
    server.enqueue(Reply::plain("refused"));
    c.ok("schedule.run", json!({"id": rejecting["id"]}))
        .unwrap();
    wait_event(&mut c, "schedule.updated");
    assert!(!ws.join("out.txt").exists());
    assert!(tool_result(&server, 1).contains("scheduled runs do not wait for a person"));
    let allowing = create(
        &mut c,
        json!({"name": "a", "prompt": "write", "cron": "0 9 * * *", "workspace": w,
               "approval": "allow"}),
    );
    assert_eq!(allowing["approval"], "allow");
    let bad = c
        .err(
            "schedule.update",
            json!({"id": allowing["id"], "name": "a", "prompt": "p", "cron": "0 9 * * *",
                   "approval": "ask"}),
        )
        .unwrap();
    assert!(
        bad["data"].as_str().unwrap().contains("reject or allow"),
        "{bad}"
    );
    server.enqueue(Reply::new().tool_call("w1", "write_file", call));
    server.enqueue(Reply::plain("written"));
    c.ok("schedule.run", json!({"id": allowing["id"]})).unwrap();
    wait_event(&mut c, "schedule.updated");
    assert_eq!(std::fs::read_to_string(ws.join("out.txt")).unwrap(), "x");
}

#[test]
fn a_workspace_policy_applies_to_its_turns_and_shows_in_agent_mode_get() {
    let server = ProviderServer::start().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let ws = project_dir(tmp.path(), "proj");
    std::fs::create_dir_all(ws.join(".seekclaw")).unwrap();
    std::fs::write(
        ws.join(".seekclaw/config.json"),
        r#"{"approvalPolicy": "untrusted"}"#,
    )
    .unwrap();
    server.enqueue(Reply::new().tool_call("b1", "bash", r#"{"command":"ls"}"#));
    server.enqueue(Reply::plain("listed"));
    let d = setup(
        &server,
        StartOptions {
            cwd: Some(ws.clone()),
            ..StartOptions::default()
        },
    );
    let mut c = d.connect().unwrap();
    let mode = c.request("agent.mode.get", json!({})).unwrap();
    assert_eq!(mode["data"], "edit");
    assert_eq!(mode["details"]["approvalPolicy"], "untrusted", "{mode}");
    assert_eq!(mode["details"]["sandbox"], "workspace-write", "{mode}");
    let id = c
        .send("chat", json!({"message": "list", "approvals": true}))
        .unwrap();
    let ask = next_request(&mut c, id, &mut Vec::new());
    assert_eq!(ask["details"]["tool"], "bash");
    c.ok(
        "agent.approve",
        json!({"requestId": id, "approvalId": ask["details"]["approvalId"], "decision": "allow_once"}),
    )
    .unwrap();
    assert_eq!(c.collect(id).unwrap().last().unwrap()["data"], "listed");
}

#[test]
fn run_cannot_ask_so_what_the_policy_names_is_refused() {
    use crate::support::serve::home_with;
    let server = ProviderServer::start().unwrap();
    let (tmp, home) = home_with(&server);
    let ws = project_dir(tmp.path(), "proj");
    server.enqueue(Reply::new().tool_call("b1", "bash", r#"{"command":"touch x"}"#));
    server.enqueue(Reply::plain("refused"));
    let out = std::process::Command::new(crate::support::bin())
        .args([
            "run",
            "--workspace",
            ws.to_str().unwrap(),
            "--approval",
            "untrusted",
            "go",
        ])
        .env("SEEKCLAW_HOME", &home)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!ws.join("x").exists());
    let read = tool_result(&server, 1);
    assert!(
        read.contains("`seekclaw run` cannot ask a person"),
        "{read}"
    );
    let bad = std::process::Command::new(crate::support::bin())
        .args(["run", "--approval", "sometimes", "go"])
        .env("SEEKCLAW_HOME", &home)
        .output()
        .unwrap();
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("unknown approval policy"));
}
