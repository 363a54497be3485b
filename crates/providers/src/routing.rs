//! The candidate chain: which models a request may go to, in order.
//! workspace model → profile model → strategy (load-balanced) → fallback. What
//! failover may add depends on what the user chose ([`FailoverScope`]): a
//! configured chain is followed as written; a chosen model without one fails
//! over only to its own provider's other models (a prompt never goes to
//! another vendor unasked); with nothing chosen and nothing configured, every
//! enabled model in provider priority order (the desktop's expectation).

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

/// Where failover may take a request, by what the user chose and configured.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FailoverScope {
    /// `routing.failoverEnabled` is false: the first candidate alone.
    Off,
    /// A model was chosen (the workspace's or the active profile's) and no
    /// chain is configured: only that model's provider, its other models next.
    Provider {
        /// The chosen model as written (`provider/model` when it resolves).
        model: String,
        /// The provider failover stays within.
        provider: String,
    },
    /// A chain is configured (`routing.fallback`, the strategy's refs): it is
    /// followed as written, after the chosen model if there is one; nothing
    /// beyond it is added.
    Chain {
        /// The chosen model, if any.
        model: Option<String>,
    },
    /// Nothing chosen and no chain: every enabled model in provider priority order.
    Priority,
}

/// The model the user chose for turns: the workspace's, else the active
/// profile's. `provider` is set even when the model no longer resolves but
/// its provider is still enabled (failover then stays there too).
struct Chosen {
    named: String,
    provider: usize,
}

fn chosen(config: &Config, ws: Option<&WorkspaceConfig>) -> Option<Chosen> {
    let profile = config.active_profile();
    let profile_provider = profile.and_then(|p| p.provider.as_deref());
    let named = [
        ws.and_then(|w| w.model.as_deref()).map(|m| {
            let provider = ws.and_then(|w| w.provider.as_deref()).or(profile_provider);
            (m, provider)
        }),
        profile
            .and_then(|p| p.model.as_deref())
            .map(|m| (m, profile_provider)),
    ];
    let named: Vec<(&str, Option<&str>)> = named.into_iter().flatten().collect();
    if let Some(h) = named.iter().find_map(|(m, p)| resolve_with(config, m, *p)) {
        return Some(Chosen {
            named: h.model_ref(config),
            provider: h.provider,
        });
    }
    // A model that is gone from a provider still enabled: that provider was chosen.
    let enabled = enabled_providers(config);
    named.iter().find_map(|(m, p)| {
        let id = m.split_once('/').map(|(pid, _)| pid).or(*p)?;
        let provider = enabled
            .iter()
            .copied()
            .find(|&i| config.providers[i].id.eq_ignore_ascii_case(id))?;
        Some(Chosen {
            named: (*m).to_string(),
            provider,
        })
    })
}

/// Whether a chain is configured: `routing.fallback` or the refs of the
/// strategy in use.
fn chain_configured(config: &Config, ws: Option<&WorkspaceConfig>) -> bool {
    !config.routing.fallback.is_empty()
        || config
            .routing
            .strategies
            .get(strategy_name(config, ws))
            .is_some_and(|refs| !refs.is_empty())
}

/// Where failover may take a turn in this workspace (`routing.get`, `doctor`).
pub fn failover_scope(config: &Config, ws: Option<&WorkspaceConfig>) -> FailoverScope {
    if !config.routing.failover_enabled {
        return FailoverScope::Off;
    }
    let chosen = chosen(config, ws);
    if chain_configured(config, ws) {
        return FailoverScope::Chain {
            model: chosen.map(|c| c.named),
        };
    }
    match chosen {
        Some(c) => FailoverScope::Provider {
            model: c.named,
            provider: config.providers[c.provider].id.clone(),
        },
        None => FailoverScope::Priority,
    }
}

/// The candidates before vision, failover and open circuits are applied.
fn ordered(config: &Config, input: &RouteInput) -> Result<Vec<ModelHandle>, ProviderError> {
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
    if chain_configured(config, ws) {
        let strategy = strategy_name(config, ws);
        if let Some(refs) = config.routing.strategies.get(strategy) {
            for h in order_strategy(config, refs, input) {
                push(Some(h), &mut chain);
            }
        }
        for r in &config.routing.fallback {
            push(resolve(config, r, false), &mut chain);
        }
        if !chain.is_empty() {
            return Ok(chain);
        }
    } else if let Some(c) = chosen(config, ws) {
        // The chosen model first, then its provider's other models in their order.
        chain.retain(|h| h.provider == c.provider);
        for m in 0..config.providers[c.provider].models.len() {
            push(
                Some(ModelHandle {
                    provider: c.provider,
                    model: m,
                }),
                &mut chain,
            );
        }
        if chain.is_empty() {
            return Err(ProviderError::Config(format!(
                "The chosen model {} is not available: provider {} has no models. \
                 Choose another with `seekclaw model use`.",
                c.named, config.providers[c.provider].id
            )));
        }
        return Ok(chain);
    }
    // Nothing chosen or configured (or a chain naming nothing enabled): every
    // enabled model in provider priority order.
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
    Ok(chain)
}

/// The ordered, de-duplicated candidates for one request. `is_open` reports models
/// whose circuit is open; they are dropped unless that would leave nothing.
pub fn candidates(
    config: &Config,
    input: &RouteInput,
    is_open: impl Fn(&str) -> bool,
) -> Result<Vec<ModelHandle>, ProviderError> {
    route(config, input, is_open).map(|r| r.chain)
}

/// A request's candidates, and the preferred model when its open circuit
/// kept it out (so the move to the next one can be announced).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Route {
    /// The candidates in the order they are tried.
    pub chain: Vec<ModelHandle>,
    /// The first candidate there would have been, left out for its open circuit.
    pub skipped_first: Option<ModelHandle>,
}

/// [`candidates`], with the preferred model that an open circuit left out.
pub fn route(
    config: &Config,
    input: &RouteInput,
    is_open: impl Fn(&str) -> bool,
) -> Result<Route, ProviderError> {
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
        return Ok(Route {
            chain: vec![handle],
            skipped_first: None,
        });
    }
    let mut chain = ordered(config, input)?;
    if input.needs_vision {
        let first = chain.first().copied();
        chain.retain(|h| h.model(config).capabilities.vision);
        if chain.is_empty() {
            return Err(ProviderError::Config(no_vision(config, input, first)));
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
    if closed.is_empty() {
        return Ok(Route {
            chain,
            skipped_first: None,
        });
    }
    let skipped_first = chain.first().copied().filter(|h| closed.first() != Some(h));
    Ok(Route {
        chain: closed,
        skipped_first,
    })
}

/// Why no model can take a turn with images; when only the chosen model's
/// provider may answer, what would let another one.
fn no_vision(config: &Config, input: &RouteInput, first: Option<ModelHandle>) -> String {
    const NONE: &str =
        "The current routing profile has no model that supports image understanding.";
    let elsewhere = config
        .providers
        .iter()
        .filter(|p| p.enabled)
        .any(|p| p.models.iter().any(|m| m.capabilities.vision));
    match (failover_scope(config, input.workspace), first) {
        (FailoverScope::Provider { provider, .. }, Some(first)) if elsewhere => format!(
            "{NONE} {} cannot read images and failover stays with its provider {provider}: \
             choose a vision model (`/model`, `seekclaw model use`) or list one in `routing.fallback`.",
            first.model_ref(config)
        ),
        _ => NONE.to_string(),
    }
}

#[cfg(test)]
#[path = "routing_tests.rs"]
mod tests;
