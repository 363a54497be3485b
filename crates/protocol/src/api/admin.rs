//! `profile.*`, `routing.*`, `provider.*`, `model.*`, `prompt.optimize`, `usage.get`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::adapter::{FieldMessage, Required, Strict, double_option};

/// `profile.upsert`: overwrites every field (an absent one becomes unset).
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProfileUpsertParams {
    /// The profile to create or overwrite (an existing one is matched case-insensitively).
    pub name: Required,
    /// plan, readonly, edit or auto (case-insensitive).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    /// Provider id; absent or blank leaves it unset.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    /// Model id at that provider; absent or blank leaves it unset.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// A routing strategy name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub strategy: Option<String>,
    /// Sampling temperature; absent leaves it unset.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
}

/// `profile.use`, `profile.remove`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProfileNameParams {
    /// The profile name (matched case-insensitively).
    pub name: Required,
}

/// One `profile.list` row.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct ProfileView {
    /// The profile name.
    pub name: String,
    /// Whether this is the active profile.
    pub active: bool,
    /// Provider id; null when unset.
    pub provider: Option<String>,
    /// Model id at that provider; null when unset.
    pub model: Option<String>,
    /// Routing strategy name; null when unset.
    pub strategy: Option<String>,
    /// Sampling temperature; null when unset.
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
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RoutingSetParams {
    /// Whether a failing model hands the request on to the next routing candidate. Required.
    pub failover_enabled: Strict<bool, FailoverMessage>,
    /// Unchanged when absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deep_seek_optimization_enabled: Option<bool>,
}

/// `routing.get` / `routing.set`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct RoutingView {
    /// Whether a failing model hands the request on to the next routing candidate (default true).
    pub failover_enabled: bool,
    /// Whether the DeepSeek request and timeout policy is on (default false).
    pub deep_seek_optimization_enabled: bool,
    /// Where failover may take a turn now (ours, additive; absent from older daemons).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failover_policy: Option<FailoverPolicyView>,
}

/// `routing.get`'s `failoverPolicy`: the effective failover rule for a turn in
/// the daemon's current workspace that names no model of its own.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FailoverPolicyView {
    /// `off` (failover disabled: the first candidate alone), `provider` (a
    /// model is chosen and no chain is configured: only that model's
    /// provider), `chain` (`routing.fallback` or the strategy's refs, as
    /// written, nothing beyond) or `priority` (nothing chosen or configured:
    /// every enabled model in provider priority order).
    pub scope: String,
    /// The chosen model (the workspace's, else the active profile's), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The provider failover stays within (scope `provider`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    /// `provider/model` in the order a turn tries them (before open circuits
    /// and images narrow it).
    #[serde(default)]
    pub candidates: Vec<String>,
    /// The rule in one sentence, for people.
    pub summary: String,
}

/// `provider.upsert`: creates or edits one provider.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProviderUpsertParams {
    /// The provider id (no `/`).
    pub id: Required,
    /// openai or anthropic (case-insensitive).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// Display name; blank leaves it unchanged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Required for a new provider.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub base_url: Option<String>,
    /// Blank leaves it unchanged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub proxy: Option<String>,
    /// false keeps its models out of routing; unchanged when absent (a new provider is enabled).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
    /// Lower sorts first (a 32-bit integer); unchanged when absent (a new provider gets 0).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub priority: Option<i64>,
    /// 1 to 3600.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeout_seconds: Option<i64>,
    /// Set when the key is present; null or blank clears it.
    #[serde(
        skip_serializing_if = "Option::is_none",
        default,
        deserialize_with = "double_option"
    )]
    // Skipping None on write would drop the schema's `default: null`.
    #[schemars(extend("default" = null))]
    pub model_list_url: Option<Option<String>>,
    /// Mark the stable prompt prefix cacheable (Anthropic `cache_control`); unchanged when absent (a new provider: true).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompt_caching: Option<bool>,
    /// true removes the stored key (and `apiKey` is not read).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clear_api_key: Option<bool>,
    /// Blank leaves the key unchanged. Read only without `clearApiKey: true`
    /// (so its type is checked only then: see [`ProviderUpsertParams::api_key`]).
    #[schemars(with = "Option<String>")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub api_key: Option<serde_json::Value>,
    /// Replaces the model list: ids (a stored model keeps its settings) and,
    /// an addition to the reference, full model objects as in config.json.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub models: Option<Strict<Vec<ModelInput>, ModelIdsMessage>>,
    /// An addition to the reference: when the active profile names no
    /// provider, it names this one afterwards (`seekclaw provider add` sends it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub activate_if_none: Option<bool>,
}

/// One entry of `provider.upsert`'s `models`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
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
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProviderIdParams {
    /// The provider id (matched case-insensitively).
    pub id: Required,
    /// `provider.models.fetch` only: the model list URL (default: the provider's
    /// `modelListUrl`, else `{baseUrl}/models`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
}

/// `provider.test`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProviderTestParams {
    /// One provider; every provider when absent or blank.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
}

/// One provider as `provider.list` and `provider.upsert` show it.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct ProviderView {
    /// The provider id.
    pub id: String,
    /// Display name (the id when no name is set).
    pub name: String,
    /// openai or anthropic.
    pub kind: String,
    /// Root URL of the API (no trailing `/`).
    pub base_url: String,
    /// The stored key, in plain text (the desktop edits it).
    pub api_key: Option<String>,
    /// Whether a non-blank key is stored.
    pub api_key_configured: bool,
    /// Model ids.
    pub models: Vec<String>,
    /// false: its models are never routed to.
    pub enabled: bool,
    /// Lower sorts first (lists and routing order).
    pub priority: i32,
    /// Seconds to wait for response headers, and the longest quiet gap in a stream.
    pub timeout_seconds: u64,
    /// The URL `provider.models.fetch` reads; null: derived from `baseUrl`.
    pub model_list_url: Option<String>,
    /// Whether the stable prompt prefix is marked cacheable (Anthropic `cache_control`).
    pub prompt_caching: bool,
    /// HTTP proxy URL for this provider's requests; null: none.
    pub proxy: Option<String>,
    /// The active profile's provider.
    pub active: bool,
}

/// One `provider.test` row.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct ProbeResult {
    /// The provider id.
    pub id: String,
    /// Whether the provider answered the probe.
    pub online: bool,
    /// How long the probe took, in milliseconds.
    pub latency_ms: u64,
    /// What the probe found, or why it failed.
    pub detail: String,
}

/// `model.switch`, `model.test`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ModelParams {
    /// `provider/model`, an alias, or a unique bare model id.
    pub model: Required,
}

/// `model.update`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ModelUpdateParams {
    /// The provider id.
    pub provider: Required,
    /// The model id.
    pub id: Required,
    /// 1024 to 10,000,000.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context_window: Option<i64>,
    /// 128 to 1,000,000.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_output: Option<i64>,
    /// Whether the model accepts images; unchanged when absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vision: Option<bool>,
    /// Set when the key is present; null or blank clears it.
    #[serde(
        skip_serializing_if = "Option::is_none",
        default,
        deserialize_with = "double_option"
    )]
    // Skipping None on write would drop the schema's `default: null`.
    #[schemars(extend("default" = null))]
    pub alias: Option<Option<String>>,
}

/// One `model.catalog` row.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct CatalogEntry {
    /// `provider/model`.
    #[serde(rename = "ref")]
    pub model_ref: String,
    /// The first routing candidate.
    pub active: bool,
    /// The provider id.
    pub provider: String,
    /// Whether the provider is enabled (disabled providers' models are listed too).
    pub provider_enabled: bool,
    /// The model id at the provider.
    pub id: String,
    /// A short name `model.switch` accepts; null when none.
    pub alias: Option<String>,
    /// Context window, in tokens.
    pub context_window: u64,
    /// Largest output per request, in tokens.
    pub max_output: u64,
    /// The model's tags from the config (empty when none).
    pub tags: Vec<String>,
    /// USD per 1M input tokens (0 when unpriced); clients derive a cost from
    /// `usage` events with it (reference §6.11).
    #[serde(rename = "inputPricePerMTok")]
    pub input_price_per_mtok: f64,
    /// USD per 1M output tokens (0 when unpriced).
    #[serde(rename = "outputPricePerMTok")]
    pub output_price_per_mtok: f64,
    /// What the model can do.
    pub capabilities: CatalogCaps,
}

/// What a catalogued model can do.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct CatalogCaps {
    /// Streams its answer.
    pub streaming: bool,
    /// Takes tool calls (tools are sent only when true).
    pub tools: bool,
    /// Has a thinking mode (Anthropic thinking budget, DeepSeek thinking).
    pub thinking: bool,
    /// Accepts images (turns with images go to such a model).
    pub vision: bool,
    /// Takes a reasoning effort (OpenAI `reasoning_effort`).
    pub reasoning: bool,
    /// none, low, medium, high, max, xhigh or ultra.
    pub max_reasoning_level: String,
    /// The config's `mcp` capability flag.
    pub mcp: bool,
}

/// `model.test`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct ModelTestResult {
    /// The `provider/model` tested.
    pub model: String,
    /// Whether the model answered.
    pub success: bool,
    /// The reply text, `(empty reply)`, or the error.
    pub detail: String,
    /// How long the request took, in milliseconds.
    pub latency_ms: u64,
}

/// `model.update`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct ModelUpdateResult {
    /// The provider id.
    pub provider: String,
    /// The model id.
    pub id: String,
    /// The alias; null when none.
    pub alias: Option<String>,
    /// Context window, in tokens.
    pub context_window: u64,
    /// Largest output per request, in tokens.
    pub max_output: u64,
    /// Whether the model accepts images.
    pub vision: bool,
}

/// `prompt.optimize`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PromptOptimizeParams {
    /// The prompt to rewrite.
    pub text: Required,
    /// The model to use (default: the active model).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
}

/// `usage.get`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct UsageParams {
    /// The last N days (1 to 36,500); all time when absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub days: Option<i64>,
}

/// One `usage.get` row, per provider and model, most expensive first.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct UsageSummary {
    /// The provider id.
    pub provider: String,
    /// The model id at the provider.
    pub model: String,
    /// Provider attempts recorded (failed ones included).
    pub calls: u64,
    /// Attempts that failed.
    pub failures: u64,
    /// Input tokens not read from a prompt cache, summed.
    pub input_tokens: u64,
    /// Every input token, cached or not, summed.
    pub total_input_tokens: u64,
    /// Input tokens read from a prompt cache, summed.
    pub cached_input_tokens: u64,
    /// Input tokens written to a prompt cache, summed.
    pub cache_creation_input_tokens: u64,
    /// Output tokens (reasoning included), summed.
    pub output_tokens: u64,
    /// Cost in USD from the model's configured prices (0 when unpriced), summed.
    pub cost: f64,
    /// Mean time per attempt, in milliseconds.
    pub avg_latency_ms: f64,
    /// Share of attempts that succeeded, 0 to 1.
    pub success_rate: f64,
    /// This model's cost in USD today (local time), whatever `days` says
    /// (ours, additive).
    #[serde(default)]
    pub today_cost_usd: f64,
    /// This model's cost in USD this calendar month (local time), whatever
    /// `days` says (ours, additive).
    #[serde(default)]
    pub month_cost_usd: f64,
}
