//! Provider attempts (one row each) and their aggregation for `usage.get`.

use rusqlite::{OptionalExtension, Transaction, params};
use serde::Serialize;

use crate::error::Result;
use crate::store::Store;
use crate::time::now_iso;

/// One provider attempt, successful or not.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct UsageRecord {
    /// Provider id.
    pub provider: String,
    /// Model id.
    pub model: String,
    /// Session the call served, if any.
    pub session_id: Option<String>,
    /// Input billed at the plain price (excludes cache reads and writes).
    pub input_tokens: u64,
    /// Every input token, cached or not.
    pub total_input_tokens: u64,
    /// Input tokens read from the prompt cache.
    pub cached_input_tokens: u64,
    /// Input tokens written to the prompt cache.
    pub cache_creation_input_tokens: u64,
    /// Output tokens.
    pub output_tokens: u64,
    /// Output tokens spent on reasoning, when the provider says.
    pub reasoning_tokens: u64,
    /// Cost in USD.
    pub cost: f64,
    /// How long the call took.
    pub elapsed_ms: f64,
    /// Whether the call succeeded.
    pub success: bool,
}

/// What a session's turn spent since it last wrote: its provider attempts
/// (one ledger row each) and the counters no row carries (models started,
/// execution steps). Written in the transaction of the log entries that go
/// with it, so a turn cut off at any point (cancelled, failed, its daemon
/// killed) has counted every attempt whose step reached the log.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Spend {
    /// The attempts, in order.
    pub records: Vec<UsageRecord>,
    /// Models started (`llmRounds`: one per `model_start`).
    pub llm_rounds: i64,
    /// Execution steps taken.
    pub execution_steps: i64,
}

impl Spend {
    /// Nothing to write.
    pub fn is_empty(&self) -> bool {
        self.records.is_empty() && self.llm_rounds == 0 && self.execution_steps == 0
    }

    /// Adds `other` after this one.
    pub fn absorb(&mut self, other: Spend) {
        self.records.extend(other.records);
        self.llm_rounds = self.llm_rounds.saturating_add(other.llm_rounds);
        self.execution_steps = self.execution_steps.saturating_add(other.execution_steps);
    }
}

/// A session's ledger rows summed per turn (`turn` `None`: rows without one,
/// from before turns were recorded or outside any turn), in the order the
/// turns first spent.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TurnUsage {
    /// The turn's owner id (the `turn` of its log events).
    pub turn: Option<String>,
    /// Provider attempts.
    pub calls: u64,
    /// Every input token, cached or not.
    pub input_tokens: u64,
    /// Input tokens read from the prompt cache.
    pub cached_input_tokens: u64,
    /// Output tokens (reasoning included).
    pub output_tokens: u64,
    /// Output tokens spent on reasoning.
    pub reasoning_tokens: u64,
    /// Cost in USD.
    pub cost: f64,
}

/// Aggregate per (provider, model), the `usage.get` row shape.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UsageSummary {
    /// Provider id.
    pub provider: String,
    /// Model id.
    pub model: String,
    /// Calls recorded.
    pub calls: u64,
    /// Calls that failed.
    pub failures: u64,
    /// Plain-price input tokens, summed.
    pub input_tokens: u64,
    /// Every input token, summed.
    pub total_input_tokens: u64,
    /// Cache-read input tokens, summed.
    pub cached_input_tokens: u64,
    /// Cache-write input tokens, summed.
    pub cache_creation_input_tokens: u64,
    /// Output tokens, summed.
    pub output_tokens: u64,
    /// Cost in USD, summed.
    pub cost: f64,
    /// Mean call time (ms).
    pub avg_latency_ms: f64,
    /// Share of calls that succeeded (0 to 1).
    pub success_rate: f64,
    /// Cost in USD today (local time), whatever the window.
    pub today_cost_usd: f64,
    /// Cost in USD this calendar month (local time), whatever the window.
    pub month_cost_usd: f64,
}

impl Store {
    /// Records one provider call for `usage.get` (one no session's turn
    /// made: a side request; a row with a `session_id` counts for the
    /// sessions with that id).
    pub fn record_usage(&self, r: &UsageRecord) -> Result<()> {
        self.write(|tx| record_usage_in(tx, r, None, None))
    }

    /// What session `id` of `scope` has cost in USD: its ledger rows' sum,
    /// kept on its row (`None`: no such session).
    pub fn session_cost(&self, scope: &str, id: &str) -> Result<Option<f64>> {
        self.read(|tx| {
            Ok(tx
                .prepare_cached("SELECT cost FROM sessions WHERE scope = ?1 AND id = ?2")?
                .query_row(params![scope, id], |r| r.get(0))
                .optional()?)
        })
    }

    /// The ledger of session `id` of `scope`, summed per turn.
    pub fn usage_by_turn(&self, scope: &str, id: &str) -> Result<Vec<TurnUsage>> {
        self.read(|tx| {
            let pk: Option<i64> = tx
                .prepare_cached("SELECT pk FROM sessions WHERE scope = ?1 AND id = ?2")?
                .query_row(params![scope, id], |r| r.get(0))
                .optional()?;
            let Some(pk) = pk else {
                return Err(crate::sessions::not_found(scope, id));
            };
            // A deleted session's pk may be reused: its rows also name the id.
            let mut stmt = tx.prepare_cached(
                "SELECT turn, COUNT(*), SUM(total_input_tokens), SUM(cached_input_tokens), \
                 SUM(output_tokens), SUM(reasoning_tokens), SUM(cost), MIN(id) FROM usage_records \
                 WHERE (session_pk = ?1 OR session_pk IS NULL) AND session_id = ?2 \
                 GROUP BY turn ORDER BY MIN(id)",
            )?;
            let rows = stmt
                .query_map(params![pk, id], |r| {
                    let n = |i: usize| -> rusqlite::Result<u64> {
                        Ok(r.get::<_, Option<i64>>(i)?.unwrap_or(0).max(0) as u64)
                    };
                    Ok(TurnUsage {
                        turn: r.get(0)?,
                        calls: n(1)?,
                        input_tokens: n(2)?,
                        cached_input_tokens: n(3)?,
                        output_tokens: n(4)?,
                        reasoning_tokens: n(5)?,
                        cost: r.get::<_, Option<f64>>(6)?.unwrap_or(0.0),
                    })
                })?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            Ok(rows)
        })
    }

    /// Aggregates attempts since `since` (an ISO timestamp; `None` = all time),
    /// most expensive first.
    pub fn usage_summary(&self, since: Option<&str>) -> Result<Vec<UsageSummary>> {
        self.read(|tx| {
            let mut stmt = tx.prepare_cached(
                "SELECT provider, model, COUNT(*), SUM(success = 0), SUM(input_tokens), \
                 SUM(total_input_tokens), SUM(cached_input_tokens), SUM(cache_creation_input_tokens), \
                 SUM(output_tokens), SUM(cost), AVG(elapsed_ms) \
                 FROM usage_records WHERE (?1 IS NULL OR ts >= ?1) GROUP BY provider, model \
                 ORDER BY SUM(cost) DESC, provider, model",
            )?;
            let rows = stmt
                .query_map(params![since], |r| {
                    let n = |i: usize| -> rusqlite::Result<u64> {
                        Ok(r.get::<_, Option<i64>>(i)?.unwrap_or(0).max(0) as u64)
                    };
                    let calls = n(2)?;
                    let failures = n(3)?;
                    Ok(UsageSummary {
                        provider: r.get(0)?,
                        model: r.get(1)?,
                        calls,
                        failures,
                        input_tokens: n(4)?,
                        total_input_tokens: n(5)?,
                        cached_input_tokens: n(6)?,
                        cache_creation_input_tokens: n(7)?,
                        output_tokens: n(8)?,
                        cost: r.get::<_, Option<f64>>(9)?.unwrap_or(0.0),
                        avg_latency_ms: r.get::<_, Option<f64>>(10)?.unwrap_or(0.0),
                        success_rate: if calls == 0 {
                            0.0
                        } else {
                            (calls - failures) as f64 / calls as f64
                        },
                        today_cost_usd: 0.0,
                        month_cost_usd: 0.0,
                    })
                })?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            Ok(rows)
        })
    }
}

impl Store {
    /// USD per (provider, model) since `since` (a `now_iso`-format time).
    pub fn cost_by_model_since(&self, since: &str) -> Result<Vec<(String, String, f64)>> {
        self.read(|tx| {
            let mut stmt = tx.prepare_cached(
                "SELECT provider, model, COALESCE(SUM(cost), 0) FROM usage_records \
                 WHERE ts >= ?1 GROUP BY provider, model",
            )?;
            let rows = stmt
                .query_map(params![since], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            Ok(rows)
        })
    }
}

/// Writes `spend` for the session row `pk` and its turn: a ledger row per
/// attempt (whose trigger adds its tokens, time and cost to the session's
/// counters) and the counters no row carries.
pub(crate) fn record_spend_in(
    tx: &Transaction<'_>,
    pk: i64,
    turn: Option<&str>,
    spend: &Spend,
) -> Result<()> {
    for r in &spend.records {
        record_usage_in(tx, r, Some(pk), turn)?;
    }
    if spend.llm_rounds != 0 || spend.execution_steps != 0 {
        tx.prepare_cached(
            "UPDATE sessions SET llm_rounds = llm_rounds + ?1, \
                 execution_steps = execution_steps + ?2 WHERE pk = ?3",
        )?
        .execute(params![spend.llm_rounds, spend.execution_steps, pk])?;
    }
    Ok(())
}

/// One ledger row inside a write transaction.
fn record_usage_in(
    tx: &Transaction<'_>,
    r: &UsageRecord,
    pk: Option<i64>,
    turn: Option<&str>,
) -> Result<()> {
    let clamp = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
    tx.prepare_cached(
        "INSERT INTO usage_records (ts, provider, model, session_id, input_tokens, \
             total_input_tokens, cached_input_tokens, cache_creation_input_tokens, output_tokens, \
             cost, elapsed_ms, success, session_pk, turn, reasoning_tokens) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)",
    )?
    .execute(params![
        now_iso(),
        r.provider,
        r.model,
        r.session_id,
        clamp(r.input_tokens),
        clamp(r.total_input_tokens),
        clamp(r.cached_input_tokens),
        clamp(r.cache_creation_input_tokens),
        clamp(r.output_tokens),
        r.cost,
        r.elapsed_ms,
        r.success,
        pk,
        turn,
        clamp(r.reasoning_tokens)
    ])?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::testutil::temp_store;

    use super::*;

    fn rec(model: &str, cost: f64, ms: f64, success: bool) -> UsageRecord {
        UsageRecord {
            provider: "p".into(),
            model: model.into(),
            input_tokens: 10,
            total_input_tokens: 15,
            cached_input_tokens: 5,
            output_tokens: 3,
            cost,
            elapsed_ms: ms,
            success,
            ..UsageRecord::default()
        }
    }

    #[test]
    fn records_and_aggregates() {
        let (_d, s) = temp_store();
        s.record_usage(&rec("a", 0.5, 100.0, true)).unwrap();
        s.record_usage(&rec("a", 0.0, 300.0, false)).unwrap();
        s.record_usage(&rec("b", 2.0, 50.0, true)).unwrap();
        let sum = s.usage_summary(None).unwrap();
        assert_eq!(sum.len(), 2);
        assert_eq!(sum[0].model, "b", "most expensive first");
        let a = &sum[1];
        assert_eq!(
            (
                a.calls,
                a.failures,
                a.input_tokens,
                a.total_input_tokens,
                a.cached_input_tokens,
                a.output_tokens
            ),
            (2, 1, 20, 30, 10, 6)
        );
        assert!((a.avg_latency_ms - 200.0).abs() < 1e-9);
        assert!((a.success_rate - 0.5).abs() < 1e-9);
        assert!(s.usage_summary(Some("9999")).unwrap().is_empty());
        let by_model = s.cost_by_model_since("2000").unwrap();
        assert_eq!(by_model.len(), 2);
        assert!(s.cost_by_model_since("9999").unwrap().is_empty());
        let json = serde_json::to_value(&sum[0]).unwrap();
        let keys: Vec<&String> = json.as_object().unwrap().keys().collect();
        assert_eq!(
            keys,
            [
                "provider",
                "model",
                "calls",
                "failures",
                "inputTokens",
                "totalInputTokens",
                "cachedInputTokens",
                "cacheCreationInputTokens",
                "outputTokens",
                "cost",
                "avgLatencyMs",
                "successRate",
                "todayCostUsd",
                "monthCostUsd"
            ]
        );
    }
}
