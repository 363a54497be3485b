//! Stream benchmark (plain `main`, no harness): parse throughput against a memchr
//! line-splitting baseline measured in the same run, in-process chunk→event
//! latency, end-to-end inter-event gaps over real HTTP, and connection pooling
//! under 200 concurrent streams. Prints figures; never asserts on time.
//!
//! `cargo bench -p seekclaw-providers --bench stream`
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "stream/net.rs"]
mod net;
#[path = "stream/parse.rs"]
mod parse;

use std::time::Duration;

use seekclaw_config::{Model, Provider};

/// A streaming OpenAI-compatible provider at `base_url` with one model `m`.
pub fn provider(base_url: &str, h2c: bool) -> Provider {
    Provider {
        id: "bench".into(),
        kind: "openai".into(),
        base_url: base_url.into(),
        api_key: Some("sk-bench-key-0000".into()),
        http2_prior_knowledge: h2c,
        models: vec![Model {
            id: "m".into(),
            ..Model::default()
        }],
        ..Provider::default()
    }
}

/// p-th percentile (0..=100) of sorted samples.
pub fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let rank = ((p / 100.0) * (sorted.len() - 1) as f64).round() as usize;
    sorted[rank.min(sorted.len() - 1)]
}

pub fn micros(d: Duration) -> String {
    format!("{:.2} µs", d.as_secs_f64() * 1e6)
}

fn main() -> anyhow::Result<()> {
    // `cargo bench` passes `--bench`; a filter argument is not supported.
    println!("== providers stream benchmark ==");
    parse::throughput()?;
    parse::latency()?;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    rt.block_on(async {
        net::inter_event_gap().await?;
        net::pool().await
    })
}
