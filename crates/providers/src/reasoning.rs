//! Neutral reasoning levels mapped to each wire (reference §6.10): the normalize
//! step, OpenAI `reasoning_effort`, the thinking flag and the Anthropic budget.

use seekclaw_config::{Model, Provider, ReasoningLevel};

/// The provider and model one request goes to.
#[derive(Debug, Clone, Copy)]
pub struct Target<'a> {
    /// The provider, with its kind, URL and key.
    pub provider: &'a Provider,
    /// The model and its capabilities.
    pub model: &'a Model,
}

impl<'a> Target<'a> {
    /// The target `model` of `provider`.
    pub fn new(provider: &'a Provider, model: &'a Model) -> Self {
        Target { provider, model }
    }

    /// `"provider/model"`, the form used in routing, usage and failover errors.
    pub fn model_ref(&self) -> String {
        format!("{}/{}", self.provider.id, self.model.id)
    }

    fn mentions(&self, needle: &str) -> bool {
        [
            self.provider.id.as_str(),
            self.provider.base_url.as_str(),
            self.model.id.as_str(),
        ]
        .iter()
        .any(|s| contains_ignore_ascii_case(s, needle))
    }
}

fn contains_ignore_ascii_case(haystack: &str, needle: &str) -> bool {
    if needle.is_empty() {
        return true;
    }
    haystack
        .as_bytes()
        .windows(needle.len())
        .any(|w| w.eq_ignore_ascii_case(needle.as_bytes()))
}

/// Provider id, base URL or model id contains `deepseek` (case-insensitive).
pub fn is_deepseek(t: &Target) -> bool {
    t.mentions("deepseek")
}

/// Moonshot's Kimi models (provider id, base URL or model id mention
/// `moonshot` or `kimi`); like DeepSeek they need `reasoning_content` back.
pub fn is_kimi(t: &Target) -> bool {
    t.mentions("moonshot") || t.mentions("kimi")
}

fn has_effort_map(t: &Target) -> bool {
    t.provider
        .reasoning_effort_map
        .as_ref()
        .is_some_and(|m| !m.is_empty())
}

/// The level a request actually uses: `none` for models that cannot reason
/// (neither `thinking` nor `reasoning`, not DeepSeek/Kimi, no effort map);
/// otherwise the requested level capped at `maxReasoningLevel`, and DeepSeek
/// additionally at `max`.
pub fn effective_level(t: &Target, requested: ReasoningLevel) -> ReasoningLevel {
    let caps = &t.model.capabilities;
    let deepseek = is_deepseek(t);
    if !caps.thinking && !caps.reasoning && !deepseek && !is_kimi(t) && !has_effort_map(t) {
        return ReasoningLevel::None;
    }
    let mut level = requested.min(caps.max_reasoning_level);
    if deepseek {
        level = level.min(ReasoningLevel::Max);
    }
    level
}

/// The OpenAI-wire `reasoning_effort` for an already effective `level`:
/// omitted for `none`; the provider's map wins (keys matched
/// case-insensitively; a blank value omits the field); DeepSeek folds to
/// `low|high|max`; anything else sends the level's own name.
pub fn reasoning_effort(t: &Target, level: ReasoningLevel) -> Option<String> {
    if level == ReasoningLevel::None {
        return None;
    }
    if let Some(map) = &t.provider.reasoning_effort_map
        && let Some((_, wire)) = map
            .iter()
            .find(|(k, _)| k.trim().eq_ignore_ascii_case(level.as_str()))
    {
        let wire = wire.trim();
        return (!wire.is_empty()).then(|| wire.to_string());
    }
    if is_deepseek(t) {
        let folded = match level {
            ReasoningLevel::Low => "low",
            ReasoningLevel::Medium | ReasoningLevel::High => "high",
            _ => "max",
        };
        return Some(folded.to_string());
    }
    Some(level.as_str().to_string())
}

/// Extended thinking is requested: the (effective) level is not `none` and
/// the model declares `thinking`.
pub fn thinking_enabled(t: &Target, level: ReasoningLevel) -> bool {
    level != ReasoningLevel::None && t.model.capabilities.thinking
}

/// Anthropic `budget_tokens`: base = max(1024, `base_tokens`) times the level's
/// multiplier (low ¼ … ultra 16), at least 1024, at most `max_output` minus a
/// reserve of min(4096, max(1024, max_output/4)) for the answer; 0 (thinking
/// off) for `none` or when `max_output` < 2048.
pub fn anthropic_budget(level: ReasoningLevel, base_tokens: u64, max_output: u64) -> u64 {
    if level == ReasoningLevel::None || max_output < 2048 {
        return 0;
    }
    let base = base_tokens.max(1024);
    let scaled = match level {
        ReasoningLevel::None => 0,
        ReasoningLevel::Low => base / 4,
        ReasoningLevel::Medium => base,
        ReasoningLevel::High => base.saturating_mul(2),
        ReasoningLevel::Max => base.saturating_mul(4),
        ReasoningLevel::Xhigh => base.saturating_mul(8),
        ReasoningLevel::Ultra => base.saturating_mul(16),
    };
    let reserve = (max_output / 4).clamp(1024, 4096);
    scaled.max(1024).min(max_output - reserve)
}

#[cfg(test)]
mod tests {
    use super::*;
    use seekclaw_config::Capabilities;
    use std::collections::BTreeMap;

    use ReasoningLevel::{High, Low, Max, Medium, None as Off, Ultra, Xhigh};

    fn provider(id: &str, base_url: &str) -> Provider {
        Provider {
            id: id.into(),
            base_url: base_url.into(),
            ..Provider::default()
        }
    }

    fn model(id: &str, thinking: bool, reasoning: bool) -> Model {
        Model {
            id: id.into(),
            capabilities: Capabilities {
                thinking,
                reasoning,
                ..Capabilities::default()
            },
            ..Model::default()
        }
    }

    #[test]
    fn detection() {
        let p = provider("main", "https://api.DeepSeek.com");
        let m = model("chat", false, false);
        let t = Target::new(&p, &m);
        assert!(is_deepseek(&t) && !is_kimi(&t));
        assert_eq!(t.model_ref(), "main/chat");

        let p = provider("x", "https://openrouter.ai/api/v1");
        let m = model("deepseek/DeepSeek-R1", false, false);
        assert!(is_deepseek(&Target::new(&p, &m)));

        for (id, url, mid) in [
            ("moonshot", "", "m"),
            ("p", "https://api.moonshot.cn/v1", "m"),
            ("p", "", "Kimi-K2-thinking"),
        ] {
            let p = provider(id, url);
            let m = model(mid, false, false);
            let t = Target::new(&p, &m);
            assert!(is_kimi(&t) && !is_deepseek(&t), "{id} {url} {mid}");
        }
        let p = provider("openai", "https://api.openai.com/v1");
        let m = model("gpt-5", false, true);
        let t = Target::new(&p, &m);
        assert!(!is_kimi(&t) && !is_deepseek(&t));
    }

    #[test]
    fn normalize_levels() {
        let plain = provider("openai", "https://api.openai.com/v1");
        let m = model("gpt-4o", false, false);
        for l in ReasoningLevel::ALL {
            assert_eq!(effective_level(&Target::new(&plain, &m), l), Off);
        }
        // A map makes the level count even for a model without flags.
        let mut mapped = plain.clone();
        mapped.reasoning_effort_map = Some(BTreeMap::from([("ultra".into(), "xhigh".into())]));
        assert_eq!(effective_level(&Target::new(&mapped, &m), High), High);
        // An empty map is no map.
        let mut empty = plain.clone();
        empty.reasoning_effort_map = Some(BTreeMap::new());
        assert_eq!(effective_level(&Target::new(&empty, &m), High), Off);

        // Capped at maxReasoningLevel (default max).
        let r = model("o3", false, true);
        let t = Target::new(&plain, &r);
        assert_eq!(effective_level(&t, Ultra), Max);
        assert_eq!(effective_level(&t, Low), Low);
        let mut r_high = r.clone();
        r_high.capabilities.max_reasoning_level = High;
        assert_eq!(effective_level(&Target::new(&plain, &r_high), Xhigh), High);
        let mut r_ultra = r.clone();
        r_ultra.capabilities.max_reasoning_level = Ultra;
        assert_eq!(
            effective_level(&Target::new(&plain, &r_ultra), Ultra),
            Ultra
        );

        // DeepSeek and Kimi count without flags; DeepSeek caps at max.
        let ds = provider("deepseek", "https://api.deepseek.com");
        let mut dm = model("deepseek-chat", false, false);
        dm.capabilities.max_reasoning_level = Ultra;
        assert_eq!(effective_level(&Target::new(&ds, &dm), Ultra), Max);
        assert_eq!(effective_level(&Target::new(&ds, &dm), Off), Off);
        let kimi = provider("kimi", "https://api.moonshot.cn/v1");
        let km = model("kimi-k2", false, false);
        assert_eq!(effective_level(&Target::new(&kimi, &km), Medium), Medium);
    }

    #[test]
    fn reasoning_effort_table() {
        let ds = provider("deepseek", "https://api.deepseek.com");
        let dm = model("deepseek-reasoner", false, false);
        let t = Target::new(&ds, &dm);
        let table = [
            (Off, None),
            (Low, Some("low")),
            (Medium, Some("high")),
            (High, Some("high")),
            (Max, Some("max")),
            (Xhigh, Some("max")),
            (Ultra, Some("max")),
        ];
        for (level, wire) in table {
            assert_eq!(reasoning_effort(&t, level).as_deref(), wire, "{level}");
        }

        let oa = provider("openai", "https://api.openai.com/v1");
        let om = model("o3", false, true);
        let t = Target::new(&oa, &om);
        for level in ReasoningLevel::ALL {
            let expect = (level != Off).then(|| level.as_str());
            assert_eq!(reasoning_effort(&t, level).as_deref(), expect);
        }

        // The map wins over DeepSeek folding; unmapped levels fall through.
        let mut mapped = ds.clone();
        mapped.reasoning_effort_map = Some(BTreeMap::from([
            ("High".into(), "medium".into()),
            ("low".into(), " ".into()),
        ]));
        let t = Target::new(&mapped, &dm);
        assert_eq!(reasoning_effort(&t, High).as_deref(), Some("medium"));
        assert_eq!(reasoning_effort(&t, Low), None);
        assert_eq!(reasoning_effort(&t, Medium).as_deref(), Some("high"));
        assert_eq!(reasoning_effort(&t, Off), None);
    }

    #[test]
    fn thinking_flag() {
        let p = provider("anthropic", "https://api.anthropic.com");
        let yes = model("claude", true, false);
        let no = model("claude-haiku", false, true);
        assert!(thinking_enabled(&Target::new(&p, &yes), Low));
        assert!(!thinking_enabled(&Target::new(&p, &yes), Off));
        assert!(!thinking_enabled(&Target::new(&p, &no), High));
    }

    #[test]
    fn anthropic_budget_examples() {
        assert_eq!(anthropic_budget(High, 4096, 64000), 8192);
        assert_eq!(anthropic_budget(Ultra, 16384, 64000), 59904);
        assert_eq!(anthropic_budget(High, 16384, 8192), 6144);
    }

    #[test]
    fn anthropic_budget_edges() {
        assert_eq!(anthropic_budget(Off, 16384, 64000), 0);
        assert_eq!(anthropic_budget(High, 16384, 2047), 0);
        // Smallest allowed output: reserve 1024, budget 1024.
        assert_eq!(anthropic_budget(Ultra, 16384, 2048), 1024);
        // Base floored at 1024; low quarter floored at 1024.
        assert_eq!(anthropic_budget(Low, 0, 64000), 1024);
        assert_eq!(anthropic_budget(Medium, 100, 64000), 1024);
        assert_eq!(anthropic_budget(Max, 4096, 64000), 16384);
        assert_eq!(anthropic_budget(Xhigh, 4096, 64000), 32768);
        assert_eq!(anthropic_budget(Ultra, u64::MAX, u64::MAX), u64::MAX - 4096);
    }
}
