//! The status bar's spend against the budget: the tightest dollar budget
//! that applies to the session (`budget.get`), asked at the start and after
//! each turn (no polling).

use std::time::Duration;

use seekclaw_protocol::api::BudgetGetParams;
use seekclaw_protocol::method;

use crate::Scope;
use crate::app::App;
use crate::client::Connection;

/// A daemon that cannot say quickly leaves the bar as it was.
const LIMIT: Duration = Duration::from_secs(5);

/// A dollar budget and what was spent against it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BudgetView {
    /// The limit, USD.
    pub usd: f64,
    /// Spent against it, USD.
    pub spent_usd: f64,
}

impl BudgetView {
    /// The budget with the least left of `view`'s dollar budgets (`None`:
    /// none applies).
    pub fn tightest(view: &seekclaw_protocol::api::BudgetView) -> Option<BudgetView> {
        view.budgets
            .iter()
            .filter_map(|b| {
                b.usd.map(|usd| BudgetView {
                    usd,
                    spent_usd: b.spent_usd,
                })
            })
            .min_by(|a, b| a.left().total_cmp(&b.left()))
    }

    fn left(&self) -> f64 {
        self.usd - self.spent_usd
    }

    /// `budget $0.0420/$0.0500`.
    pub fn label(&self) -> String {
        let amount = |v: f64| seekclaw_protocol::wording::budget_amount(Some(v), 0);
        format!("budget {}/{}", amount(self.spent_usd), amount(self.usd))
    }
}

/// Asks `budget.get` for the session (or, before one, the project) again;
/// an older daemon without budgets leaves the bar without one.
pub(crate) async fn refresh(conn: &Connection, scope: &Scope, app: &mut App) {
    let (workspace, global) = scope.fields();
    let params = BudgetGetParams {
        session_id: app.session_id.clone(),
        workspace,
        global,
    };
    if let Ok(view) = conn.call_within::<method::BudgetGet>(&params, LIMIT).await {
        app.budget = BudgetView::tightest(&view);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bar_shows_the_budget_with_the_least_left() {
        let view: seekclaw_protocol::api::BudgetView = serde_json::from_value(serde_json::json!({
            "sessionId": "s", "warnAt": 0.8, "todayCostUsd": 0.5, "monthCostUsd": 1.0,
            "budgets": [
                {"scope": "session", "usd": 1.0, "tokens": null, "spentUsd": 0.2, "spentTokens": 0,
                 "remainingUsd": 0.8, "remainingTokens": null, "source": "config", "taskId": null},
                {"scope": "day", "usd": 0.6, "tokens": null, "spentUsd": 0.5, "spentTokens": 0,
                 "remainingUsd": 0.1, "remainingTokens": null, "source": "config", "taskId": null},
                {"scope": "day", "usd": null, "tokens": 10, "spentUsd": 0.0, "spentTokens": 9,
                 "remainingUsd": null, "remainingTokens": 1, "source": "config", "taskId": null}
            ]
        }))
        .unwrap();
        let b = BudgetView::tightest(&view).unwrap();
        assert_eq!(b.label(), "budget $0.5000/$0.6000");
        let mut app = App::default();
        app.budget = Some(b);
        let bar: String = crate::render::status_line(&app, 200)
            .spans
            .iter()
            .map(|s| s.content.to_string())
            .collect();
        assert!(bar.contains("budget $0.5000/$0.6000"), "{bar}");
    }
}
