//! `seekclaw provider …` and `seekclaw model list`. With a daemon running they go
//! through it (`provider.*`, `model.list`), so an edit is serialized with every
//! other client's and seen at once; with none, the same edit
//! (`seekclaw_config::edits`) is applied to config.json under the home's config
//! lock, which the daemon takes too. API keys are never printed.

use std::time::Duration;

use anyhow::{Context, Result, bail};
use clap::Subcommand;
use seekclaw_config::edits::{
    ApiKeyEdit, ModelEntry, ProviderEdit, edit_config, remove_provider, upsert_provider,
};
use seekclaw_config::{Config, Home, Provider};
use seekclaw_protocol::api::{
    ModelInput, ModelParams, NoParams, ProbeResult, ProviderIdParams, ProviderTestParams,
    ProviderUpsertParams, Required, Strict,
};
use seekclaw_protocol::method;
use seekclaw_providers::presets::{PRESETS, preset};
use serde_json::Value;

use crate::client::DaemonClient;
use crate::listing::{ModelRow, ProviderRow, active_of, print_models, print_providers};
use crate::provider_add;

#[derive(Subcommand)]
pub enum ProviderCommand {
    /// Add (or update) a provider from a preset: deepseek, kimi, openai, anthropic,
    /// openrouter, ollama, lmstudio, vllm — or a custom one with --base-url and --model.
    /// Settings not named here (priority, proxy, timeout…) of an existing provider stay.
    Add {
        /// Preset name, or the id of a custom provider.
        name: String,
        /// The key (it lands in shell history; prefer the hidden prompt or
        /// --api-key-stdin). Never read from environment variables.
        #[arg(long, conflicts_with = "api_key_stdin")]
        api_key: Option<String>,
        /// Read the key from the first line of standard input.
        #[arg(long)]
        api_key_stdin: bool,
        /// Store it under another id (e.g. two DeepSeek accounts).
        #[arg(long)]
        id: Option<String>,
        #[arg(long)]
        base_url: Option<String>,
        /// `openai` (OpenAI-compatible) or `anthropic`, for custom providers.
        #[arg(long)]
        kind: Option<String>,
        /// Model ids; replace the preset's list. A custom provider without
        /// one lists the endpoint's models to pick from.
        #[arg(long = "model")]
        models: Vec<String>,
    },
    /// List providers (keys are never printed).
    List,
    /// Remove a provider.
    Remove { id: String },
    /// Probe providers (all when no id is given).
    Test { id: Option<String> },
}

#[derive(Subcommand)]
pub enum ModelCommand {
    /// List the models of enabled providers as provider/model (the active one marked).
    List,
    /// Make a model the default for new sessions (e.g. `deepseek/deepseek-chat`).
    Use { model: String },
}

/// How far a provider probe may take.
const PROBE_TIMEOUT: Duration = Duration::from_secs(10);

fn load(home: &Home) -> Result<Config> {
    crate::config_check::load(home)
}

pub fn provider(home: &Home, cmd: ProviderCommand) -> Result<()> {
    let mut daemon = DaemonClient::running(home);
    if matches!(
        cmd,
        ProviderCommand::Add { .. } | ProviderCommand::Remove { .. }
    ) {
        crate::config_check::before_edit(home, daemon.as_mut())?;
    }
    match cmd {
        ProviderCommand::Add {
            name,
            api_key,
            api_key_stdin,
            id,
            base_url,
            kind,
            models,
        } => {
            let edit = interactive_add(AddArgs {
                name,
                api_key,
                api_key_stdin,
                id,
                base_url,
                kind,
                models,
            })?;
            match daemon {
                Some(mut daemon) => {
                    let saved = daemon.call::<method::ProviderUpsert>(&upsert_params(&edit)?)?;
                    println!("provider {} saved (through the running daemon)", saved.id);
                }
                None => {
                    home.ensure()?;
                    let edited = edit_config(home, |cfg| anyhow::Ok(upsert_provider(cfg, &edit)?))
                        .map_err(crate::config_check::edit_failed)?;
                    crate::config_check::warn_fields(home, &edited.warnings);
                    println!(
                        "provider {} saved to {}",
                        edited.value.id,
                        home.config_path().display()
                    );
                }
            }
        }
        ProviderCommand::List => {
            let (rows, active) = match daemon {
                Some(mut daemon) => {
                    crate::config_check::through_daemon(&mut daemon)?;
                    let listed = daemon.call::<method::ProviderList>(&NoParams {})?;
                    let rows: Vec<ProviderRow> =
                        listed.iter().map(ProviderRow::from_view).collect();
                    let catalog = daemon.call::<method::ModelCatalog>(&NoParams {})?;
                    let models = ModelRow::from_catalog(&catalog);
                    (rows, active_of(&models).map(str::to_string))
                }
                None => {
                    let config = load(home)?;
                    let models = ModelRow::from_config(&config);
                    let rows = config
                        .providers_by_priority()
                        .into_iter()
                        .map(ProviderRow::of)
                        .collect();
                    (rows, active_of(&models).map(str::to_string))
                }
            };
            print_providers(&mut std::io::stdout().lock(), &rows, active.as_deref())?;
        }
        ProviderCommand::Remove { id } => {
            match daemon {
                Some(mut daemon) => {
                    daemon.call::<method::ProviderRemove>(&ProviderIdParams {
                        id: Required(id.clone()),
                        url: None,
                    })?;
                }
                None => {
                    home.ensure()?;
                    let edited = edit_config(home, |cfg| anyhow::Ok(remove_provider(cfg, &id)?))
                        .map_err(crate::config_check::edit_failed)?;
                    crate::config_check::warn_fields(home, &edited.warnings);
                }
            }
            println!("provider {id} removed");
        }
        ProviderCommand::Test { id } => {
            let probes: Vec<Probe> = match daemon {
                Some(mut daemon) => {
                    let results =
                        daemon.call::<method::ProviderTest>(&ProviderTestParams { id })?;
                    results.iter().map(Probe::from_result).collect()
                }
                None => probe_here(&load(home)?, id.as_deref())?,
            };
            let mut failed = false;
            for probe in probes {
                failed |= !probe.online;
                println!(
                    "[{}] {}: {} ({} ms)",
                    if probe.online { "OK" } else { "FAIL" },
                    probe.id,
                    probe.detail,
                    probe.latency_ms
                );
            }
            if failed {
                bail!("some providers are offline");
            }
        }
    }
    Ok(())
}

pub fn model(home: &Home, cmd: ModelCommand) -> Result<()> {
    match cmd {
        ModelCommand::List => {
            let rows = match DaemonClient::running(home) {
                Some(mut daemon) => {
                    crate::config_check::through_daemon(&mut daemon)?;
                    ModelRow::from_catalog(&daemon.call::<method::ModelCatalog>(&NoParams {})?)
                }
                None => ModelRow::from_config(&load(home)?),
            };
            print_models(&mut std::io::stdout().lock(), &rows)?;
        }
        ModelCommand::Use { model } => {
            let mut daemon = DaemonClient::running(home);
            crate::config_check::before_edit(home, daemon.as_mut())?;
            let switched = match daemon {
                Some(mut daemon) => daemon.call::<method::ModelSwitch>(&ModelParams {
                    model: Required(model.clone()),
                })?,
                None => {
                    home.ensure()?;
                    let edited = edit_config(home, |cfg| {
                        let handle = seekclaw_providers::routing::resolve(cfg, model.trim(), false)
                            .ok_or_else(|| unknown_model(cfg, &model))?;
                        let (pid, mid) = (
                            handle.provider(cfg).id.clone(),
                            handle.model(cfg).id.clone(),
                        );
                        let profile = cfg.active_profile_mut();
                        profile.provider = Some(pid.clone());
                        profile.model = Some(mid.clone());
                        anyhow::Ok(format!("switched to {pid}/{mid}"))
                    })
                    .map_err(crate::config_check::edit_failed)?;
                    crate::config_check::warn_fields(home, &edited.warnings);
                    edited.value
                }
            };
            println!("{switched} (the default for new sessions)");
        }
    }
    Ok(())
}

/// An unknown model, with the ones that exist.
fn unknown_model(config: &Config, given: &str) -> anyhow::Error {
    let known: Vec<String> = ModelRow::from_config(config)
        .into_iter()
        .map(|r| r.model_ref)
        .collect();
    if known.is_empty() {
        anyhow::anyhow!("Unknown model {given}: no models are configured")
    } else {
        anyhow::anyhow!("Unknown model {given}; configured: {}", known.join(", "))
    }
}

/// `seekclaw provider add`'s flags.
struct AddArgs {
    name: String,
    api_key: Option<String>,
    api_key_stdin: bool,
    id: Option<String>,
    base_url: Option<String>,
    kind: Option<String>,
    models: Vec<String>,
}

/// The flags, with what was left out asked for: the key (hidden), and a
/// custom provider's models from its endpoint.
fn interactive_add(args: AddArgs) -> Result<ProviderEdit> {
    if let Some(url) = &args.base_url {
        provider_add::check_base_url(url)?;
    }
    let preset = preset(&args.name);
    if preset.is_none() && args.base_url.is_none() {
        bail!(
            "unknown preset '{}' (presets: {}); for a custom provider give --base-url (and --model, or pick from the endpoint's list)",
            args.name,
            PRESETS.join(", ")
        );
    }
    let base_url = args
        .base_url
        .clone()
        .or_else(|| preset.as_ref().map(|p| p.base_url.clone()))
        .unwrap_or_default();
    let id = args.id.clone().unwrap_or_else(|| args.name.clone());
    let api_key = match (args.api_key, args.api_key_stdin) {
        (Some(key), _) => Some(key),
        (None, true) => provider_add::read_key(provider_add::KeySource::Stdin, &id)?,
        (None, false) if !provider_add::is_local(&base_url) => {
            provider_add::read_key(provider_add::KeySource::Terminal, &id)?
        }
        (None, false) => None,
    };
    let mut models = args.models;
    if preset.is_none() && models.is_empty() {
        let endpoint = Provider {
            id: id.clone(),
            kind: args.kind.clone().unwrap_or_else(|| "openai".into()),
            base_url: base_url.clone(),
            api_key: api_key.clone(),
            ..Provider::default()
        };
        models = provider_add::pick_models(&endpoint)?;
    }
    add_edit(
        &args.name,
        api_key,
        args.id,
        args.base_url,
        args.kind,
        models,
    )
}

/// The edit `seekclaw provider add` stands for: a preset's settings and full
/// model entries (or a custom provider's), the key if one is given, and the
/// active profile pointed at it when it names no provider yet.
fn add_edit(
    name: &str,
    api_key: Option<String>,
    id: Option<String>,
    base_url: Option<String>,
    kind: Option<String>,
    models: Vec<String>,
) -> Result<ProviderEdit> {
    let preset = preset(name);
    if preset.is_none() && (base_url.is_none() || models.is_empty()) {
        bail!(
            "unknown preset '{name}' (presets: {}); for a custom provider give --base-url and --model",
            PRESETS.join(", ")
        );
    }
    let (preset_id, preset_models) = match &preset {
        Some(p) => (p.id.clone(), p.models.clone()),
        None => (name.to_string(), Vec::new()),
    };
    let entries = if models.is_empty() {
        preset_models
            .into_iter()
            .map(|m| ModelEntry::Full(Box::new(m)))
            .collect()
    } else {
        models
            .into_iter()
            .map(|m| match preset_models.iter().find(|x| x.id == m) {
                Some(known) => ModelEntry::Full(Box::new(known.clone())),
                None => ModelEntry::Id(m),
            })
            .collect()
    };
    Ok(ProviderEdit {
        id: id.unwrap_or(preset_id),
        kind: kind.or_else(|| preset.as_ref().map(|p| p.kind.clone())),
        name: preset.as_ref().and_then(|p| p.name.clone()),
        base_url: base_url.or_else(|| preset.as_ref().map(|p| p.base_url.clone())),
        api_key: match api_key {
            Some(key) if !key.trim().is_empty() => ApiKeyEdit::Set(key),
            _ => ApiKeyEdit::Keep,
        },
        models: Some(entries),
        activate_if_none: true,
        ..ProviderEdit::default()
    })
}

/// `provider.upsert` params for `edit`: only what it sets.
fn upsert_params(edit: &ProviderEdit) -> Result<ProviderUpsertParams> {
    let (api_key, clear_api_key) = match &edit.api_key {
        ApiKeyEdit::Keep => (None, None),
        ApiKeyEdit::Set(key) => (Some(Value::String(key.clone())), None),
        ApiKeyEdit::Clear => (None, Some(true)),
    };
    let models = match &edit.models {
        None => None,
        Some(entries) => {
            let inputs = entries
                .iter()
                .map(|e| match e {
                    ModelEntry::Id(id) => Ok(ModelInput::Id(id.clone())),
                    ModelEntry::Full(m) => match serde_json::to_value(m)? {
                        Value::Object(fields) => Ok(ModelInput::Full(fields)),
                        other => Ok(ModelInput::Id(other.to_string())),
                    },
                })
                .collect::<Result<Vec<_>, serde_json::Error>>()?;
            Some(Strict::new(inputs))
        }
    };
    Ok(ProviderUpsertParams {
        id: Required(edit.id.clone()),
        kind: edit.kind.clone(),
        name: edit.name.clone(),
        base_url: edit.base_url.clone(),
        proxy: edit.proxy.clone(),
        enabled: edit.enabled,
        priority: edit.priority.map(i64::from),
        // Out of range stays out of range: the daemon says what the limits are.
        timeout_seconds: edit
            .timeout_seconds
            .map(|t| i64::try_from(t).unwrap_or(i64::MAX)),
        model_list_url: edit.model_list_url.clone(),
        prompt_caching: edit.prompt_caching,
        clear_api_key,
        api_key,
        models,
        activate_if_none: edit.activate_if_none.then_some(true),
    })
}

/// One provider's health, from the daemon or probed here.
struct Probe {
    id: String,
    online: bool,
    latency_ms: u64,
    detail: String,
}

impl Probe {
    fn from_result(r: &ProbeResult) -> Probe {
        Probe {
            id: r.id.clone(),
            online: r.online,
            latency_ms: r.latency_ms,
            detail: r.detail.clone(),
        }
    }
}

/// Probes with no daemon: the same check `provider.test` runs, one at a time.
fn probe_here(config: &Config, id: Option<&str>) -> Result<Vec<Probe>> {
    let targets: Vec<&Provider> = config
        .providers_by_priority()
        .into_iter()
        .filter(|p| id.is_none_or(|i| p.id.eq_ignore_ascii_case(i.trim())))
        .collect();
    if targets.is_empty() {
        bail!("No matching providers");
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("tokio")?;
    let pool = seekclaw_providers::transport::HttpPool::new();
    Ok(targets
        .into_iter()
        .map(|p| {
            let start = std::time::Instant::now();
            let (online, detail) = runtime.block_on(seekclaw_providers::transport::probe(
                &pool,
                p,
                PROBE_TIMEOUT,
            ));
            Probe {
                id: p.id.clone(),
                online,
                latency_ms: start.elapsed().as_millis() as u64,
                detail,
            }
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_preset_add_sends_full_entries_and_a_custom_model_by_id() {
        let edit = add_edit(
            "deepseek",
            Some("sk-1".into()),
            Some("ds2".into()),
            None,
            None,
            vec!["deepseek-reasoner".into(), "extra".into()],
        )
        .unwrap();
        let params = serde_json::to_value(upsert_params(&edit).unwrap()).unwrap();
        assert_eq!(params["id"], "ds2");
        assert_eq!(params["kind"], "openai");
        assert_eq!(params["baseUrl"], "https://api.deepseek.com");
        assert_eq!(params["apiKey"], "sk-1");
        assert_eq!(params["activateIfNone"], true);
        assert_eq!(params["models"][0]["id"], "deepseek-reasoner");
        assert_eq!(params["models"][0]["capabilities"]["thinking"], true);
        assert_eq!(params["models"][1], "extra");
        assert!(params.get("clearApiKey").is_none() && params.get("proxy").is_none());

        // The daemon and the file path apply the same edit.
        let mut config = Config::default();
        let p = upsert_provider(&mut config, &edit).unwrap();
        assert_eq!(
            (p.models[0].max_output, p.models[0].capabilities.thinking),
            (64_000, true)
        );
        assert_eq!(p.models[1].id, "extra");
        assert_eq!(
            config.active_profile().unwrap().provider.as_deref(),
            Some("ds2")
        );
    }

    #[test]
    fn a_custom_add_needs_a_url_and_models() {
        let err = add_edit("mine", None, None, None, None, vec!["m".into()]).unwrap_err();
        assert!(err.to_string().contains("unknown preset 'mine'"), "{err}");
        let edit = add_edit(
            "mine",
            Some(" ".into()),
            None,
            Some("http://h/v1".into()),
            None,
            vec!["m".into()],
        )
        .unwrap();
        assert_eq!(
            edit.api_key,
            ApiKeyEdit::Keep,
            "a blank key keeps the stored one"
        );
        assert_eq!(
            edit.kind, None,
            "a new one is openai, a stored one keeps its kind"
        );
        let params = serde_json::to_value(upsert_params(&edit).unwrap()).unwrap();
        assert_eq!(params["models"], serde_json::json!(["m"]));
        assert!(params.get("apiKey").is_none() && params.get("name").is_none());
    }
}
