//! Cost of an attempt from the model's per-million-token prices.

use seekclaw_config::Model;
use serde::Serialize;

use crate::types::TokenUsage;

/// USD for one attempt: uncached input, cache reads, cache writes and output, each
/// at its own price (cache prices default to the input price).
pub fn cost(model: &Model, usage: &TokenUsage) -> f64 {
    let input = model.input_price_per_mtok;
    let cached = model.cached_input_price_per_mtok.unwrap_or(input);
    let write = model.cache_write_price_per_mtok.unwrap_or(input);
    (usage.uncached_input_tokens() as f64 * input
        + usage.cached_input_tokens as f64 * cached
        + usage.cache_creation_input_tokens as f64 * write
        + usage.output_tokens as f64 * model.output_price_per_mtok)
        / 1_000_000.0
}

/// One provider attempt, successful or not, as recorded for `usage.get`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AttemptRecord {
    /// Provider id.
    pub provider: String,
    /// Model id.
    pub model: String,
    /// Tokens used.
    pub usage: TokenUsage,
    /// Cost in USD (see [`cost`]).
    pub cost: f64,
    /// How long the attempt took (ms).
    pub elapsed_ms: f64,
    /// Whether the attempt succeeded.
    pub success: bool,
    /// The model has a price in the config (else `cost` is 0 for want of
    /// one, not because it was free).
    #[serde(skip)]
    pub priced: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cost_uses_each_price() {
        let mut m = Model {
            input_price_per_mtok: 3.0,
            output_price_per_mtok: 15.0,
            cached_input_price_per_mtok: Some(0.3),
            cache_write_price_per_mtok: Some(3.75),
            ..Model::default()
        };
        let u = TokenUsage {
            total_input_tokens: 1_000_000 + 2_000_000 + 100_000,
            cached_input_tokens: 2_000_000,
            cache_creation_input_tokens: 100_000,
            output_tokens: 500_000,
            reasoning_tokens: 0,
        };
        // 1M×3 + 2M×0.3 + 0.1M×3.75 + 0.5M×15 = 3 + 0.6 + 0.375 + 7.5
        assert!((cost(&m, &u) - 11.475).abs() < 1e-9);
        m.cached_input_price_per_mtok = None;
        m.cache_write_price_per_mtok = None;
        assert!((cost(&m, &u) - (3.1 * 3.0 + 7.5)).abs() < 1e-9);
        assert_eq!(cost(&Model::default(), &u), 0.0);
    }
}
