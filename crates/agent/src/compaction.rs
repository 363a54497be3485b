//! Context compaction inside a turn: summarize the older part of the history with
//! a side request and append a summary event covering that range of the log.

use seekclaw_providers::types::ChatMessage;
use seekclaw_store::{EventItem, Summary};
use tokio::sync::mpsc::UnboundedSender;
use tokio_util::sync::CancellationToken;

use crate::context;
use crate::events::{AgentEvent, TurnFailure, TurnStatus, WorkflowNode};
use crate::turn::{Counters, TurnInput, TurnRuntime, persist};

/// Summarizes the older part of the history with a separate request and appends a
/// summary covering that range of the log (events are never rewritten). A failure
/// of the side request only warns (fitting then trims instead); a summary that
/// cannot be written fails the turn.
#[allow(clippy::too_many_arguments)]
pub(crate) async fn compact(
    rt: &TurnRuntime<'_>,
    input: &TurnInput,
    owner: &str,
    events: &UnboundedSender<AgentEvent>,
    cancel: &CancellationToken,
    step: u32,
    history: &mut Vec<ChatMessage>,
    seqs: &mut Vec<Option<u64>>,
    plan: context::CompactionPlan,
    counters: &mut Counters,
) -> Result<(), TurnFailure> {
    let _ = events.send(AgentEvent::Status(TurnStatus::CompactingContext));
    let _ = events.send(AgentEvent::Workflow {
        step,
        node: WorkflowNode::Compact,
        detail: String::new(),
    });
    let older = &history[plan.summarize.clone()];
    let request = context::summary_request(older, 4096);
    let route = rt.route_input();
    let mut collector = crate::UsageOnly::default();
    let summary = rt
        .providers
        .chat(&rt.config, &route, &request, &mut collector, cancel)
        .await;
    for r in &collector.records {
        counters
            .records
            .push(crate::usage_record(r, Some(&input.session_id)));
    }
    let text = match summary {
        Ok(c) if !c.text.trim().is_empty() => c.text,
        Ok(_) => {
            tracing::warn!("compaction returned an empty summary; trimming instead");
            return Ok(());
        }
        Err(e) => {
            tracing::warn!(error = %e, "compaction failed; trimming instead");
            return Ok(());
        }
    };
    let covered: Vec<u64> = seqs[plan.summarize.clone()]
        .iter()
        .flatten()
        .copied()
        .collect();
    let (Some(&from_seq), Some(&to_seq)) = (covered.iter().min(), covered.iter().max()) else {
        return Ok(());
    };
    let item = EventItem::Summary(Summary {
        text: text.clone(),
        from_seq,
        to_seq,
    });
    let seq = persist(&rt.store, &input.scope, &input.session_id, owner, item).await?;
    *history = context::apply_compaction(history, &plan, &text);
    // The summary message stands at the summary event's seq, the tail keeps its own.
    let mut new_seqs = vec![Some(seq)];
    new_seqs.extend(seqs.drain(plan.keep_from..));
    *seqs = new_seqs;
    let _ = events.send(AgentEvent::Status(TurnStatus::ContextCompacted));
    Ok(())
}
