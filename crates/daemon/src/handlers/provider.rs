//! `provider.*`: the providers in config.json, their health and model lists.

use std::time::{Duration, Instant};

use seekclaw_config::{Config, Model, Provider};
use seekclaw_protocol::api::{ProbeResult, ProviderUpsertParams, ProviderView};
use seekclaw_protocol::{Envelope, ErrorCode, MethodError, Params, method};

use super::Reply;
use crate::daemon::Daemon;

/// The `provider.list` row. Returns the stored key: the desktop edits it.
pub fn view(config: &Config, p: &Provider) -> ProviderView {
    let active = config
        .active_profile()
        .and_then(|pr| pr.provider.as_deref())
        .is_some_and(|id| id.eq_ignore_ascii_case(&p.id));
    ProviderView {
        id: p.id.clone(),
        name: p.display_name().to_string(),
        kind: p.kind.clone(),
        base_url: p.base_url.clone(),
        api_key: p.api_key.clone(),
        api_key_configured: p.api_key.as_deref().is_some_and(|k| !k.trim().is_empty()),
        models: p.models.iter().map(|m| m.id.clone()).collect(),
        enabled: p.enabled,
        priority: p.priority,
        timeout_seconds: p.timeout_seconds,
        model_list_url: p.model_list_url.clone(),
        prompt_caching: p.prompt_caching,
        proxy: p.proxy.clone(),
        active,
    }
}

fn sorted(config: &Config) -> Vec<&Provider> {
    let mut all: Vec<&Provider> = config.providers.iter().collect();
    all.sort_by(|a, b| (a.priority, &a.id).cmp(&(b.priority, &b.id)));
    all
}

pub fn not_found(id: &str) -> MethodError {
    MethodError::not_found(format!("Provider not found: {id}"))
}

fn find_mut<'c>(config: &'c mut Config, id: &str) -> Option<&'c mut Provider> {
    config
        .providers
        .iter_mut()
        .find(|p| p.id.eq_ignore_ascii_case(id))
}

pub async fn list(daemon: &Daemon, id: i64) -> Reply {
    let config = daemon.config.load();
    let views: Vec<ProviderView> = sorted(&config)
        .into_iter()
        .map(|p| view(&config, p))
        .collect();
    Ok(Envelope::json_result(id, &views))
}

fn non_blank(s: Option<&str>) -> Option<String> {
    s.map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

/// Applies `provider.upsert` params to `p` (new or existing).
fn apply_upsert(p: &mut Provider, params: &ProviderUpsertParams) -> Result<(), MethodError> {
    if let Some(kind) = &params.kind {
        let kind = kind.trim().to_ascii_lowercase();
        if kind != "openai" && kind != "anthropic" {
            return Err(MethodError::invalid_param(
                "kind",
                "Provider kind must be openai or anthropic",
            ));
        }
        p.kind = kind;
    }
    if let Some(name) = non_blank(params.name.as_deref()) {
        p.name = Some(name);
    }
    if let Some(url) = &params.base_url {
        p.base_url = url.trim().trim_end_matches('/').to_string();
    }
    if let Some(proxy) = non_blank(params.proxy.as_deref()) {
        p.proxy = Some(proxy);
    }
    if let Some(enabled) = params.enabled {
        p.enabled = enabled;
    }
    if let Some(priority) = params.priority {
        p.priority = i32::try_from(priority).map_err(|_| {
            MethodError::invalid_param("priority", "params.priority is out of range")
        })?;
    }
    if let Some(t) = params.timeout_seconds {
        if !(1..=3600).contains(&t) {
            return Err(MethodError::invalid_param(
                "timeoutSeconds",
                "params.timeoutSeconds must be between 1 and 3600",
            ));
        }
        p.timeout_seconds = t as u64;
    }
    if let Some(url) = &params.model_list_url {
        p.model_list_url = non_blank(url.as_deref());
    }
    if let Some(caching) = params.prompt_caching {
        p.prompt_caching = caching;
    }
    if params.clear_api_key == Some(true) {
        p.api_key = None;
    } else if let Some(key) = params.api_key()? {
        p.api_key = Some(key);
    }
    if let Some(ids) = &params.models {
        let mut models = Vec::new();
        for mid in ids.0.iter().map(|m| m.trim()).filter(|m| !m.is_empty()) {
            if models.iter().any(|m: &Model| m.id == mid) {
                continue;
            }
            let existing = p.models.iter().find(|m| m.id == mid).cloned();
            models.push(existing.unwrap_or_else(|| Model {
                id: mid.to_string(),
                ..Model::default()
            }));
        }
        p.models = models;
    }
    if p.base_url.trim().is_empty() {
        return Err(MethodError::invalid_param(
            "baseUrl",
            "Provider baseUrl is required",
        ));
    }
    if p.models.is_empty() {
        return Err(MethodError::invalid_param(
            "models",
            "At least one model is required",
        ));
    }
    Ok(())
}

pub async fn upsert(daemon: &Daemon, id: i64, params: &Params) -> Reply {
    let params = params.read::<method::ProviderUpsert>()?;
    let pid = params.id.trimmed();
    if pid.contains('/') {
        return Err(MethodError::invalid_param(
            "id",
            "params.id must not contain '/'",
        ));
    }
    let view = daemon
        .config
        .update(|cfg| {
            let mut provider = match find_mut(cfg, &pid) {
                Some(p) => p.clone(),
                None => Provider {
                    id: pid.clone(),
                    kind: "openai".into(),
                    ..Provider::default()
                },
            };
            // Validated on a copy: a failed create or edit leaves config.json as it was.
            apply_upsert(&mut provider, &params)?;
            match find_mut(cfg, &pid) {
                Some(slot) => *slot = provider.clone(),
                None => cfg.providers.push(provider.clone()),
            }
            Ok(view(cfg, &provider))
        })
        .await?;
    Ok(Envelope::json_result(id, &view))
}

pub async fn use_provider(daemon: &Daemon, id: i64, params: &Params) -> Reply {
    let pid = params.read::<method::ProviderUse>()?.id.trimmed();
    let chosen = daemon
        .config
        .update(|cfg| {
            let p = cfg
                .providers
                .iter()
                .find(|p| p.id.eq_ignore_ascii_case(&pid))
                .cloned()
                .ok_or_else(|| not_found(&pid))?;
            let profile = cfg.active_profile_mut();
            let keep = profile
                .model
                .as_deref()
                .is_some_and(|m| p.models.iter().any(|x| x.id == m));
            profile.provider = Some(p.id.clone());
            if !keep {
                profile.model = p.models.first().map(|m| m.id.clone());
            }
            Ok(p.id)
        })
        .await?;
    Ok(Envelope::result(id, chosen))
}

pub async fn remove(daemon: &Daemon, id: i64, params: &Params) -> Reply {
    let pid = params.read::<method::ProviderRemove>()?.id.trimmed();
    let removed = daemon
        .config
        .update(|cfg| {
            let pos = cfg
                .providers
                .iter()
                .position(|p| p.id.eq_ignore_ascii_case(&pid))
                .ok_or_else(|| not_found(&pid))?;
            let p = cfg.providers.remove(pos);
            for profile in cfg.profiles.values_mut() {
                if profile
                    .provider
                    .as_deref()
                    .is_some_and(|x| x.eq_ignore_ascii_case(&p.id))
                {
                    profile.provider = None;
                    profile.model = None;
                }
            }
            Ok(p.id)
        })
        .await?;
    Ok(Envelope::result(id, removed))
}

pub async fn probe_all(daemon: &Daemon, providers: Vec<Provider>) -> Vec<ProbeResult> {
    let probes = providers.into_iter().map(|p| async move {
        let start = Instant::now();
        let (online, detail) = seekclaw_providers::transport::probe(
            &daemon.providers.pool,
            &p,
            Duration::from_secs(10),
        )
        .await;
        ProbeResult {
            id: p.id,
            online,
            latency_ms: start.elapsed().as_millis() as u64,
            detail,
        }
    });
    futures::future::join_all(probes).await
}

pub async fn test(daemon: &Daemon, id: i64, params: &Params) -> Reply {
    let wanted = non_blank(params.read::<method::ProviderTest>()?.id.as_deref());
    let config = daemon.config.load();
    let targets: Vec<Provider> = sorted(&config)
        .into_iter()
        .filter(|p| {
            wanted
                .as_deref()
                .is_none_or(|w| p.id.eq_ignore_ascii_case(w))
        })
        .cloned()
        .collect();
    if targets.is_empty() {
        return Err(MethodError::not_found("No matching providers"));
    }
    Ok(Envelope::json_result(id, &probe_all(daemon, targets).await))
}

pub async fn models_fetch(daemon: &Daemon, id: i64, params: &Params) -> Reply {
    let params = params.read::<method::ProviderModelsFetch>()?;
    let pid = params.id.trimmed();
    let config = daemon.config.load();
    let provider = config
        .providers
        .iter()
        .find(|p| p.id.eq_ignore_ascii_case(&pid))
        .cloned()
        .ok_or_else(|| not_found(&pid))?;
    let url = match non_blank(params.url.as_deref()) {
        Some(u) => u,
        None => seekclaw_providers::models::models_url(&provider),
    };
    if !(url.starts_with("http://") || url.starts_with("https://")) {
        return Err(MethodError::invalid_param(
            "url",
            format!("Invalid model list URL: {url}"),
        ));
    }
    let timeout = Duration::from_secs(provider.timeout_seconds.clamp(5, 120));
    let fetched = seekclaw_providers::transport::fetch_models(
        &daemon.providers.pool,
        &provider,
        &url,
        timeout,
    )
    .await
    .map_err(|e| MethodError::new(ErrorCode::Provider, e.to_string()))?;
    let ids = fetched.clone();
    // The fetch above ran without the admin gate (it may take its whole timeout).
    let _gate = daemon.admin_gate.lock().await;
    daemon
        .config
        .update(|cfg| {
            let p = find_mut(cfg, &pid).ok_or_else(|| not_found(&pid))?;
            for mid in &ids {
                if !p.models.iter().any(|m| &m.id == mid) {
                    p.models.push(Model {
                        id: mid.clone(),
                        ..Model::default()
                    });
                }
            }
            Ok(())
        })
        .await?;
    Ok(Envelope::json_result(id, &fetched))
}
