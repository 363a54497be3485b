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
use seekclaw_providers::presets::{PRESETS, preset};
use serde_json::{Map, Value, json};

use crate::client::DaemonClient;

#[derive(Subcommand)]
pub enum ProviderCommand {
    /// Add (or update) a provider from a preset: deepseek, kimi, openai, anthropic,
    /// openrouter, ollama, lmstudio, vllm — or a custom one with --base-url and --model.
    /// Settings not named here (priority, proxy, timeout…) of an existing provider stay.
    Add {
        /// Preset name, or the id of a custom provider.
        name: String,
        #[arg(long)]
        api_key: Option<String>,
        /// Store it under another id (e.g. two DeepSeek accounts).
        #[arg(long)]
        id: Option<String>,
        #[arg(long)]
        base_url: Option<String>,
        /// `openai` (OpenAI-compatible) or `anthropic`, for custom providers.
        #[arg(long)]
        kind: Option<String>,
        /// Model ids; replace the preset's list.
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
    /// List the models of enabled providers as provider/model.
    List,
}

/// How far a provider probe may take.
const PROBE_TIMEOUT: Duration = Duration::from_secs(10);

fn load(home: &Home) -> Result<Config> {
    crate::config_check::load(home)
}

pub fn provider(home: &Home, cmd: ProviderCommand) -> Result<()> {
    let daemon = DaemonClient::running(home);
    match cmd {
        ProviderCommand::Add {
            name,
            api_key,
            id,
            base_url,
            kind,
            models,
        } => {
            let edit = add_edit(&name, api_key, id, base_url, kind, models)?;
            match daemon {
                Some(mut daemon) => {
                    let saved = daemon.call_json("provider.upsert", upsert_params(&edit))?;
                    let id = saved["id"].as_str().unwrap_or(&edit.id);
                    println!("provider {id} saved (through the running daemon)");
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
            let rows: Vec<Row> = match daemon {
                Some(mut daemon) => {
                    crate::config_check::through_daemon(&mut daemon)?;
                    let listed = daemon.call_json("provider.list", json!({}))?;
                    listed
                        .as_array()
                        .map(|all| all.iter().map(Row::from_view).collect())
                        .unwrap_or_default()
                }
                None => load(home)?
                    .providers_by_priority()
                    .into_iter()
                    .map(Row::of)
                    .collect(),
            };
            for row in rows {
                println!("{}", row.line());
            }
        }
        ProviderCommand::Remove { id } => {
            match daemon {
                Some(mut daemon) => {
                    daemon.call("provider.remove", json!({ "id": id }))?;
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
                    let params = id.map_or_else(|| json!({}), |id| json!({ "id": id }));
                    let results = daemon.call_json("provider.test", params)?;
                    results
                        .as_array()
                        .map(|all| all.iter().map(Probe::from_result).collect())
                        .unwrap_or_default()
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
            let refs: Vec<String> = match DaemonClient::running(home) {
                Some(mut daemon) => {
                    crate::config_check::through_daemon(&mut daemon)?;
                    let listed = daemon.call_json("model.list", json!({}))?;
                    listed
                        .as_array()
                        .map(|all| {
                            all.iter()
                                .filter_map(|r| r.as_str().map(str::to_string))
                                .collect()
                        })
                        .unwrap_or_default()
                }
                None => {
                    let config = load(home)?;
                    config
                        .providers_by_priority()
                        .into_iter()
                        .filter(|p| p.enabled)
                        .flat_map(|p| p.models.iter().map(move |m| format!("{}/{}", p.id, m.id)))
                        .collect()
                }
            };
            for r in refs {
                println!("{r}");
            }
        }
    }
    Ok(())
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
fn upsert_params(edit: &ProviderEdit) -> Value {
    let mut p = Map::new();
    p.insert("id".into(), json!(edit.id));
    let mut put = |key: &str, value: Option<Value>| {
        if let Some(v) = value {
            p.insert(key.into(), v);
        }
    };
    put("kind", edit.kind.as_ref().map(|v| json!(v)));
    put("name", edit.name.as_ref().map(|v| json!(v)));
    put("baseUrl", edit.base_url.as_ref().map(|v| json!(v)));
    put("proxy", edit.proxy.as_ref().map(|v| json!(v)));
    put("enabled", edit.enabled.map(|v| json!(v)));
    put("priority", edit.priority.map(|v| json!(v)));
    put("timeoutSeconds", edit.timeout_seconds.map(|v| json!(v)));
    put(
        "modelListUrl",
        edit.model_list_url.as_ref().map(|v| json!(v)),
    );
    put("promptCaching", edit.prompt_caching.map(|v| json!(v)));
    match &edit.api_key {
        ApiKeyEdit::Keep => {}
        ApiKeyEdit::Set(key) => put("apiKey", Some(json!(key))),
        ApiKeyEdit::Clear => put("clearApiKey", Some(json!(true))),
    }
    let models = edit.models.as_ref().map(|entries| {
        entries
            .iter()
            .map(|e| match e {
                ModelEntry::Id(id) => json!(id),
                ModelEntry::Full(m) => json!(m),
            })
            .collect::<Value>()
    });
    put("models", models);
    put(
        "activateIfNone",
        edit.activate_if_none.then_some(json!(true)),
    );
    Value::Object(p)
}

/// One `provider list` line; says whether a key is set, never which.
struct Row {
    id: String,
    kind: String,
    base_url: String,
    enabled: bool,
    key_set: bool,
    models: Vec<String>,
}

impl Row {
    fn of(p: &Provider) -> Row {
        Row {
            id: p.id.clone(),
            kind: p.kind.clone(),
            base_url: p.base_url.clone(),
            enabled: p.enabled,
            key_set: p.api_key.as_deref().is_some_and(|k| !k.trim().is_empty()),
            models: p.models.iter().map(|m| m.id.clone()).collect(),
        }
    }

    /// From a `provider.list` entry (which carries the key: it is dropped here).
    fn from_view(v: &Value) -> Row {
        let text = |key: &str| v[key].as_str().unwrap_or_default().to_string();
        Row {
            id: text("id"),
            kind: text("kind"),
            base_url: text("baseUrl"),
            enabled: v["enabled"].as_bool().unwrap_or(false),
            key_set: v["apiKeyConfigured"].as_bool().unwrap_or(false),
            models: v["models"]
                .as_array()
                .map(|all| {
                    all.iter()
                        .filter_map(|m| m.as_str().map(str::to_string))
                        .collect()
                })
                .unwrap_or_default(),
        }
    }

    fn line(&self) -> String {
        format!(
            "{}\t{}\t{}\t{}\t{}\t{}",
            self.id,
            self.kind,
            self.base_url,
            if self.enabled { "enabled" } else { "disabled" },
            if self.key_set { "key set" } else { "no key" },
            self.models.join(",")
        )
    }
}

/// One provider's health, from the daemon or probed here.
struct Probe {
    id: String,
    online: bool,
    latency_ms: u64,
    detail: String,
}

impl Probe {
    fn from_result(v: &Value) -> Probe {
        Probe {
            id: v["id"].as_str().unwrap_or_default().to_string(),
            online: v["online"].as_bool().unwrap_or(false),
            latency_ms: v["latencyMs"].as_u64().unwrap_or(0),
            detail: v["detail"].as_str().unwrap_or_default().to_string(),
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
        let params = upsert_params(&edit);
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
        let params = upsert_params(&edit);
        assert_eq!(params["models"], json!(["m"]));
        assert!(params.get("apiKey").is_none() && params.get("name").is_none());
    }

    #[test]
    fn rows_say_whether_a_key_is_set_never_which() {
        let view = json!({"id": "a", "kind": "openai", "baseUrl": "http://h", "apiKey": "sk-secret",
            "apiKeyConfigured": true, "models": ["m1", "m2"], "enabled": true});
        let line = Row::from_view(&view).line();
        assert_eq!(line, "a\topenai\thttp://h\tenabled\tkey set\tm1,m2");
        let p = Provider {
            id: "a".into(),
            base_url: "http://h".into(),
            api_key: Some("sk-secret".into()),
            ..Provider::default()
        };
        assert!(!Row::of(&p).line().contains("sk-secret"));
    }
}
