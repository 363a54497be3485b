//! Ready-made providers: `seekclaw provider add deepseek --api-key K` yields a
//! working entry with base URL, models, context windows, capabilities and prices.
//! Prices are USD per million tokens as published by each vendor (late 2025).

use seekclaw_config::{Capabilities, Model, Provider, ReasoningLevel};

/// The preset names, for help texts.
pub const PRESETS: &[&str] = &[
    "deepseek",
    "kimi",
    "openai",
    "anthropic",
    "openrouter",
    "ollama",
    "lmstudio",
    "vllm",
];

struct Spec {
    id: &'static str,
    context: u64,
    max_output: u64,
    thinking: bool,
    reasoning: bool,
    vision: bool,
    /// Trained on Codex's patch format: offered `apply_patch`.
    apply_patch: bool,
    max_level: ReasoningLevel,
    /// input, cached input, output
    prices: (f64, f64, f64),
    cache_write: Option<f64>,
}

const fn spec(id: &'static str, context: u64, max_output: u64) -> Spec {
    Spec {
        id,
        context,
        max_output,
        thinking: false,
        reasoning: false,
        vision: false,
        apply_patch: false,
        max_level: ReasoningLevel::Max,
        prices: (0.0, 0.0, 0.0),
        cache_write: None,
    }
}

fn model(s: Spec) -> Model {
    Model {
        id: s.id.to_string(),
        context_window: s.context,
        max_output: s.max_output,
        capabilities: Capabilities {
            thinking: s.thinking,
            reasoning: s.reasoning,
            vision: s.vision,
            image: s.vision,
            max_reasoning_level: s.max_level,
            apply_patch: s.apply_patch.then_some(true),
            ..Capabilities::default()
        },
        input_price_per_mtok: s.prices.0,
        cached_input_price_per_mtok: (s.prices.0 > 0.0).then_some(s.prices.1),
        output_price_per_mtok: s.prices.2,
        cache_write_price_per_mtok: s.cache_write,
        ..Model::default()
    }
}

fn provider(id: &str, kind: &str, base_url: &str, name: &str, models: Vec<Model>) -> Provider {
    Provider {
        id: id.to_string(),
        name: Some(name.to_string()),
        kind: kind.to_string(),
        base_url: base_url.to_string(),
        models,
        ..Provider::default()
    }
}

/// The preset called `name` (case-insensitive), with no API key set.
pub fn preset(name: &str) -> Option<Provider> {
    let p = match name.to_ascii_lowercase().as_str() {
        "deepseek" => provider(
            "deepseek",
            "openai",
            "https://api.deepseek.com",
            "DeepSeek",
            vec![
                model(Spec {
                    prices: (0.28, 0.028, 0.42),
                    ..spec("deepseek-chat", 128_000, 8_192)
                }),
                model(Spec {
                    thinking: true,
                    prices: (0.28, 0.028, 0.42),
                    ..spec("deepseek-reasoner", 128_000, 64_000)
                }),
            ],
        ),
        "kimi" | "moonshot" => provider(
            "kimi",
            "openai",
            "https://api.moonshot.ai/v1",
            "Kimi (Moonshot)",
            vec![
                model(Spec {
                    prices: (0.6, 0.15, 2.5),
                    ..spec("kimi-k2-0905-preview", 262_144, 16_384)
                }),
                model(Spec {
                    thinking: true,
                    prices: (0.6, 0.15, 2.5),
                    ..spec("kimi-k2-thinking", 262_144, 32_768)
                }),
            ],
        ),
        "openai" => provider(
            "openai",
            "openai",
            "https://api.openai.com/v1",
            "OpenAI",
            vec![
                model(Spec {
                    apply_patch: true,
                    reasoning: true,
                    vision: true,
                    max_level: ReasoningLevel::High,
                    prices: (1.25, 0.125, 10.0),
                    ..spec("gpt-5", 400_000, 128_000)
                }),
                model(Spec {
                    apply_patch: true,
                    reasoning: true,
                    vision: true,
                    max_level: ReasoningLevel::High,
                    prices: (0.25, 0.025, 2.0),
                    ..spec("gpt-5-mini", 400_000, 128_000)
                }),
                model(Spec {
                    apply_patch: true,
                    vision: true,
                    prices: (2.0, 0.5, 8.0),
                    ..spec("gpt-4.1", 1_047_576, 32_768)
                }),
            ],
        ),
        "anthropic" => provider(
            "anthropic",
            "anthropic",
            "https://api.anthropic.com",
            "Anthropic",
            vec![
                model(Spec {
                    thinking: true,
                    vision: true,
                    prices: (3.0, 0.3, 15.0),
                    cache_write: Some(3.75),
                    ..spec("claude-sonnet-4-5", 200_000, 64_000)
                }),
                model(Spec {
                    thinking: true,
                    vision: true,
                    prices: (1.0, 0.1, 5.0),
                    cache_write: Some(1.25),
                    ..spec("claude-haiku-4-5", 200_000, 64_000)
                }),
                model(Spec {
                    thinking: true,
                    vision: true,
                    prices: (15.0, 1.5, 75.0),
                    cache_write: Some(18.75),
                    ..spec("claude-opus-4-1", 200_000, 32_000)
                }),
            ],
        ),
        "openrouter" => provider(
            "openrouter",
            "openai",
            "https://openrouter.ai/api/v1",
            "OpenRouter",
            vec![
                model(Spec {
                    prices: (0.28, 0.028, 0.42),
                    ..spec("deepseek/deepseek-chat", 128_000, 8_192)
                }),
                model(Spec {
                    thinking: true,
                    vision: true,
                    prices: (3.0, 0.3, 15.0),
                    ..spec("anthropic/claude-sonnet-4.5", 200_000, 64_000)
                }),
            ],
        ),
        "ollama" => provider(
            "ollama",
            "openai",
            "http://localhost:11434/v1",
            "Ollama",
            vec![model(spec("qwen3-coder", 32_768, 8_192))],
        ),
        "lmstudio" => provider(
            "lmstudio",
            "openai",
            "http://localhost:1234/v1",
            "LM Studio",
            vec![model(spec("qwen3-coder", 32_768, 8_192))],
        ),
        "vllm" => provider(
            "vllm",
            "openai",
            "http://localhost:8000/v1",
            "vLLM",
            vec![model(spec("qwen3-coder", 32_768, 8_192))],
        ),
        _ => return None,
    };
    Some(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_preset_is_complete() {
        for name in PRESETS {
            let p = preset(name).unwrap();
            assert_eq!(&p.id, name);
            assert!(p.base_url.starts_with("http"), "{name}");
            assert!(!p.models.is_empty(), "{name}");
            assert!(p.api_key.is_none());
            for m in &p.models {
                assert!(
                    m.context_window >= 8_192 && m.max_output >= 1_024,
                    "{name}/{}",
                    m.id
                );
            }
        }
        assert!(preset("DeepSeek").is_some());
        assert!(preset("nope").is_none());
        let ds = preset("deepseek").unwrap();
        assert!(ds.models[1].capabilities.thinking);
        assert_eq!(preset("anthropic").unwrap().kind, "anthropic");
    }

    #[test]
    fn openai_models_edit_with_apply_patch_and_others_do_not() {
        for m in preset("openai").unwrap().models {
            assert_eq!(m.capabilities.apply_patch, Some(true), "{}", m.id);
            assert!(m.uses_apply_patch());
        }
        for name in ["deepseek", "kimi", "anthropic"] {
            for m in preset(name).unwrap().models {
                assert_eq!(m.capabilities.apply_patch, None, "{}", m.id);
                assert!(!m.uses_apply_patch(), "{}", m.id);
            }
        }
    }
}
