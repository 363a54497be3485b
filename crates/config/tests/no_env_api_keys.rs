//! API keys come only from config.json (DESIGN.md decision 10). This lives in its
//! own test binary with a single test, because setting env vars is only sound
//! while no other thread reads the environment.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fs;

use seekclaw_config::{Config, load_json_file, save_json_file};

#[test]
fn api_keys_are_never_read_from_the_environment() {
    // SAFETY: the only test in this binary; no other thread touches the environment.
    unsafe {
        std::env::set_var("DEEPSEEK_API_KEY", "sk-from-env-deepseek");
        std::env::set_var("OPENAI_API_KEY", "sk-from-env-openai");
        std::env::set_var("ANTHROPIC_API_KEY", "sk-from-env-anthropic");
    }
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("config.json");
    fs::write(
        &path,
        r#"{"providers":[
            {"id":"deepseek","baseUrl":"https://api.deepseek.com"},
            {"id":"openai","kind":"openai","baseUrl":"https://api.openai.com/v1"},
            {"id":"anthropic","kind":"anthropic","baseUrl":"https://api.anthropic.com"},
            {"id":"withkey","apiKey":"sk-from-config"}
        ]}"#,
    )
    .unwrap();
    let config = load_json_file::<Config>(&path).unwrap().value;
    assert_eq!(config.providers.len(), 4);
    for p in &config.providers[..3] {
        assert_eq!(p.api_key, None, "provider {} got a key", p.id);
    }
    assert_eq!(
        config.providers[3].api_key.as_deref(),
        Some("sk-from-config")
    );

    save_json_file(&path, &config).unwrap();
    let text = fs::read_to_string(&path).unwrap();
    assert!(!text.contains("sk-from-env"), "{text}");
    assert_eq!(text.matches("apiKey").count(), 1);
}
