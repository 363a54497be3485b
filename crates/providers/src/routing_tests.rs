use seekclaw_config::{Capabilities, Profile};

use super::*;

fn model(id: &str) -> Model {
    Model {
        id: id.into(),
        ..Model::default()
    }
}

fn provider(id: &str, priority: i32, models: &[&str]) -> Provider {
    Provider {
        id: id.into(),
        kind: "openai".into(),
        base_url: format!("http://{id}.test"),
        priority,
        models: models.iter().map(|m| model(m)).collect(),
        ..Provider::default()
    }
}

fn refs(config: &Config, chain: &[ModelHandle]) -> Vec<String> {
    chain.iter().map(|h| h.model_ref(config)).collect()
}

fn config() -> Config {
    let mut c = Config {
        providers: vec![
            provider("b", 1, &["b1", "b2"]),
            provider("a", 0, &["a1"]),
            provider("off", 0, &["x1"]),
        ],
        ..Config::default()
    };
    c.providers[2].enabled = false;
    c.providers[0].models[1].alias = Some("fast".into());
    c
}

#[test]
fn resolves_refs_aliases_and_unique_bare_ids() {
    let c = config();
    assert_eq!(
        resolve(&c, "b/b2", false)
            .map(|h| h.model_ref(&c))
            .as_deref(),
        Some("b/b2")
    );
    assert_eq!(
        resolve(&c, "fast", false)
            .map(|h| h.model_ref(&c))
            .as_deref(),
        Some("b/b2")
    );
    assert_eq!(
        resolve(&c, "a1", false).map(|h| h.model_ref(&c)).as_deref(),
        Some("a/a1")
    );
    assert_eq!(
        resolve(&c, "x1", false),
        None,
        "disabled providers are skipped"
    );
    assert!(resolve(&c, "x1", true).is_some());
    assert_eq!(resolve(&c, "nope", false), None);
}

#[test]
fn empty_routing_uses_every_enabled_model_in_priority_order() {
    let c = config();
    let chain = candidates(&c, &RouteInput::default(), |_| false).unwrap();
    assert_eq!(refs(&c, &chain), ["a/a1", "b/b1", "b/b2"]);
}

#[test]
fn configured_chain_comes_first_then_the_failover_tail() {
    let mut c = config();
    c.profiles.insert(
        "default".into(),
        Profile {
            provider: Some("b".into()),
            model: Some("b2".into()),
            ..Profile::default()
        },
    );
    c.routing.fallback = vec!["b/b1".into()];
    let ws = WorkspaceConfig {
        model: Some("a1".into()),
        ..WorkspaceConfig::default()
    };
    let input = RouteInput {
        workspace: Some(&ws),
        ..RouteInput::default()
    };
    let chain = candidates(&c, &input, |_| false).unwrap();
    assert_eq!(refs(&c, &chain), ["a/a1", "b/b2", "b/b1"]);
    c.routing.failover_enabled = false;
    let chain = candidates(&c, &input, |_| false).unwrap();
    assert_eq!(refs(&c, &chain), ["a/a1"]);
}

#[test]
fn strategies_are_load_balanced() {
    let mut c = config();
    c.routing.strategies.insert(
        "balanced".into(),
        vec!["b/b1".into(), "b/b2".into(), "a/a1".into()],
    );
    c.routing.failover_enabled = true;
    let mut input = RouteInput::default();
    c.routing.load_balance = LoadBalance::RoundRobin;
    input.round_robin_cursor = 1;
    assert_eq!(
        refs(&c, &candidates(&c, &input, |_| false).unwrap()),
        ["b/b2", "a/a1", "b/b1"]
    );
    c.routing.load_balance = LoadBalance::LowestCost;
    c.providers[0].models[0].input_price_per_mtok = 5.0;
    c.providers[1].models[0].output_price_per_mtok = 1.0;
    assert_eq!(
        refs(&c, &candidates(&c, &input, |_| false).unwrap()),
        ["b/b2", "a/a1", "b/b1"]
    );
    c.routing.load_balance = LoadBalance::Fastest;
    input.stats.insert(
        "a/a1".into(),
        ModelStats {
            calls: 3,
            avg_latency_ms: 100.0,
        },
    );
    input.stats.insert(
        "b/b1".into(),
        ModelStats {
            calls: 3,
            avg_latency_ms: 50.0,
        },
    );
    assert_eq!(
        refs(&c, &candidates(&c, &input, |_| false).unwrap()),
        ["b/b1", "a/a1", "b/b2"]
    );
    c.routing.load_balance = LoadBalance::LeastUsed;
    input.stats.insert(
        "b/b2".into(),
        ModelStats {
            calls: 1,
            avg_latency_ms: 1.0,
        },
    );
    assert_eq!(
        refs(&c, &candidates(&c, &input, |_| false).unwrap()),
        ["b/b2", "b/b1", "a/a1"]
    );
}

#[test]
fn open_circuits_are_skipped_unless_nothing_is_left() {
    let c = config();
    let chain = candidates(&c, &RouteInput::default(), |r| r == "a/a1").unwrap();
    assert_eq!(refs(&c, &chain), ["b/b1", "b/b2"]);
    let chain = candidates(&c, &RouteInput::default(), |_| true).unwrap();
    assert_eq!(chain.len(), 3);
}

#[test]
fn vision_and_missing_models() {
    let mut c = config();
    let input = RouteInput {
        needs_vision: true,
        ..RouteInput::default()
    };
    let err = candidates(&c, &input, |_| false).unwrap_err();
    assert_eq!(
        err.to_string(),
        "The current routing profile has no model that supports image understanding."
    );
    c.providers[0].models[1].capabilities = Capabilities {
        vision: true,
        ..Capabilities::default()
    };
    assert_eq!(
        refs(&c, &candidates(&c, &input, |_| false).unwrap()),
        ["b/b2"]
    );
    let empty = Config::default();
    assert!(
        candidates(&empty, &RouteInput::default(), |_| false)
            .unwrap_err()
            .to_string()
            .starts_with("No models configured")
    );
}
