//! Budgets a session or a scheduled task has of its own (over the config's),
//! and what the ledger says was spent: by a session, by all sessions since a
//! time, by one scope (project) since a time.

use rusqlite::{OptionalExtension, params};

use crate::error::Result;
use crate::store::Store;

/// Whose own budget.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BudgetOwner {
    /// Session `id` of `scope`.
    Session {
        /// The store scope.
        scope: String,
        /// The session id.
        id: String,
    },
    /// A scheduled task (each of its runs).
    Task(String),
}

impl BudgetOwner {
    fn row(&self) -> (&'static str, String) {
        match self {
            // The unit separator cannot occur in a scope key or an id.
            BudgetOwner::Session { scope, id } => ("session", format!("{scope}\u{1f}{id}")),
            BudgetOwner::Task(id) => ("task", id.clone()),
        }
    }
}

/// A budget of one session or task.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct OwnBudget {
    /// USD.
    pub usd: Option<f64>,
    /// Tokens of unpriced models.
    pub tokens: Option<u64>,
}

/// What was spent: dollars, and the tokens of attempts that cost nothing
/// (models without a price).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Spent {
    /// USD.
    pub usd: f64,
    /// Input plus output tokens of unpriced attempts.
    pub unpriced_tokens: u64,
}

const SUMS: &str = "SELECT COALESCE(SUM(u.cost), 0), \
     COALESCE(SUM(CASE WHEN COALESCE(u.cost, 0) = 0 \
     THEN COALESCE(u.total_input_tokens, 0) + COALESCE(u.output_tokens, 0) ELSE 0 END), 0) \
     FROM usage_records u";

fn spent_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Spent> {
    Ok(Spent {
        usd: r.get::<_, f64>(0)?,
        unpriced_tokens: r.get::<_, i64>(1)?.max(0) as u64,
    })
}

impl Store {
    /// The own budget of `owner` (none set: both `None`).
    pub fn own_budget(&self, owner: &BudgetOwner) -> Result<OwnBudget> {
        let (kind, key) = owner.row();
        self.read(|tx| {
            let row = tx
                .prepare_cached("SELECT usd, tokens FROM own_budgets WHERE kind = ?1 AND key = ?2")?
                .query_row(params![kind, key], |r| {
                    Ok(OwnBudget {
                        usd: r.get(0)?,
                        tokens: r.get::<_, Option<i64>>(1)?.map(|t| t.max(0) as u64),
                    })
                })
                .optional()?;
            Ok(row.unwrap_or_default())
        })
    }

    /// Sets (or, both `None`, removes) the own budget of `owner`.
    pub fn set_own_budget(&self, owner: &BudgetOwner, budget: OwnBudget) -> Result<()> {
        let (kind, key) = owner.row();
        self.write(|tx| {
            if budget.usd.is_none() && budget.tokens.is_none() {
                tx.prepare_cached("DELETE FROM own_budgets WHERE kind = ?1 AND key = ?2")?
                    .execute(params![kind, key])?;
                return Ok(());
            }
            let tokens = budget.tokens.map(|t| i64::try_from(t).unwrap_or(i64::MAX));
            tx.prepare_cached(
                "INSERT INTO own_budgets (kind, key, usd, tokens) VALUES (?1, ?2, ?3, ?4) \
                 ON CONFLICT (kind, key) DO UPDATE SET usd = excluded.usd, tokens = excluded.tokens",
            )?
            .execute(params![kind, key, budget.usd, tokens])?;
            Ok(())
        })
    }

    /// What session `id` of `scope` has spent, by its ledger rows.
    pub fn session_spent(&self, scope: &str, id: &str) -> Result<Spent> {
        self.read(|tx| {
            let sql = format!(
                "{SUMS} JOIN sessions s ON u.session_pk = s.pk WHERE s.scope = ?1 AND s.id = ?2"
            );
            Ok(tx
                .prepare_cached(&sql)?
                .query_row(params![scope, id], spent_row)?)
        })
    }

    /// What was spent since `since` (a `now_iso`-format time), by every
    /// session and side request, or (`scope`) by the sessions of one scope.
    pub fn spent_since(&self, since: &str, scope: Option<&str>) -> Result<Spent> {
        self.read(|tx| match scope {
            None => Ok(tx
                .prepare_cached(&format!("{SUMS} WHERE u.ts >= ?1"))?
                .query_row(params![since], spent_row)?),
            Some(scope) => Ok(tx
                .prepare_cached(&format!(
                    "{SUMS} JOIN sessions s ON u.session_pk = s.pk \
                     WHERE u.ts >= ?1 AND s.scope = ?2"
                ))?
                .query_row(params![since, scope], spent_row)?),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::temp_store;

    #[test]
    fn own_budgets_are_set_read_and_removed() {
        let (_d, store) = temp_store();
        let owner = BudgetOwner::Session {
            scope: "global".into(),
            id: "s1".into(),
        };
        assert_eq!(store.own_budget(&owner).unwrap(), OwnBudget::default());
        let b = OwnBudget {
            usd: Some(1.5),
            tokens: Some(10),
        };
        store.set_own_budget(&owner, b).unwrap();
        assert_eq!(store.own_budget(&owner).unwrap(), b);
        assert_eq!(
            store.own_budget(&BudgetOwner::Task("s1".into())).unwrap(),
            OwnBudget::default()
        );
        store.set_own_budget(&owner, OwnBudget::default()).unwrap();
        assert_eq!(store.own_budget(&owner).unwrap(), OwnBudget::default());
    }

    #[test]
    fn spend_sums_dollars_and_unpriced_tokens() {
        let (_d, store) = temp_store();
        for (cost, tokens) in [(0.25, 100), (0.0, 40)] {
            store
                .record_usage(&crate::UsageRecord {
                    provider: "p".into(),
                    model: "m".into(),
                    total_input_tokens: tokens,
                    output_tokens: 2,
                    cost,
                    success: true,
                    ..Default::default()
                })
                .unwrap();
        }
        let all = store.spent_since("2000-01-01", None).unwrap();
        assert_eq!(all.usd, 0.25);
        assert_eq!(all.unpriced_tokens, 42);
        let later = store.spent_since("9999-01-01", None).unwrap();
        assert_eq!(later, Spent::default());
        let none = store.spent_since("2000-01-01", Some("global")).unwrap();
        assert_eq!(none, Spent::default());
    }
}
