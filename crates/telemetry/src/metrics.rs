//! The instruments every turn feeds.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use opentelemetry::KeyValue;
use opentelemetry::metrics::{Counter, Histogram, Meter};

use crate::Shared;

/// Counters and histograms (names follow the OpenTelemetry GenAI
/// conventions where one exists, `seekclaw.*` otherwise).
pub(crate) struct Instruments {
    pub(crate) turns: Counter<u64>,
    pub(crate) turn_duration: Histogram<f64>,
    pub(crate) tokens: Counter<u64>,
    pub(crate) cost: Counter<f64>,
    pub(crate) model_requests: Counter<u64>,
    pub(crate) model_duration: Histogram<f64>,
    pub(crate) tool_calls: Counter<u64>,
    pub(crate) tool_duration: Histogram<f64>,
    pub(crate) errors: Counter<u64>,
}

impl Instruments {
    pub(crate) fn new(meter: &Meter, shared: &Arc<Shared>) -> Instruments {
        let dropped = shared.clone();
        // Observed at each export: how much the bounded queue gave up.
        let _ = meter
            .u64_observable_counter("seekclaw.telemetry.dropped")
            .with_description("Telemetry records dropped because the export queue was full")
            .with_callback(move |o| o.observe(dropped.dropped.load(Ordering::Relaxed), &[]))
            .build();
        Instruments {
            turns: meter
                .u64_counter("seekclaw.turn.count")
                .with_description("Turns ended, by status")
                .build(),
            turn_duration: meter
                .f64_histogram("seekclaw.turn.duration")
                .with_unit("s")
                .with_description("Turn wall time")
                .build(),
            tokens: meter
                .u64_counter("seekclaw.token.usage")
                .with_unit("{token}")
                .with_description("Tokens used, by gen_ai.token.type (input, output, cache_read)")
                .build(),
            cost: meter
                .f64_counter("seekclaw.cost.usage")
                .with_unit("USD")
                .with_description("Model cost at the config's prices")
                .build(),
            model_requests: meter
                .u64_counter("seekclaw.model.request.count")
                .with_description("Model request attempts")
                .build(),
            model_duration: meter
                .f64_histogram("gen_ai.client.operation.duration")
                .with_unit("s")
                .with_description("Model request latency (one attempt)")
                .build(),
            tool_calls: meter
                .u64_counter("seekclaw.tool.call.count")
                .with_description("Tool calls")
                .build(),
            tool_duration: meter
                .f64_histogram("seekclaw.tool.call.duration")
                .with_unit("s")
                .with_description("Tool call wall time")
                .build(),
            errors: meter
                .u64_counter("seekclaw.error.count")
                .with_description("Failed model requests, tool calls and turns, by error.type")
                .build(),
        }
    }
}

/// `key=value` of a string attribute.
pub(crate) fn kv(key: &'static str, value: impl Into<String>) -> KeyValue {
    KeyValue::new(key, value.into())
}
