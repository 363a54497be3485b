//! Per-model circuit breaker, one instance shared by the whole daemon: after
//! `circuitBreakThreshold` consecutive failures a model is skipped for
//! `circuitCooldownSeconds`; then one probe request decides (half-open).

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use tokio::time::Instant;

/// Where a model's circuit stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BreakerState {
    /// Requests go through.
    Closed,
    /// Requests are refused until the cooldown ends.
    Open,
    /// Cooldown over: the next request is a probe.
    HalfOpen,
}

/// When a model's circuit opens and for how long.
#[derive(Debug, Clone, Copy)]
pub struct BreakerSettings {
    /// Consecutive failures that open the circuit (at least 1).
    pub threshold: u32,
    /// How long an open circuit refuses requests.
    pub cooldown: Duration,
}

impl BreakerSettings {
    /// The settings of `routing.retry` (`circuitBreakThreshold`, `circuitCooldownSeconds`).
    pub fn from_retry(retry: &seekclaw_config::Retry) -> Self {
        BreakerSettings {
            threshold: retry.circuit_break_threshold.max(1),
            cooldown: Duration::from_secs_f64(retry.circuit_cooldown_seconds.clamp(0.0, 86_400.0)),
        }
    }
}

#[derive(Debug, Default)]
struct Entry {
    failures: u32,
    opened_at: Option<Instant>,
    probe_in_flight: bool,
}

/// Failure counts and open circuits of every model, keyed by `provider/model`.
#[derive(Debug, Default)]
pub struct Breaker {
    models: Mutex<HashMap<String, Entry>>,
}

impl Breaker {
    /// A breaker with every circuit closed.
    pub fn new() -> Self {
        Self::default()
    }

    /// The per-model entries. A panic elsewhere while this lock was held is
    /// recovered from: every section below leaves each entry whole, so the map
    /// stays valid and the breaker keeps counting.
    fn models(&self) -> MutexGuard<'_, HashMap<String, Entry>> {
        self.models.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn state_of(entry: &Entry, s: BreakerSettings, now: Instant) -> BreakerState {
        match entry.opened_at {
            None => BreakerState::Closed,
            Some(at) if now.duration_since(at) < s.cooldown => BreakerState::Open,
            Some(_) => BreakerState::HalfOpen,
        }
    }

    /// The state of `model_ref`'s circuit now.
    pub fn state(&self, model_ref: &str, s: BreakerSettings) -> BreakerState {
        self.models()
            .get(model_ref)
            .map(|e| Self::state_of(e, s, Instant::now()))
            .unwrap_or(BreakerState::Closed)
    }

    /// May a request go to this model now? In half-open state only one probe
    /// is let through at a time.
    pub fn try_acquire(&self, model_ref: &str, s: BreakerSettings) -> bool {
        let mut models = self.models();
        let Some(entry) = models.get_mut(model_ref) else {
            return true;
        };
        match Self::state_of(entry, s, Instant::now()) {
            BreakerState::Closed => true,
            BreakerState::Open => false,
            BreakerState::HalfOpen if entry.probe_in_flight => false,
            BreakerState::HalfOpen => {
                entry.probe_in_flight = true;
                true
            }
        }
    }

    /// A request to `model_ref` succeeded: its circuit closes and its count resets.
    pub fn record_success(&self, model_ref: &str) {
        self.models().remove(model_ref);
    }

    /// Gives back a half-open probe slot that ended without a verdict (the request
    /// was cancelled or dropped); otherwise the model would be skipped for good.
    pub fn release_probe(&self, model_ref: &str) {
        if let Some(entry) = self.models().get_mut(model_ref) {
            entry.probe_in_flight = false;
        }
    }

    /// A request to `model_ref` failed: counts it, and opens the circuit at the threshold or when it was the probe.
    pub fn record_failure(&self, model_ref: &str, s: BreakerSettings) {
        let mut models = self.models();
        let entry = models.entry(model_ref.to_string()).or_default();
        entry.failures = entry.failures.saturating_add(1);
        let now = Instant::now();
        let was_probe = entry.probe_in_flight;
        entry.probe_in_flight = false;
        // A failed probe re-opens at once; otherwise open at the threshold.
        if was_probe || entry.failures >= s.threshold {
            entry.opened_at = Some(now);
        }
    }
}

/// Held while a request may be a model's half-open probe: dropped before
/// [`ProbeSlot::settled`] (cancellation, a dropped future, an unusable request), it
/// releases the slot.
pub(crate) struct ProbeSlot<'a> {
    breaker: &'a Breaker,
    model_ref: String,
    armed: bool,
}

impl<'a> ProbeSlot<'a> {
    pub(crate) fn new(breaker: &'a Breaker, model_ref: &str, armed: bool) -> Self {
        ProbeSlot {
            breaker,
            model_ref: model_ref.to_string(),
            armed,
        }
    }

    /// A success or failure is about to be recorded, which settles the probe.
    pub(crate) fn settled(&mut self) {
        self.armed = false;
    }
}

impl Drop for ProbeSlot<'_> {
    fn drop(&mut self) {
        if self.armed {
            self.breaker.release_probe(&self.model_ref);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: BreakerSettings = BreakerSettings {
        threshold: 3,
        cooldown: Duration::from_secs(60),
    };

    #[tokio::test(start_paused = true)]
    async fn opens_cools_down_probes_and_recovers() {
        let b = Breaker::new();
        for _ in 0..2 {
            b.record_failure("p/m", S);
            assert_eq!(b.state("p/m", S), BreakerState::Closed);
        }
        b.record_failure("p/m", S);
        assert_eq!(b.state("p/m", S), BreakerState::Open);
        assert!(!b.try_acquire("p/m", S));
        assert!(b.try_acquire("p/other", S), "per model");

        tokio::time::advance(Duration::from_secs(61)).await;
        assert_eq!(b.state("p/m", S), BreakerState::HalfOpen);
        assert!(b.try_acquire("p/m", S), "one probe");
        assert!(!b.try_acquire("p/m", S), "only one probe at a time");
        b.record_failure("p/m", S);
        assert_eq!(
            b.state("p/m", S),
            BreakerState::Open,
            "a failed probe re-opens"
        );

        tokio::time::advance(Duration::from_secs(61)).await;
        assert!(b.try_acquire("p/m", S));
        b.record_success("p/m");
        assert_eq!(b.state("p/m", S), BreakerState::Closed);
        assert!(b.try_acquire("p/m", S));
    }

    #[tokio::test(start_paused = true)]
    async fn an_unsettled_probe_gives_its_slot_back() {
        let b = Breaker::new();
        for _ in 0..3 {
            b.record_failure("p/m", S);
        }
        tokio::time::advance(Duration::from_secs(61)).await;
        assert!(b.try_acquire("p/m", S));
        drop(ProbeSlot::new(&b, "p/m", true));
        assert!(b.try_acquire("p/m", S), "released: another probe may go");
        let mut slot = ProbeSlot::new(&b, "p/m", true);
        slot.settled();
        b.record_failure("p/m", S);
        drop(slot);
        assert_eq!(b.state("p/m", S), BreakerState::Open);
        assert!(!b.try_acquire("p/m", S));
    }

    #[test]
    fn success_resets_the_count() {
        let b = Breaker::new();
        b.record_failure("a", S);
        b.record_failure("a", S);
        b.record_success("a");
        b.record_failure("a", S);
        b.record_failure("a", S);
        assert_eq!(b.state("a", S), BreakerState::Closed);
    }
}
