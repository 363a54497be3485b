//! OpenTelemetry for the engine's turns: metrics, traces and log events
//! exported over OTLP HTTP/protobuf when `telemetry.otlp.endpoint` is set.
//!
//! A process builds one [`Telemetry`] ([`Telemetry::start`]) and hands each
//! turn a [`TurnObserver`] that sees the turn's events. The observer does
//! nothing on the turn's path but append a small record to a bounded
//! buffer, waking nobody (a full buffer drops the record and counts it); one
//! task on the runtime drains it a few times a second and turns records into spans, metrics and log events, and the
//! SDK's batch processors export them on their own threads through an HTTP
//! client that runs on the runtime. An unreachable collector therefore costs
//! a turn nothing: exports time out off the path and their batches drop.

#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used))]

mod http;
mod metrics;
mod observer;
mod pipeline;
mod project;
mod queue;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use seekclaw_config::TelemetrySettings;
use tokio::sync::oneshot;

pub use observer::{TurnObserver, TurnStart};
pub use project::project_id;

/// Records waiting for the exporting task; more are dropped (and counted).
const QUEUE: usize = 8192;
/// The longest an exit waits for the last export.
const FLUSH_WAIT: Duration = Duration::from_secs(3);

/// Why telemetry could not start.
#[derive(Debug, thiserror::Error)]
pub enum TelemetryError {
    /// The endpoint or a header is not usable.
    #[error("telemetry.otlp: {0}")]
    Config(String),
    /// The exporter could not be built.
    #[error("telemetry exporter: {0}")]
    Exporter(String),
}

/// What the observers and the exporting task share.
#[derive(Debug)]
pub(crate) struct Shared {
    /// Records dropped because the queue was full.
    pub(crate) dropped: AtomicU64,
    /// `telemetry.includeContent`.
    pub(crate) include_content: bool,
    /// Turn ids, one per turn of the process.
    pub(crate) next_turn: AtomicU64,
}

/// The process's exporter: a cheap clone. [`Telemetry::off`] when no
/// endpoint is configured (every observer it hands out does nothing).
#[derive(Clone, Debug, Default)]
pub struct Telemetry {
    inner: Option<Arc<Inner>>,
}

#[derive(Debug)]
struct Inner {
    shared: Arc<Shared>,
    records: Arc<queue::Queue>,
}

impl Telemetry {
    /// Telemetry that exports nothing.
    pub fn off() -> Telemetry {
        Telemetry::default()
    }

    /// Starts exporting as `settings` say, for the front end `front_end`
    /// (`daemon`, `run`, `serve`, `acp`, …), on the current tokio runtime;
    /// [`Telemetry::off`] when no endpoint is set.
    pub fn start(
        settings: &TelemetrySettings,
        front_end: &'static str,
    ) -> Result<Telemetry, TelemetryError> {
        let Some(endpoint) = settings.endpoint() else {
            return Ok(Telemetry::off());
        };
        let runtime = tokio::runtime::Handle::try_current()
            .map_err(|e| TelemetryError::Exporter(e.to_string()))?;
        let shared = Arc::new(Shared {
            dropped: AtomicU64::new(0),
            include_content: settings.include_content,
            next_turn: AtomicU64::new(1),
        });
        let client = http::RuntimeClient::new(runtime.clone())?;
        let providers = pipeline::Providers::build(settings, endpoint, client)?;
        let records = Arc::new(queue::Queue::new(QUEUE));
        runtime.spawn(pipeline::run(
            providers,
            front_end,
            shared.clone(),
            records.clone(),
        ));
        Ok(Telemetry {
            inner: Some(Arc::new(Inner { shared, records })),
        })
    }

    /// Whether anything is exported.
    pub fn is_on(&self) -> bool {
        self.inner.is_some()
    }

    /// Records dropped so far because the queue was full.
    pub fn dropped(&self) -> u64 {
        self.inner
            .as_ref()
            .map_or(0, |i| i.shared.dropped.load(Ordering::Relaxed))
    }

    /// An observer for a turn that starts now.
    pub fn turn(&self, start: TurnStart<'_>) -> TurnObserver {
        match &self.inner {
            Some(inner) => TurnObserver::new(inner.records.clone(), inner.shared.clone(), start),
            None => TurnObserver::off(),
        }
    }

    /// Exports what is pending and stops the exporters (at exit): waits at
    /// most a few seconds, however the collector behaves.
    pub async fn shutdown(&self) {
        let Some(inner) = &self.inner else { return };
        let (done, ended) = oneshot::channel();
        inner.records.push_now(observer::Record::Shutdown(done));
        let _ = tokio::time::timeout(FLUSH_WAIT, ended).await;
    }
}
