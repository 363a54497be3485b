//! A model step's view of the provider stream: events relayed to the turn's
//! listener, and what was streamed kept for the step's log entry.

use seekclaw_providers::Observer;
use seekclaw_providers::types::StreamEvent;
use seekclaw_providers::usage::AttemptRecord;
use seekclaw_store::{AssistantMessage, EventItem};
use tokio::sync::mpsc::UnboundedSender;

use crate::events::{AgentEvent, TurnStatus};

/// Relays provider events to the turn's listener and keeps the step's text.
pub(crate) struct StepObserver<'a> {
    pub(crate) events: &'a UnboundedSender<AgentEvent>,
    pub(crate) step: u32,
    /// What the answering model streamed so far (kept when the step is cut short).
    pub(crate) text: String,
    pub(crate) thinking: String,
    pub(crate) model_ref: Option<String>,
    pub(crate) records: Vec<AttemptRecord>,
    pub(crate) rounds: u64,
}

impl StepObserver<'_> {
    /// What was streamed before a cancel or a failure, as the step's
    /// assistant entry (the client has shown it); `None` if nothing was.
    pub(crate) fn partial_answer(&self) -> Option<EventItem> {
        (!self.text.is_empty() || !self.thinking.is_empty()).then(|| {
            EventItem::Assistant(AssistantMessage {
                text: self.text.clone(),
                thinking: Some(self.thinking.clone()).filter(|t| !t.is_empty()),
                model_ref: self.model_ref.clone(),
                ..AssistantMessage::default()
            })
        })
    }
}

impl Observer for StepObserver<'_> {
    fn model_start(&mut self, provider: &str, model: &str) {
        self.rounds += 1;
        self.text.clear();
        self.thinking.clear();
        self.model_ref = Some(format!("{provider}/{model}"));
        let _ = self.events.send(AgentEvent::ModelStart {
            provider: provider.into(),
            model: model.into(),
            step: self.step,
        });
    }

    fn event(&mut self, ev: &StreamEvent) {
        match ev {
            StreamEvent::ReasoningDelta(d) => {
                self.thinking.push_str(d);
                let _ = self.events.send(AgentEvent::Thinking(d.clone()));
            }
            StreamEvent::TextDelta(d) => {
                self.text.push_str(d);
                let _ = self.events.send(AgentEvent::Delta(d.clone()));
            }
            // Once per call, whether or not text came first (as the original).
            StreamEvent::ToolCallStart { .. } => {
                let _ = self
                    .events
                    .send(AgentEvent::Status(TurnStatus::PreparingToolCall));
            }
            _ => {}
        }
    }

    fn attempt(&mut self, r: &AttemptRecord) {
        let _ = self.events.send(AgentEvent::Usage {
            provider: r.provider.clone(),
            model: r.model.clone(),
            input_tokens: r.usage.total_input_tokens,
            output_tokens: r.usage.output_tokens,
            total_input_tokens: r.usage.total_input_tokens,
            cached_input_tokens: r.usage.cached_input_tokens,
            elapsed_ms: r.elapsed_ms,
            success: r.success,
        });
        self.records.push(r.clone());
    }
}
