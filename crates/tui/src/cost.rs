//! The cost shown in the status bar: the sum of the `usage` events' own
//! `costUsd` (the engine prices each attempt), plus, for tokens without one
//! (a loaded session's totals, an older daemon), `model.catalog`'s prices:
//! (input price × input tokens + output price × output tokens) / 1e6 per
//! model (reference §6.11).

use seekclaw_protocol::api::CatalogEntry;

use crate::app::App;

impl App {
    /// Takes the prices, the default model and whether any model is
    /// configured out of a `model.catalog` result.
    pub fn set_catalog(&mut self, catalog: &[CatalogEntry]) {
        self.any_model = Some(catalog.iter().any(|m| m.provider_enabled));
        self.default_model = catalog
            .iter()
            .find(|m| m.active)
            .map(|m| m.model_ref.clone());
        self.context_windows = catalog
            .iter()
            .map(|m| (m.model_ref.clone(), m.context_window))
            .collect();
        let prices = catalog
            .iter()
            .filter_map(|m| {
                let r = m.model_ref.clone();
                // A model without prices has an unknown cost, not a free one.
                // (The catalog writes 0 for a price the config does not have.)
                let (input, output) = (m.input_price_per_mtok, m.output_price_per_mtok);
                if input <= 0.0 && output <= 0.0 {
                    return None;
                }
                if m.active {
                    // A loaded session's totals of no known model are priced
                    // as the active model (see `session_tokens`).
                    return Some(vec![(String::new(), (input, output)), (r, (input, output))]);
                }
                Some(vec![(r, (input, output))])
            })
            .flatten()
            .collect();
        self.prices = Some(prices);
    }

    /// A loaded session's cost: what the engine priced its calls at (the
    /// same sum the live bar made of the `usage` events, so a reload or a
    /// reconnect shows what was shown). Without one (an older daemon, a
    /// model without prices) its token totals go to its (last) model: the
    /// session keeps totals, not per-model ones, so a session that used
    /// several models is priced as if all were its last, an approximation.
    pub(crate) fn session_tokens(&mut self, cost_usd: Option<f64>) {
        if let Some(cost) = cost_usd.filter(|c| c.is_finite() && *c > 0.0) {
            self.priced_cost = cost;
            return;
        }
        if self.input_tokens == 0 && self.output_tokens == 0 {
            return;
        }
        let model = self.model.clone().unwrap_or_default();
        self.model_tokens
            .insert(model, (self.input_tokens, self.output_tokens));
    }

    /// The session's cost in USD so far; `None` until the prices of every
    /// model it used are known. Before anything is spent it is priced as the
    /// model the next turn uses: one without prices reads "cost unknown"
    /// before its first turn as after it, not `$0.0000` and then unknown.
    pub fn cost(&self) -> Option<f64> {
        // Only priced attempts so far: their sum, catalog or not.
        if self.model_tokens.is_empty() && self.priced_cost > 0.0 {
            return Some(self.priced_cost);
        }
        let prices = self.prices.as_ref()?;
        if self.model_tokens.is_empty() && self.priced_cost == 0.0 {
            return match self.next_model() {
                Some(next) if !prices.contains_key(next) => None,
                _ => Some(0.0),
            };
        }
        // Folded from +0.0: an empty f64 sum is -0.0, shown as "$-0.0000".
        self.model_tokens
            .iter()
            .try_fold(self.priced_cost, |sum, (model, (input, output))| {
                let (pi, po) = prices.get(model).copied()?;
                Some(sum + (pi * *input as f64 + po * *output as f64) / 1e6)
            })
    }

    /// The status bar's token and cost part: `tokens ↑IN ↓OUT $0.0123`, or
    /// `cost unknown` once the prices are in and a model used (or, before
    /// any use, the next turn's) has none.
    pub fn usage_label(&self) -> String {
        let tokens = format!("tokens ↑{} ↓{}", self.input_tokens, self.output_tokens);
        match (self.cost(), &self.prices) {
            (Some(cost), _) => format!("{tokens} ${cost:.4}"),
            (None, Some(_)) => format!("{tokens} cost unknown"),
            (None, None) => tokens,
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::fixtures::catalog as models;

    use super::*;

    #[test]
    fn cost_sums_per_model_prices_once_the_catalog_is_known() {
        let mut app = App::default();
        app.model_tokens.insert("a/m".into(), (1_000_000, 100_000));
        app.model_tokens.insert("b/n".into(), (500_000, 0));
        assert_eq!(app.cost(), None);
        app.set_catalog(&models(json!([
            {"ref": "a/m", "active": false, "inputPricePerMTok": 3.0, "outputPricePerMTok": 15.0},
            {"ref": "b/n", "active": true, "inputPricePerMTok": 1.0, "outputPricePerMTok": 2.0},
        ])));
        let cost = app.cost().unwrap();
        assert!((cost - (3.0 + 1.5 + 0.5)).abs() < 1e-9, "{cost}");
    }

    #[test]
    fn usage_events_that_carry_their_cost_are_summed_not_priced_again() {
        let mut app = App::default();
        app.start_turn(1, "hi");
        let usage = |cost: Option<f64>| seekclaw_client::Event {
            seq: None,
            id: 1,
            event: "usage".into(),
            data: "a/m".into(),
            session_id: Some("s".into()),
            details: Some(crate::app::tests::usage(1000, 10, cost)),
        };
        app.on_envelope(usage(Some(0.25)));
        app.on_envelope(usage(Some(0.5)));
        // No catalog needed: the engine priced them (cache prices included).
        assert_eq!(app.cost(), Some(0.75));
        // One without a cost (an unpriced model) waits for the catalog again.
        app.on_envelope(usage(None));
        assert_eq!(app.cost(), None);
        app.set_catalog(&models(json!([
            {"ref": "a/m", "active": true, "inputPricePerMTok": 1000.0, "outputPricePerMTok": 0.0},
        ])));
        let cost = app.cost().unwrap();
        assert!((cost - 1.75).abs() < 1e-9, "{cost}");
    }

    #[test]
    fn a_model_without_prices_makes_the_cost_unknown() {
        let mut app = App::default();
        app.input_tokens = 10;
        app.model_tokens.insert("c/m".into(), (10, 5));
        assert_eq!(app.usage_label(), "tokens ↑10 ↓0");
        app.set_catalog(&models(json!([
            {"ref": "c/m", "active": true, "inputPricePerMTok": 0.0, "outputPricePerMTok": 0.0},
        ])));
        assert_eq!(app.cost(), None);
        assert_eq!(app.usage_label(), "tokens ↑10 ↓0 cost unknown");
    }

    #[test]
    fn a_loaded_session_is_priced_by_its_last_model() {
        let mut app = App::default();
        app.load_session(
            serde_json::from_value(json!({
                "id": "s", "inputTokens": 2_000_000, "outputTokens": 0,
                "entries": [{"kind": "assistant", "seq": 1, "text": "hi", "modelRef": "a/m"}]
            }))
            .unwrap(),
        );
        app.set_catalog(&models(json!([
            {"ref": "a/m", "active": false, "inputPricePerMTok": 0.5, "outputPricePerMTok": 1.0},
        ])));
        assert_eq!(app.cost(), Some(1.0));
    }

    /// A reload (a reconnect) shows the cost the live bar summed: the
    /// engine's own pricing of every call, cache prices included, not the
    /// totals priced again at the full input price.
    #[test]
    fn a_loaded_session_shows_the_engines_cost_of_its_calls() {
        let mut app = App::default();
        app.load_session(
            serde_json::from_value(json!({
                "id": "s", "inputTokens": 2_000_000, "outputTokens": 0, "costUsd": 0.125,
                "entries": [{"kind": "assistant", "seq": 1, "text": "hi", "modelRef": "a/m"}]
            }))
            .unwrap(),
        );
        assert_eq!(app.cost(), Some(0.125));
        app.set_catalog(&models(json!([
            {"ref": "a/m", "active": false, "inputPricePerMTok": 0.5, "outputPricePerMTok": 1.0},
        ])));
        assert_eq!(app.cost(), Some(0.125));
        assert!(
            app.usage_label().ends_with("$0.1250"),
            "{}",
            app.usage_label()
        );
    }

    #[test]
    fn an_unpriced_model_reads_cost_unknown_before_its_first_turn_as_after_it() {
        let mut app = App::default();
        let catalog = models(json!([
            {"ref": "tk/m1", "active": true, "providerEnabled": true},
            {"ref": "tk/p", "active": false, "inputPricePerMTok": 1.0, "outputPricePerMTok": 1.0},
        ]));
        app.set_catalog(&catalog);
        assert_eq!(app.usage_label(), "tokens ↑0 ↓0 cost unknown");
        app.start_turn(1, "hi");
        app.on_envelope(seekclaw_client::Event {
            seq: None,
            id: 1,
            event: "usage".into(),
            data: "tk/m1".into(),
            session_id: Some("s".into()),
            details: Some(crate::app::tests::usage(10, 2, None)),
        });
        assert_eq!(app.usage_label(), "tokens ↑10 ↓2 cost unknown");
        // A session on a priced model starts at $0.0000.
        let mut priced = App::default();
        priced.set_catalog(&catalog);
        priced.session_model = Some("tk/p".into());
        assert_eq!(priced.usage_label(), "tokens ↑0 ↓0 $0.0000");
    }

    #[test]
    fn no_tokens_cost_zero_and_a_model_without_prices_costs_unknown() {
        let mut app = App::default();
        app.set_catalog(&models(json!([
            {"ref": "a/m", "active": true, "inputPricePerMTok": 1.0, "outputPricePerMTok": 2.0},
            {"ref": "b/n", "active": false},
        ])));
        assert_eq!(format!("{:.4}", app.cost().unwrap()), "0.0000");
        app.model_tokens.insert("a/m".into(), (1_000_000, 0));
        assert_eq!(app.cost(), Some(1.0));
        app.model_tokens.insert("b/n".into(), (10, 10));
        assert_eq!(app.cost(), None);
    }
}
