//! The candidate chain and the failover scope.

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
fn a_configured_chain_is_followed_as_written_after_the_chosen_models() {
    let mut c = config();
    c.providers.push(provider("z", 9, &["z1"]));
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
    assert_eq!(
        refs(&c, &chain),
        ["a/a1", "b/b2", "b/b1"],
        "nothing beyond the chain (no z/z1)"
    );
    assert_eq!(
        failover_scope(&c, Some(&ws)),
        FailoverScope::Chain {
            model: Some("a/a1".into())
        }
    );
    c.routing.failover_enabled = false;
    let chain = candidates(&c, &input, |_| false).unwrap();
    assert_eq!(refs(&c, &chain), ["a/a1"]);
    assert_eq!(failover_scope(&c, Some(&ws)), FailoverScope::Off);
}

/// `local` (last by priority, two models) beside a `cloud` key (first).
fn local_and_cloud() -> Config {
    let mut c = Config {
        providers: vec![
            provider("cloud", 0, &["c1"]),
            provider("local", 5, &["l1", "l2"]),
        ],
        ..Config::default()
    };
    c.providers[0].models[0].capabilities.vision = true;
    c.profiles.insert(
        "default".into(),
        Profile {
            provider: Some("local".into()),
            model: Some("l2".into()),
            ..Profile::default()
        },
    );
    c
}

#[test]
fn a_chosen_default_fails_over_only_to_its_own_providers_other_models() {
    let c = local_and_cloud();
    let chain = candidates(&c, &RouteInput::default(), |_| false).unwrap();
    assert_eq!(refs(&c, &chain), ["local/l2", "local/l1"], "never cloud/c1");
    assert_eq!(
        failover_scope(&c, None),
        FailoverScope::Provider {
            model: "local/l2".into(),
            provider: "local".into()
        }
    );
    // Its circuit open, the provider's other model answers; never the cloud.
    let chain = candidates(&c, &RouteInput::default(), |r| r == "local/l2").unwrap();
    assert_eq!(refs(&c, &chain), ["local/l1"]);
    // A configured chain that names the cloud is followed.
    let mut chained = c.clone();
    chained.routing.fallback = vec!["cloud/c1".into()];
    let chain = candidates(&chained, &RouteInput::default(), |_| false).unwrap();
    assert_eq!(refs(&chained, &chain), ["local/l2", "cloud/c1"]);
    // With nothing chosen, priority order over every provider.
    let mut unchosen = c.clone();
    unchosen.profiles.clear();
    let chain = candidates(&unchosen, &RouteInput::default(), |_| false).unwrap();
    assert_eq!(
        refs(&unchosen, &chain),
        ["cloud/c1", "local/l1", "local/l2"]
    );
    assert_eq!(failover_scope(&unchosen, None), FailoverScope::Priority);
}

#[test]
fn a_workspace_model_is_the_choice_and_a_vanished_one_keeps_its_provider() {
    let c = local_and_cloud();
    let ws = WorkspaceConfig {
        model: Some("cloud/c1".into()),
        ..WorkspaceConfig::default()
    };
    let input = RouteInput {
        workspace: Some(&ws),
        ..RouteInput::default()
    };
    let chain = candidates(&c, &input, |_| false).unwrap();
    assert_eq!(
        refs(&c, &chain),
        ["cloud/c1"],
        "the profile's local model is not tried"
    );
    // The default names a model the provider no longer lists: its provider still.
    let mut gone = c.clone();
    gone.active_profile_mut().model = Some("l9".into());
    let chain = candidates(&gone, &RouteInput::default(), |_| false).unwrap();
    assert_eq!(refs(&gone, &chain), ["local/l1", "local/l2"]);
    assert_eq!(
        failover_scope(&gone, None),
        FailoverScope::Provider {
            model: "l9".into(),
            provider: "local".into()
        }
    );
}

#[test]
fn images_never_take_a_chosen_model_to_another_provider() {
    let c = local_and_cloud();
    let input = RouteInput {
        needs_vision: true,
        ..RouteInput::default()
    };
    let err = candidates(&c, &input, |_| false).unwrap_err().to_string();
    assert!(
        err.starts_with(
            "The current routing profile has no model that supports image understanding. \
             local/l2 cannot read images and failover stays with its provider local"
        ),
        "{err}"
    );
    assert!(err.contains("routing.fallback"), "{err}");
}

#[test]
fn a_preferred_model_left_out_for_its_open_circuit_is_reported() {
    let c = config();
    let r = route(&c, &RouteInput::default(), |m| m == "a/a1").unwrap();
    assert_eq!(refs(&c, &r.chain), ["b/b1", "b/b2"]);
    assert_eq!(
        r.skipped_first.map(|h| h.model_ref(&c)).as_deref(),
        Some("a/a1")
    );
    let r = route(&c, &RouteInput::default(), |m| m == "b/b1").unwrap();
    assert_eq!(r.skipped_first, None, "the first one is still tried");
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
