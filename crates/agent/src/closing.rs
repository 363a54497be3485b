//! The end of a turn in the session log: the final answer, the terminal and the
//! counters in one transaction, with a fallback that still writes the log.

use seekclaw_store::{EventItem, Store, UsageDelta, UsageRecord};

/// Writes the turn's last items (final answer, terminal) and counters, and
/// clears its active mark. Should the single transaction fail, the items and
/// the mark are written on their own (the counters are then lost, and logged),
/// so an answer the client was told about is not dropped with them.
pub(crate) async fn close_turn(
    store: &Store,
    scope: &str,
    sid: &str,
    owner: &str,
    items: Vec<EventItem>,
    delta: UsageDelta,
    records: Vec<UsageRecord>,
) {
    let (store, scope, sid, owner) = (
        store.clone(),
        scope.to_string(),
        sid.to_string(),
        owner.to_string(),
    );
    let closed = crate::blocking::run_now(move || {
        let Err(e) = store.close_turn(&scope, &sid, &owner, &items, &delta, &records) else {
            return;
        };
        tracing::error!(error = %e, "cannot record the end of the turn; writing its log entries alone");
        if let Err(e) = store.append_events(&scope, &sid, Some(&owner), &items) {
            tracing::error!(error = %e, "cannot append the turn's terminal to the session log");
        }
        if let Err(e) = store.set_active_turn(&scope, &sid, None) {
            tracing::error!(error = %e, "cannot clear the session's active turn");
        }
        tracing::warn!(rounds = delta.llm_rounds, "the turn's usage counters were not recorded");
    })
    .await;
    if let Err(e) = closed {
        tracing::error!(error = %e, "session log task failed");
    }
}
