//! `routing.loadBalance` fed by real turns: the round-robin cursor persists
//! in `state.json`, `leastUsed` reads the usage store.

use seekclaw_testkit::{DaemonProcess, ProviderServer, Reply, StartOptions};
use serde_json::{Value, json};

use crate::support::turns::chat;

/// Two providers on one testkit server, `a/m1` and `b/m2`, balanced by `how`.
fn config(server: &ProviderServer, how: &str) -> Value {
    let provider = |id: &str, model: &str| {
        json!({"id": id, "kind": "openai", "baseUrl": server.base_url(), "apiKey": "sk-tk",
               "models": [{"id": model, "contextWindow": 128000, "maxOutput": 4096}]})
    };
    json!({
        "providers": [provider("a", "m1"), provider("b", "m2")],
        "routing": {"loadBalance": how, "strategies": {"balanced": ["a/m1", "b/m2"]},
                    "retry": {"baseDelaySeconds": 0.01, "maxDelaySeconds": 0.05}}
    })
}

/// The model each of `n` turns asked for.
fn models_of_turns(d: &DaemonProcess, server: &ProviderServer, n: usize) -> Vec<String> {
    let mut c = d.connect().unwrap();
    let before = server.requests().len();
    for _ in 0..n {
        let all = chat(&mut c, json!({"message": "hi", "global": true}));
        assert_eq!(all.last().unwrap()["event"], "done");
    }
    server.requests()[before..]
        .iter()
        .map(|r| r.body["model"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn round_robin_rotates_across_turns_and_restarts() {
    let server = ProviderServer::start().unwrap();
    server.set_default(Reply::plain("ok"));
    let opts = StartOptions {
        config: Some(config(&server, "roundRobin")),
        ..StartOptions::default()
    };
    let mut d = crate::support::start_with(opts);
    assert_eq!(models_of_turns(&d, &server, 3), ["m1", "m2", "m1"]);
    let state: Value =
        serde_json::from_slice(&std::fs::read(d.home.join("state.json")).unwrap()).unwrap();
    assert_eq!(state["roundRobinCursors"]["balanced"], 3);
    // The cursor survives a restart: the next turn goes on where it was.
    let home = d.home.clone();
    let tmp = d.take_tempdir();
    d.kill9().unwrap();
    let d = DaemonProcess::spawn(crate::support::bin(), &home, &StartOptions::default()).unwrap();
    assert_eq!(models_of_turns(&d, &server, 1), ["m2"]);
    drop(tmp);
}

#[test]
fn least_used_goes_to_the_model_with_fewer_calls() {
    let server = ProviderServer::start().unwrap();
    server.set_default(Reply::plain("ok"));
    let d = crate::support::start_with(StartOptions {
        config: Some(config(&server, "leastUsed")),
        ..StartOptions::default()
    });
    // Both unused: listed order; then each turn evens the counts out.
    assert_eq!(models_of_turns(&d, &server, 4), ["m1", "m2", "m1", "m2"]);
}
