//! Handlers read and tested alone: each test builds a [`Ctx`] over a temp
//! home and store, and a [`Connection`] whose outbox nobody reads, with no
//! daemon, socket or connection loop around them.

use std::path::Path;
use std::time::Duration;

use seekclaw_config::Home;
use seekclaw_protocol::{Envelope, MethodError, Params};
use seekclaw_store::Store;
use serde_json::{Value, json};
use tempfile::TempDir;
use tokio_util::sync::CancellationToken;

use super::{chat, schedule, session, workspace};
use crate::connection::{Connection, LegacySession};
use crate::ctx::Ctx;
use crate::outbox::{Outbox, Queue};

/// A context over a fresh home (`<tmp>/home`) whose process runs in `<tmp>/ws`.
fn context() -> (TempDir, Ctx) {
    let dir = tempfile::tempdir().unwrap();
    let home = Home::at(dir.path().join("home"));
    home.ensure().unwrap();
    let store = Store::open(&home.db_path()).unwrap();
    let cwd = dir.path().join("ws");
    std::fs::create_dir_all(&cwd).unwrap();
    (dir, Ctx::open(home, cwd, store))
}

/// Connection 7; the queue is kept so the outbox stays open.
fn connection() -> (Connection, Queue) {
    let (outbox, queue) = Outbox::new(Duration::from_secs(5), CancellationToken::new());
    (Connection::new(7, outbox, CancellationToken::new()), queue)
}

fn params(v: Value) -> Params {
    match v {
        Value::Object(map) => Params::new(map),
        other => panic!("params must be an object, not {other}"),
    }
}

/// The envelope as its wire line reads.
fn wire(env: &Envelope) -> Value {
    serde_json::from_slice(&env.to_line()).unwrap()
}

fn data(env: &Envelope) -> String {
    wire(env)["data"].as_str().unwrap_or_default().to_string()
}

fn canonical(p: &Path) -> std::path::PathBuf {
    p.canonicalize().unwrap()
}

#[tokio::test]
async fn workspace_open_moves_the_shared_workspace_and_forgets_the_connections_session() {
    let (dir, ctx) = context();
    let (conn, _queue) = connection();
    conn.set_legacy(Some(LegacySession {
        scope: "old".into(),
        id: "s-old".into(),
    }));
    assert!(!ctx.workspace.is_named());
    let other = dir.path().join("other");
    std::fs::create_dir_all(other.join(".git")).unwrap();

    let env = workspace::open(&ctx, &conn, 1, &params(json!({"path": other})))
        .await
        .unwrap();
    let info: Value = serde_json::from_str(&data(&env)).unwrap();
    assert_eq!(
        canonical(Path::new(info["path"].as_str().unwrap())),
        canonical(&other)
    );
    assert_eq!(canonical(&ctx.current_workspace()), canonical(&other));
    assert!(ctx.workspace.is_named());
    assert_eq!(conn.legacy(), None);

    // Every other holder of the context sees the same workspace.
    let got = workspace::get(&ctx.clone(), 2).await.unwrap();
    assert_eq!(data(&got), data(&env));
}

#[tokio::test]
async fn a_missing_workspace_is_not_found_and_changes_nothing() {
    let (dir, ctx) = context();
    let (conn, _queue) = connection();
    let before = ctx.current_workspace();
    let missing = dir.path().join("nowhere");
    let err: MethodError = workspace::open(&ctx, &conn, 1, &params(json!({"path": missing})))
        .await
        .unwrap_err();
    assert_eq!(err.code.as_str(), "not_found");
    assert_eq!(err.param.as_deref(), Some("path"));
    assert_eq!(ctx.current_workspace(), before);
    assert!(!ctx.workspace.is_named());
}

#[tokio::test]
async fn a_new_session_becomes_the_connections_session_and_is_listed() {
    let (_dir, ctx) = context();
    let (conn, _queue) = connection();
    let env = session::new_session(&ctx, &conn, 3, &params(json!({"global": true})))
        .await
        .unwrap();
    let sid = data(&env);
    assert!(!sid.is_empty());
    assert_eq!(conn.legacy().map(|l| l.id), Some(sid.clone()));

    let listed = session::list(&ctx, 4, &params(json!({"global": true})))
        .await
        .unwrap();
    let sessions: Value = serde_json::from_str(&data(&listed)).unwrap();
    let ids: Vec<&str> = sessions
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s["id"].as_str())
        .collect();
    assert_eq!(ids, [sid.as_str()]);
}

#[tokio::test]
async fn cancel_and_steer_without_a_turn() {
    let (_dir, ctx) = context();
    let (conn, _queue) = connection();
    let env = chat::cancel(&ctx, &conn, 5, &params(json!({})))
        .await
        .unwrap();
    assert_eq!(data(&env), "no active turn");
    let env = chat::cancel(&ctx, &conn, 6, &params(json!({"sessionId": "s1"})))
        .await
        .unwrap();
    assert_eq!(data(&env), "no active turn");

    let err = chat::steer(&ctx, &conn, 7, &params(json!({"message": "go on"})))
        .await
        .unwrap_err();
    assert_eq!(err.code.as_str(), "invalid_request");
    let err = chat::steer(
        &ctx,
        &conn,
        8,
        &params(json!({"message": "go on", "sessionId": "s1"})),
    )
    .await
    .unwrap_err();
    assert_eq!(err.code.as_str(), "not_found");
}

#[tokio::test]
async fn a_schedule_made_on_an_on_demand_daemon_says_when_it_runs() {
    let (_dir, mut ctx) = context();
    let task = json!({"name": "n", "prompt": "p", "cron": "0 9 * * *"});
    let env = schedule::upsert(&ctx, 9, &params(task.clone()))
        .await
        .unwrap();
    let plain: Value = serde_json::from_str(&data(&env)).unwrap();
    assert!(plain.get("warning").is_none());

    ctx.idle_exit = Some(Duration::from_secs(300));
    let env = schedule::upsert(&ctx, 10, &params(task)).await.unwrap();
    let warned: Value = serde_json::from_str(&data(&env)).unwrap();
    assert!(
        warned["warning"].as_str().unwrap().contains("300 s"),
        "{warned}"
    );
    let listed = schedule::list(&ctx, 11).await.unwrap();
    let tasks: Value = serde_json::from_str(&data(&listed)).unwrap();
    assert_eq!(tasks.as_array().map(Vec::len), Some(2));
}
