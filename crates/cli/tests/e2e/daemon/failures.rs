//! Each kind of turn failure reaches the client with its own `details.code`.

use std::time::Duration;

use seekclaw_testkit::{ProviderServer, Reply, StartOptions};
use serde_json::{Value, json};

use crate::support::turns::{chat, setup};

/// The chat's terminal envelope.
fn ended(d: &seekclaw_testkit::DaemonProcess) -> Value {
    let mut c = d.connect().unwrap();
    let all = chat(&mut c, json!({"message": "go", "global": true}));
    all.last().unwrap().clone()
}

fn code(end: &Value) -> &str {
    assert_eq!(end["event"], "error", "{end}");
    end["details"]["code"].as_str().unwrap()
}

#[test]
fn a_provider_error_is_provider() {
    let server = ProviderServer::start().unwrap();
    server.enqueue(Reply::http_error(
        400,
        json!({"error": {"message": "bad request"}}),
        None,
    ));
    let d = setup(&server, StartOptions::default());
    let end = ended(&d);
    assert_eq!(code(&end), "provider");
    assert!(end["data"].as_str().unwrap().contains("400"), "{end}");
}

#[test]
fn no_usable_model_is_no_model() {
    // No provider configured at all.
    let d = crate::support::start();
    let end = ended(&d);
    assert_eq!(code(&end), "no_model");
}

#[test]
fn the_step_limit_is_step_limit() {
    let server = ProviderServer::start().unwrap();
    server.set_default(Reply::new().tool_call("c1", "plan", r#"{"steps":["a"]}"#));
    let d = setup(
        &server,
        StartOptions {
            config: Some(json!({"agent": {"maxSteps": 2, "maxRepairAttempts": 0}})),
            ..StartOptions::default()
        },
    );
    let end = ended(&d);
    assert_eq!(code(&end), "step_limit");
    assert!(
        end["data"].as_str().unwrap().contains("agent.maxSteps"),
        "{end}"
    );
}

/// A daemon whose provider holds its headers 5 s while its timeout is 1 s
/// (one attempt), and that provider's config entry.
fn slow_provider(server: &ProviderServer) -> (seekclaw_testkit::DaemonProcess, Value) {
    server.set_default(Reply::plain("late").header_delay(Duration::from_secs(5)));
    let mut config = json!({});
    config["routing"] = json!({"retry": {"maxAttempts": 1, "baseDelaySeconds": 0.01}});
    let d = setup(
        server,
        StartOptions {
            config: Some(config),
            ..StartOptions::default()
        },
    );
    // The testkit provider's timeout, shortened.
    let cfg_path = d.home.join("config.json");
    let mut cfg: Value = serde_json::from_slice(&std::fs::read(&cfg_path).unwrap()).unwrap();
    cfg["providers"][0]["timeoutSeconds"] = json!(1);
    std::fs::write(&cfg_path, serde_json::to_vec(&cfg).unwrap()).unwrap();
    (d, cfg["providers"][0].clone())
}

#[test]
fn a_provider_that_does_not_answer_in_time_is_timeout() {
    let server = ProviderServer::start().unwrap();
    let (d, _) = slow_provider(&server);
    let mut c = d.connect().unwrap();
    let all = chat(&mut c, json!({"message": "go", "global": true}));
    let end = all.last().unwrap();
    assert_eq!(code(end), "timeout");
}

#[test]
fn a_side_request_whose_provider_does_not_answer_in_time_is_timeout_too() {
    let server = ProviderServer::start().unwrap();
    let (d, provider) = slow_provider(&server);
    let mut c = d.connect().unwrap();
    let first = &provider["models"][0];
    let model = format!(
        "{}/{}",
        provider["id"].as_str().unwrap(),
        first.as_str().or(first["id"].as_str()).unwrap()
    );
    // Before: `provider`, whatever the cause; a timeout is `timeout` as in a turn.
    let err = c
        .err("prompt.optimize", json!({"text": "x", "model": model}))
        .unwrap();
    assert_eq!(err["details"]["code"], "timeout", "{err}");
    assert!(err["data"].as_str().unwrap().contains("timed out"), "{err}");
}
