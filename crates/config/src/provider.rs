//! `providers[]` entries of config.json: provider, model, capabilities (reference §5.2).

use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use crate::enums::ReasoningLevel;

/// A chat API endpoint with its models.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Provider {
    /// Unique key (case-insensitive) and the `provider` half of `"provider/model"` refs.
    pub id: String,
    /// Human-readable name; the display name falls back to `id`.
    pub name: Option<String>,
    /// `"openai"` (any OpenAI-compatible API) or `"anthropic"`; kept as text so an
    /// unknown kind from a newer config does not make the whole file unreadable.
    pub kind: String,
    /// Root URL of the API that request paths are appended to.
    pub base_url: String,
    /// The only source of the provider's key: never read from the environment.
    pub api_key: Option<String>,
    /// Sent as the `OpenAI-Organization` header.
    pub organization: Option<String>,
    /// HTTP proxy URL for this provider's requests.
    pub proxy: Option<String>,
    /// Wait for response headers, and the longest quiet gap in a stream.
    pub timeout_seconds: u64,
    /// Overrides the model-list URL otherwise derived from `base_url`.
    pub model_list_url: Option<String>,
    /// Added to every request.
    pub headers: Option<BTreeMap<String, String>>,
    /// Neutral level name → wire value, e.g. `{"ultra": "xhigh"}`.
    pub reasoning_effort_map: Option<BTreeMap<String, String>>,
    /// Marks the stable prompt prefix cacheable (Anthropic `cache_control`).
    pub prompt_caching: bool,
    /// Speak HTTP/2 without TLS negotiation (h2c) to a plain-`http` endpoint, so
    /// concurrent streams share one connection. TLS endpoints negotiate HTTP/2 anyway.
    pub http2_prior_knowledge: bool,
    /// A disabled provider's models are never routed to.
    pub enabled: bool,
    /// Lower sorts first.
    pub priority: i32,
    /// The models this provider serves. A bare string in the file is a
    /// model with that id and default settings (`"models": ["m1"]`).
    #[serde(deserialize_with = "models_or_ids")]
    pub models: Vec<Model>,
    /// Unknown keys, kept so a newer config round-trips. `displayName` is
    /// computed, so it is dropped here rather than written twice.
    #[serde(flatten, deserialize_with = "extra_without_display_name")]
    pub extra: Map<String, Value>,
}

impl Default for Provider {
    fn default() -> Self {
        Provider {
            id: String::new(),
            name: None,
            kind: "openai".to_string(),
            base_url: String::new(),
            api_key: None,
            organization: None,
            proxy: None,
            timeout_seconds: 120,
            model_list_url: None,
            headers: None,
            reasoning_effort_map: None,
            prompt_caching: true,
            http2_prior_knowledge: false,
            enabled: true,
            priority: 0,
            models: Vec::new(),
            extra: Map::new(),
        }
    }
}

impl Provider {
    /// `name` if set and non-blank, else `id`.
    pub fn display_name(&self) -> &str {
        match self.name.as_deref() {
            Some(n) if !n.trim().is_empty() => n,
            _ => &self.id,
        }
    }

    /// The model whose `id` or `alias` is `name` (case-insensitive).
    pub fn model(&self, name: &str) -> Option<&Model> {
        self.models.iter().find(|m| {
            m.id.eq_ignore_ascii_case(name)
                || m.alias
                    .as_deref()
                    .is_some_and(|a| a.eq_ignore_ascii_case(name))
        })
    }
}

fn extra_without_display_name<'de, D: Deserializer<'de>>(
    d: D,
) -> Result<Map<String, Value>, D::Error> {
    let mut extra = Map::deserialize(d)?;
    extra.shift_remove("displayName");
    Ok(extra)
}

/// Written field by field so the computed `displayName` appears in the file
/// (clients of the original read it), after the stored fields.
impl Serialize for Provider {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        #[serde(rename_all = "camelCase")]
        struct Wire<'a> {
            id: &'a str,
            #[serde(skip_serializing_if = "Option::is_none")]
            name: &'a Option<String>,
            kind: &'a str,
            base_url: &'a str,
            #[serde(skip_serializing_if = "Option::is_none")]
            api_key: &'a Option<String>,
            #[serde(skip_serializing_if = "Option::is_none")]
            organization: &'a Option<String>,
            #[serde(skip_serializing_if = "Option::is_none")]
            proxy: &'a Option<String>,
            timeout_seconds: u64,
            #[serde(skip_serializing_if = "Option::is_none")]
            model_list_url: &'a Option<String>,
            #[serde(skip_serializing_if = "Option::is_none")]
            headers: &'a Option<BTreeMap<String, String>>,
            #[serde(skip_serializing_if = "Option::is_none")]
            reasoning_effort_map: &'a Option<BTreeMap<String, String>>,
            prompt_caching: bool,
            #[serde(skip_serializing_if = "std::ops::Not::not")]
            http2_prior_knowledge: bool,
            enabled: bool,
            priority: i32,
            models: &'a [Model],
            display_name: &'a str,
            #[serde(flatten)]
            extra: &'a Map<String, Value>,
        }
        Wire {
            id: &self.id,
            name: &self.name,
            kind: &self.kind,
            base_url: &self.base_url,
            api_key: &self.api_key,
            organization: &self.organization,
            proxy: &self.proxy,
            timeout_seconds: self.timeout_seconds,
            model_list_url: &self.model_list_url,
            headers: &self.headers,
            reasoning_effort_map: &self.reasoning_effort_map,
            prompt_caching: self.prompt_caching,
            http2_prior_knowledge: self.http2_prior_knowledge,
            enabled: self.enabled,
            priority: self.priority,
            models: &self.models,
            display_name: self.display_name(),
            extra: &self.extra,
        }
        .serialize(s)
    }
}

/// One model of a provider.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Model {
    /// The model name sent to the API, and the `model` half of `"provider/model"` refs.
    pub id: String,
    /// A second name that refs may use instead of `id`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub alias: Option<String>,
    /// Tokens of prompt plus answer the model accepts; history is fitted to it.
    pub context_window: u64,
    /// Most tokens one answer may have; reserved out of the context window.
    pub max_output: u64,
    /// What the model supports.
    pub capabilities: Capabilities,
    /// USD per 1M input tokens.
    #[serde(rename = "inputPricePerMTok")]
    pub input_price_per_mtok: f64,
    /// USD per 1M output tokens.
    #[serde(rename = "outputPricePerMTok")]
    pub output_price_per_mtok: f64,
    /// USD per 1M input tokens served from the prompt cache (default: the input price).
    #[serde(
        rename = "cachedInputPricePerMTok",
        skip_serializing_if = "Option::is_none"
    )]
    pub cached_input_price_per_mtok: Option<f64>,
    /// USD per 1M input tokens written to the prompt cache (default: the input price).
    #[serde(
        rename = "cacheWritePricePerMTok",
        skip_serializing_if = "Option::is_none"
    )]
    pub cache_write_price_per_mtok: Option<f64>,
    /// Free-form labels, shown to clients.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tags: Option<Vec<String>>,
    /// Unknown keys of the model entry, kept so a newer config round-trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Default for Model {
    fn default() -> Self {
        Model {
            id: String::new(),
            alias: None,
            context_window: 128_000,
            max_output: 8192,
            capabilities: Capabilities::default(),
            input_price_per_mtok: 0.0,
            output_price_per_mtok: 0.0,
            cached_input_price_per_mtok: None,
            cache_write_price_per_mtok: None,
            tags: None,
            extra: Map::new(),
        }
    }
}

/// What a model can do; drives routing (vision), tool sending and reasoning caps.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Capabilities {
    /// Answers are requested as a stream (never for a request that carries images).
    pub streaming: bool,
    /// Anthropic thinking budget / DeepSeek thinking.
    pub thinking: bool,
    /// Understands images: turns with images are routed only to such models.
    pub vision: bool,
    /// Declared image support; nothing reads it (routing goes by `vision`).
    pub image: bool,
    /// Tools are sent only if true.
    pub tool_calling: bool,
    /// Declared JSON-mode support; nothing reads it.
    pub json_mode: bool,
    /// OpenAI `max_completion_tokens` and `reasoning_effort`.
    pub reasoning: bool,
    /// Requested levels are clamped to this.
    pub max_reasoning_level: ReasoningLevel,
    /// Declared embedding support; nothing reads it.
    pub embedding: bool,
    /// Declared MCP support; reported to clients, MCP tools are not filtered by it.
    pub mcp: bool,
    /// Edits files with `apply_patch` (Codex's patch format) instead of
    /// `edit_file`/`multi_edit`; absent: the catalog decides
    /// ([`Model::uses_apply_patch`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub apply_patch: Option<bool>,
    /// Takes freeform (custom, grammar-constrained) tools on OpenAI's wire;
    /// absent: GPT-5 models on OpenAI's own API ([`uses_freeform_tools`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub freeform_tools: Option<bool>,
    /// Unknown capability keys, kept so a newer config round-trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Default for Capabilities {
    fn default() -> Self {
        Capabilities {
            streaming: true,
            thinking: false,
            vision: false,
            image: false,
            tool_calling: true,
            json_mode: false,
            reasoning: false,
            max_reasoning_level: ReasoningLevel::Max,
            embedding: false,
            mcp: true,
            apply_patch: None,
            freeform_tools: None,
            extra: Map::new(),
        }
    }
}

/// `id` without a router's vendor prefix (`openai/gpt-5` → `gpt-5`), lowercased.
fn bare_model_id(id: &str) -> String {
    id.rsplit('/')
        .next()
        .unwrap_or(id)
        .trim()
        .to_ascii_lowercase()
}

/// Whether a model of this id was trained on Codex's patch format: OpenAI's
/// GPT (`gpt-…`), o-series (`o1`, `o3`, `o4-mini`, …) and Codex models.
pub fn trained_on_apply_patch(model_id: &str) -> bool {
    let id = bare_model_id(model_id);
    let o_series = id.strip_prefix('o').is_some_and(|rest| {
        let digits = rest.chars().take_while(char::is_ascii_digit).count();
        digits > 0
            && rest[digits..]
                .chars()
                .next()
                .is_none_or(|c| c == '-' || c == ':')
    });
    (id.starts_with("gpt-") && !id.starts_with("gpt-3")) || o_series || id.contains("codex")
}

impl Model {
    /// Whether the model edits with `apply_patch`: its `applyPatch`
    /// capability, else [`trained_on_apply_patch`] of its id.
    pub fn uses_apply_patch(&self) -> bool {
        self.capabilities
            .apply_patch
            .unwrap_or_else(|| trained_on_apply_patch(&self.id))
    }
}

/// Whether `model` of `provider` takes freeform (custom) tools: its
/// `freeformTools` capability, else GPT-5 models (Codex ones included) on
/// OpenAI's own API, the only chat-completions server known to accept them.
pub fn uses_freeform_tools(provider: &Provider, model: &Model) -> bool {
    if let Some(set) = model.capabilities.freeform_tools {
        return set;
    }
    let openai_api = provider.kind.eq_ignore_ascii_case("openai")
        && provider
            .base_url
            .trim()
            .trim_end_matches('/')
            .to_ascii_lowercase()
            .strip_prefix("https://api.openai.com")
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'));
    openai_api && model.id.trim().to_ascii_lowercase().starts_with("gpt-5")
}

/// A provider's `models`: each entry a model object or just its id.
fn models_or_ids<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Model>, D::Error> {
    struct Entry(Model);

    impl<'de> Deserialize<'de> for Entry {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Entry, D::Error> {
            struct EntryVisitor;

            impl<'de> serde::de::Visitor<'de> for EntryVisitor {
                type Value = Entry;

                fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                    f.write_str("a model object or a model id")
                }

                fn visit_str<E: serde::de::Error>(self, id: &str) -> Result<Entry, E> {
                    Ok(Entry(Model {
                        id: id.to_string(),
                        ..Model::default()
                    }))
                }

                // Through the map's own deserializer, so a bad field inside
                // keeps its path (`providers[0].models[1].contextWindow`).
                fn visit_map<A: serde::de::MapAccess<'de>>(
                    self,
                    map: A,
                ) -> Result<Entry, A::Error> {
                    Model::deserialize(serde::de::value::MapAccessDeserializer::new(map)).map(Entry)
                }
            }

            d.deserialize_any(EntryVisitor)
        }
    }

    Ok(Vec::<Entry>::deserialize(d)?
        .into_iter()
        .map(|e| e.0)
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn apply_patch_goes_to_openais_families_unless_set() {
        for id in [
            "gpt-5",
            "gpt-5-codex",
            "GPT-4.1",
            "gpt-oss:20b",
            "openai/gpt-5-mini",
            "o1",
            "o3-mini",
            "o4-mini",
            "codex-mini-latest",
        ] {
            assert!(trained_on_apply_patch(id), "{id}");
        }
        for id in [
            "claude-sonnet-4-5",
            "deepseek-chat",
            "gpt-3.5-turbo",
            "ollama",
            "o",
            "omni-moderation",
            "qwen3-coder",
            "kimi-k2",
        ] {
            assert!(!trained_on_apply_patch(id), "{id}");
        }
        let mut m = Model {
            id: "gpt-5".into(),
            ..Model::default()
        };
        assert!(m.uses_apply_patch());
        m.capabilities.apply_patch = Some(false);
        assert!(!m.uses_apply_patch());
        m.id = "claude-opus-4-1".into();
        m.capabilities.apply_patch = Some(true);
        assert!(m.uses_apply_patch());
    }

    #[test]
    fn freeform_tools_on_openais_own_api_for_gpt5() {
        let openai = Provider {
            kind: "openai".into(),
            base_url: "https://api.openai.com/v1".into(),
            ..Provider::default()
        };
        let gateway = Provider {
            base_url: "https://openrouter.ai/api/v1".into(),
            ..openai.clone()
        };
        let model = |id: &str| Model {
            id: id.into(),
            ..Model::default()
        };
        assert!(uses_freeform_tools(&openai, &model("gpt-5")));
        assert!(uses_freeform_tools(&openai, &model("gpt-5-codex")));
        assert!(!uses_freeform_tools(&openai, &model("gpt-4.1")));
        assert!(!uses_freeform_tools(&gateway, &model("gpt-5")));
        let mut set = model("my-model");
        set.capabilities.freeform_tools = Some(true);
        assert!(uses_freeform_tools(&gateway, &set));
        set.id = "gpt-5".into();
        set.capabilities.freeform_tools = Some(false);
        assert!(!uses_freeform_tools(&openai, &set));
    }

    #[test]
    fn capability_keys_round_trip_and_stay_absent() {
        let caps: Capabilities = serde_json::from_str(r#"{"vision":true}"#).unwrap();
        assert_eq!((caps.apply_patch, caps.freeform_tools), (None, None));
        let out = serde_json::to_value(&caps).unwrap();
        assert!(out.get("applyPatch").is_none() && out.get("freeformTools").is_none());
        let caps: Capabilities =
            serde_json::from_str(r#"{"applyPatch":false,"freeformTools":true}"#).unwrap();
        assert_eq!(
            (caps.apply_patch, caps.freeform_tools),
            (Some(false), Some(true))
        );
        assert!(caps.extra.is_empty());
        let out = serde_json::to_value(&caps).unwrap();
        assert_eq!(
            (&out["applyPatch"], &out["freeformTools"]),
            (&serde_json::json!(false), &serde_json::json!(true))
        );
    }

    #[test]
    fn display_name_written_computed_and_ignored_on_read() {
        let p = Provider {
            id: "ds".into(),
            ..Provider::default()
        };
        let v = serde_json::to_value(&p).unwrap();
        assert_eq!(v["displayName"], "ds");
        assert!(v.get("name").is_none());

        let text = r#"{"id":"ds","name":"DeepSeek","displayName":"Stale","x":1}"#;
        let p: Provider = serde_json::from_str(text).unwrap();
        assert_eq!(p.display_name(), "DeepSeek");
        assert!(!p.extra.contains_key("displayName"));
        assert_eq!(p.extra["x"], 1);
        let out = serde_json::to_string(&p).unwrap();
        assert_eq!(out.matches("displayName").count(), 1);
        assert!(out.contains(r#""displayName":"DeepSeek","x":1"#), "{out}");
    }

    #[test]
    fn provider_key_order() {
        let p = Provider {
            id: "a".into(),
            api_key: Some("k".into()),
            models: vec![Model {
                id: "m".into(),
                ..Model::default()
            }],
            ..Provider::default()
        };
        let v = serde_json::to_value(&p).unwrap();
        let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            [
                "id",
                "kind",
                "baseUrl",
                "apiKey",
                "timeoutSeconds",
                "promptCaching",
                "enabled",
                "priority",
                "models",
                "displayName"
            ]
        );
        let m = &v["models"][0];
        assert_eq!(m["contextWindow"], 128_000);
        assert_eq!(m["maxOutput"], 8192);
        assert_eq!(m["inputPricePerMTok"], 0.0);
        assert_eq!(m["capabilities"]["maxReasoningLevel"], "max");
        assert_eq!(m["capabilities"]["toolCalling"], true);
    }

    #[test]
    fn model_lookup_by_id_or_alias() {
        let p = Provider {
            models: vec![Model {
                id: "deepseek-chat".into(),
                alias: Some("chat".into()),
                ..Model::default()
            }],
            ..Provider::default()
        };
        assert!(p.model("DeepSeek-Chat").is_some());
        assert!(p.model("chat").is_some());
        assert!(p.model("other").is_none());
    }
}
