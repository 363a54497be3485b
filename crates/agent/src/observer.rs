//! A model step's view of the provider stream: events relayed to the turn's
//! listener, and what was streamed kept for the step's log entry.

use std::time::Duration;

use seekclaw_providers::types::StreamEvent;
use seekclaw_providers::usage::AttemptRecord;
use seekclaw_providers::{Observer, ProviderError};
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
    /// Attempts allowed per model (for "retrying 2/3").
    pub(crate) max_attempts: u32,
    /// Retries of the current model so far.
    pub(crate) retries: u32,
    /// A model given up on: announced when the next one starts.
    pub(crate) failed: Option<(String, String)>,
}

impl StepObserver<'_> {
    /// What was streamed before a cancel or a failure, as the step's
    /// assistant entry (the client has shown it) with what its attempts
    /// used so far; `None` if nothing was.
    pub(crate) fn partial_answer(&self) -> Option<EventItem> {
        (!self.text.is_empty() || !self.thinking.is_empty()).then(|| {
            EventItem::Assistant(AssistantMessage {
                text: self.text.clone(),
                thinking: Some(self.thinking.clone()).filter(|t| !t.is_empty()),
                model_ref: self.model_ref.clone(),
                usage: Some(crate::step_usage(&self.records)),
                ..AssistantMessage::default()
            })
        })
    }
}

impl Observer for StepObserver<'_> {
    fn model_start(&mut self, provider: &str, model: &str) {
        self.rounds += 1;
        self.retries = 0;
        self.text.clear();
        self.thinking.clear();
        let to = format!("{provider}/{model}");
        if let Some((failed, error)) = self.failed.take() {
            let _ = self.events.send(AgentEvent::Failover {
                step: self.step,
                failed,
                error,
                to: to.clone(),
            });
        }
        self.model_ref = Some(to);
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

    fn retry(&mut self, model_ref: &str, error: &ProviderError, delay: Duration) {
        self.retries += 1;
        let _ = self.events.send(AgentEvent::Retry {
            step: self.step,
            model: model_ref.to_string(),
            attempt: self.retries + 1,
            max_attempts: self.max_attempts,
            reason: error.brief(),
            error: error.to_string(),
            delay_ms: u64::try_from(delay.as_millis()).unwrap_or(u64::MAX),
        });
    }

    fn failover(&mut self, model_ref: &str, error: &ProviderError) {
        self.failed = Some((model_ref.to_string(), error.to_string()));
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
            cost_usd: r.priced.then_some(r.cost),
        });
        self.records.push(r.clone());
    }
}
