//! `provider.*`: the providers in config.json, their health and model lists.

use seekclaw_config::edits::{self, ApiKeyEdit, EditError, ModelEntry, ProviderEdit};
use seekclaw_config::{Config, Model, Provider};
use seekclaw_protocol::api::{ModelInput, ProviderUpsertParams, ProviderView};
use seekclaw_protocol::{Envelope, MethodError, Params, method};

use super::Reply;
use crate::ctx::Ctx;
use crate::error::Wire;

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

pub fn not_found(id: &str) -> MethodError {
    MethodError::not_found(format!("Provider not found: {id}"))
}

fn find_mut<'c>(config: &'c mut Config, id: &str) -> Option<&'c mut Provider> {
    config
        .providers
        .iter_mut()
        .find(|p| p.id.eq_ignore_ascii_case(id))
}

pub async fn list(daemon: &Ctx, id: i64) -> Reply {
    let config = daemon.engine.config.load();
    let views: Vec<ProviderView> = config
        .providers_by_priority()
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

/// The edit a `provider.upsert` request asks for. Type and range checks of the
/// parameters happen here; what the values mean is [`edits::upsert_provider`]'s,
/// shared with the CLI.
fn upsert_edit(id: String, params: &ProviderUpsertParams) -> Result<ProviderEdit, MethodError> {
    let priority = match params.priority {
        Some(p) => Some(i32::try_from(p).map_err(|_| {
            MethodError::invalid_param("priority", "params.priority is out of range")
        })?),
        None => None,
    };
    let timeout_seconds = match params.timeout_seconds {
        Some(t) => Some(u64::try_from(t).map_err(|_| {
            MethodError::invalid_param(
                "timeoutSeconds",
                "params.timeoutSeconds must be between 1 and 3600",
            )
        })?),
        None => None,
    };
    let api_key = if params.clear_api_key == Some(true) {
        ApiKeyEdit::Clear
    } else {
        match params.api_key()? {
            Some(key) => ApiKeyEdit::Set(key),
            None => ApiKeyEdit::Keep,
        }
    };
    let models = match &params.models {
        Some(list) => Some(model_entries(&list.0)?),
        None => None,
    };
    Ok(ProviderEdit {
        id,
        kind: params.kind.clone(),
        name: params.name.clone(),
        base_url: params.base_url.clone(),
        proxy: params.proxy.clone(),
        enabled: params.enabled,
        priority,
        timeout_seconds,
        model_list_url: params.model_list_url.clone(),
        prompt_caching: params.prompt_caching,
        api_key,
        models,
        activate_if_none: params.activate_if_none.unwrap_or(false),
    })
}

/// `models`: model ids (a stored model keeps its settings) and, an addition to
/// the reference, full model objects as in config.json (`{id, contextWindow,
/// capabilities, …}`; absent fields take their defaults), in any mix.
fn model_entries(items: &[ModelInput]) -> Result<Vec<ModelEntry>, MethodError> {
    items
        .iter()
        .enumerate()
        .map(|(i, item)| match item {
            ModelInput::Id(id) => Ok(ModelEntry::Id(id.clone())),
            ModelInput::Full(fields) => {
                let bad = |why: String| {
                    MethodError::invalid_param(
                        "models",
                        format!("params.models[{i}] is not a valid model: {why}"),
                    )
                };
                let id = fields.get("id").and_then(|v| v.as_str()).unwrap_or("");
                if id.trim().is_empty() {
                    return Err(bad("id is required".into()));
                }
                serde_json::from_value::<Model>(serde_json::Value::Object(fields.clone()))
                    .map(|m| ModelEntry::Full(Box::new(m)))
                    .map_err(|e| bad(e.to_string()))
            }
        })
        .collect()
}

fn edit_error(e: EditError) -> MethodError {
    match e {
        EditError::Invalid { field, message } => MethodError::invalid_param(field, message),
        EditError::ProviderNotFound(id) => not_found(&id),
    }
}

pub async fn upsert(daemon: &Ctx, id: i64, params: &Params) -> Reply {
    let params = params.read::<method::ProviderUpsert>()?;
    let edit = upsert_edit(params.id.trimmed(), &params)?;
    let view = daemon
        .engine
        .config
        .update(crate::error::wire, |cfg| {
            let provider = edits::upsert_provider(cfg, &edit).map_err(edit_error)?;
            Ok(view(cfg, &provider))
        })
        .await?;
    Ok(Envelope::json_result(id, &view))
}

pub async fn use_provider(daemon: &Ctx, id: i64, params: &Params) -> Reply {
    let pid = params.read::<method::ProviderUse>()?.id.trimmed();
    let chosen = daemon
        .engine
        .config
        .update(crate::error::wire, |cfg| {
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

pub async fn remove(daemon: &Ctx, id: i64, params: &Params) -> Reply {
    let pid = params.read::<method::ProviderRemove>()?.id.trimmed();
    let removed = daemon
        .engine
        .config
        .update(crate::error::wire, |cfg| {
            edits::remove_provider(cfg, &pid).map_err(edit_error)
        })
        .await?;
    Ok(Envelope::result(id, removed.id))
}

pub async fn test(daemon: &Ctx, id: i64, params: &Params) -> Reply {
    let wanted = non_blank(params.read::<method::ProviderTest>()?.id.as_deref());
    let config = daemon.engine.config.load();
    let targets: Vec<Provider> = config
        .providers_by_priority()
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
    Ok(Envelope::json_result(
        id,
        &daemon.engine.probe(targets).await,
    ))
}

pub async fn models_fetch(daemon: &Ctx, id: i64, params: &Params) -> Reply {
    let params = params.read::<method::ProviderModelsFetch>()?;
    let pid = params.id.trimmed();
    let config = daemon.engine.config.load();
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
    let fetched = daemon.engine.fetch_models(&provider, &url).await.wire()?;
    let ids = fetched.clone();
    // The fetch above ran without the admin gate (it may take its whole timeout).
    let _gate = daemon.admin_gate.lock().await;
    daemon
        .engine
        .config
        .update(crate::error::wire, |cfg| {
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
