//! Figures over real HTTP against the testkit server.

use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Result, bail};
use seekclaw_config::Config;
use seekclaw_providers::routing::RouteInput;
use seekclaw_providers::{ChatMessage, ChatRequest, Observer, Providers, StreamEvent};
use seekclaw_testkit::{ProviderServer, Reply};
use tokio_util::sync::CancellationToken;

use crate::{micros, percentile, provider};

fn config(base_url: &str, h2c: bool) -> Config {
    Config {
        providers: vec![provider(base_url, h2c)],
        ..Config::default()
    }
}

fn request() -> ChatRequest {
    ChatRequest {
        messages: vec![ChatMessage::User {
            text: "go".into(),
            images: Vec::new(),
        }],
        ..ChatRequest::default()
    }
}

/// Arrival time of every text delta.
#[derive(Default)]
struct Stamps(Vec<Instant>);

impl Observer for Stamps {
    fn event(&mut self, event: &StreamEvent) {
        if matches!(event, StreamEvent::TextDelta(_)) {
            self.0.push(Instant::now());
        }
    }
}

/// Inter-event gaps through reqwest + `Providers::chat` while the server paces
/// chunks 2 ms apart: a sanity figure (the server can't timestamp its writes).
pub async fn inter_event_gap() -> Result<()> {
    const DELAY: Duration = Duration::from_millis(2);
    const N: usize = 500;
    let srv = ProviderServer::start()?;
    let reply = (0..N)
        .fold(Reply::new(), |r, i| r.text(format!("t{i} ")))
        .chunk_delay(DELAY);
    srv.enqueue(reply);
    let cfg = config(&srv.base_url(), false);
    let providers = Providers::new();
    let mut stamps = Stamps::default();
    let route = RouteInput::default();
    let c = providers
        .chat(
            &cfg,
            &route,
            &request(),
            &mut stamps,
            &CancellationToken::new(),
        )
        .await?;
    if stamps.0.len() != N || !c.text.starts_with("t0 ") {
        bail!("expected {N} deltas, got {}", stamps.0.len());
    }
    let gaps: Vec<Duration> = stamps.0.windows(2).map(|w| w[1] - w[0]).collect();
    // Baseline: what a bare tokio `sleep(DELAY)` really takes (the server paces
    // with it, and tokio's timer rounds up to whole milliseconds).
    let mut sleeps = Vec::with_capacity(N);
    for _ in 0..N {
        let t = Instant::now();
        tokio::time::sleep(DELAY).await;
        sleeps.push(t.elapsed());
    }
    println!(
        "\n-- end-to-end inter-event gap, server chunk delay {DELAY:?} ({N} deltas, HTTP/1.1) --"
    );
    let gap = summary("event gap", gaps);
    let sleep = summary("bare sleep", sleeps);
    println!(
        "gap - bare sleep (mean): {:+.2} µs  (transport + parse + observer per event, within pacing noise)",
        (gap.as_secs_f64() - sleep.as_secs_f64()) * 1e6
    );
    Ok(())
}

/// Prints mean/p50/p99/max and returns the mean.
fn summary(label: &str, mut v: Vec<Duration>) -> Duration {
    v.sort();
    let mean = v.iter().sum::<Duration>() / v.len().max(1) as u32;
    println!(
        "{label:<11} mean {}  p50 {}  p99 {}  max {}",
        micros(mean),
        micros(percentile(&v, 50.0)),
        micros(percentile(&v, 99.0)),
        micros(v.last().copied().unwrap_or_default()),
    );
    mean
}

/// 200 concurrent streams: TCP connections used and wall time, h2c against HTTP/1.1.
pub async fn pool() -> Result<()> {
    const STREAMS: usize = 200;
    const DELAY: Duration = Duration::from_millis(20);
    println!(
        "\n-- pool: {STREAMS} concurrent streams, 8 chunks each {DELAY:?} apart (floor {:?}) --",
        DELAY * 8
    );
    for h2c in [true, false] {
        let srv = ProviderServer::start()?;
        srv.set_default(
            (0..5)
                .fold(Reply::new(), |r, i| r.text(format!("w{i} ")))
                .chunk_delay(DELAY),
        );
        let cfg = Arc::new(config(&srv.base_url(), h2c));
        let providers = Arc::new(Providers::new());
        let started = Instant::now();
        let mut tasks = tokio::task::JoinSet::new();
        for _ in 0..STREAMS {
            let (cfg, providers) = (cfg.clone(), providers.clone());
            tasks.spawn(async move {
                let route = RouteInput::default();
                let mut obs = seekclaw_providers::NoObserver;
                providers
                    .chat(
                        &cfg,
                        &route,
                        &request(),
                        &mut obs,
                        &CancellationToken::new(),
                    )
                    .await
            });
        }
        let mut failed = 0;
        while let Some(r) = tasks.join_next().await {
            if !matches!(r, Ok(Ok(_))) {
                failed += 1;
            }
        }
        let wall = started.elapsed();
        println!(
            "{:<9} connections {:>3}  wall {:>7.1} ms  failed {failed}",
            if h2c { "h2c" } else { "HTTP/1.1" },
            srv.connections(),
            wall.as_secs_f64() * 1000.0,
        );
    }
    Ok(())
}
