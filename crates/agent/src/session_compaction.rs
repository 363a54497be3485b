//! Manual compaction of a whole session, outside any turn (`session.compact`,
//! `serve`'s `compact`, `seekclaw sessions compact`): one summary request over
//! the conversation as the model sees it, appended as a summary covering the
//! whole log. Events are never rewritten; the next turn starts from the summary.

use seekclaw_store::{EventItem, SessionEvent, Summary};
use tokio_util::sync::CancellationToken;

use crate::events::{FailureKind, TurnFailure};
use crate::turn::TurnRuntime;

/// A summary appended over a session's log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Compacted {
    /// First event covered.
    pub from_seq: u64,
    /// Last event covered.
    pub to_seq: u64,
    /// The summary event's own seq.
    pub seq: u64,
    /// The summary text.
    pub summary: String,
}

/// The range a compaction of `events` would cover; `None` when there is
/// nothing to summarize.
pub fn compaction_range(events: &[SessionEvent]) -> Option<(u64, u64)> {
    Some((events.first()?.seq, events.last()?.seq))
}

/// Summarizes `events` (the session's whole log, read by the caller, who
/// holds the session so no turn appends meanwhile) and appends the summary.
/// The request's usage is recorded against the session.
pub async fn compact_session(
    rt: &TurnRuntime,
    scope: &str,
    session_id: &str,
    events: &[SessionEvent],
    cancel: &CancellationToken,
) -> Result<Compacted, TurnFailure> {
    let (from_seq, to_seq) = compaction_range(events).ok_or_else(|| {
        TurnFailure::new(
            FailureKind::Internal,
            "The session has nothing to compact yet",
        )
    })?;
    let messages: Vec<_> = crate::history::conversation(events)
        .into_iter()
        .map(|(_, m)| m)
        .collect();
    let request = crate::context::summary_request(&messages, 0);
    let mut collector = crate::UsageOnly::default();
    let answer = rt
        .providers
        .chat(
            &rt.config,
            &rt.route_input(),
            &request,
            &mut collector,
            cancel,
        )
        .await;
    let records: Vec<_> = collector
        .records
        .iter()
        .map(|r| crate::usage_record(r, Some(session_id)))
        .collect();
    let store = rt.store.clone();
    let (scope, id) = (scope.to_string(), session_id.to_string());
    let summary = match answer {
        Ok(c) if !c.text.trim().is_empty() => Ok(c.text),
        Ok(_) => Err(TurnFailure::new(
            FailureKind::Provider,
            "The model returned an empty summary",
        )),
        Err(e) => Err(TurnFailure::from_provider(&e)),
    };
    let item = summary.as_ref().ok().map(|text| {
        EventItem::Summary(Summary {
            text: text.clone(),
            from_seq,
            to_seq,
        })
    });
    // The request counts for the session whether or not a summary came of
    // it, in one transaction with the summary.
    let spend = seekclaw_store::Spend {
        records,
        llm_rounds: 0,
        execution_steps: 0,
    };
    let seq = tokio::task::spawn_blocking(move || {
        let items: Vec<EventItem> = item.into_iter().collect();
        store
            .append_spending(&scope, &id, None, &items, &spend)
            .map(|seqs| seqs.first().copied())
    })
    .await
    .map_err(|e| TurnFailure::new(FailureKind::Internal, e.to_string()))?
    .map_err(|e| TurnFailure::storage(format!("Cannot record the summary: {e}")))?;
    let summary = summary?;
    Ok(Compacted {
        from_seq,
        to_seq,
        seq: seq.unwrap_or_default(),
        summary,
    })
}
