//! `budgets`: spend limits the engine checks before each model request.
//! Dollars come from the models' prices; a model without a price counts its
//! tokens against `budgets.tokens` instead. Every limit is optional: absent,
//! nothing is limited.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The share of a budget at which a warning is given unless `warnAt` says otherwise.
pub const DEFAULT_WARN_AT: f64 = 0.8;

/// `budgets`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Budgets {
    /// USD one session may spend (all its turns).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session: Option<f64>,
    /// USD all sessions together may spend per calendar day (local time).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub day: Option<f64>,
    /// USD the sessions of one project (workspace) may spend per calendar
    /// month (local time).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub project: Option<f64>,
    /// USD one scheduled run may spend, unless its task has its own budget.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub schedule: Option<f64>,
    /// Token limits for models without a price.
    #[serde(skip_serializing_if = "TokenBudgets::is_empty")]
    pub tokens: TokenBudgets,
    /// The share of a budget (0 to 1) at which a warning is given (default 0.8).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warn_at: Option<f64>,
    /// Unknown keys of `budgets`, kept so a newer config round-trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `budgets.tokens`: tokens (input plus output) of unpriced models.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct TokenBudgets {
    /// Tokens one session may use.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session: Option<u64>,
    /// Tokens all sessions together may use per calendar day (local time).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub day: Option<u64>,
    /// Unknown keys, kept so a newer config round-trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl TokenBudgets {
    /// Nothing configured.
    pub fn is_empty(&self) -> bool {
        *self == TokenBudgets::default()
    }
}

impl Budgets {
    /// Nothing configured (left out of a written config).
    pub fn is_empty(&self) -> bool {
        *self == Budgets::default()
    }

    /// The warning threshold in effect, clamped to 0..=1 (a bad value: the default).
    pub fn warn_share(&self) -> f64 {
        match self.warn_at {
            Some(w) if w.is_finite() && (0.0..=1.0).contains(&w) => w,
            _ => DEFAULT_WARN_AT,
        }
    }

    /// A configured dollar limit, if it is a usable one (finite, not negative).
    pub fn usable(limit: Option<f64>) -> Option<f64> {
        limit.filter(|v| v.is_finite() && *v >= 0.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_documented_shape_and_round_trips() {
        let json = r#"{"session": 2.5, "day": 10, "project": 50, "schedule": 1,
            "tokens": {"session": 100000, "day": 1000000}, "warnAt": 0.9, "later": true}"#;
        let b: Budgets = serde_json::from_str(json).unwrap();
        assert_eq!(b.session, Some(2.5));
        assert_eq!(b.day, Some(10.0));
        assert_eq!(b.project, Some(50.0));
        assert_eq!(b.schedule, Some(1.0));
        assert_eq!(b.tokens.session, Some(100_000));
        assert_eq!(b.tokens.day, Some(1_000_000));
        assert_eq!(b.warn_share(), 0.9);
        let back = serde_json::to_value(&b).unwrap();
        assert_eq!(back["later"], true);
        assert_eq!(back["warnAt"], 0.9);
        assert!(Budgets::default().is_empty());
        assert_eq!(Budgets::default().warn_share(), DEFAULT_WARN_AT);
        assert_eq!(Budgets::usable(Some(-1.0)), None);
    }
}
