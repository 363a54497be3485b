//! Edits of `config.json` as data. The daemon's `provider.*` handlers and the
//! CLI (when no daemon runs) apply the same [`ProviderEdit`] with the same
//! functions, so an edit means the same thing whichever way it arrives.
//!
//! [`edit_config`] is the read-modify-write for processes without a daemon: it
//! holds the home's [`ConfigLock`] (which the daemon also takes around its own
//! writes), so concurrent edits from several processes are never lost.

use std::fmt;
use std::fs::{File, OpenOptions};

use crate::config::Config;
use crate::document::Document;
use crate::error::{ConfigError, Result};
use crate::home::Home;
use crate::lenient::FieldWarning;
use crate::provider::{Model, Provider};

/// A change to one provider, created if missing (`provider.upsert`). `None`
/// fields keep the stored value (or the default of a new provider).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ProviderEdit {
    /// Matched case-insensitively; must not be blank or contain `/`.
    pub id: String,
    /// `openai` or `anthropic` (trimmed, any case).
    pub kind: Option<String>,
    /// A blank name is ignored (a name cannot be cleared).
    pub name: Option<String>,
    /// Trailing slashes are dropped.
    pub base_url: Option<String>,
    /// A blank proxy is ignored (a proxy cannot be cleared).
    pub proxy: Option<String>,
    /// Whether the provider's models may be routed to.
    pub enabled: Option<bool>,
    /// Routing order among providers; lower first.
    pub priority: Option<i32>,
    /// Must be 1-3600.
    pub timeout_seconds: Option<u64>,
    /// `Some(None)` or `Some("")` clears it.
    pub model_list_url: Option<Option<String>>,
    /// Whether Anthropic prompt caching is requested.
    pub prompt_caching: Option<bool>,
    /// Keep, set or clear the stored key.
    pub api_key: ApiKeyEdit,
    /// Replaces the model list; `None` keeps it.
    pub models: Option<Vec<ModelEntry>>,
    /// When the active profile names no provider, it names this one afterwards
    /// (a first `seekclaw provider add` is ready to use).
    pub activate_if_none: bool,
}

/// What happens to the stored API key.
#[derive(Clone, Default, PartialEq, Eq)]
pub enum ApiKeyEdit {
    /// Leave the stored key as it is.
    #[default]
    Keep,
    /// A blank key keeps the stored one (the desktop sends `""` for "unchanged").
    Set(String),
    /// Remove the stored key.
    Clear,
}

/// Keys never reach a log, not even through `{:?}`.
impl fmt::Debug for ApiKeyEdit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ApiKeyEdit::Keep => f.write_str("Keep"),
            ApiKeyEdit::Set(_) => f.write_str("Set(<redacted>)"),
            ApiKeyEdit::Clear => f.write_str("Clear"),
        }
    }
}

/// One entry of a new model list.
#[derive(Debug, Clone, PartialEq)]
pub enum ModelEntry {
    /// Keeps the stored settings of a model with this id, else defaults.
    Id(String),
    /// Exactly these settings (a preset's, or a client's full entry).
    Full(Box<Model>),
}

impl ModelEntry {
    fn id(&self) -> &str {
        match self {
            ModelEntry::Id(id) => id.trim(),
            ModelEntry::Full(m) => m.id.trim(),
        }
    }
}

/// Why an edit was refused; the config is left as it was.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EditError {
    /// `field` is the camelCase config key (and request parameter) to blame.
    #[error("{message}")]
    Invalid {
        /// The offending key.
        field: &'static str,
        /// What is wrong, phrased for the user.
        message: String,
    },
    /// No provider has this id (the id as asked for, trimmed).
    #[error("Provider not found: {0}")]
    ProviderNotFound(String),
}

impl EditError {
    fn invalid(field: &'static str, message: impl Into<String>) -> Self {
        EditError::Invalid {
            field,
            message: message.into(),
        }
    }
}

fn non_blank(s: Option<&str>) -> Option<String> {
    s.map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

fn position(config: &Config, id: &str) -> Option<usize> {
    config
        .providers
        .iter()
        .position(|p| p.id.eq_ignore_ascii_case(id))
}

/// Applies `edit`: updates the provider with its id or appends a new one.
/// Validated on a copy, so a refused edit (bad kind, no base URL, no model)
/// changes nothing. Returns the provider as stored.
pub fn upsert_provider(config: &mut Config, edit: &ProviderEdit) -> Result<Provider, EditError> {
    let id = edit.id.trim();
    if id.is_empty() {
        return Err(EditError::invalid("id", "params.id is required"));
    }
    if id.contains('/') {
        return Err(EditError::invalid("id", "params.id must not contain '/'"));
    }
    let slot = position(config, id);
    let mut p = match slot {
        Some(i) => config.providers[i].clone(),
        None => Provider {
            id: id.to_string(),
            kind: "openai".into(),
            ..Provider::default()
        },
    };
    apply(&mut p, edit)?;
    match slot {
        Some(i) => config.providers[i] = p.clone(),
        None => config.providers.push(p.clone()),
    }
    if edit.activate_if_none {
        let profile = config.active_profile_mut();
        if profile.provider.is_none() {
            profile.provider = Some(p.id.clone());
        }
    }
    Ok(p)
}

fn apply(p: &mut Provider, edit: &ProviderEdit) -> Result<(), EditError> {
    if let Some(kind) = &edit.kind {
        let kind = kind.trim().to_ascii_lowercase();
        if kind != "openai" && kind != "anthropic" {
            return Err(EditError::invalid(
                "kind",
                "Provider kind must be openai or anthropic",
            ));
        }
        p.kind = kind;
    }
    if let Some(name) = non_blank(edit.name.as_deref()) {
        p.name = Some(name);
    }
    if let Some(url) = &edit.base_url {
        p.base_url = url.trim().trim_end_matches('/').to_string();
    }
    if let Some(proxy) = non_blank(edit.proxy.as_deref()) {
        p.proxy = Some(proxy);
    }
    if let Some(enabled) = edit.enabled {
        p.enabled = enabled;
    }
    if let Some(priority) = edit.priority {
        p.priority = priority;
    }
    if let Some(t) = edit.timeout_seconds {
        if !(1..=3600).contains(&t) {
            return Err(EditError::invalid(
                "timeoutSeconds",
                "params.timeoutSeconds must be between 1 and 3600",
            ));
        }
        p.timeout_seconds = t;
    }
    if let Some(url) = &edit.model_list_url {
        p.model_list_url = non_blank(url.as_deref());
    }
    if let Some(caching) = edit.prompt_caching {
        p.prompt_caching = caching;
    }
    match &edit.api_key {
        ApiKeyEdit::Keep => {}
        ApiKeyEdit::Clear => p.api_key = None,
        ApiKeyEdit::Set(key) => {
            if let Some(key) = non_blank(Some(key)) {
                p.api_key = Some(key);
            }
        }
    }
    if let Some(entries) = &edit.models {
        p.models = model_list(&p.models, entries);
    }
    if p.base_url.trim().is_empty() {
        return Err(EditError::invalid(
            "baseUrl",
            "Provider baseUrl is required",
        ));
    }
    if p.models.is_empty() {
        return Err(EditError::invalid(
            "models",
            "At least one model is required",
        ));
    }
    Ok(())
}

/// The new list: blank ids dropped, the first of duplicate ids kept.
fn model_list(stored: &[Model], entries: &[ModelEntry]) -> Vec<Model> {
    let mut models: Vec<Model> = Vec::with_capacity(entries.len());
    for entry in entries {
        let id = entry.id();
        if id.is_empty() || models.iter().any(|m| m.id == id) {
            continue;
        }
        let model = match entry {
            // Keep the settings of models that stay.
            ModelEntry::Id(_) => stored
                .iter()
                .find(|m| m.id == id)
                .cloned()
                .unwrap_or_else(|| Model {
                    id: id.to_string(),
                    ..Model::default()
                }),
            ModelEntry::Full(m) => Model {
                id: id.to_string(),
                ..(**m).clone()
            },
        };
        models.push(model);
    }
    models
}

/// Removes the provider with this id (case-insensitive); profiles that named
/// it lose their provider and model. Returns the removed provider.
pub fn remove_provider(config: &mut Config, id: &str) -> Result<Provider, EditError> {
    let id = id.trim();
    let pos = position(config, id).ok_or_else(|| EditError::ProviderNotFound(id.to_string()))?;
    let p = config.providers.remove(pos);
    for profile in config.profiles.values_mut() {
        if profile
            .provider
            .as_deref()
            .is_some_and(|x| x.eq_ignore_ascii_case(&p.id))
        {
            profile.provider = None;
            profile.model = None;
        }
    }
    Ok(p)
}

/// An exclusive advisory lock on the home's `config.lock`, held until dropped.
/// Every writer of `config.json` and `state.json` takes it around its
/// read-modify-write: the daemon, `seekclaw run` and the CLI without a daemon.
#[derive(Debug)]
pub struct ConfigLock {
    _file: File,
}

impl ConfigLock {
    /// Waits (blocking the thread) until no other holder is left. The lock is
    /// per open file, so two holders in one process exclude each other too.
    pub fn acquire(home: &Home) -> Result<ConfigLock> {
        let path = home.config_lock_path();
        let mut opts = OpenOptions::new();
        opts.read(true).write(true).create(true).truncate(false);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            opts.mode(0o600);
        }
        let file = opts.open(&path).map_err(|e| ConfigError::io(&path, e))?;
        file.lock().map_err(|e| ConfigError::io(&path, e))?;
        Ok(ConfigLock { _file: file })
    }
}

/// What [`edit_config`] returns: the change's result, and the fields of
/// `config.json` the typed view could not use (kept in the file as written).
#[derive(Debug)]
pub struct Edited<R> {
    /// What the change returned.
    pub value: R,
    /// Wrongly typed or unknown fields, reported once by the caller.
    pub warnings: Vec<FieldWarning>,
}

/// Loads `config.json`, applies `change` and saves it atomically, all under the
/// [`ConfigLock`]. Only what the change changed is written: the rest of the
/// file stays as the user wrote it. A file that is not JSON(5) is refused
/// ([`ConfigError::Invalid`]) and, like a refused change, left untouched. Blocking.
pub fn edit_config<R, E: From<ConfigError>>(
    home: &Home,
    change: impl FnOnce(&mut Config) -> std::result::Result<R, E>,
) -> std::result::Result<Edited<R>, E> {
    let _lock = ConfigLock::acquire(home)?;
    let mut doc = Document::<Config>::open(&home.config_path())?;
    let value = change(&mut doc.value)?;
    doc.save()?;
    Ok(Edited {
        value,
        warnings: doc.warnings,
    })
}

#[cfg(test)]
#[path = "edits_tests.rs"]
mod tests;
