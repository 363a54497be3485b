//! A turn's conversation as the model sees it, each message with the log event
//! it stands for, and the turn's opening write (its user message) until that
//! write has returned its seq.

use std::ops::Range;

use seekclaw_providers::types::{ChatMessage, ImageData};
use seekclaw_store::SessionEvent;

use crate::context::{self, CompactionPlan};
use crate::events::TurnFailure;
use crate::history;
use crate::opening::OpeningWrite;
use crate::turn::UserImage;

/// Where in the log a message comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Seq {
    /// The event with this seq.
    Logged(u64),
    /// This turn's user message, whose opening write has not returned yet.
    Opening,
    /// No event of its own (a result made up to repair a call left unanswered).
    Synthetic,
}

/// The messages of a turn and their log seqs, kept in step: every change to
/// the messages (push, repair, compaction) goes through here.
pub(crate) struct Transcript {
    messages: Vec<ChatMessage>,
    seqs: Vec<Seq>,
    opening: OpeningWrite,
}

impl Transcript {
    /// The conversation before the turn, then the turn's message (its images
    /// are sent now), whose seq comes with `opening`.
    pub(crate) fn open(
        past: &[SessionEvent],
        message: &str,
        images: &[UserImage],
        opening: OpeningWrite,
    ) -> Transcript {
        let (mut seqs, mut messages): (Vec<Seq>, Vec<ChatMessage>) = history::conversation(past)
            .into_iter()
            .map(|(seq, m)| (Seq::Logged(seq), m))
            .unzip();
        messages.push(user_message(message.to_string(), images));
        seqs.push(Seq::Opening);
        Transcript {
            messages,
            seqs,
            opening,
        }
    }

    /// A transcript whose opening failed before anything was read.
    pub(crate) fn unopened(opening: OpeningWrite) -> Transcript {
        Transcript {
            messages: Vec::new(),
            seqs: Vec::new(),
            opening,
        }
    }

    pub(crate) fn messages(&self) -> &[ChatMessage] {
        &self.messages
    }

    /// Appends a message recorded in the log as `seq`.
    pub(crate) fn push(&mut self, message: ChatMessage, seq: u64) {
        self.messages.push(message);
        self.seqs.push(Seq::Logged(seq));
    }

    /// Waits for the opening write: whatever the turn writes to the log goes
    /// after it. Cheap once it has returned.
    pub(crate) async fn settle(&mut self) -> Result<(), TurnFailure> {
        let seq = self.opening.settle().await?;
        for s in self.seqs.iter_mut().filter(|s| **s == Seq::Opening) {
            *s = Seq::Logged(seq);
        }
        Ok(())
    }

    /// Whether the opening write committed (the turn is in the log).
    pub(crate) async fn opened(&mut self) -> Result<u64, TurnFailure> {
        self.opening.settle().await
    }

    /// Makes every tool call answered and every result called for, as the
    /// APIs require, keeping each message's seq.
    pub(crate) fn repair(&mut self) {
        let origin = context::repair_pairs_with_origin(&mut self.messages);
        self.seqs = origin
            .iter()
            .map(|o| match o.and_then(|i| self.seqs.get(i).copied()) {
                Some(seq) => seq,
                None => Seq::Synthetic,
            })
            .collect();
    }

    /// The first and last seq of the events behind `range` (settled first).
    pub(crate) fn covered(&self, range: Range<usize>) -> Option<(u64, u64)> {
        let covered = self.seqs.get(range)?.iter().filter_map(|s| match s {
            Seq::Logged(seq) => Some(*seq),
            Seq::Opening | Seq::Synthetic => None,
        });
        covered.fold(None, |acc, seq| match acc {
            None => Some((seq, seq)),
            Some((lo, hi)) => Some((lo.min(seq), hi.max(seq))),
        })
    }

    /// Replaces the older messages of `plan` with `summary`, which the log
    /// holds as event `seq`; the tail keeps its own seqs.
    pub(crate) fn compact(&mut self, plan: &CompactionPlan, summary: &str, seq: u64) {
        self.messages = context::apply_compaction(&self.messages, plan, summary);
        let mut seqs = vec![Seq::Logged(seq)];
        seqs.extend(self.seqs.drain(plan.keep_from..));
        self.seqs = seqs;
    }
}

/// A user message (or guidance) with its images for the model.
pub(crate) fn user_message(text: String, images: &[UserImage]) -> ChatMessage {
    ChatMessage::User {
        text,
        images: images
            .iter()
            .map(|i| ImageData {
                media_type: i.media_type.clone(),
                data_base64: i.data.clone(),
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn user(text: &str) -> ChatMessage {
        ChatMessage::User {
            text: text.into(),
            images: Vec::new(),
        }
    }

    #[tokio::test]
    async fn the_opening_seq_is_filled_in_when_settled() {
        let mut t = Transcript::open(&[], "hi", &[], OpeningWrite::done(Ok(7)));
        t.push(user("more"), 8);
        assert_eq!(
            t.covered(0..2),
            Some((8, 8)),
            "the opening is not known yet"
        );
        t.settle().await.unwrap();
        assert_eq!(t.covered(0..2), Some((7, 8)));
        assert_eq!(t.messages().len(), 2);
    }

    #[tokio::test]
    async fn a_failed_opening_fails_settle() {
        let mut t = Transcript::open(
            &[],
            "hi",
            &[],
            OpeningWrite::done(Err(TurnFailure::storage("full"))),
        );
        assert!(t.settle().await.is_err());
        assert!(t.opened().await.is_err());
    }
}
