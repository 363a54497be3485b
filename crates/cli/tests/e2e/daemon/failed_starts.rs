//! No empty sessions from failed starts (issue 26, item 6): a turn that
//! fails before anything is sent to a model (no model configured, an
//! unknown model, a missing workspace) creates no session — through the
//! socket's `chat` without a `sessionId`, `run` and `serve`.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::{Value, json};

use crate::support::serve::Serve;
use crate::support::{bin, project_dir};

fn seekclaw(home: &Path, cwd: &Path, args: &[&str]) -> Output {
    Command::new(bin())
        .args(args)
        .env("SEEKCLAW_HOME", home)
        .current_dir(cwd)
        .output()
        .unwrap()
}

fn all_sessions(home: &Path) -> Value {
    let out = seekclaw(home, home, &["sessions", "list", "--all", "--json"]);
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn failed_chats_without_a_session_id_leave_no_session() {
    let d = crate::support::start();
    let project = project_dir(&d.home, "app");
    let ws = project.to_str().unwrap();
    let mut c = d.connect().unwrap();
    for _ in 0..3 {
        for scope in [json!({"global": true}), json!({"workspace": ws})] {
            let mut params = scope.clone();
            params["message"] = json!("hello");
            let err = c.err("chat", params).unwrap();
            assert!(
                err["data"]
                    .as_str()
                    .unwrap()
                    .starts_with("No models configured"),
                "{err}"
            );
            assert_eq!(err["details"]["code"], "no_model", "{err}");
        }
    }
    let err = c
        .err(
            "chat",
            json!({"message": "hello", "workspace": "/no/such/dir"}),
        )
        .unwrap();
    assert_eq!(err["details"]["code"], "not_found", "{err}");
    assert_eq!(
        c.ok_json(
            "session.list",
            json!({"global": true, "includeArchived": true})
        )
        .unwrap(),
        json!([])
    );
    assert_eq!(
        c.ok_json(
            "session.list",
            json!({"workspace": ws, "includeArchived": true})
        )
        .unwrap(),
        json!([])
    );
}

#[test]
fn failed_runs_and_serve_prompts_leave_no_session() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let project = project_dir(tmp.path(), "app");
    for args in [
        &["run", "hello"][..],
        &["run", "--global", "hello"],
        &["run", "--events", "hello"],
        &["run", "--workspace", "/no/such/dir", "hello"],
    ] {
        let out = seekclaw(&home, &project, args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
    }
    let mut serve = Serve::start(&home, &["--workspace", project.to_str().unwrap()]);
    serve.send(r#"{"command":"prompt","text":"hello"}"#);
    serve.send(r#"{"command":"prompt","text":"hello again"}"#);
    let (events, code) = serve.finish();
    assert_eq!(code, Some(0));
    let failed: Vec<&Value> = events
        .iter()
        .filter(|e| e["event"] == "agent_setup_failed")
        .collect();
    assert_eq!(failed.len(), 2, "{events:?}");
    assert!(
        failed[0]["error"]
            .as_str()
            .unwrap()
            .starts_with("No models configured")
    );
    assert_eq!(all_sessions(&home), json!([]));
}
