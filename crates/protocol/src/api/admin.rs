//! `profile.*`, `routing.*`, `provider.*`, `model.*`, `prompt.optimize`, `usage.get`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::adapter::{FieldMessage, Required, Strict, double_option};

/// `profile.upsert`: overwrites every field (an absent one becomes unset).
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProfileUpsertParams {
    pub name: Required,
    /// plan, readonly, edit or auto (case-insensitive).
    pub mode: Option<String>,
    pub provider: Option<String>,
    pub model: Option<String>,
    /// A routing strategy name.
    pub strategy: Option<String>,
    pub temperature: Option<f64>,
}

/// `profile.use`, `profile.remove`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProfileNameParams {
    /// The profile name (matched case-insensitively).
    pub name: Required,
}

/// One `profile.list` row.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProfileView {
    pub name: String,
    pub active: bool,
    pub provider: Option<String>,
    pub model: Option<String>,
    pub strategy: Option<String>,
    pub temperature: Option<f64>,
    /// plan, readonly, edit or auto.
    pub mode: Option<String>,
}

/// The reference's one message for a missing or mistyped `failoverEnabled`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FailoverMessage;

impl FieldMessage for FailoverMessage {
    const PARAM: &'static str = "failoverEnabled";
    const MESSAGE: &'static str = "params.failoverEnabled (boolean) is required";
}

/// `routing.set`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RoutingSetParams {
    pub failover_enabled: Strict<bool, FailoverMessage>,
    /// Unchanged when absent.
    pub deep_seek_optimization_enabled: Option<bool>,
}

/// `routing.get` / `routing.set`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RoutingView {
    pub failover_enabled: bool,
    pub deep_seek_optimization_enabled: bool,
}

/// `provider.upsert`: creates or edits one provider.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProviderUpsertParams {
    /// The provider id (no `/`).
    pub id: Required,
    /// openai or anthropic (case-insensitive).
    pub kind: Option<String>,
    /// Display name; blank leaves it unchanged.
    pub name: Option<String>,
    /// Required for a new provider.
    pub base_url: Option<String>,
    /// Blank leaves it unchanged.
    pub proxy: Option<String>,
    pub enabled: Option<bool>,
    pub priority: Option<i64>,
    /// 1 to 3600.
    pub timeout_seconds: Option<i64>,
    /// Set when the key is present; null or blank clears it.
    #[serde(default, deserialize_with = "double_option")]
    pub model_list_url: Option<Option<String>>,
    pub prompt_caching: Option<bool>,
    /// true removes the stored key (and `apiKey` is not read).
    pub clear_api_key: Option<bool>,
    /// Blank leaves the key unchanged. Read only without `clearApiKey: true`
    /// (so its type is checked only then: see [`ProviderUpsertParams::api_key`]).
    #[schemars(with = "Option<String>")]
    pub api_key: Option<serde_json::Value>,
    /// Replaces the model list: ids (a stored model keeps its settings) and,
    /// an addition to the reference, full model objects as in config.json.
    pub models: Option<Strict<Vec<ModelInput>, ModelIdsMessage>>,
    /// An addition to the reference: when the active profile names no
    /// provider, it names this one afterwards (`seekclaw provider add` sends it).
    pub activate_if_none: Option<bool>,
}

/// One entry of `provider.upsert`'s `models`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum ModelInput {
    /// A model id; a model already stored keeps its settings.
    Id(String),
    /// A whole model as `config.json` holds it (`{id, contextWindow,
    /// maxOutput, capabilities, …}`; `id` required, absent fields take their
    /// defaults; the daemon checks the fields and names the entry it refuses).
    Full(serde_json::Map<String, serde_json::Value>),
}

impl ProviderUpsertParams {
    /// The new API key: `Ok(None)` when absent, null or blank.
    pub fn api_key(&self) -> Result<Option<String>, crate::MethodError> {
        match &self.api_key {
            None | Some(serde_json::Value::Null) => Ok(None),
            Some(serde_json::Value::String(k)) => {
                Ok(Some(k.trim()).filter(|k| !k.is_empty()).map(str::to_string))
            }
            Some(_) => Err(crate::adapter::wrong_type("apiKey", "a string")),
        }
    }
}

/// The message for a `models` that is not an array of strings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelIdsMessage;

impl FieldMessage for ModelIdsMessage {
    const PARAM: &'static str = "models";
    const MESSAGE: &'static str = "params.models must be an array of model ids";
}

/// `provider.use`, `provider.remove`, `provider.models.fetch`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProviderIdParams {
    /// The provider id (matched case-insensitively).
    pub id: Required,
    /// `provider.models.fetch` only: the model list URL (default: the provider's
    /// `modelListUrl`, else `{baseUrl}/models`).
    pub url: Option<String>,
}

/// `provider.test`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProviderTestParams {
    /// One provider; every provider when absent or blank.
    pub id: Option<String>,
}

/// One provider as `provider.list` and `provider.upsert` show it.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProviderView {
    pub id: String,
    pub name: String,
    /// openai or anthropic.
    pub kind: String,
    pub base_url: String,
    /// The stored key, in plain text (the desktop edits it).
    pub api_key: Option<String>,
    pub api_key_configured: bool,
    /// Model ids.
    pub models: Vec<String>,
    pub enabled: bool,
    pub priority: i32,
    pub timeout_seconds: u64,
    pub model_list_url: Option<String>,
    pub prompt_caching: bool,
    pub proxy: Option<String>,
    /// The active profile's provider.
    pub active: bool,
}

/// One `provider.test` row.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProbeResult {
    pub id: String,
    pub online: bool,
    pub latency_ms: u64,
    pub detail: String,
}

/// `model.switch`, `model.test`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ModelParams {
    /// `provider/model`, an alias, or a unique bare model id.
    pub model: Required,
}

/// `model.update`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ModelUpdateParams {
    pub provider: Required,
    /// The model id.
    pub id: Required,
    /// 1024 to 10,000,000.
    pub context_window: Option<i64>,
    /// 128 to 1,000,000.
    pub max_output: Option<i64>,
    pub vision: Option<bool>,
    /// Set when the key is present; null or blank clears it.
    #[serde(default, deserialize_with = "double_option")]
    pub alias: Option<Option<String>>,
}

/// One `model.catalog` row.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CatalogEntry {
    /// `provider/model`.
    #[serde(rename = "ref")]
    pub model_ref: String,
    /// The first routing candidate.
    pub active: bool,
    pub provider: String,
    pub provider_enabled: bool,
    pub id: String,
    pub alias: Option<String>,
    pub context_window: u64,
    pub max_output: u64,
    pub tags: Vec<String>,
    pub capabilities: CatalogCaps,
}

/// What a catalogued model can do.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CatalogCaps {
    pub streaming: bool,
    pub tools: bool,
    pub thinking: bool,
    pub vision: bool,
    pub reasoning: bool,
    /// none, low, medium, high, max, xhigh or ultra.
    pub max_reasoning_level: String,
    pub mcp: bool,
}

/// `model.test`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ModelTestResult {
    pub model: String,
    pub success: bool,
    /// The reply text, `(empty reply)`, or the error.
    pub detail: String,
    pub latency_ms: u64,
}

/// `model.update`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ModelUpdateResult {
    pub provider: String,
    pub id: String,
    pub alias: Option<String>,
    pub context_window: u64,
    pub max_output: u64,
    pub vision: bool,
}

/// `prompt.optimize`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PromptOptimizeParams {
    /// The prompt to rewrite.
    pub text: Required,
    /// The model to use (default: the active model).
    pub model: Option<String>,
}

/// `usage.get`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct UsageParams {
    /// The last N days (1 to 36,500); all time when absent.
    pub days: Option<i64>,
}

/// One `usage.get` row, per provider and model, most expensive first.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UsageSummary {
    pub provider: String,
    pub model: String,
    pub calls: u64,
    pub failures: u64,
    pub input_tokens: u64,
    pub total_input_tokens: u64,
    pub cached_input_tokens: u64,
    pub cache_creation_input_tokens: u64,
    pub output_tokens: u64,
    pub cost: f64,
    pub avg_latency_ms: f64,
    pub success_rate: f64,
}
