//! `seekclaw provider add` in a real terminal: the key is asked without
//! echo, and a custom provider's models are picked from the endpoint's list.

use serde_json::Value;

use crate::support::screen::Screen;

fn config(home: &std::path::Path) -> Value {
    serde_json::from_slice(&std::fs::read(home.join("config.json")).unwrap()).unwrap()
}

#[test]
fn the_key_is_asked_without_echo_and_models_are_picked_from_the_endpoint() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let secret = "sk-typed-never-on-screen-42";

    let screen = Screen::exiting(&home, &["provider", "add", "deepseek"]);
    screen.wait_for("API key for deepseek (input hidden");
    screen.type_text(secret);
    screen.keys(&["Enter"]);
    let shown = screen.wait_for("[exit 0]");
    assert!(!shown.contains(secret), "the key was echoed:\n{shown}");
    assert_eq!(config(&home)["providers"][0]["apiKey"], secret);
    drop(screen);

    let server = seekclaw_testkit::ProviderServer::start().unwrap();
    server.set_models(["alpha", "beta", "gamma"]);
    let url = format!("{}/v1", server.base_url());
    let screen = Screen::exiting(&home, &["provider", "add", "mine", "--base-url", &url]);
    // A provider on this machine is not asked for a key.
    screen.wait_for("offers 3 models:");
    screen.type_text("9");
    screen.keys(&["Enter"]);
    screen.wait_for("\"9\" is not a number from 1 to 3");
    screen.type_text("3,2");
    screen.keys(&["Enter"]);
    screen.wait_for("[exit 0]");
    let config = config(&home);
    let mine = config["providers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["id"] == "mine")
        .unwrap();
    let ids: Vec<&str> = mine["models"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_str().or(m.as_str()).unwrap())
        .collect();
    assert_eq!(ids, ["gamma", "beta"]);
    assert!(mine.get("apiKey").is_none_or(Value::is_null), "{mine}");
}
