//! The candidate chain: which models a request may go to, in order.
//! workspace model → profile model → strategy (load-balanced) → fallback, then —
//! with failover on — every other enabled model in provider priority order, so a
//! second provider rescues a turn without any routing set up.

use std::collections::HashMap;

use seekclaw_config::{Config, LoadBalance, Model, Provider, WorkspaceConfig};

use crate::error::ProviderError;

/// A resolved model: indices into `config.providers` and its `models`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ModelHandle {
    /// Index into `config.providers`.
    pub provider: usize,
    /// Index into that provider's `models`.
    pub model: usize,
}

impl ModelHandle {
    /// The provider in `config`.
    pub fn provider<'c>(&self, config: &'c Config) -> &'c Provider {
        &config.providers[self.provider]
    }

    /// The model in `config`.
    pub fn model<'c>(&self, config: &'c Config) -> &'c Model {
        &config.providers[self.provider].models[self.model]
    }

    /// `provider/model`.
    pub fn model_ref(&self, config: &Config) -> String {
        format!("{}/{}", self.provider(config).id, self.model(config).id)
    }
}

/// Usage aggregates that `leastUsed` and `fastest` order by.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ModelStats {
    /// Calls recorded for the model.
    pub calls: u64,
    /// Their mean latency.
    pub avg_latency_ms: f64,
}

/// Everything routing looks at.
#[derive(Debug, Clone, Default)]
pub struct RouteInput<'a> {
    /// The workspace's overrides (its model order), if any.
    pub workspace: Option<&'a WorkspaceConfig>,
    /// The turn carries images: only vision models qualify.
    pub needs_vision: bool,
    /// Per model ref.
    pub stats: HashMap<String, ModelStats>,
    /// `state.json` round-robin cursor of the strategy in use.
    pub round_robin_cursor: i64,
    /// Restrict to exactly this model (model.test, prompt.optimize).
    pub only: Option<&'a str>,
}

/// Providers in priority order (then id), enabled only.
fn enabled_providers(config: &Config) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..config.providers.len())
        .filter(|i| config.providers[*i].enabled)
        .collect();
    idx.sort_by(|a, b| {
        let (pa, pb) = (&config.providers[*a], &config.providers[*b]);
        (pa.priority, &pa.id).cmp(&(pb.priority, &pb.id))
    });
    idx
}

fn model_matches(m: &Model, name: &str) -> bool {
    m.id.eq_ignore_ascii_case(name)
        || m.alias
            .as_deref()
            .is_some_and(|a| a.eq_ignore_ascii_case(name))
}

/// Resolves `provider/model`, an alias, or a unique bare id (enabled providers only,
/// unless `include_disabled`).
pub fn resolve(config: &Config, reference: &str, include_disabled: bool) -> Option<ModelHandle> {
    let reference = reference.trim();
    if reference.is_empty() {
        return None;
    }
    let providers: Vec<usize> = if include_disabled {
        (0..config.providers.len()).collect()
    } else {
        enabled_providers(config)
    };
    if let Some((pid, mid)) = reference.split_once('/') {
        let qualified = providers.iter().find_map(|&p| {
            let prov = &config.providers[p];
            if !prov.id.eq_ignore_ascii_case(pid) {
                return None;
            }
            prov.models
                .iter()
                .position(|m| model_matches(m, mid))
                .map(|model| ModelHandle { provider: p, model })
        });
        if qualified.is_some() {
            return qualified;
        }
    }
    // Alias first, then a bare id that exists exactly once (OpenRouter ids contain `/`).
    let mut by_alias = None;
    let mut by_id = Vec::new();
    for &p in &providers {
        for (i, m) in config.providers[p].models.iter().enumerate() {
            let h = ModelHandle {
                provider: p,
                model: i,
            };
            if by_alias.is_none()
                && m.alias
                    .as_deref()
                    .is_some_and(|a| a.eq_ignore_ascii_case(reference))
            {
                by_alias = Some(h);
            }
            if m.id.eq_ignore_ascii_case(reference) {
                by_id.push(h);
            }
        }
    }
    by_alias.or(if by_id.len() == 1 {
        Some(by_id[0])
    } else {
        None
    })
}

/// Resolves a configured model name, trying it qualified with `provider` first.
fn resolve_with(config: &Config, model: &str, provider: Option<&str>) -> Option<ModelHandle> {
    provider
        .and_then(|p| resolve(config, &format!("{p}/{model}"), false))
        .or_else(|| resolve(config, model, false))
}

fn order_strategy(config: &Config, refs: &[String], input: &RouteInput) -> Vec<ModelHandle> {
    let mut handles: Vec<ModelHandle> = refs
        .iter()
        .filter_map(|r| resolve(config, r, false))
        .collect();
    match config.routing.load_balance {
        LoadBalance::Priority | LoadBalance::Sticky => {}
        LoadBalance::RoundRobin => {
            if !handles.is_empty() {
                let n = handles.len() as i64;
                let shift = input.round_robin_cursor.rem_euclid(n) as usize;
                handles.rotate_left(shift);
            }
        }
        LoadBalance::LeastUsed => {
            let calls = |h: &ModelHandle| {
                input
                    .stats
                    .get(&h.model_ref(config))
                    .map(|s| s.calls)
                    .unwrap_or(0)
            };
            handles.sort_by_key(calls);
        }
        LoadBalance::LowestCost => {
            let price = |h: &ModelHandle| {
                let m = h.model(config);
                m.input_price_per_mtok + m.output_price_per_mtok
            };
            handles.sort_by(|a, b| price(a).total_cmp(&price(b)));
        }
        LoadBalance::Fastest => {
            // Models without measurements go last, in their listed order.
            let latency = |h: &ModelHandle| {
                input
                    .stats
                    .get(&h.model_ref(config))
                    .filter(|s| s.calls > 0)
                    .map(|s| s.avg_latency_ms)
                    .unwrap_or(f64::INFINITY)
            };
            handles.sort_by(|a, b| latency(a).total_cmp(&latency(b)));
        }
    }
    handles
}

/// The routing strategy in use: the workspace's, else the active profile's,
/// else `balanced` (also the key of its round-robin cursor in `state.json`).
pub fn strategy_name<'c>(config: &'c Config, ws: Option<&'c WorkspaceConfig>) -> &'c str {
    ws.and_then(|w| w.strategy.as_deref())
        .or_else(|| config.active_profile().and_then(|p| p.strategy.as_deref()))
        .unwrap_or("balanced")
}

/// The ordered, de-duplicated candidates for one request. `is_open` reports models
/// whose circuit is open; they are dropped unless that would leave nothing.
pub fn candidates(
    config: &Config,
    input: &RouteInput,
    is_open: impl Fn(&str) -> bool,
) -> Result<Vec<ModelHandle>, ProviderError> {
    if config
        .providers
        .iter()
        .all(|p| !p.enabled || p.models.is_empty())
    {
        return Err(ProviderError::Config(
            "No models configured. Run 'seekclaw provider add' or edit ~/.seekclaw/config.json."
                .into(),
        ));
    }
    if let Some(only) = input.only {
        let handle = resolve(config, only, false)
            .ok_or_else(|| ProviderError::Config(format!("Unknown model: {only}")))?;
        return Ok(vec![handle]);
    }
    let profile = config.active_profile();
    let ws = input.workspace;
    let profile_provider = profile.and_then(|p| p.provider.as_deref());
    let mut chain: Vec<ModelHandle> = Vec::new();
    let push = |h: Option<ModelHandle>, chain: &mut Vec<ModelHandle>| {
        if let Some(h) = h
            && !chain.contains(&h)
        {
            chain.push(h);
        }
    };
    if let Some(m) = ws.and_then(|w| w.model.as_deref()) {
        let provider = ws.and_then(|w| w.provider.as_deref()).or(profile_provider);
        push(resolve_with(config, m, provider), &mut chain);
    }
    if let Some(m) = profile.and_then(|p| p.model.as_deref()) {
        push(resolve_with(config, m, profile_provider), &mut chain);
    }
    let strategy = strategy_name(config, ws);
    if let Some(refs) = config.routing.strategies.get(strategy) {
        for h in order_strategy(config, refs, input) {
            push(Some(h), &mut chain);
        }
    }
    for r in &config.routing.fallback {
        push(resolve(config, r, false), &mut chain);
    }
    // Everything else enabled: the whole list when nothing is configured, and the
    // failover tail otherwise.
    if chain.is_empty() || config.routing.failover_enabled {
        for p in enabled_providers(config) {
            for m in 0..config.providers[p].models.len() {
                push(
                    Some(ModelHandle {
                        provider: p,
                        model: m,
                    }),
                    &mut chain,
                );
            }
        }
    }
    if input.needs_vision {
        chain.retain(|h| h.model(config).capabilities.vision);
        if chain.is_empty() {
            return Err(ProviderError::Config(
                "The current routing profile has no model that supports image understanding."
                    .into(),
            ));
        }
    }
    if !config.routing.failover_enabled {
        chain.truncate(1);
    }
    let closed: Vec<ModelHandle> = chain
        .iter()
        .copied()
        .filter(|h| !is_open(&h.model_ref(config)))
        .collect();
    Ok(if closed.is_empty() { chain } else { closed })
}

#[cfg(test)]
mod tests {
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
}
