//! Side requests: one model request outside any turn (`prompt.optimize`,
//! `model.test`) and the provider probes (`provider.test`,
//! `provider.models.fetch`), through the engine's HTTP pool, their usage
//! recorded like a turn's.

use std::time::{Duration, Instant};

use crate::error::EngineError;
use seekclaw_config::{Config, Provider};
use seekclaw_protocol::api::ProbeResult;
use seekclaw_providers::error::ProviderError;
use seekclaw_providers::router::{Completion, Observer};
use seekclaw_providers::routing::{ModelHandle, RouteInput};
use seekclaw_providers::types::ChatRequest;
use seekclaw_providers::usage::AttemptRecord;
use seekclaw_store::UsageRecord;
use tokio_util::sync::CancellationToken;

use crate::engine::Engine;

/// How long a provider probe may take.
const PROBE_TIMEOUT: Duration = Duration::from_secs(10);

/// Collects attempt records so they are written to the store afterwards.
#[derive(Default)]
struct UsageCollector {
    records: Vec<UsageRecord>,
}

impl Observer for UsageCollector {
    fn attempt(&mut self, r: &AttemptRecord) {
        self.records.push(seekclaw_agent::usage_record(r, None));
    }
}

impl Engine {
    /// One request to exactly one model: no failover, and (with `retries`
    /// false) no retry. Returns the answer and how long it took (ms).
    pub async fn complete(
        &self,
        config: &Config,
        handle: ModelHandle,
        req: ChatRequest,
        retries: bool,
    ) -> (Result<Completion, ProviderError>, u64) {
        let mut config = config.clone();
        if !retries {
            config.routing.retry.max_attempts = 1;
        }
        let model_ref = handle.model_ref(&config);
        let route = RouteInput {
            only: Some(&model_ref),
            ..RouteInput::default()
        };
        let mut usage = UsageCollector::default();
        let start = Instant::now();
        let cancel = CancellationToken::new();
        let result = self
            .providers
            .chat(&config, &route, &req, &mut usage, &cancel)
            .await;
        let elapsed = u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.save_usage(usage.records).await;
        (result, elapsed)
    }

    /// Probes each provider at once (`provider.test`).
    pub async fn probe(&self, providers: Vec<Provider>) -> Vec<ProbeResult> {
        let probes = providers.into_iter().map(|p| async move {
            let start = Instant::now();
            let (online, detail) =
                seekclaw_providers::transport::probe(&self.providers.pool, &p, PROBE_TIMEOUT).await;
            ProbeResult {
                id: p.id,
                online,
                latency_ms: u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX),
                detail,
            }
        });
        futures::future::join_all(probes).await
    }

    /// The model ids `url` lists for `provider` (`provider.models.fetch`).
    pub async fn fetch_models(
        &self,
        provider: &Provider,
        url: &str,
    ) -> Result<Vec<String>, EngineError> {
        let timeout = Duration::from_secs(provider.timeout_seconds.clamp(5, 120));
        seekclaw_providers::models::list_models(&self.providers.pool, provider, Some(url), timeout)
            .await
            .map_err(|e| crate::error::provider_error(&e))
    }

    async fn save_usage(&self, records: Vec<UsageRecord>) {
        if records.is_empty() {
            return;
        }
        let saved = self
            .db(move |s| {
                for r in &records {
                    s.record_usage(r)?;
                }
                Ok(())
            })
            .await;
        if let Err(e) = saved {
            tracing::warn!(error = %e.message, "cannot record usage");
        }
    }
}
