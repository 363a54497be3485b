//! Context compaction inside a turn: summarize the older part of the history with
//! a side request and append a summary event covering that range of the log.

use seekclaw_store::{EventItem, Summary};

use crate::context;
use crate::events::{AgentEvent, AutoCompaction, TurnFailure, TurnStatus, WorkflowNode};
use crate::transcript::Transcript;
use crate::turn::{Counters, TurnCtx};

/// Summarizes the older part of the history with a separate request and appends a
/// summary covering that range of the log (events are never rewritten). A failure
/// of the side request only warns (fitting then trims instead); a summary that
/// cannot be written fails the turn. The transcript is settled. Returns the
/// range of log events the appended summary covers (`None`: none appended).
pub(crate) async fn compact(
    cx: &TurnCtx<'_>,
    step: u32,
    transcript: &mut Transcript,
    plan: context::CompactionPlan,
    counters: &mut Counters,
) -> Result<Option<(u64, u64)>, TurnFailure> {
    let rt = cx.rt;
    crate::turn_hooks::pre_compact(cx, "auto").await;
    cx.emit(AgentEvent::Status(TurnStatus::CompactingContext));
    cx.emit(AgentEvent::Workflow {
        step,
        node: WorkflowNode::Compact,
        detail: String::new(),
    });
    let range = transcript.covered(plan.summarize.clone());
    if let Some((from_seq, to_seq)) = range {
        cx.emit(AgentEvent::AutoCompaction(AutoCompaction::Started {
            from_seq,
            to_seq,
        }));
    }
    let failed = |error: String| {
        cx.emit(AgentEvent::AutoCompaction(AutoCompaction::Failed { error }));
    };
    let older = &transcript.messages()[plan.summarize.clone()];
    let request = context::summary_request(older, 4096);
    let route = rt.route_input();
    let mut collector = crate::UsageOnly::default();
    let summary = rt
        .providers
        .chat(&rt.config, &route, &request, &mut collector, cx.cancel)
        .await;
    // Written with the summary, or (no summary) with the turn's next write.
    counters.unwritten.extend(
        collector
            .records
            .iter()
            .map(|r| crate::usage_record(r, Some(&cx.input.session_id))),
    );
    let text = match summary {
        Ok(c) if !c.text.trim().is_empty() => c.text,
        Ok(_) => {
            tracing::warn!("compaction returned an empty summary; trimming instead");
            failed("the model returned an empty summary".into());
            return Ok(None);
        }
        Err(e) => {
            tracing::warn!(error = %e, "compaction failed; trimming instead");
            failed(e.to_string());
            return Ok(None);
        }
    };
    let Some((from_seq, to_seq)) = range else {
        return Ok(None);
    };
    let item = EventItem::Summary(Summary {
        text: text.clone(),
        from_seq,
        to_seq,
    });
    let seq = cx.persist_spending(item, counters).await?;
    // The summary message stands at the summary event's seq.
    transcript.compact(&plan, &text, seq);
    cx.emit(AgentEvent::Status(TurnStatus::ContextCompacted));
    cx.emit(AgentEvent::AutoCompaction(AutoCompaction::Finished {
        from_seq,
        to_seq,
        summary: text,
    }));
    Ok(Some((from_seq, to_seq)))
}
