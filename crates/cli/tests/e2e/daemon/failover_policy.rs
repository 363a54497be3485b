//! Failover never sends a prompt to another vendor unasked (issue 36, item
//! 12): with a model chosen as the default (`model use`) and no
//! `routing.fallback`, a failing model fails over only to its own provider's
//! other models; a configured chain is followed as written, and the crossing
//! to another provider is announced; `routing.get` and `doctor` say which rule
//! holds. `local` (priority 0, its port closed) has two models; `cloud` is the
//! testkit server.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use seekclaw_testkit::{DaemonProcess, ProviderServer, Reply, StartOptions};
use serde_json::{Value, json};

use crate::support::bin;
use crate::support::turns::{chat, events};

/// A port nothing listens on (bound, then released).
fn closed_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

fn local_and_cloud(server: &ProviderServer) -> Value {
    json!({
        "routing": {"retry": {"maxAttempts": 1, "baseDelaySeconds": 0.01, "maxDelaySeconds": 0.05}},
        "providers": [
            {"id": "local", "kind": "openai", "baseUrl": format!("http://127.0.0.1:{}", closed_port()),
             "priority": 0, "timeoutSeconds": 5, "models": [{"id": "l1"}, {"id": "l2"}]},
            {"id": "cloud", "kind": "openai", "baseUrl": server.base_url(), "apiKey": "sk-cloud",
             "priority": 1, "timeoutSeconds": 5, "models": [{"id": "c1"}]}
        ]
    })
}

fn seekclaw(home: &Path, args: &[&str]) -> Output {
    Command::new(bin())
        .args(args)
        .env("SEEKCLAW_HOME", home)
        .current_dir(home)
        .output()
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The home's `config.json` with `edit` applied (as a user's editor would).
fn edit_config(home: &Path, edit: impl FnOnce(&mut Value)) {
    let path = home.join("config.json");
    let mut config: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    edit(&mut config);
    std::fs::write(&path, config.to_string()).unwrap();
}

fn home_with(config: &Value) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(home.join("config.json"), config.to_string()).unwrap();
    (tmp, home)
}

#[test]
fn a_chosen_default_fails_over_within_its_provider_and_a_chain_is_followed_as_written() {
    let server = ProviderServer::start().unwrap();
    server.set_default(Reply::plain("the cloud answered"));
    let (_tmp, home) = home_with(&local_and_cloud(&server));

    // The local endpoint chosen as the default beside a cloud key.
    let out = seekclaw(&home, &["model", "use", "local/l2"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let out = seekclaw(&home, &["run", "--global", "read my code"]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("local/l2 failed") && stderr.contains("local/l1"),
        "the provider's other model is tried: {stderr}"
    );
    assert!(!stderr.contains("cloud"), "{stderr}");
    assert!(
        server.requests().is_empty(),
        "the prompt never reached the cloud"
    );
    let doctor = text(&seekclaw(&home, &["doctor"]).stdout);
    let line = doctor
        .lines()
        .find(|l| l.contains("Failover"))
        .unwrap_or_else(|| panic!("{doctor}"));
    assert!(
        line.contains("local/l2 is chosen") && line.contains("stays with provider local"),
        "{line}"
    );
    // (the doctor's probe of the cloud endpoint is not a prompt)
    let probed = server.requests().len();

    // The same rule in the daemon, stated by routing.get.
    let d = DaemonProcess::spawn(bin(), &home, &StartOptions::default()).unwrap();
    let mut c = d.connect().unwrap();
    let routing = c.ok_json("routing.get", json!({})).unwrap();
    assert_eq!(routing["failoverEnabled"], true);
    let policy = &routing["failoverPolicy"];
    assert_eq!(
        (
            policy["scope"].as_str(),
            policy["model"].as_str(),
            policy["provider"].as_str()
        ),
        (Some("provider"), Some("local/l2"), Some("local")),
        "{routing}"
    );
    assert_eq!(policy["candidates"], json!(["local/l2", "local/l1"]));
    let all = chat(&mut c, json!({"message": "read my code", "global": true}));
    assert_eq!(all.last().unwrap()["event"], "error", "{all:?}");
    assert!(
        events(&all, "failover")
            .iter()
            .all(|e| e["details"]["to"] == "local/l1"),
        "{all:?}"
    );
    assert_eq!(
        server.requests().len(),
        probed,
        "no prompt reached the cloud"
    );

    // A chain the user wrote is followed, and the crossing is announced.
    edit_config(&home, |c| c["routing"]["fallback"] = json!(["cloud/c1"]));
    let routing = c.ok_json("routing.get", json!({})).unwrap();
    let policy = &routing["failoverPolicy"];
    assert_eq!(policy["scope"], "chain", "{routing}");
    assert_eq!(policy["candidates"], json!(["local/l2", "cloud/c1"]));
    let all = chat(&mut c, json!({"message": "read my code", "global": true}));
    assert_eq!(all.last().unwrap()["data"], "the cloud answered", "{all:?}");
    let crossing = events(&all, "failover");
    assert_eq!(crossing.len(), 1, "{all:?}");
    let said = crossing[0]["data"].as_str().unwrap();
    assert!(
        said.starts_with("local/l2 failed: ")
            && said.ends_with(" — answered by cloud/c1 (another provider)"),
        "{said}"
    );
}

#[test]
fn with_no_model_chosen_routing_get_states_the_priority_order() {
    let server = ProviderServer::start().unwrap();
    let d = crate::support::start_with(StartOptions {
        config: Some(local_and_cloud(&server)),
        ..StartOptions::default()
    });
    let mut c = d.connect().unwrap();
    let policy = c.ok_json("routing.get", json!({})).unwrap()["failoverPolicy"].clone();
    assert_eq!(policy["scope"], "priority", "{policy}");
    assert_eq!(
        policy["candidates"],
        json!(["local/l1", "local/l2", "cloud/c1"])
    );
    assert!(
        policy["summary"]
            .as_str()
            .unwrap()
            .contains("provider priority order"),
        "{policy}"
    );
    let off = c
        .ok_json("routing.set", json!({"failoverEnabled": false}))
        .unwrap();
    assert_eq!(off["failoverPolicy"]["scope"], "off", "{off}");
}
