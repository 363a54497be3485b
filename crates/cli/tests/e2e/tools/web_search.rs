//! `web_search` end to end: results reach the model, the network toggle hides
//! the tool, a failing engine falls through, and the key never shows.

use seekclaw_testkit::{FakeWeb, ProviderServer, Reply, StartOptions, WebReply, pages};
use serde_json::{Value, json};

use crate::support::project_dir;
use crate::support::turns::{chat, events, setup};

const HITS: &[(&str, &str, &str)] = &[
    (
        "Tokio tutorial",
        "https://tokio.rs/tokio/tutorial",
        "An async runtime for Rust.",
    ),
    (
        "Async book",
        "https://rust-lang.github.io/async-book/",
        "Asynchronous programming in Rust.",
    ),
];

fn with_search(search: Value) -> StartOptions {
    StartOptions {
        config: Some(json!({"agent": {"webSearch": search}})),
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

/// The `tool` message the second request carries.
fn tool_message(server: &ProviderServer) -> String {
    let second = &server.requests()[1].body;
    second["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "tool")
        .and_then(|m| m["content"].as_str())
        .unwrap()
        .to_string()
}

#[test]
fn searxng_results_reach_the_model_and_protocol_info_lists_the_tools() {
    let fake = FakeWeb::start().unwrap();
    fake.route("format=json", WebReply::json(&pages::searxng(HITS)));
    let server = ProviderServer::start().unwrap();
    server.enqueue(Reply::new().tool_call(
        "c1",
        "web_search",
        r#"{"query":"rust async","max_results":5}"#,
    ));
    server.enqueue(Reply::plain("Tokio it is."));
    let d = setup(
        &server,
        with_search(json!({"engine": "searxng", "url": fake.base_url()})),
    );
    let mut c = d.connect().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let ws = project_dir(tmp.path(), "proj");
    let all = chat(
        &mut c,
        json!({"message": "find docs", "workspace": ws.display().to_string()}),
    );
    assert_eq!(all.last().unwrap()["data"], "Tokio it is.");
    let done = &events(&all, "tool_done")[0];
    assert_eq!(done["details"]["success"], true, "{done}");
    assert_eq!(done["data"], "2 result(s) for \"rust async\" from searxng");
    assert!(offered(&server.requests()[0].body).contains(&"web_search".to_string()));
    let tool = tool_message(&server);
    assert!(
        tool.starts_with("Results for \"rust async\" from searxng:\n"),
        "{tool}"
    );
    assert!(
        tool.contains(
            "1. Tokio tutorial\n   https://tokio.rs/tokio/tutorial\n   An async runtime for Rust."
        ),
        "{tool}"
    );
    assert!(tool.contains("2. Async book"), "{tool}");
    let asked = &fake.requests()[0];
    assert!(
        asked.target.starts_with("/search?q=rust+async&format=json"),
        "{}",
        asked.target
    );

    let info = c.ok_json("protocol.info", json!({})).unwrap();
    let tools: Vec<&str> = info["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    assert!(
        tools.contains(&"web_search") && tools.contains(&"capture_screen"),
        "{tools:?}"
    );
}

#[test]
fn with_the_network_off_neither_web_tool_is_offered() {
    let fake = FakeWeb::start().unwrap();
    let server = ProviderServer::start().unwrap();
    let d = setup(
        &server,
        with_search(json!({"engine": "searxng", "url": fake.base_url()})),
    );
    let mut c = d.connect().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let w = project_dir(tmp.path(), "proj").display().to_string();
    for (network, n) in [(false, 0), (true, 1)] {
        let sid = c
            .ok(
                "session.new",
                json!({"workspace": w, "networkEnabled": network}),
            )
            .unwrap();
        chat(
            &mut c,
            json!({"message": "hi", "workspace": w, "sessionId": sid}),
        );
        let tools = offered(&server.requests()[n].body);
        assert_eq!(
            tools.contains(&"web_search".to_string()),
            network,
            "{tools:?}"
        );
        assert_eq!(
            tools.contains(&"web_fetch".to_string()),
            network,
            "{tools:?}"
        );
        assert!(tools.contains(&"read_file".to_string()));
    }
    assert!(fake.requests().is_empty());
}

#[test]
fn auto_falls_through_a_failing_engine_to_the_next() {
    let fake = FakeWeb::start().unwrap();
    // Google (`hl=en`) fails, Bing (`setlang=en`) answers its HTML page.
    fake.route(
        "hl=en",
        WebReply::with(500, "text/html", "<p>internal error</p>"),
    );
    fake.route("setlang=en", WebReply::html(pages::bing(HITS, 50_000)));
    let server = ProviderServer::start().unwrap();
    server.enqueue(Reply::new().tool_call("c1", "web_search", r#"{"query":"tokio"}"#));
    server.enqueue(Reply::plain("done"));
    let d = setup(&server, with_search(json!({"url": fake.base_url()})));
    let mut c = d.connect().unwrap();
    chat(&mut c, json!({"message": "search", "global": true}));
    let tool = tool_message(&server);
    assert!(
        tool.starts_with("Results for \"tokio\" from bing:\n(google was skipped: HTTP 500 Internal Server Error: internal error)\n"),
        "{tool}"
    );
    assert!(
        tool.contains("1. Tokio tutorial\n   https://tokio.rs/tokio/tutorial"),
        "{tool}"
    );
    let targets: Vec<String> = fake.requests().iter().map(|r| r.target.clone()).collect();
    assert_eq!(targets.len(), 2, "{targets:?}");
}

#[test]
fn the_api_key_never_appears_in_events_logs_errors_or_the_doctor() {
    let key = "tvly-E2E-SECRET-7f3a9c";
    let fake = FakeWeb::start().unwrap();
    // An engine that echoes the key back in its error.
    fake.route(
        "/search",
        WebReply::with(
            401,
            "application/json",
            format!("{{\"detail\": \"invalid key {key}\"}}"),
        ),
    );
    let server = ProviderServer::start().unwrap();
    server.enqueue(Reply::new().tool_call("c1", "web_search", r#"{"query":"q"}"#));
    server.enqueue(Reply::plain("no luck"));
    let d = setup(
        &server,
        with_search(json!({"engine": "tavily", "url": fake.base_url(), "apiKey": key})),
    );
    let mut c = d.connect().unwrap();
    let all = chat(&mut c, json!({"message": "search", "global": true}));
    let done = &events(&all, "tool_done")[0];
    assert_eq!(done["details"]["success"], false);
    // The key went to the engine, in its header only.
    let sent = &fake.requests()[0];
    assert!(
        sent.headers
            .iter()
            .any(|(k, v)| k == "authorization" && v.ends_with(key))
    );
    assert!(!sent.target.contains(key) && !sent.body.contains(key));
    let tool = tool_message(&server);
    assert!(tool.contains("- tavily: HTTP 401 Unauthorized"), "{tool}");
    assert!(tool.contains("[redacted]"), "{tool}");
    let sid = all[0]["sessionId"].as_str().unwrap();
    let session = c
        .ok_json("session.get", json!({"id": sid, "global": true}))
        .unwrap();
    let doctor = c.request("doctor.run", json!({})).unwrap();
    let seen = [
        serde_json::to_string(&all).unwrap(),
        server
            .requests()
            .iter()
            .map(|r| r.raw_body.clone())
            .collect::<String>(),
        session.to_string(),
        doctor.to_string(),
        d.stderr(),
    ];
    for (i, text) in seen.iter().enumerate() {
        assert!(!text.contains(key), "the key shows in #{i}: {text}");
    }
    assert!(doctor.to_string().contains("engine tavily"), "{doctor}");
}
