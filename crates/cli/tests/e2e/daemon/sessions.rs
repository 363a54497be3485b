use seekclaw_testkit::StartOptions;
use serde_json::{Value, json};

use crate::support::{project_dir, start_with};

const HEADER_KEYS: &[&str] = &[
    "id",
    "title",
    "workspace",
    "archived",
    "reasoningLevel",
    "networkEnabled",
    "llmRounds",
    "executionSteps",
    "inputTokens",
    "totalInputTokens",
    "cachedInputTokens",
    "outputTokens",
    "outputElapsedMs",
    "createdAt",
    "updatedAt",
];

fn keys(v: &Value) -> Vec<String> {
    v.as_object().unwrap().keys().cloned().collect()
}

fn is_session_id(id: &str) -> bool {
    let b = id.as_bytes();
    id.len() == 22
        && b[8] == b'-'
        && b[15] == b'-'
        && id[..8].bytes().all(|c| c.is_ascii_digit())
        && id[9..15].bytes().all(|c| c.is_ascii_digit())
        && id[16..]
            .bytes()
            .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase())
}

#[test]
fn session_lifecycle_with_reference_shapes() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = project_dir(tmp.path(), "repo");
    let d = start_with(StartOptions {
        cwd: Some(ws.clone()),
        ..Default::default()
    });
    let mut c = d.connect().unwrap();

    let id = c
        .ok("session.new", json!({"reasoningLevel": "xhigh"}))
        .unwrap();
    assert!(is_session_id(&id), "{id}");
    let got = c.ok_json("session.get", json!({"id": id})).unwrap();
    let mut expected: Vec<String> = HEADER_KEYS.iter().map(|s| s.to_string()).collect();
    // Ours, additive (issue 20): the effective approval policy and the
    // session's allowed calls; (issue 26) the session's own model; then the
    // messages.
    expected.extend(["approvalPolicy", "approvalRules", "model", "messages"].map(String::from));
    assert_eq!(keys(&got), expected);
    assert_eq!(got["model"], Value::Null);
    assert_eq!(got["approvalPolicy"], "never");
    assert_eq!(got["approvalRules"], json!([]));
    assert_eq!(got["reasoningLevel"], "xhigh");
    assert_eq!(got["workspace"], ws.display().to_string());
    assert_eq!(got["networkEnabled"], true);
    assert_eq!(got["title"], Value::Null);
    assert_eq!(got["messages"], json!([]));
    assert!(got["createdAt"].as_str().unwrap().ends_with("+00:00"));

    // Lists are indented, and an unset title is left out (`title?`).
    let raw = c.ok("session.list", json!({})).unwrap();
    assert!(raw.starts_with("[\n  {\n    \"id\": "), "{raw}");
    let list: Value = serde_json::from_str(&raw).unwrap();
    assert_eq!(list.as_array().unwrap().len(), 1);
    assert_eq!(
        keys(&list[0]),
        HEADER_KEYS
            .iter()
            .filter(|k| **k != "title")
            .map(|s| s.to_string())
            .collect::<Vec<_>>()
    );

    let upd = c
        .ok_json("session.update", json!({"id": id, "title": "Fix the build", "reasoningLevel": "ultra", "networkEnabled": false}))
        .unwrap();
    assert_eq!(
        (
            upd["title"].as_str(),
            upd["reasoningLevel"].as_str(),
            upd["networkEnabled"].as_bool()
        ),
        (Some("Fix the build"), Some("ultra"), Some(false))
    );
    let upd = c
        .ok_json(
            "session.update",
            json!({"id": id, "title": "", "networkEnabled": null}),
        )
        .unwrap();
    assert_eq!(
        (upd["title"].clone(), upd["networkEnabled"].clone()),
        (Value::Null, json!(true))
    );
    let err = c
        .err(
            "session.update",
            json!({"id": id, "reasoningLevel": "extreme"}),
        )
        .unwrap();
    assert_eq!(
        err["data"],
        "params.reasoningLevel must be one of: none, low, medium, high, max, xhigh, ultra"
    );

    let arch = c.ok_json("session.archive", json!({"id": id})).unwrap();
    assert_eq!(arch["archived"], true);
    assert_eq!(c.ok_json("session.list", json!({})).unwrap(), json!([]));
    assert_eq!(
        c.ok_json("session.list", json!({"includeArchived": true}))
            .unwrap()
            .as_array()
            .unwrap()
            .len(),
        1
    );
    assert_eq!(
        c.ok_json("session.archive", json!({"id": id, "archived": false}))
            .unwrap()["archived"],
        false
    );

    assert_eq!(
        c.ok("session.truncate", json!({"id": id, "keepCount": 0}))
            .unwrap(),
        "0"
    );
    assert_eq!(
        c.ok("session.resume", json!({"id": id})).unwrap(),
        format!("resumed {id}")
    );
    assert_eq!(c.ok("session.delete", json!({"id": id})).unwrap(), id);
    let err = c.err("session.get", json!({"id": id})).unwrap();
    assert_eq!(err["data"], format!("Session not found: {id}"));
    assert_eq!(err["details"]["code"], "not_found");
}

#[test]
fn session_errors_read_like_the_reference() {
    let d = start_with(StartOptions::default());
    let mut c = d.connect().unwrap();
    assert_eq!(
        c.err("session.get", json!({})).unwrap()["data"],
        "params.id is required"
    );
    assert_eq!(
        c.err("session.get", json!({"id": "../etc"})).unwrap()["data"],
        "Invalid session id. (Parameter 'sessionId')"
    );
    assert_eq!(
        c.err("session.resume", json!({"id": "20200101-000000-abcdef"}))
            .unwrap()["data"],
        "Session 20200101-000000-abcdef not found"
    );
    assert_eq!(
        c.err("session.delete", json!({"id": "nope"})).unwrap()["data"],
        "Session not found: nope"
    );
    assert_eq!(
        c.err("session.truncate", json!({"id": "nope"})).unwrap()["data"],
        "params.keepCount is required (>= 0)"
    );
    assert_eq!(
        c.err("session.new", json!({"reasoningLevel": "huge"}))
            .unwrap()["details"]["param"],
        "reasoningLevel"
    );
    let missing = std::env::temp_dir().join("definitely-missing-seekclaw-dir");
    let err = c
        .err(
            "session.list",
            json!({"workspace": missing.display().to_string()}),
        )
        .unwrap();
    assert_eq!(
        err["data"],
        format!("Workspace directory not found: {}", missing.display())
    );
}

#[test]
fn scopes_never_mix_and_subdirs_map_to_their_root() {
    let tmp = tempfile::tempdir().unwrap();
    let a = project_dir(tmp.path(), "a");
    let b = project_dir(tmp.path(), "b");
    let d = start_with(StartOptions::default());
    let mut c = d.connect().unwrap();
    let wa = a.display().to_string();
    let sub = a.join("src").display().to_string();
    let wb = b.display().to_string();
    let in_a = c.ok("session.new", json!({"workspace": sub})).unwrap();
    let in_b = c.ok("session.new", json!({"workspace": wb})).unwrap();
    let global = c.ok("session.new", json!({"global": true})).unwrap();

    let ids = |list: Value| -> Vec<String> {
        list.as_array()
            .unwrap()
            .iter()
            .map(|h| h["id"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(
        ids(c.ok_json("session.list", json!({"workspace": wa})).unwrap()),
        vec![in_a.clone()]
    );
    assert_eq!(
        ids(c.ok_json("session.list", json!({"workspace": wb})).unwrap()),
        vec![in_b.clone()]
    );
    assert_eq!(
        ids(c.ok_json("session.list", json!({"global": true})).unwrap()),
        vec![global.clone()]
    );
    assert_eq!(
        c.ok_json("session.get", json!({"id": in_a, "workspace": wa}))
            .unwrap()["workspace"],
        wa
    );
    assert_eq!(
        c.ok_json("session.get", json!({"id": global, "global": true}))
            .unwrap()["workspace"],
        Value::Null
    );
    // The wrong scope does not see the session.
    assert_eq!(
        c.err("session.get", json!({"id": in_a, "workspace": wb}))
            .unwrap()["details"]["code"],
        "not_found"
    );
    assert_eq!(
        c.err("session.get", json!({"id": in_b, "global": true}))
            .unwrap()["details"]["code"],
        "not_found"
    );
}

#[test]
fn session_new_defaults_come_from_config() {
    let d = start_with(StartOptions {
        config: Some(json!({"agent": {"reasoningLevel": "low"}})),
        ..Default::default()
    });
    let mut c = d.connect().unwrap();
    let id = c
        .ok(
            "session.new",
            json!({"global": true, "networkEnabled": false}),
        )
        .unwrap();
    let got = c
        .ok_json("session.get", json!({"id": id, "global": true}))
        .unwrap();
    assert_eq!(
        (
            got["reasoningLevel"].as_str(),
            got["networkEnabled"].as_bool()
        ),
        (Some("low"), Some(false))
    );
}
