use std::fs;

use super::*;
use crate::jsonfile::{load_json_file, save_json_file};
use crate::provider::Model;

fn load(text: &str) -> Config {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("config.json");
    fs::write(&path, text).unwrap();
    let loaded = load_json_file::<Config>(&path).unwrap();
    // Unknown keys are kept (and reported); nothing may be mistyped here.
    let mistyped: Vec<_> = loaded
        .warnings
        .iter()
        .filter(|w| !w.message.starts_with("unknown field"))
        .collect();
    assert!(mistyped.is_empty(), "{mistyped:?}");
    loaded.value
}

fn save_and_read(config: &Config) -> String {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("config.json");
    save_json_file(&path, config).unwrap();
    fs::read_to_string(&path).unwrap()
}

#[test]
fn defaults_round_trip() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("config.json");
    let config = Config::default();
    save_json_file(&path, &config).unwrap();
    let loaded = load_json_file::<Config>(&path).unwrap();
    assert!(loaded.warnings.is_empty());
    assert_eq!(loaded.value, config);
    // Saving what was loaded is byte-identical.
    let first = fs::read_to_string(&path).unwrap();
    save_json_file(&path, &loaded.value).unwrap();
    assert_eq!(fs::read_to_string(&path).unwrap(), first);
}

#[test]
fn default_values() {
    let c = Config::default();
    assert_eq!(c.active_profile, "default");
    assert_eq!(c.profiles.len(), 1);
    assert_eq!(c.profiles["default"], Profile::default());
    assert!(c.providers.is_empty());
    assert!(c.routing.failover_enabled);
    assert!(!c.routing.deep_seek_optimization_enabled);
    assert!(c.routing.strategies.is_empty());
    assert_eq!(c.routing.load_balance, LoadBalance::Priority);
    assert_eq!(c.routing.retry.max_attempts, 3);
    assert_eq!(c.routing.retry.base_delay_seconds, 1.0);
    assert_eq!(c.routing.retry.max_delay_seconds, 20.0);
    assert_eq!(c.routing.retry.circuit_break_threshold, 4);
    assert_eq!(c.routing.retry.circuit_cooldown_seconds, 60.0);
    let a = &c.agent;
    assert_eq!(a.max_steps, 40);
    assert!(a.auto_verify);
    assert_eq!(a.max_repair_attempts, 3);
    assert_eq!(a.personality, "pragmatic");
    assert!(a.enable_context_compaction);
    assert_eq!(a.max_output_continuations, 6);
    assert_eq!(a.mode, AgentMode::Edit);
    assert_eq!(a.system_prompt, "system/default");
    assert_eq!(a.thinking_budget_tokens, 16384);
    assert_eq!(a.reasoning_level, ReasoningLevel::High);
    assert_eq!(a.max_tool_output_chars, 60_000);
    assert_eq!(a.bash_timeout_seconds, 180);
    assert_eq!(a.scheduled_turn_timeout_seconds, 1800);
    assert_eq!(a.write_lock_timeout_seconds, 30);
    assert!(!a.allow_outside_workspace);
    assert_eq!(a.sandbox, crate::SandboxMode::WorkspaceWrite);
    assert_eq!(a.max_concurrent_scheduled_turns, 4);
    assert!(c.mcp.servers.is_empty());
    assert_eq!(c.daemon.slow_client_timeout_seconds, 10);
    assert_eq!(c.daemon.scheduler_tick_milliseconds, 10_000);
    assert!(!c.daemon.allow_short_scheduled_timeouts);
}

#[test]
fn short_scheduled_timeouts_flag_is_hidden_unless_set() {
    let text = save_and_read(&Config::default());
    assert!(
        text.contains("\"schedulerTickMilliseconds\": 10000"),
        "{text}"
    );
    assert!(!text.contains("allowShortScheduledTimeouts"), "{text}");
    let c = load(
        r#"{ "daemon": { "allowShortScheduledTimeouts": true, "schedulerTickMilliseconds": 50 } }"#,
    );
    assert!(c.daemon.allow_short_scheduled_timeouts);
    assert_eq!(c.daemon.scheduler_tick_milliseconds, 50);
    assert!(save_and_read(&c).contains("\"allowShortScheduledTimeouts\": true"));
}

#[test]
fn written_file_shape() {
    let text = save_and_read(&Config::default());
    assert!(text.contains("\"reasoningLevel\": \"high\""), "{text}");
    assert!(text.contains("\"mode\": \"edit\""));
    assert!(text.contains("\"slowClientTimeoutSeconds\": 10"));
    assert!(text.starts_with("{\n  \"activeProfile\": \"default\",\n"));
    assert!(!text.contains("null"), "None must be skipped: {text}");
    let v: Value = serde_json::from_str(&text).unwrap();
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "activeProfile",
            "profiles",
            "providers",
            "routing",
            "agent",
            "mcp",
            "daemon"
        ]
    );
}

#[test]
fn partial_file_loads_with_defaults() {
    let c = load(
        r#"{
        "agent": { "maxSteps": 12, "reasoningLevel": "LOW" },
        "providers": [ { "id": "ds", "baseUrl": "https://api.deepseek.com",
                         "models": [ { "id": "deepseek-chat", "capabilities": { "vision": true } } ] } ]
    }"#,
    );
    assert_eq!(c.active_profile, "default");
    assert!(c.profiles.contains_key("default"));
    assert_eq!(c.agent.max_steps, 12);
    assert_eq!(c.agent.reasoning_level, ReasoningLevel::Low);
    assert_eq!(c.agent.bash_timeout_seconds, 180);
    assert_eq!(c.routing.retry.max_attempts, 3);
    let p = &c.providers[0];
    assert_eq!(p.kind, "openai");
    assert_eq!(p.timeout_seconds, 120);
    assert!(p.prompt_caching && p.enabled);
    let m: &Model = &p.models[0];
    assert_eq!(m.context_window, 128_000);
    assert!(m.capabilities.vision && m.capabilities.streaming && m.capabilities.tool_calling);
    assert_eq!(m.capabilities.max_reasoning_level, ReasoningLevel::Max);
}

#[test]
fn comments_trailing_commas_and_int_levels() {
    let c = load(
        r#"{
        // who we are
        "activeProfile": "work", /* inline */
        "profiles": { "Work": { "model": "ds/deepseek-chat", "mode": "Planning", temperature: 1, }, },
        "providers": [ { id: 'p', models: [ { id: 'm', inputPricePerMTok: 3, outputPricePerMTok: .5 } ] } ],
        "agent": { "reasoningLevel": 5, "mode": "READ-ONLY", },
        "routing": { "loadBalance": "RoundRobin", "retry": { "maxAttempts": 5, }, },
    }"#,
    );
    assert_eq!(c.agent.reasoning_level, ReasoningLevel::Xhigh);
    assert_eq!(c.agent.mode, AgentMode::Readonly);
    assert_eq!(c.routing.load_balance, LoadBalance::RoundRobin);
    assert_eq!(c.routing.retry.max_attempts, 5);
    let profile = c.active_profile().unwrap();
    assert_eq!(profile.model.as_deref(), Some("ds/deepseek-chat"));
    assert_eq!(profile.mode, Some(AgentMode::Plan));
    assert_eq!(profile.temperature, Some(1.0));
    let m = &c.providers[0].models[0];
    assert_eq!(
        (m.input_price_per_mtok, m.output_price_per_mtok),
        (3.0, 0.5)
    );
}

#[test]
fn unknown_keys_preserved_across_load_and_save() {
    let text = r#"{
        "futureTopLevel": { "a": [1, 2, 3] },
        "activeProfile": "default",
        "profiles": { "default": { "futureProfileKey": true } },
        "providers": [ {
            "id": "p", "futureProviderKey": "x", "displayName": "old",
            "models": [ { "id": "m", "futureModelKey": 1.5,
                          "capabilities": { "futureCap": "y" } } ]
        } ],
        "routing": { "futureRouting": 1, "retry": { "futureRetry": 2 } },
        "agent": { "futureAgent": "z" },
        "mcp": { "futureMcp": 3, "servers": { "fs": { "command": "npx", "futureServer": 4 } } },
        "daemon": { "futureDaemon": 5 }
    }"#;
    let c = load(text);
    assert_eq!(c.extra["futureTopLevel"]["a"][2], 3);
    let saved = save_and_read(&c);
    let v: Value = serde_json::from_str(&saved).unwrap();
    assert_eq!(v["futureTopLevel"]["a"], serde_json::json!([1, 2, 3]));
    assert_eq!(v["profiles"]["default"]["futureProfileKey"], true);
    assert_eq!(v["providers"][0]["futureProviderKey"], "x");
    assert_eq!(v["providers"][0]["displayName"], "p");
    assert_eq!(v["providers"][0]["models"][0]["futureModelKey"], 1.5);
    assert_eq!(
        v["providers"][0]["models"][0]["capabilities"]["futureCap"],
        "y"
    );
    assert_eq!(v["routing"]["futureRouting"], 1);
    assert_eq!(v["routing"]["retry"]["futureRetry"], 2);
    assert_eq!(v["agent"]["futureAgent"], "z");
    assert_eq!(v["mcp"]["futureMcp"], 3);
    assert_eq!(v["mcp"]["servers"]["fs"]["futureServer"], 4);
    assert_eq!(v["mcp"]["servers"]["fs"]["transport"], "stdio");
    assert_eq!(v["daemon"]["futureDaemon"], 5);
    // And a second load/save cycle is stable.
    let again: Config = serde_json::from_str(&saved).unwrap();
    assert_eq!(again, c);
}

#[test]
fn a_bad_enum_value_falls_back_alone_and_is_named() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("config.json");
    let text = r#"{"agent":{"reasoningLevel":"extreme","maxSteps":7,"maxStep":8}}"#;
    fs::write(&path, text).unwrap();
    let loaded = load_json_file::<Config>(&path).unwrap();
    assert_eq!(loaded.value.agent.max_steps, 7);
    assert_eq!(
        loaded.value.agent.reasoning_level,
        AgentSettings::default().reasoning_level
    );
    let paths: Vec<&str> = loaded.warnings.iter().map(|w| w.path.as_str()).collect();
    assert_eq!(paths, ["agent.reasoningLevel", "agent.maxStep"]);
    assert!(loaded.warnings[1].message.contains("unknown field"));
    assert_eq!(fs::read_to_string(&path).unwrap(), text);
}

#[test]
fn the_issue_example_is_reported_by_name() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("config.json");
    fs::write(
        &path,
        r#"{"agent": {"maxSteps": "forty"}, "providers": [{"id": "p", "baseUrl": "http://h", "models": [{"id": "m"}]}]}"#,
    )
    .unwrap();
    let loaded = load_json_file::<Config>(&path).unwrap();
    assert_eq!(loaded.value.providers[0].id, "p");
    assert_eq!(loaded.value.agent.max_steps, 40);
    assert_eq!(
        loaded.warnings[0].to_string(),
        r#"agent.maxSteps: expected a whole number (0 or more), found "forty""#
    );
}

#[test]
fn active_profile_mut_creates_or_finds_case_insensitively() {
    let mut c = Config {
        profiles: BTreeMap::new(),
        active_profile: "Fast".into(),
        ..Config::default()
    };
    assert!(c.active_profile().is_none());
    c.active_profile_mut().model = Some("a/b".into());
    assert_eq!(c.profiles["Fast"].model.as_deref(), Some("a/b"));

    c.active_profile = "fast".into();
    c.active_profile_mut().strategy = Some("cheap".into());
    assert_eq!(c.profiles.len(), 1);
    assert_eq!(c.profiles["Fast"].strategy.as_deref(), Some("cheap"));
    assert!(c.active_profile().is_some());
}

#[test]
fn provider_lookup() {
    let c = load(r#"{"providers":[{"id":"DeepSeek"}]}"#);
    assert!(c.provider("deepseek").is_some());
    assert!(c.provider("other").is_none());
}

#[test]
fn load_balance_names() {
    for lb in LoadBalance::ALL {
        assert_eq!(LoadBalance::parse(lb.as_str()), Some(lb));
        let json = serde_json::to_string(&lb).unwrap();
        assert_eq!(serde_json::from_str::<LoadBalance>(&json).unwrap(), lb);
    }
    assert_eq!(
        LoadBalance::parse("round_robin"),
        Some(LoadBalance::RoundRobin)
    );
    assert_eq!(
        serde_json::from_str::<LoadBalance>("3").unwrap(),
        LoadBalance::LowestCost
    );
    assert!(serde_json::from_str::<LoadBalance>("\"random\"").is_err());
}

#[test]
fn sandbox_setting_is_strict() {
    use crate::SandboxMode;
    for (text, mode) in [
        ("workspace-write", SandboxMode::WorkspaceWrite),
        ("read-only", SandboxMode::ReadOnly),
        (" Read_Only ", SandboxMode::ReadOnly),
        ("off", SandboxMode::Off),
    ] {
        let c: Config =
            serde_json::from_str(&format!(r#"{{"agent":{{"sandbox":"{text}"}}}}"#)).unwrap();
        assert_eq!(c.agent.sandbox, mode);
    }
    let err = serde_json::from_str::<Config>(r#"{"agent":{"sandbox":"none"}}"#).unwrap_err();
    assert!(err.to_string().contains("agent.sandbox must be"), "{err}");
    // Stricter is larger.
    assert!(SandboxMode::ReadOnly > SandboxMode::WorkspaceWrite);
    assert!(SandboxMode::WorkspaceWrite > SandboxMode::Off);
    let out = serde_json::to_value(Config::default()).unwrap();
    assert_eq!(out["agent"]["sandbox"], "workspace-write");
}

#[test]
fn a_workspace_sets_its_sandbox() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("config.json");
    fs::write(&path, r#"{"sandbox":"read-only"}"#).unwrap();
    let ws = crate::read_json_lenient::<crate::WorkspaceConfig>(&path)
        .unwrap()
        .unwrap();
    assert_eq!(ws.sandbox, Some(crate::SandboxMode::ReadOnly));
}

#[test]
fn a_model_may_be_written_as_its_bare_id_and_a_bad_field_inside_keeps_its_path() {
    let c = load(
        r#"{"providers": [{"id": "p", "baseUrl": "http://h/v1", "models": ["m1", {"id": "m2", "contextWindow": 9}]}]}"#,
    );
    let ids: Vec<&str> = c.providers[0]
        .models
        .iter()
        .map(|m| m.id.as_str())
        .collect();
    assert_eq!(ids, ["m1", "m2"]);
    assert_eq!(
        c.providers[0].models[0],
        Model {
            id: "m1".into(),
            ..Model::default()
        }
    );
    assert_eq!(c.providers[0].models[1].context_window, 9);

    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("config.json");
    fs::write(
        &path,
        r#"{"providers": [{"id": "p", "models": ["m1", {"id": "m2", "contextWindow": "big"}]}]}"#,
    )
    .unwrap();
    let loaded = load_json_file::<Config>(&path).unwrap();
    let paths: Vec<&str> = loaded.warnings.iter().map(|w| w.path.as_str()).collect();
    assert_eq!(
        paths,
        ["providers[0].models[1].contextWindow"],
        "{:?}",
        loaded.warnings
    );
    assert_eq!(loaded.value.providers[0].models.len(), 2);
}

#[test]
fn an_oauth_block_keeps_its_unknown_keys() {
    let config = load(
        r#"{"mcp": {"servers": {"corp": {"transport": "http", "url": "https://x.example/mcp",
            "oauth": {"clientId": "sc", "audience": "api://corp"}}}}}"#,
    );
    let server = &config.mcp.servers["corp"];
    let oauth = server.oauth.as_ref().unwrap();
    assert_eq!(oauth.client_id.as_deref(), Some("sc"));
    let mut unknown = Vec::new();
    crate::UnknownFields::unknown_fields(&config, "", &mut unknown);
    assert_eq!(unknown, ["mcp.servers.corp.oauth.audience"]);
    let saved = save_and_read(&config);
    assert!(saved.contains("\"audience\": \"api://corp\""), "{saved}");
}
