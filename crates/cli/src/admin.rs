//! `seekclaw provider …` and `seekclaw model list`: edit and inspect config.json
//! directly (atomic writes; a running daemon reads the file on every request).

use std::time::Duration;

use anyhow::{Context, Result, bail};
use clap::Subcommand;
use seekclaw_config::{Config, Home, Model, load_json_file, save_json_file};
use seekclaw_providers::presets::{PRESETS, preset};

#[derive(Subcommand)]
pub enum ProviderCommand {
    /// Add (or update) a provider from a preset: deepseek, kimi, openai, anthropic,
    /// openrouter, ollama, lmstudio, vllm — or a custom one with --base-url and --model.
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

fn load(home: &Home) -> Result<Config> {
    let loaded = load_json_file::<Config>(&home.config_path())?;
    if let Some(p) = loaded.problem {
        eprintln!(
            "warning: {} was invalid ({}); defaults in use",
            p.path.display(),
            p.error
        );
    }
    Ok(loaded.value)
}

pub fn provider(home: &Home, cmd: ProviderCommand) -> Result<()> {
    home.ensure()?;
    let mut config = load(home)?;
    match cmd {
        ProviderCommand::Add {
            name,
            api_key,
            id,
            base_url,
            kind,
            models,
        } => {
            let mut p = match preset(&name) {
                Some(p) => p,
                None if base_url.is_some() && !models.is_empty() => seekclaw_config::Provider {
                    id: name.clone(),
                    kind: "openai".into(),
                    ..seekclaw_config::Provider::default()
                },
                None => bail!(
                    "unknown preset '{name}' (presets: {}); for a custom provider give --base-url and --model",
                    PRESETS.join(", ")
                ),
            };
            if let Some(id) = id {
                p.id = id;
            }
            if let Some(url) = base_url {
                p.base_url = url.trim_end_matches('/').to_string();
            }
            if let Some(kind) = kind {
                if kind != "openai" && kind != "anthropic" {
                    bail!("--kind must be openai or anthropic");
                }
                p.kind = kind;
            }
            if !models.is_empty() {
                p.models = models
                    .iter()
                    .map(|m| {
                        p.models
                            .iter()
                            .find(|x| &x.id == m)
                            .cloned()
                            .unwrap_or_else(|| Model {
                                id: m.clone(),
                                ..Model::default()
                            })
                    })
                    .collect();
            }
            p.api_key = api_key.filter(|k| !k.trim().is_empty());
            let id = p.id.clone();
            match config
                .providers
                .iter_mut()
                .find(|x| x.id.eq_ignore_ascii_case(&id))
            {
                Some(existing) => {
                    // Keep a stored key when none was given.
                    if p.api_key.is_none() {
                        p.api_key = existing.api_key.take();
                    }
                    *existing = p;
                }
                None => config.providers.push(p),
            }
            let profile = config.active_profile_mut();
            if profile.provider.is_none() {
                profile.provider = Some(id.clone());
            }
            save_json_file(&home.config_path(), &config)?;
            println!("provider {id} saved to {}", home.config_path().display());
        }
        ProviderCommand::List => {
            for p in &config.providers {
                let key = if p.api_key.as_deref().is_some_and(|k| !k.is_empty()) {
                    "key set"
                } else {
                    "no key"
                };
                let models: Vec<&str> = p.models.iter().map(|m| m.id.as_str()).collect();
                println!(
                    "{}\t{}\t{}\t{}\t{}\t{}",
                    p.id,
                    p.kind,
                    p.base_url,
                    if p.enabled { "enabled" } else { "disabled" },
                    key,
                    models.join(",")
                );
            }
        }
        ProviderCommand::Remove { id } => {
            let before = config.providers.len();
            config.providers.retain(|p| !p.id.eq_ignore_ascii_case(&id));
            if config.providers.len() == before {
                bail!("Provider not found: {id}");
            }
            for profile in config.profiles.values_mut() {
                if profile
                    .provider
                    .as_deref()
                    .is_some_and(|p| p.eq_ignore_ascii_case(&id))
                {
                    profile.provider = None;
                    profile.model = None;
                }
            }
            save_json_file(&home.config_path(), &config)?;
            println!("provider {id} removed");
        }
        ProviderCommand::Test { id } => {
            let targets: Vec<_> = config
                .providers
                .iter()
                .filter(|p| id.as_deref().is_none_or(|i| p.id.eq_ignore_ascii_case(i)))
                .cloned()
                .collect();
            if targets.is_empty() {
                bail!("No matching providers");
            }
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .context("tokio")?;
            let pool = seekclaw_providers::transport::HttpPool::new();
            let mut failed = false;
            for p in targets {
                let start = std::time::Instant::now();
                let (online, detail) = runtime.block_on(seekclaw_providers::transport::probe(
                    &pool,
                    &p,
                    Duration::from_secs(10),
                ));
                failed |= !online;
                println!(
                    "[{}] {}: {} ({} ms)",
                    if online { "OK" } else { "FAIL" },
                    p.id,
                    detail,
                    start.elapsed().as_millis()
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
    let config = load(home)?;
    match cmd {
        ModelCommand::List => {
            let mut providers: Vec<_> = config.providers.iter().filter(|p| p.enabled).collect();
            providers.sort_by(|a, b| (a.priority, &a.id).cmp(&(b.priority, &b.id)));
            for p in providers {
                for m in &p.models {
                    println!("{}/{}", p.id, m.id);
                }
            }
        }
    }
    Ok(())
}
