//! Load-balancing inputs for a turn (`routing.loadBalance`): `roundRobin`
//! takes and advances its strategy's cursor in `state.json`; `leastUsed` and
//! `fastest` read the usage store. Other strategies need nothing.

use std::collections::HashMap;

use seekclaw_agent::{Balance, TurnRuntime};
use seekclaw_config::LoadBalance;
use seekclaw_providers::routing::{ModelStats, strategy_name};
use seekclaw_store::Store;

use crate::config_service::ConfigService;

/// What `rt`'s strategy orders by; advances a round-robin cursor (one step
/// per turn, persisted, so turns rotate across restarts too).
pub async fn for_turn(config: &ConfigService, store: &Store, rt: &TurnRuntime) -> Balance {
    match rt.config.routing.load_balance {
        LoadBalance::RoundRobin => {
            let key = strategy_name(&rt.config, rt.workspace.as_ref()).to_string();
            let taken = config
                .update_state(std::convert::identity, |state| {
                    let cursor = state.round_robin_cursors.entry(key).or_insert(0);
                    let now = *cursor;
                    *cursor = cursor.wrapping_add(1);
                    Ok(now)
                })
                .await;
            Balance {
                round_robin_cursor: taken.unwrap_or_else(|e| {
                    tracing::warn!(error = %e, "cannot advance the round-robin cursor");
                    0
                }),
                ..Balance::default()
            }
        }
        LoadBalance::LeastUsed | LoadBalance::Fastest => Balance {
            stats: usage_stats(store).await,
            ..Balance::default()
        },
        LoadBalance::Priority | LoadBalance::LowestCost | LoadBalance::Sticky => Balance::default(),
    }
}

/// Calls and mean latency per `provider/model`, from every recorded attempt.
async fn usage_stats(store: &Store) -> HashMap<String, ModelStats> {
    let store = store.clone();
    let summary = tokio::task::spawn_blocking(move || store.usage_summary(None)).await;
    match summary {
        Ok(Ok(rows)) => rows
            .into_iter()
            .map(|r| {
                let stats = ModelStats {
                    calls: r.calls,
                    avg_latency_ms: r.avg_latency_ms,
                };
                (format!("{}/{}", r.provider, r.model), stats)
            })
            .collect(),
        Ok(Err(e)) => {
            tracing::warn!(error = %e, "cannot read usage for load balancing");
            HashMap::new()
        }
        Err(e) => {
            tracing::warn!(error = %e, "usage read failed");
            HashMap::new()
        }
    }
}
