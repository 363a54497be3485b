use std::sync::Arc;
use std::time::Duration;

use seekclaw_config::ApprovalPolicy;
use seekclaw_tools::{ToolContext, WriteLocks, builtin_registry};
use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::*;

fn ctx(dir: &std::path::Path) -> ToolContext {
    ToolContext::new(
        dir.to_path_buf(),
        false,
        "s/1".into(),
        Arc::new(WriteLocks::new()),
        Duration::from_secs(1),
        Duration::from_secs(10),
        true,
        10_000,
        CancellationToken::new(),
    )
}

#[test]
fn each_policy_asks_exactly_when_it_should() {
    let registry = builtin_registry();
    let tool = |n: &str| registry.get(n).unwrap();
    let ask = |p, n: &str, args| asks(p, tool(n).as_ref(), &args);
    for n in [
        "write_file",
        "edit_file",
        "bash",
        "read_file",
        "web_fetch",
        "bash_stop",
    ] {
        assert!(!ask(
            ApprovalPolicy::Never,
            n,
            json!({"command": "rm -rf /"})
        ));
    }
    let p = ApprovalPolicy::OnRequest;
    assert!(ask(p, "write_file", json!({"path": "a", "content": ""})));
    assert!(ask(p, "bash", json!({"command": "rm a"})));
    assert!(!ask(p, "bash", json!({"command": "git status"})));
    assert!(!ask(p, "read_file", json!({"path": "a"})));
    assert!(!ask(p, "web_fetch", json!({"url": "http://x"})));
    assert!(!ask(p, "bash_stop", json!({"job_id": "j1"})));
    let p = ApprovalPolicy::Untrusted;
    assert!(ask(p, "bash", json!({"command": "git status"})));
    assert!(ask(p, "web_fetch", json!({"url": "http://x"})));
    assert!(ask(p, "remove", json!({"path": "a"})));
    for n in [
        "read_file",
        "list_dir",
        "glob",
        "grep",
        "bash_output",
        "plan",
    ] {
        assert!(!ask(p, n, json!({})), "{n}");
    }
}

#[test]
fn a_workspace_only_tightens_and_the_session_decides() {
    let mut config = seekclaw_config::Config::default();
    config.agent.approval_policy = ApprovalPolicy::OnRequest;
    let ws = |p| seekclaw_config::WorkspaceConfig {
        approval_policy: Some(p),
        ..Default::default()
    };
    let loose = ws(ApprovalPolicy::Never);
    let strict = ws(ApprovalPolicy::Untrusted);
    assert_eq!(
        effective_policy(&config, Some(&loose), None),
        ApprovalPolicy::OnRequest
    );
    assert_eq!(
        effective_policy(&config, Some(&strict), None),
        ApprovalPolicy::Untrusted
    );
    assert_eq!(
        effective_policy(&config, None, Some("never")),
        ApprovalPolicy::Never
    );
    assert_eq!(
        effective_policy(&config, None, Some("bogus")),
        ApprovalPolicy::OnRequest
    );
}

#[test]
fn session_rules_match_a_command_exactly_and_other_tools_whole() {
    let bash = rule_for("bash", &json!({"command": "cargo test"}));
    assert_eq!(bash.command.as_deref(), Some("cargo test"));
    assert!(rule_allows(
        &bash,
        "bash",
        &json!({"command": "cargo test"})
    ));
    assert!(!rule_allows(
        &bash,
        "bash",
        &json!({"command": "cargo test; rm x"})
    ));
    let edit = rule_for("edit_file", &json!({"path": "a"}));
    assert!(rule_allows(&edit, "edit_file", &json!({"path": "b"})));
    assert!(!rule_allows(&edit, "write_file", &json!({"path": "b"})));
}

#[test]
fn decisions_parse_and_blank_messages_drop() {
    assert_eq!(
        Decision::parse("ALLOW_ONCE", None),
        Some(Decision::AllowOnce)
    );
    assert_eq!(
        Decision::parse("reject", Some("  ".into())),
        Some(Decision::Reject(None))
    );
    assert_eq!(Decision::parse("maybe", None), None);
}

struct Fixture {
    _dir: tempfile::TempDir,
    store: seekclaw_store::Store,
    ctx: ToolContext,
    tx: tokio::sync::mpsc::UnboundedSender<AgentEvent>,
    stop: std::sync::Mutex<Option<String>>,
}

type Events = tokio::sync::mpsc::UnboundedReceiver<AgentEvent>;

fn fixture() -> (Fixture, Events) {
    let dir = tempfile::tempdir().unwrap();
    let store = seekclaw_store::Store::open(&dir.path().join("db")).unwrap();
    store
        .create_session(&seekclaw_store::NewSession {
            scope: "ws".into(),
            id: "s1".into(),
            workspace: None,
            title: None,
            reasoning_level: "high".into(),
            network_enabled: true,
        })
        .unwrap();
    let ctx = ctx(dir.path());
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    (
        Fixture {
            _dir: dir,
            store,
            ctx,
            tx,
            stop: std::sync::Mutex::new(None),
        },
        rx,
    )
}

impl Fixture {
    fn cx(&self) -> AskCx<'_> {
        AskCx {
            events: &self.tx,
            ctx: &self.ctx,
            store: &self.store,
            scope: "ws",
            session_id: "s1",
            owner: "s1/t",
            policy: None,
            stop: &self.stop,
        }
    }
}

fn asked<'a>(call_id: &'a str, tool: &'a dyn Tool, args: &'a Value, summary: &'a str) -> Asked<'a> {
    Asked {
        call_id,
        tool,
        args,
        summary,
        hook: None,
    }
}

/// Runs `check` for `command` while `answer` decides the request it sends.
async fn ask_and_answer(
    (f, rx): (&Fixture, &mut Events),
    turn: &TurnApprovals,
    handle: &Approvals,
    command: &str,
    answer: Option<Decision>,
) -> Result<(), String> {
    let registry = builtin_registry();
    let bash = registry.get("bash").unwrap();
    let args = json!({"command": command});
    let cx = f.cx();
    let call = asked("c1", bash.as_ref(), &args, command);
    let check = turn.check(&cx, &call);
    let respond = async {
        // Skip the resolutions of earlier requests.
        let (approval_id, tool) = loop {
            match rx.recv().await {
                Some(AgentEvent::ApprovalRequested {
                    approval_id, tool, ..
                }) => {
                    break (approval_id, tool);
                }
                Some(_) => {}
                None => panic!("no approval request"),
            }
        };
        assert_eq!(tool, "bash");
        if let Some(d) = answer {
            handle.answer(&approval_id, d).unwrap();
        }
    };
    let (result, ()) = tokio::join!(check, respond);
    result.map(|_| ())
}

#[tokio::test]
async fn allow_once_session_reject_and_timeout() {
    let (f, mut rx) = fixture();
    let handle = Approvals::attended();
    let turn = TurnApprovals::new(
        ApprovalPolicy::Untrusted,
        Duration::from_millis(300),
        handle.clone(),
        Vec::new(),
    );
    assert!(
        ask_and_answer(
            (&f, &mut rx),
            &turn,
            &handle,
            "ls",
            Some(Decision::AllowOnce)
        )
        .await
        .is_ok()
    );
    let rejected = ask_and_answer(
        (&f, &mut rx),
        &turn,
        &handle,
        "ls",
        Some(Decision::Reject(Some("use glob".into()))),
    )
    .await
    .unwrap_err();
    assert!(rejected.ends_with("The user said: use glob"), "{rejected}");
    let late = ask_and_answer((&f, &mut rx), &turn, &handle, "ls", None)
        .await
        .unwrap_err();
    assert!(late.contains("agent.approvalTimeoutSeconds"), "{late}");
    assert!(
        handle.pending_ids().is_empty(),
        "a timed-out request is withdrawn"
    );
    ask_and_answer(
        (&f, &mut rx),
        &turn,
        &handle,
        "make",
        Some(Decision::AllowSession),
    )
    .await
    .unwrap();
    // Now allowed without asking, and kept with the session.
    let registry = builtin_registry();
    let bash = registry.get("bash").unwrap();
    let cx = f.cx();
    turn.check(
        &cx,
        &asked("c2", bash.as_ref(), &json!({"command": "make"}), "make"),
    )
    .await
    .unwrap();
    let kept = f.store.session_approvals("ws", "s1").unwrap();
    assert_eq!(kept.rules.len(), 1);
    assert_eq!(kept.rules[0].command.as_deref(), Some("make"));
    assert!(handle.answer("ap_nope", Decision::AllowOnce).is_err());
}

#[tokio::test]
async fn cancel_resolves_a_pending_request_and_unattended_never_waits() {
    let (f, mut rx) = fixture();
    let handle = Approvals::attended();
    let turn = TurnApprovals::new(
        ApprovalPolicy::OnRequest,
        Duration::from_secs(60),
        handle.clone(),
        Vec::new(),
    );
    let cancel = f.ctx.cancel.clone();
    let registry = builtin_registry();
    let bash = registry.get("bash").unwrap();
    let args = json!({"command": "rm x"});
    let cx = f.cx();
    let call = asked("c1", bash.as_ref(), &args, "rm x");
    let check = turn.check(&cx, &call);
    let (result, ()) = tokio::join!(check, async {
        let _ = rx.recv().await;
        cancel.cancel();
    });
    assert_eq!(result.unwrap_err(), "Cancelled before this tool ran.");
    match rx.recv().await {
        Some(AgentEvent::ApprovalResolved { outcome, .. }) => {
            assert_eq!(outcome, ApprovalOutcome::Cancelled)
        }
        other => panic!("{other:?}"),
    }

    let (f, _rx) = fixture();
    let turn = TurnApprovals::new(
        ApprovalPolicy::OnRequest,
        Duration::from_secs(60),
        Approvals::default(),
        Vec::new(),
    );
    let refused = turn
        .check(&f.cx(), &asked("c1", bash.as_ref(), &args, "rm x"))
        .await
        .unwrap_err();
    assert!(refused.contains("cannot ask for approvals"), "{refused}");
    let allow = TurnApprovals::new(
        ApprovalPolicy::OnRequest,
        Duration::from_secs(60),
        Approvals::unattended(Unattended::Allow),
        Vec::new(),
    );
    allow
        .check(&f.cx(), &asked("c1", bash.as_ref(), &args, "rm x"))
        .await
        .unwrap();
}

#[test]
fn a_patch_writing_a_policy_file_is_guarded() {
    let root = std::path::Path::new("/w");
    let patch = |body: &str| json!({"input": format!("*** Begin Patch\n{body}*** End Patch")});
    assert!(writes_policy_file(
        "apply_patch",
        &patch("*** Update File: src/a.rs\n@@\n-a\n+b\n*** Add File: .claude/settings.json\n+{}\n"),
        root
    ));
    assert!(writes_policy_file(
        "apply_patch",
        &patch("*** Update File: notes.md\n*** Move to: .seekclaw/config.json\n@@\n-a\n+b\n"),
        root
    ));
    assert!(!writes_policy_file(
        "apply_patch",
        &patch("*** Update File: src/a.rs\n@@\n-a\n+b\n"),
        root
    ));
}
