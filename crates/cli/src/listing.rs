//! `seekclaw provider list` and `seekclaw model list`: tables with a heading,
//! the active model (the first a new turn tries) marked `*`, prices shown as
//! unknown when the config has none, and what to do when nothing is set up.
//! Rows come from the daemon (`provider.list`, `model.catalog`) when one runs,
//! else from config.json. Keys are never printed.

use std::io::Write;

use seekclaw_config::{Config, Provider};
use seekclaw_protocol::api::{CatalogEntry, ProviderView};
use seekclaw_providers::routing::{RouteInput, candidates};

use crate::table::write_table;

/// What to do with no provider or model, said once by both lists.
pub const SET_UP_HINT: &str = "Add one with `seekclaw provider add deepseek` (presets: deepseek, kimi, openai, anthropic, openrouter, ollama, lmstudio, vllm) or `seekclaw provider add NAME --base-url URL` for any OpenAI- or Anthropic-compatible endpoint.";

/// One provider row; says whether a key is set, never which.
pub struct ProviderRow {
    pub id: String,
    pub kind: String,
    pub base_url: String,
    pub enabled: bool,
    pub key_set: bool,
    pub models: Vec<String>,
}

impl ProviderRow {
    pub fn of(p: &Provider) -> ProviderRow {
        ProviderRow {
            id: p.id.clone(),
            kind: p.kind.clone(),
            base_url: p.base_url.clone(),
            enabled: p.enabled,
            key_set: p.api_key.as_deref().is_some_and(|k| !k.trim().is_empty()),
            models: p.models.iter().map(|m| m.id.clone()).collect(),
        }
    }

    /// From a `provider.list` entry (which carries the key: it is dropped here).
    pub fn from_view(v: &ProviderView) -> ProviderRow {
        ProviderRow {
            id: v.id.clone(),
            kind: v.kind.clone(),
            base_url: v.base_url.clone(),
            enabled: v.enabled,
            key_set: v.api_key_configured,
            models: v.models.clone(),
        }
    }

    fn cells(&self, active_provider: Option<&str>) -> [String; 7] {
        [
            mark(active_provider.is_some_and(|a| a.eq_ignore_ascii_case(&self.id))),
            self.id.clone(),
            self.kind.clone(),
            self.base_url.clone(),
            if self.enabled { "enabled" } else { "disabled" }.to_string(),
            if self.key_set { "key set" } else { "no key" }.to_string(),
            self.models.join(", "),
        ]
    }
}

/// One model of an enabled provider.
pub struct ModelRow {
    pub model_ref: String,
    pub active: bool,
    pub context_window: u64,
    /// Input and output USD per million tokens; both 0 means not known.
    pub prices: (f64, f64),
}

impl ModelRow {
    /// The enabled providers' models from `model.catalog`.
    pub fn from_catalog(catalog: &[CatalogEntry]) -> Vec<ModelRow> {
        catalog
            .iter()
            .filter(|e| e.provider_enabled)
            .map(|e| ModelRow {
                model_ref: e.model_ref.clone(),
                active: e.active,
                context_window: e.context_window,
                prices: (e.input_price_per_mtok, e.output_price_per_mtok),
            })
            .collect()
    }

    /// The enabled providers' models in config.json, in priority order.
    pub fn from_config(config: &Config) -> Vec<ModelRow> {
        let active = active_model(config);
        config
            .providers_by_priority()
            .into_iter()
            .filter(|p| p.enabled)
            .flat_map(|p| {
                let active = active.clone();
                p.models.iter().map(move |m| {
                    let model_ref = format!("{}/{}", p.id, m.id);
                    ModelRow {
                        active: active.as_deref() == Some(model_ref.as_str()),
                        model_ref,
                        context_window: m.context_window,
                        prices: (m.input_price_per_mtok, m.output_price_per_mtok),
                    }
                })
            })
            .collect()
    }

    fn cells(&self) -> [String; 4] {
        [
            mark(self.active),
            self.model_ref.clone(),
            context(self.context_window),
            price(self.prices),
        ]
    }
}

/// The model a new turn tries first, as `model.catalog` marks it.
fn active_model(config: &Config) -> Option<String> {
    candidates(config, &RouteInput::default(), |_| false)
        .ok()
        .and_then(|c| c.first().map(|h| h.model_ref(config)))
}

fn mark(active: bool) -> String {
    if active { "*" } else { "" }.to_string()
}

/// `128k`, `1M`, or `-` when not set.
fn context(tokens: u64) -> String {
    match tokens {
        0 => "-".to_string(),
        t if t >= 1_000_000 && t % 1_000_000 == 0 => format!("{}M", t / 1_000_000),
        t if t >= 1_000 => format!("{}k", t / 1_000),
        t => t.to_string(),
    }
}

/// `0.27 / 1.10` USD per million tokens in and out, or `unknown`.
fn price((input, output): (f64, f64)) -> String {
    if input <= 0.0 && output <= 0.0 {
        "unknown".to_string()
    } else {
        format!("{input:.2} / {output:.2}")
    }
}

/// The provider list, its active provider marked.
pub fn print_providers(
    out: &mut impl Write,
    rows: &[ProviderRow],
    active_model: Option<&str>,
) -> std::io::Result<()> {
    if rows.is_empty() {
        return writeln!(out, "No providers configured. {SET_UP_HINT}");
    }
    let active_provider = active_model.and_then(|r| r.split('/').next());
    let cells: Vec<[String; 7]> = rows.iter().map(|r| r.cells(active_provider)).collect();
    write_table(
        out,
        ["", "ID", "KIND", "BASE URL", "STATE", "KEY", "MODELS"],
        &cells,
    )?;
    if active_provider.is_some() {
        writeln!(
            out,
            "\nThe provider marked * serves the active model {}.",
            active_model.unwrap_or_default()
        )?;
    }
    Ok(())
}

/// The model list, the active one marked.
pub fn print_models(out: &mut impl Write, rows: &[ModelRow]) -> std::io::Result<()> {
    if rows.is_empty() {
        return writeln!(out, "No models configured. {SET_UP_HINT}");
    }
    let cells: Vec<[String; 4]> = rows.iter().map(ModelRow::cells).collect();
    write_table(
        out,
        ["", "MODEL", "CONTEXT", "PRICE IN / OUT ($ per M tokens)"],
        &cells,
    )?;
    if rows.iter().any(|r| r.active) {
        writeln!(
            out,
            "\nThe model marked * is the one a new turn uses; change the default with `seekclaw model use PROVIDER/MODEL`."
        )?;
    }
    Ok(())
}

/// The active model of `rows`, if any.
pub fn active_of(rows: &[ModelRow]) -> Option<&str> {
    rows.iter().find(|r| r.active).map(|r| r.model_ref.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn printed(f: impl FnOnce(&mut Vec<u8>) -> std::io::Result<()>) -> String {
        let mut out = Vec::new();
        f(&mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn provider_rows_say_whether_a_key_is_set_never_which() {
        let view: ProviderView = serde_json::from_value(json!({"id": "a", "name": "a",
            "kind": "openai", "baseUrl": "http://h", "apiKey": "sk-secret",
            "apiKeyConfigured": true, "models": ["m1", "m2"], "enabled": true, "priority": 0,
            "timeoutSeconds": 60, "modelListUrl": null, "promptCaching": true, "proxy": null,
            "active": true}))
        .unwrap();
        let text = printed(|o| print_providers(o, &[ProviderRow::from_view(&view)], Some("a/m1")));
        assert!(
            text.starts_with("   ID  KIND    BASE URL  STATE    KEY      MODELS\n"),
            "{text}"
        );
        assert!(
            text.contains("*  a   openai  http://h  enabled  key set  m1, m2\n"),
            "{text}"
        );
        assert!(!text.contains("sk-secret"));
        let p = Provider {
            id: "a".into(),
            api_key: Some("sk-secret".into()),
            ..Provider::default()
        };
        assert!(
            !printed(|o| print_providers(o, &[ProviderRow::of(&p)], None)).contains("sk-secret")
        );
    }

    #[test]
    fn empty_lists_say_what_to_do() {
        assert!(printed(|o| print_providers(o, &[], None)).contains("seekclaw provider add"));
        assert!(printed(|o| print_models(o, &[])).starts_with("No models configured. Add one"));
    }

    #[test]
    fn unknown_prices_are_unknown_and_the_active_model_is_marked() {
        let entry = |fields: serde_json::Value| -> CatalogEntry {
            let mut e = json!({"ref": "", "active": false, "provider": "p", "providerEnabled": true,
                "id": "m", "alias": null, "contextWindow": 0, "maxOutput": 0, "tags": [],
                "inputPricePerMTok": 0.0, "outputPricePerMTok": 0.0,
                "capabilities": {"streaming": true, "tools": true, "thinking": false,
                    "vision": false, "reasoning": false, "maxReasoningLevel": "none", "mcp": false}});
            for (k, v) in fields.as_object().unwrap() {
                e[k] = v.clone();
            }
            serde_json::from_value(e).unwrap()
        };
        let catalog = [
            entry(
                json!({"ref": "a/m1", "active": true, "providerEnabled": true, "contextWindow": 128000,
             "inputPricePerMTok": 0.27, "outputPricePerMTok": 1.1}),
            ),
            entry(
                json!({"ref": "b/x", "active": false, "providerEnabled": true, "contextWindow": 0}),
            ),
            entry(json!({"ref": "c/off", "active": false, "providerEnabled": false})),
        ];
        let rows = ModelRow::from_catalog(&catalog);
        assert_eq!(active_of(&rows), Some("a/m1"));
        let text = printed(|o| print_models(o, &rows));
        assert!(text.contains("*  a/m1   128k     0.27 / 1.10"), "{text}");
        assert!(text.contains("   b/x    -        unknown"), "{text}");
        assert!(
            !text.contains("c/off") && !text.contains("$0.0000"),
            "{text}"
        );
    }
}
