//! `profile.*` and `routing.*`.

use seekclaw_config::{AgentMode, Profile};
use seekclaw_protocol::api::{ProfileView, RoutingView};
use seekclaw_protocol::{Envelope, MethodError, Params, method};

use super::Reply;
use crate::ctx::Ctx;

fn not_found(name: &str) -> MethodError {
    MethodError::not_found(format!("Profile not found: {name}"))
}

/// The stored spelling of a profile name (names match case-insensitively).
fn profile_key(cfg: &seekclaw_config::Config, name: &str) -> Result<String, MethodError> {
    cfg.profiles
        .keys()
        .find(|k| k.eq_ignore_ascii_case(name))
        .cloned()
        .ok_or_else(|| not_found(name))
}

pub async fn list(daemon: &Ctx, id: i64) -> Reply {
    let config = daemon.engine.config.load();
    let mut views: Vec<ProfileView> = config
        .profiles
        .iter()
        .map(|(name, p)| ProfileView {
            name: name.clone(),
            active: name.eq_ignore_ascii_case(&config.active_profile),
            provider: p.provider.clone(),
            model: p.model.clone(),
            strategy: p.strategy.clone(),
            temperature: p.temperature,
            mode: p.mode.map(|m| m.as_str().to_string()),
        })
        .collect();
    views.sort_by_key(|v| v.name.to_lowercase());
    Ok(Envelope::json_result(id, &views))
}

/// A trimmed, non-blank value.
fn opt(value: Option<String>) -> Option<String> {
    value
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

/// Overwrites every field: an absent one becomes unset (reference behaviour).
pub async fn upsert(daemon: &Ctx, id: i64, params: &Params) -> Reply {
    let params = params.read::<method::ProfileUpsert>()?;
    let name = params.name.trimmed();
    let mode = match opt(params.mode) {
        None => None,
        Some(m) => Some(AgentMode::parse_strict(&m).ok_or_else(|| {
            MethodError::invalid_param(
                "mode",
                "params.mode must be one of: plan, readonly, edit, auto",
            )
        })?),
    };
    let profile = Profile {
        provider: opt(params.provider),
        model: opt(params.model),
        strategy: opt(params.strategy),
        temperature: params.temperature,
        mode,
        ..Profile::default()
    };
    daemon
        .engine
        .config
        .update(crate::error::wire, |cfg| {
            let existing = cfg
                .profiles
                .keys()
                .find(|k| k.eq_ignore_ascii_case(&name))
                .cloned();
            let key = existing.unwrap_or_else(|| name.clone());
            let extra = cfg
                .profiles
                .get(&key)
                .map(|p| p.extra.clone())
                .unwrap_or_default();
            cfg.profiles.insert(key, Profile { extra, ..profile });
            Ok(())
        })
        .await?;
    // The name as sent (the original's answer), whatever case it is stored in.
    Ok(Envelope::result(id, name))
}

pub async fn use_profile(daemon: &Ctx, id: i64, params: &Params) -> Reply {
    let name = params.read::<method::ProfileUse>()?.name.trimmed();
    let chosen = daemon
        .engine
        .config
        .update(crate::error::wire, |cfg| {
            let key = profile_key(cfg, &name)?;
            cfg.active_profile = key.clone();
            Ok(key)
        })
        .await?;
    Ok(Envelope::result(id, chosen))
}

pub async fn remove(daemon: &Ctx, id: i64, params: &Params) -> Reply {
    let name = params.read::<method::ProfileRemove>()?.name.trimmed();
    let removed = daemon
        .engine
        .config
        .update(crate::error::wire, |cfg| {
            let key = profile_key(cfg, &name)?;
            if key.eq_ignore_ascii_case(&cfg.active_profile) {
                return Err(MethodError::new(
                    seekclaw_protocol::ErrorCode::Conflict,
                    "Cannot remove the active profile",
                ));
            }
            cfg.profiles.remove(&key);
            Ok(key)
        })
        .await?;
    Ok(Envelope::result(id, removed))
}

pub async fn routing_get(daemon: &Ctx, id: i64) -> Reply {
    let config = daemon.engine.config.load();
    Ok(Envelope::json_result(id, &routing_view(daemon, &config)))
}

/// `routing.get`'s answer: the two switches and the failover rule they make
/// with the chosen model in the daemon's current workspace.
fn routing_view(daemon: &Ctx, config: &seekclaw_config::Config) -> RoutingView {
    let ws = super::workspace::workspace_config(daemon, &daemon.current_workspace());
    RoutingView {
        failover_enabled: config.routing.failover_enabled,
        deep_seek_optimization_enabled: config.routing.deep_seek_optimization_enabled,
        failover_policy: Some(crate::failover_policy::view(config, ws.as_ref())),
    }
}

pub async fn routing_set(daemon: &Ctx, id: i64, params: &Params) -> Reply {
    let params = params.read::<method::RoutingSet>()?;
    let failover = params.failover_enabled.into_inner();
    let deepseek = params.deep_seek_optimization_enabled;
    let config = daemon
        .engine
        .config
        .update(crate::error::wire, |cfg| {
            cfg.routing.failover_enabled = failover;
            if let Some(d) = deepseek {
                cfg.routing.deep_seek_optimization_enabled = d;
            }
            Ok(cfg.clone())
        })
        .await?;
    Ok(Envelope::json_result(id, &routing_view(daemon, &config)))
}
