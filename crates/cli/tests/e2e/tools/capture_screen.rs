//! `capture_screen` end to end on a real X server (Xvfb, started here and
//! killed by its pid): a vision model's next request carries the PNG, a
//! model without vision is not offered the tool, a dead display is a tool error.

use base64::Engine as _;
use seekclaw_testkit::{
    ProviderServer, Reply, StartOptions, Xvfb, capability_missing, program_missing,
};
use serde_json::{Value, json};

use crate::support::project_dir;
use crate::support::turns::{chat, events, setup};

fn no_xvfb() -> bool {
    capability_missing("xvfb", program_missing("Xvfb"))
}

fn on_display(display: &str) -> StartOptions {
    StartOptions {
        env: vec![
            ("DISPLAY".into(), display.into()),
            ("WAYLAND_DISPLAY".into(), String::new()),
        ],
        ..StartOptions::default()
    }
}

fn offered(request: &Value) -> Vec<String> {
    request["tools"]
        .as_array()
        .map(|t| {
            t.iter()
                .map(|t| {
                    t["function"]["name"]
                        .as_str()
                        .unwrap_or_default()
                        .to_string()
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Width and height from a PNG's IHDR, after checking that it decodes.
fn png_size(bytes: &[u8]) -> (u32, u32) {
    let decoder = png::Decoder::new(std::io::Cursor::new(bytes));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let frame = reader.next_frame(&mut buf).unwrap();
    (frame.width, frame.height)
}

#[test]
fn a_vision_model_gets_the_screenshot_in_its_next_request() {
    if no_xvfb() {
        return;
    }
    let xvfb = Xvfb::start(1920, 1080).unwrap();
    let server = ProviderServer::start().unwrap();
    server.enqueue(Reply::new().tool_call(
        "c1",
        "capture_screen",
        r#"{"description":"the editor"}"#,
    ));
    server.enqueue(Reply::plain("I see a plain screen."));
    let d = setup(&server, on_display(xvfb.display()));
    let mut c = d.connect().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let ws = project_dir(tmp.path(), "proj");
    let all = chat(
        &mut c,
        json!({"message": "look", "workspace": ws.display().to_string(), "model": "tk/eyes"}),
    );
    assert_eq!(
        all.last().unwrap()["data"],
        "I see a plain screen.",
        "{all:?}"
    );
    let done = &events(&all, "tool_done")[0];
    assert_eq!(done["details"]["success"], true, "{done}");
    let requests = server.requests();
    assert!(offered(&requests[0].body).contains(&"capture_screen".to_string()));
    let messages = requests[1].body["messages"].as_array().unwrap();
    let at = messages.iter().position(|m| m["role"] == "tool").unwrap();
    let tool = messages[at]["content"].as_str().unwrap();
    assert!(
        tool.starts_with(
            "Screenshot of monitor 0 (1920x1080 at 0,0), attached as a 1672x940 PNG; saved to "
        ),
        "{tool}"
    );
    assert!(tool.ends_with("\nLooking for: the editor"), "{tool}");
    // OpenAI-compatible: the image follows the tool message as a user message.
    let next = &messages[at + 1];
    assert_eq!(next["role"], "user");
    let url = next["content"][1]["image_url"]["url"].as_str().unwrap();
    let data = url.strip_prefix("data:image/png;base64,").unwrap();
    let png = base64::engine::general_purpose::STANDARD
        .decode(data)
        .unwrap();
    assert_eq!(png_size(&png), (1672, 940));
    // The same PNG is kept under the workspace cache.
    let shots: Vec<_> = std::fs::read_dir(ws.join(".seekclaw/cache/screenshots"))
        .unwrap()
        .flatten()
        .collect();
    assert_eq!(shots.len(), 1);
    assert_eq!(std::fs::read(shots[0].path()).unwrap(), png);
}

#[test]
fn a_model_without_vision_is_not_offered_the_tool() {
    if no_xvfb() {
        return;
    }
    let xvfb = Xvfb::start(640, 480).unwrap();
    let server = ProviderServer::start().unwrap();
    let d = setup(&server, on_display(xvfb.display()));
    let mut c = d.connect().unwrap();
    chat(
        &mut c,
        json!({"message": "hi", "global": true, "model": "tk/m1"}),
    );
    chat(
        &mut c,
        json!({"message": "hi", "global": true, "model": "tk/eyes"}),
    );
    let requests = server.requests();
    assert!(!offered(&requests[0].body).contains(&"capture_screen".to_string()));
    assert!(offered(&requests[1].body).contains(&"capture_screen".to_string()));
}

#[test]
fn no_display_is_a_tool_error() {
    // A display that nothing serves: offered (DISPLAY is set), fails clearly.
    let server = ProviderServer::start().unwrap();
    server.enqueue(Reply::new().tool_call("c1", "capture_screen", "{}"));
    server.enqueue(Reply::plain("no screen"));
    let d = setup(&server, on_display(":29873"));
    let mut c = d.connect().unwrap();
    let all = chat(
        &mut c,
        json!({"message": "look", "global": true, "model": "tk/eyes"}),
    );
    assert_eq!(all.last().unwrap()["data"], "no screen");
    let done = &events(&all, "tool_done")[0];
    assert_eq!(done["details"]["success"], false);
    let messages = server.requests()[1].body["messages"].clone();
    let tool = messages
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "tool")
        .unwrap();
    assert!(
        tool["content"]
            .as_str()
            .unwrap()
            .starts_with("Cannot capture the screen: cannot connect to the X display :29873"),
        "{tool}"
    );
    // No display at all: not offered, and a call anyway is refused by name.
    let server = ProviderServer::start().unwrap();
    server.enqueue(Reply::new().tool_call("c1", "capture_screen", "{}"));
    server.enqueue(Reply::plain("ok"));
    let d = setup(&server, on_display(""));
    let mut c = d.connect().unwrap();
    chat(
        &mut c,
        json!({"message": "look", "global": true, "model": "tk/eyes"}),
    );
    let requests = server.requests();
    assert!(!offered(&requests[0].body).contains(&"capture_screen".to_string()));
    let messages = requests[1].body["messages"].clone();
    let tool = messages
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "tool")
        .unwrap();
    assert!(
        tool["content"]
            .as_str()
            .unwrap()
            .contains("needs a display"),
        "{tool}"
    );
}

#[test]
fn anthropic_gets_the_screenshot_inside_the_tool_result() {
    if no_xvfb() {
        return;
    }
    let xvfb = Xvfb::start(1920, 1080).unwrap();
    let server = ProviderServer::start().unwrap();
    server.enqueue(Reply::new().tool_call("toolu_1", "capture_screen", "{}"));
    server.enqueue(Reply::plain("seen"));
    let config = json!({"providers": [{
        "id": "ak", "kind": "anthropic", "baseUrl": server.base_url(), "apiKey": "sk-ant-test",
        "models": [{"id": "claude-eyes", "contextWindow": 200000, "maxOutput": 4096,
                    "capabilities": {"vision": true}}]
    }]});
    let d = crate::support::start_with(StartOptions {
        config: Some(config),
        ..on_display(xvfb.display())
    });
    let mut c = d.connect().unwrap();
    let all = chat(&mut c, json!({"message": "look", "global": true}));
    assert_eq!(all.last().unwrap()["data"], "seen", "{all:?}");
    let requests = server.requests();
    assert_eq!(requests[1].path, "/v1/messages");
    let last = requests[1].body["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(last["role"], "user");
    let result = &last["content"][0];
    assert_eq!(
        (result["type"].as_str(), result["tool_use_id"].as_str()),
        (Some("tool_result"), Some("toolu_1"))
    );
    let blocks = result["content"].as_array().unwrap();
    assert_eq!(blocks[0]["type"], "text");
    assert_eq!(blocks[1]["type"], "image");
    assert_eq!(blocks[1]["source"]["media_type"], "image/png");
    let png = base64::engine::general_purpose::STANDARD
        .decode(blocks[1]["source"]["data"].as_str().unwrap())
        .unwrap();
    // Anthropic's limit: 1568 px long edge and about 1.15 megapixels.
    assert_eq!(png_size(&png), (1429, 804));
}
