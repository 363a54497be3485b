use super::*;
use crate::builtin::testing::ws;
use crate::tool::Tool;
use seekclaw_testkit::{FakeWeb, WebReply, pages};
use std::sync::Arc;

const HITS: &[(&str, &str, &str)] = &[
    ("First", "https://one.example/", "one"),
    ("First again", "http://www.one.example", "dup"),
    ("Second", "https://two.example/x", "two"),
    ("Third", "https://three.example/", "three"),
];

fn settings(engine: SearchEngine, url: &str, key: Option<&str>) -> Arc<WebSearchSettings> {
    Arc::new(WebSearchSettings {
        engine,
        url: Some(url.to_string()),
        api_key: key.map(str::to_string),
        ..WebSearchSettings::default()
    })
}

async fn call(web: &Arc<WebSearchSettings>, args: serde_json::Value) -> ToolOutput {
    let w = ws();
    let mut ctx = w.ctx.clone();
    ctx.network_enabled = true;
    ctx.web_search = web.clone();
    WebSearchTool::new().execute(args, &ctx).await
}

#[tokio::test]
async fn searxng_results_deduplicated_and_capped() {
    let fake = FakeWeb::start().unwrap();
    fake.route("format=json", WebReply::json(&pages::searxng(HITS)));
    let s = settings(SearchEngine::Searxng, &fake.base_url(), None);
    let out = call(&s, serde_json::json!({"query": "rust lang"})).await;
    assert!(out.success, "{}", out.content);
    assert_eq!(
        out.content,
        "Results for \"rust lang\" from searxng:\n\n1. First\n   https://one.example/\n   one\n\n\
2. Second\n   https://two.example/x\n   two\n\n3. Third\n   https://three.example/\n   three\n"
    );
    assert_eq!(out.summary, "3 result(s) for \"rust lang\" from searxng");
    let out = call(&s, serde_json::json!({"query": "rust", "max_results": "2"})).await;
    assert_eq!(out.content.matches("\n   https://").count(), 2);
    assert!(fake.requests()[0].target.contains("q=rust+lang"));
}

#[tokio::test]
async fn auto_falls_through_a_consent_wall_and_an_error_to_the_next_engine() {
    let fake = FakeWeb::start().unwrap();
    fake.route("hl=en", WebReply::html(pages::google_consent()));
    fake.route(
        "setlang=en",
        WebReply::with(503, "text/html", "<h1>Busy</h1>"),
    );
    fake.route("/s?wd=", WebReply::html(pages::baidu(HITS, 0)));
    let s = settings(SearchEngine::Auto, &fake.base_url(), None);
    let out = call(&s, serde_json::json!({"query": "q"})).await;
    assert!(out.success, "{}", out.content);
    assert!(out.content.starts_with("Results for \"q\" from baidu:\n(google was skipped: answered a cookie-consent page instead of results)\n(bing was skipped: HTTP 503 Service Unavailable: Busy)\n"), "{}", out.content);
    assert!(out.content.contains("3. Third"));
}

#[tokio::test]
async fn every_engine_failing_names_each_reason() {
    let fake = FakeWeb::start().unwrap();
    fake.route(
        "hl=en",
        WebReply::html("<html><body>nothing here</body></html>"),
    );
    let s = settings(SearchEngine::Auto, &fake.base_url(), None);
    let out = call(&s, serde_json::json!({"query": "q"})).await;
    assert!(!out.success);
    assert_eq!(
        out.content.lines().take(4).collect::<Vec<_>>(),
        [
            "web_search found nothing for \"q\": every engine failed.",
            "- google: no results on its page",
            "- bing: HTTP 404 Not Found: not found",
            "- baidu: HTTP 404 Not Found: not found",
        ]
    );
}

#[tokio::test]
async fn the_key_is_sent_but_never_shown() {
    let fake = FakeWeb::start().unwrap();
    let key = "tvly-SECRET-123456";
    fake.route(
        "/search",
        WebReply::with(
            401,
            "application/json",
            format!("{{\"error\": \"bad key {key}\"}}"),
        ),
    );
    let s = settings(SearchEngine::Tavily, &fake.base_url(), Some(key));
    let out = call(&s, serde_json::json!({"query": "q"})).await;
    assert!(!out.success);
    assert!(
        !out.content.contains(key) && !out.summary.contains(key),
        "{}",
        out.content
    );
    assert!(out.content.contains("[redacted]"), "{}", out.content);
    let sent = &fake.requests()[0];
    assert_eq!(sent.method, "POST");
    assert!(
        sent.headers
            .iter()
            .any(|(k, v)| k == "authorization" && v == &format!("Bearer {key}"))
    );

    let fake = FakeWeb::start().unwrap();
    fake.route(
        "/res/v1/web/search",
        WebReply::json(&serde_json::json!({"web": {"results": [
        {"title": "B", "url": "https://b.example/", "description": "d"}]}})),
    );
    let s = settings(SearchEngine::Brave, &fake.base_url(), Some("brave-key-xyz"));
    let out = call(&s, serde_json::json!({"query": "q"})).await;
    assert!(out.success, "{}", out.content);
    assert!(
        fake.requests()[0]
            .headers
            .iter()
            .any(|(k, v)| k == "x-subscription-token" && v == "brave-key-xyz")
    );
}

#[tokio::test]
async fn unusable_engines_network_off_and_bad_arguments() {
    let s = Arc::new(WebSearchSettings::default());
    let out = call(&s, serde_json::json!({"query": "q", "engine": "searxng"})).await;
    assert_eq!(
        out.content.lines().nth(1),
        Some("- searxng: needs agent.webSearch.url (the SearXNG instance)")
    );
    let out = call(&s, serde_json::json!({"query": "q", "engine": "brave"})).await;
    assert!(
        out.content.contains(
            "- brave: needs \"agent\": {\"webSearch\": {\"engine\": \"brave\", \"apiKey\": …}}"
        ),
        "{}",
        out.content
    );
    let out = call(&s, serde_json::json!({"query": "q", "engine": "duck"})).await;
    assert!(out.content.starts_with("Unknown search engine 'duck'"));
    let out = call(&s, serde_json::json!({"query": "  "})).await;
    assert_eq!(out.content, "The search query is empty.");
    let w = ws();
    let mut offline = w.ctx.clone();
    offline.network_enabled = false;
    let out = WebSearchTool::new()
        .execute(serde_json::json!({"query": "q"}), &offline)
        .await;
    assert!(out.content.starts_with("Network access is off"));
}
