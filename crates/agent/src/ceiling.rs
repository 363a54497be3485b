//! Turns bounded by the model's context window (reference §4.3–4.5): the
//! window is accounted from provider usage (the last response's prompt and
//! output tokens, plus estimates of the tool results recorded since). At the
//! soft ceiling the turn finishes its batch and yields; at the hard ceiling
//! no tool batch starts (its calls are closed with synthetic results, so the
//! log stays API-valid). Yielding appends a summary over the log (events are
//! never rewritten) and ends the turn with a `[context ceiling]` answer the
//! next turn continues from.

use seekclaw_providers::ToolCall;
use seekclaw_providers::usage::AttemptRecord;

use crate::context::{self, CompactionPlan};
use crate::events::{AgentEvent, TurnFailure, TurnOutcome};
use crate::transcript::Transcript;
use crate::turn::{Counters, TurnCtx};

/// Share of the window at which the turn ends after its current batch.
const SOFT_PERCENT: u64 = 70;
/// Share of the window at which no tool batch starts.
const HARD_PERCENT: u64 = 80;
/// Room kept free for the checkpoint's own request (reference §4.3).
const CHECKPOINT_RESERVE_TOKENS: u64 = 16_384;

/// The answer of a turn that yielded at the ceiling after a checkpoint.
pub const CEILING_ANSWER: &str = "[context ceiling] This turn reached the model's context window and was checkpointed. The work is not necessarily complete — continue it in a new turn, which starts from the checkpoint summary.";
/// The answer when the checkpoint's summary could not be made.
pub const CEILING_ANSWER_UNCHECKPOINTED: &str = "[context ceiling] This turn reached the model's context window; the checkpoint attempt failed, so the next turn starts from the trimmed history. The work is not necessarily complete — continue it in a new turn.";
/// The result given to a call that did not run because the turn yields.
pub const SKIPPED: &str = "skipped: the turn is yielding at the context ceiling; re-issue after the checkpoint if still needed";

/// Where the turn stands against its window.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Level {
    Below,
    Soft,
    Hard,
}

/// The window's accounting for one turn.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Window {
    /// The model's window in tokens (0: unknown, never a ceiling).
    pub size: u64,
    /// The next prompt's size as far as known.
    pub used: u64,
}

impl Window {
    /// A response came: its prompt and output are the conversation's size.
    pub fn after_response(&mut self, records: &[AttemptRecord]) {
        if let Some(r) = records.iter().rev().find(|r| r.success) {
            self.used = r.usage.total_input_tokens + r.usage.output_tokens;
        }
    }

    /// A tool result was recorded.
    pub fn add_result(&mut self, content: &str) {
        self.used += context::estimate_text(content);
    }

    /// Whether `calls` more results of at most `max_result` tokens each,
    /// and then a checkpoint, still fit (the running batch budget).
    pub fn fits(&self, calls: usize, max_result: u64) -> bool {
        // A small window keeps a tenth for the checkpoint instead.
        let reserve = CHECKPOINT_RESERVE_TOKENS.min(self.size / 10);
        self.size == 0 || self.used + calls as u64 * max_result + reserve < self.size
    }

    pub fn level(&self) -> Level {
        if self.size == 0 {
            Level::Below
        } else if self.used * 100 >= self.size * HARD_PERCENT {
            Level::Hard
        } else if self.used * 100 >= self.size * SOFT_PERCENT {
            Level::Soft
        } else {
            Level::Below
        }
    }
}

/// Closes `calls` unrun, each with the synthetic [`SKIPPED`] result (logged,
/// and reported as a failed call so front ends pair every start).
pub(crate) async fn skip_close(
    cx: &TurnCtx<'_>,
    transcript: &mut Transcript,
    calls: &[ToolCall],
) -> Result<(), TurnFailure> {
    for call in calls {
        crate::control::record(cx, transcript, call, SKIPPED, false, true).await?;
    }
    Ok(())
}

/// Appends a summary over the whole conversation so far (the turn's next
/// request, or the next turn, starts from it); the range it covers, `None`
/// when no summary was made.
pub(crate) async fn checkpoint(
    cx: &TurnCtx<'_>,
    step: u32,
    transcript: &mut Transcript,
    counters: &mut Counters,
) -> Result<Option<(u64, u64)>, TurnFailure> {
    transcript.settle().await?;
    transcript.repair();
    let all = transcript.messages().len();
    let plan = CompactionPlan {
        summarize: 0..all,
        keep_from: all,
    };
    crate::compaction::compact(cx, step, transcript, plan, counters).await
}

/// Checkpoints the whole conversation (a summary appended over its range)
/// and ends the turn with the ceiling answer. Guidance still queued stays
/// queued: the turn's close records it after the summary, so the next turn
/// reads it verbatim.
pub(crate) async fn yield_at_ceiling(
    cx: &TurnCtx<'_>,
    step: u32,
    transcript: &mut Transcript,
    counters: &mut Counters,
) -> Result<TurnOutcome, TurnFailure> {
    let covered = checkpoint(cx, step, transcript, counters).await?;
    // A cancel during the checkpoint ends the turn as cancelled, not yielded.
    if cx.cancel.is_cancelled() {
        return Ok(TurnOutcome::Cancelled(String::new()));
    }
    let (to_seq, answer) = match covered {
        Some((_, to_seq)) => (to_seq, CEILING_ANSWER),
        None => (0, CEILING_ANSWER_UNCHECKPOINTED),
    };
    cx.emit(AgentEvent::ContextYield {
        to_seq,
        answer: answer.to_string(),
    });
    // The ceiling answer is the terminal's text only: the model never reads
    // it as its own answer.
    counters.final_answer = None;
    counters.done_at_step = Some(step);
    Ok(TurnOutcome::Done(answer.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_batch_budget_keeps_room_for_results_and_the_checkpoint() {
        let w = Window {
            size: 100_000,
            used: 50_000,
        };
        assert!(w.fits(2, 10_000));
        assert!(!w.fits(4, 10_000), "50k + 40k + reserve is past the window");
        assert!(Window::default().fits(1000, 1_000_000), "unknown window");
        let small = Window {
            size: 8_000,
            used: 1_000,
        };
        assert!(
            small.fits(1, 1_000),
            "a small window keeps a smaller reserve"
        );
    }

    #[test]
    fn levels_follow_the_window_share() {
        let mut w = Window {
            size: 1000,
            used: 0,
        };
        assert_eq!(w.level(), Level::Below);
        w.used = 699;
        assert_eq!(w.level(), Level::Below);
        w.used = 700;
        assert_eq!(w.level(), Level::Soft);
        w.used = 800;
        assert_eq!(w.level(), Level::Hard);
        w.size = 0;
        assert_eq!(w.level(), Level::Below, "an unknown window is no ceiling");
    }
}
