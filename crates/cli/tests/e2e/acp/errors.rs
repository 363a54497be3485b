//! The engine's refusals reach the editor with the JSON-RPC code it can act
//! on, not as internal errors: an empty prompt is invalid params (`-32602`),
//! a session another seekclaw process is running a turn on is an invalid
//! request (`-32600`, as the agent's own "already running a prompt"), a
//! session deleted behind the editor's back is not found (`-32002`). Driven
//! by `@agentclientprotocol/sdk`'s client (`js/errors.mjs`).

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};

use seekclaw_config::Home;
use seekclaw_engine::{Scope, try_hold};
use seekclaw_store::Store;
use seekclaw_testkit::{ProviderServer, Reply, capability_missing};
use serde_json::Value;

use super::session::{js_dir, node_missing};
use crate::support::bin;
use crate::support::serve::home_with;

#[test]
fn engine_refusals_get_their_json_rpc_codes() {
    if capability_missing("node", node_missing()) {
        return;
    }
    let server = ProviderServer::start().unwrap();
    server.enqueue(Reply::plain("hi"));
    let (_tmp, home) = home_with(&server);
    let ws = tempfile::tempdir().unwrap();
    let ws_path = ws.path().canonicalize().unwrap();
    let mut driver = Command::new("node")
        .arg(js_dir().join("errors.mjs"))
        .arg(bin())
        .arg(&home)
        .arg(&ws_path)
        .current_dir(js_dir())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut to_driver = driver.stdin.take().unwrap();
    let from_driver = BufReader::new(driver.stdout.take().unwrap());
    let home = Home::at(home);
    let mut lock = None;
    let mut last = Value::Null;
    for line in from_driver.lines() {
        let line = line.unwrap();
        let msg: Value = serde_json::from_str(&line).unwrap_or(Value::Null);
        let sid = msg["sessionId"].as_str().unwrap_or_default().to_string();
        match msg["step"].as_str() {
            // As a daemon, `serve` or `run` running a turn on it would.
            Some("lock") => lock = Some(try_hold(&home, &sid).unwrap().unwrap()),
            Some("unlock") => lock = None,
            Some("delete") => delete(&home, &ws_path, &sid),
            _ => {
                last = msg;
                continue;
            }
        }
        writeln!(to_driver, "go").unwrap();
    }
    drop(lock);
    assert!(driver.wait().unwrap().success(), "driver failed: {last}");
    assert_eq!(last["ok"], true, "{last}");
    assert_eq!(
        (&last["empty"], &last["busy"], &last["missing"]),
        (
            &Value::from(-32602),
            &Value::from(-32600),
            &Value::from(-32002)
        ),
        "{last}"
    );
}

/// Deletes the session from the store, as `session.delete` would.
fn delete(home: &Home, workspace: &Path, sid: &str) {
    let store = Store::open(&home.db_path()).unwrap();
    assert!(
        store
            .delete_session(&Scope::of_root(workspace).key, sid)
            .unwrap()
    );
}
