//! Streams one model request through the candidate chain: retries with jittered
//! exponential backoff (honouring `Retry-After`), the shared circuit breaker, and
//! failover — never after the first event has been yielded.

use std::time::Duration;

use seekclaw_config::{Config, Retry};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::breaker::{Breaker, BreakerSettings, BreakerState, ProbeSlot};
use crate::error::ProviderError;
use crate::reasoning::{Target, is_deepseek};
use crate::routing::{RouteInput, route as plan};
use crate::transport::{Encoded, HttpPool, Timeouts, encode_body, run_attempt};
use crate::types::{ChatRequest, FinishReason, StreamEvent, Thinking, TokenUsage, ToolCall};
use crate::usage::{AttemptRecord, cost};
use crate::wire::build_request;

/// What the caller sees while a request runs.
pub trait Observer: Send {
    /// A candidate starts answering (again after a failover).
    fn model_start(&mut self, _provider: &str, _model: &str) {}
    /// A stream event, as soon as it is decoded.
    fn event(&mut self, _event: &StreamEvent) {}
    /// One attempt ended, successfully or not.
    fn attempt(&mut self, _record: &AttemptRecord) {}
    /// A retry is about to wait `delay`.
    fn retry(&mut self, _model_ref: &str, _error: &ProviderError, _delay: Duration) {}
    /// A candidate was given up on and the next one will be tried.
    fn failover(&mut self, _model_ref: &str, _error: &ProviderError) {}
}

/// An observer that ignores everything.
pub struct NoObserver;
impl Observer for NoObserver {}

/// The assembled answer of a successful request.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Completion {
    /// Provider id that answered.
    pub provider: String,
    /// Model id that answered.
    pub model: String,
    /// The answer text.
    pub text: String,
    /// The model's reasoning, if it returned any.
    pub thinking: Option<Thinking>,
    /// Tool calls the model asked for, in order.
    pub tool_calls: Vec<ToolCall>,
    /// Why the model stopped, if the stream said.
    pub finish: Option<FinishReason>,
    /// Tokens the answering attempt used.
    pub usage: TokenUsage,
}

impl Completion {
    /// `provider/model` of the model that answered.
    pub fn model_ref(&self) -> String {
        format!("{}/{}", self.provider, self.model)
    }
}

#[derive(Default)]
struct Accumulator {
    completion: Completion,
    thinking: String,
    signature: Option<String>,
    yielded: bool,
}

impl Accumulator {
    fn push(&mut self, ev: &StreamEvent) {
        self.yielded = true;
        let c = &mut self.completion;
        match ev {
            StreamEvent::ReasoningDelta(d) => self.thinking.push_str(d),
            StreamEvent::ReasoningSignature(s) => self.signature = Some(s.clone()),
            StreamEvent::TextDelta(d) => c.text.push_str(d),
            StreamEvent::ToolCallComplete { call, .. } => c.tool_calls.push(call.clone()),
            StreamEvent::Usage(u) => c.usage = *u,
            StreamEvent::Finish(f) => c.finish = Some(f.clone()),
            StreamEvent::ToolCallStart { .. } | StreamEvent::ToolCallArgsDelta { .. } => {}
        }
    }

    fn finish(mut self, provider: &str, model: &str) -> Completion {
        self.completion.provider = provider.to_string();
        self.completion.model = model.to_string();
        if !self.thinking.is_empty() || self.signature.is_some() {
            self.completion.thinking = Some(Thinking {
                text: self.thinking,
                signature: self.signature,
            });
        }
        self.completion
    }
}

/// Delay before retry `attempt` (1-based): base × 2^(attempt−1) × jitter, capped;
/// a server's `Retry-After` wins (also capped, generously).
pub fn backoff_delay(
    attempt: u32,
    retry: &Retry,
    retry_after: Option<Duration>,
    jitter: f64,
) -> Duration {
    let cap = retry.max_delay_seconds.clamp(0.0, 600.0);
    if let Some(ra) = retry_after {
        return ra.min(Duration::from_secs_f64(cap.max(1.0) * 3.0));
    }
    let exp = 2f64.powi(attempt.saturating_sub(1).min(30) as i32);
    let secs = (retry.base_delay_seconds.max(0.0) * exp * jitter).min(cap);
    Duration::from_secs_f64(secs.max(0.0))
}

/// Daemon-wide provider access: the HTTP pool and the circuit breaker.
#[derive(Default)]
pub struct Providers {
    /// Pooled HTTP clients and connections.
    pub pool: HttpPool,
    /// Circuit breaker of every model.
    pub breaker: Breaker,
}

impl Providers {
    /// A fresh pool and breaker.
    pub fn new() -> Self {
        Self::default()
    }

    /// Runs `req` on the first candidate that answers. Events reach `observer`
    /// as they arrive; the assembled answer is returned.
    pub async fn chat(
        &self,
        config: &Config,
        route: &RouteInput<'_>,
        req: &ChatRequest,
        observer: &mut dyn Observer,
        cancel: &CancellationToken,
    ) -> Result<Completion, ProviderError> {
        let retry = &config.routing.retry;
        let settings = BreakerSettings::from_retry(retry);
        let planned = plan(config, route, |r| {
            self.breaker.state(r, settings) == BreakerState::Open
        })?;
        let chain = planned.chain;
        // The preferred model's open circuit moves the request on before it
        // starts: said like any other failover (it may be another provider).
        if let Some(skipped) = planned.skipped_first {
            let open = ProviderError::Config("circuit open after repeated failures".into());
            observer.failover(&skipped.model_ref(config), &open);
        }
        let single = chain.len() == 1;
        let max_attempts = retry.max_attempts.clamp(1, 10);
        let mut failures: Vec<(String, ProviderError)> = Vec::new();
        for (position, handle) in chain.iter().enumerate() {
            let target = Target {
                provider: handle.provider(config),
                model: handle.model(config),
            };
            let model_ref = handle.model_ref(config);
            if !single && !self.breaker.try_acquire(&model_ref, settings) {
                let open = ProviderError::Config("circuit open after repeated failures".into());
                observer.failover(&model_ref, &open);
                failures.push((model_ref, open));
                continue;
            }
            let mut probe = ProbeSlot::new(&self.breaker, &model_ref, !single);
            let built = build_request(&target, req)
                .and_then(|w| encode_body(&target.provider.id, &w).map(|body| (w, body)));
            let (wire, body) = match built {
                Ok(w) => w,
                Err(e) if position == 0 => return Err(e),
                Err(e) => {
                    observer.failover(&model_ref, &e);
                    failures.push((model_ref, e));
                    continue;
                }
            };
            let optimized = config.routing.deep_seek_optimization_enabled && is_deepseek(&target);
            let timeouts = Timeouts::for_provider(target.provider, optimized);
            observer.model_start(&target.provider.id, &target.model.id);
            let mut attempt = 1;
            let failure = loop {
                if cancel.is_cancelled() {
                    return Err(ProviderError::Cancelled);
                }
                let started = Instant::now();
                let mut acc = Accumulator::default();
                let result = {
                    let mut on_event = |ev: StreamEvent| {
                        acc.push(&ev);
                        observer.event(&ev);
                    };
                    run_attempt(
                        &self.pool,
                        &target,
                        Encoded {
                            request: &wire,
                            body: &body,
                        },
                        timeouts,
                        cancel,
                        &mut on_event,
                    )
                    .await
                };
                let usage = acc.completion.usage;
                observer.attempt(&AttemptRecord {
                    provider: target.provider.id.clone(),
                    model: target.model.id.clone(),
                    usage,
                    cost: cost(target.model, &usage),
                    elapsed_ms: started.elapsed().as_secs_f64() * 1000.0,
                    success: result.is_ok(),
                    priced: target.model.input_price_per_mtok > 0.0
                        || target.model.output_price_per_mtok > 0.0,
                });
                if !matches!(result, Err(ProviderError::Cancelled)) {
                    probe.settled();
                }
                match result {
                    Ok(()) => {
                        self.breaker.record_success(&model_ref);
                        return Ok(acc.finish(&target.provider.id, &target.model.id));
                    }
                    Err(ProviderError::Cancelled) => return Err(ProviderError::Cancelled),
                    Err(e) => {
                        self.breaker.record_failure(&model_ref, settings);
                        // Once output reached the client, switching models would splice answers.
                        if acc.yielded {
                            return Err(e);
                        }
                        if e.is_retryable() && attempt < max_attempts {
                            let delay = backoff_delay(
                                attempt,
                                retry,
                                e.retry_after(),
                                0.75 + fastrand::f64() * 0.5,
                            );
                            observer.retry(&model_ref, &e, delay);
                            tokio::select! {
                                _ = cancel.cancelled() => return Err(ProviderError::Cancelled),
                                _ = tokio::time::sleep(delay) => {}
                            }
                            attempt += 1;
                            continue;
                        }
                        break e;
                    }
                }
            };
            // A plain configuration or auth problem on the preferred model is reported
            // as it is, not buried in a failover list.
            if position == 0 && !failure.is_retryable() {
                return Err(failure);
            }
            // Only a failure with a model left to try is a failover (a
            // pinned model has none).
            if position + 1 < chain.len() {
                tracing::warn!(model = %model_ref, error = %failure, "model failed; failing over to the next candidate");
            } else if single {
                tracing::warn!(model = %model_ref, error = %failure, "model failed (the only candidate: no failover)");
            } else {
                tracing::warn!(model = %model_ref, error = %failure, "model failed; no candidate left");
            }
            observer.failover(&model_ref, &failure);
            failures.push((model_ref, failure));
        }
        match failures.len() {
            0 => Err(ProviderError::Config("No models available".into())),
            1 => Err(failures.remove(0).1),
            _ => Err(ProviderError::AllFailed(failures)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_grows_caps_and_honours_retry_after() {
        let r = Retry::default();
        assert_eq!(backoff_delay(1, &r, None, 1.0), Duration::from_secs(1));
        assert_eq!(backoff_delay(2, &r, None, 1.0), Duration::from_secs(2));
        assert_eq!(backoff_delay(3, &r, None, 1.25), Duration::from_secs(5));
        assert_eq!(backoff_delay(10, &r, None, 1.0), Duration::from_secs(20));
        assert_eq!(
            backoff_delay(1, &r, Some(Duration::from_secs(7)), 1.0),
            Duration::from_secs(7)
        );
        assert_eq!(
            backoff_delay(1, &r, Some(Duration::from_secs(900)), 1.0),
            Duration::from_secs(60)
        );
    }

    #[test]
    fn accumulator_assembles_the_answer() {
        let mut acc = Accumulator::default();
        for ev in [
            StreamEvent::ReasoningDelta("think".into()),
            StreamEvent::ReasoningSignature("sig".into()),
            StreamEvent::TextDelta("he".into()),
            StreamEvent::TextDelta("llo".into()),
            StreamEvent::ToolCallComplete {
                index: 0,
                call: ToolCall {
                    id: "c1".into(),
                    name: "read_file".into(),
                    arguments: "{}".into(),
                },
            },
            StreamEvent::Usage(TokenUsage {
                total_input_tokens: 5,
                output_tokens: 2,
                ..TokenUsage::default()
            }),
            StreamEvent::Finish(FinishReason::ToolCalls),
        ] {
            acc.push(&ev);
        }
        let c = acc.finish("p", "m");
        assert_eq!(c.model_ref(), "p/m");
        assert_eq!(c.text, "hello");
        assert_eq!(
            c.thinking,
            Some(Thinking {
                text: "think".into(),
                signature: Some("sig".into())
            })
        );
        assert_eq!(c.tool_calls.len(), 1);
        assert_eq!(c.usage.output_tokens, 2);
        assert_eq!(c.finish, Some(FinishReason::ToolCalls));
    }
}
