//! `telemetry`: what OpenTelemetry export costs a turn (issue 42), in
//! process against the testkit's real HTTP provider. Baseline in the same
//! run: the same turn (five `read_file` steps, then an answer) on an engine
//! without telemetry, interleaved with turns on one exporting to a local
//! OTLP/HTTP receiver and on one whose collector is a black hole (accepts
//! connections, never answers). Target: on within 2 % of off.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use seekclaw_agent::{Approvals, TurnOutcome};
use seekclaw_config::Home;
use seekclaw_engine::{
    Engine, Scope, SessionTarget, TurnControls, TurnOrigin, TurnOverrides, TurnRequest,
};
use seekclaw_testkit::{ProviderServer, Reply};
use serde_json::{Value, json};

use crate::stats::{Timings, ms};

pub struct TelemetryArgs {
    pub turns: usize,
    pub json: bool,
}

/// Tool calls per measured turn.
const CALLS: usize = 5;

pub fn run(args: &TelemetryArgs) -> Result<()> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    rt.block_on(measure(args))
}

/// What the local receiver got.
#[derive(Default)]
struct Received {
    requests: AtomicU64,
    bytes: AtomicU64,
}

async fn measure(args: &TelemetryArgs) -> Result<()> {
    let dir = tempfile::tempdir()?;
    let server = ProviderServer::start()?;
    let received = Arc::new(Received::default());
    let receiver = receiver(received.clone()).await?;
    // Bound, never accepted: connections hang until the export times out.
    let hole = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let hole_url = format!("http://{}", hole.local_addr()?);
    let off = engine(dir.path(), "off", &server, Value::Null).await?;
    let on = engine(dir.path(), "on", &server, endpoint(&receiver)).await?;
    let down = engine(dir.path(), "down", &server, endpoint(&hole_url)).await?;
    let (mut a, mut b, mut c) = (Vec::new(), Vec::new(), Vec::new());
    for round in 0..args.turns + 3 {
        let t_off = turn(&off, &server).await?;
        let t_on = turn(&on, &server).await?;
        let t_down = turn(&down, &server).await?;
        if round >= 3 {
            a.push(t_off);
            b.push(t_on);
            c.push(t_down);
        }
    }
    // Paired per round (the same moment of a noisy box): the median difference.
    let paired = |x: &[Duration]| {
        let mut d: Vec<f64> = x.iter().zip(&a).map(|(x, a)| ms(*x) - ms(*a)).collect();
        d.sort_by(f64::total_cmp);
        d.get(d.len() / 2).copied().unwrap_or_default()
    };
    let (paired_on, paired_down) = (paired(&b), paired(&c));
    let dropped = on.telemetry.get().map_or(0, |t| t.dropped());
    let flush_started = Instant::now();
    on.flush_telemetry().await;
    let flush = flush_started.elapsed();
    let down_started = Instant::now();
    down.flush_telemetry().await;
    let down_flush = down_started.elapsed();
    let (a, b, c) = (
        Timings::of(&a).context("no samples")?,
        Timings::of(&b).context("no samples")?,
        Timings::of(&c).context("no samples")?,
    );
    let pct = |x: &Timings| (ms(x.median) / ms(a.median) - 1.0) * 100.0;
    let (requests, bytes) = (
        received.requests.load(Ordering::Relaxed),
        received.bytes.load(Ordering::Relaxed),
    );
    if args.json {
        println!(
            "{}",
            json!({
                "turns": args.turns,
                "turn_off_ms": ms(a.median),
                "turn_on_ms": ms(b.median),
                "turn_collector_down_ms": ms(c.median),
                "on_vs_off_pct": pct(&b),
                "down_vs_off_pct": pct(&c),
                "paired_on_minus_off_ms": paired_on,
                "paired_down_minus_off_ms": paired_down,
                "exports": requests,
                "exported_bytes": bytes,
                "dropped": dropped,
                "flush_ms": ms(flush),
                "flush_collector_down_ms": ms(down_flush),
            })
        );
        return Ok(());
    }
    println!(
        "turn ({CALLS} read_file calls + answer), median of {} each, interleaved:",
        args.turns
    );
    println!(
        "  telemetry off            {:.2} ms (p95 {:.2})",
        ms(a.median),
        ms(a.p95)
    );
    println!(
        "  on, local receiver       {:.2} ms (p95 {:.2})  {:+.1} % (target within 2 %)",
        ms(b.median),
        ms(b.p95),
        pct(&b)
    );
    println!(
        "  on, collector black hole {:.2} ms (p95 {:.2})  {:+.1} %",
        ms(c.median),
        ms(c.p95),
        pct(&c)
    );
    println!(
        "  paired median difference per round: on {:+.3} ms ({:+.1} %), black hole {:+.3} ms ({:+.1} %)",
        paired_on,
        paired_on / ms(a.median) * 100.0,
        paired_down,
        paired_down / ms(a.median) * 100.0
    );
    println!(
        "  exported: {requests} requests, {bytes} bytes; dropped {dropped}; flush at exit {:.1} ms (black hole: {:.0} ms, bounded)",
        ms(flush),
        ms(down_flush)
    );
    drop(hole);
    Ok(())
}

fn endpoint(url: &str) -> Value {
    // Metrics every second: periodic exports fall inside the measured turns.
    json!({"otlp": {"endpoint": url}, "exportIntervalMs": 1000})
}

/// A local OTLP/HTTP receiver answering 200 to every export.
async fn receiver(received: Arc<Received>) -> Result<String> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let url = format!("http://{}", listener.local_addr()?);
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let received = received.clone();
            tokio::spawn(async move {
                let service = hyper::service::service_fn(move |req: hyper::Request<_>| {
                    let received = received.clone();
                    async move {
                        let body = BodyExt::collect(req.into_body()).await?.to_bytes();
                        received.requests.fetch_add(1, Ordering::Relaxed);
                        received
                            .bytes
                            .fetch_add(body.len() as u64, Ordering::Relaxed);
                        Ok::<_, hyper::Error>(hyper::Response::new(Full::new(Bytes::new())))
                    }
                });
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                    .await;
            });
        }
    });
    Ok(url)
}

async fn engine(
    root: &Path,
    name: &str,
    server: &ProviderServer,
    telemetry: Value,
) -> Result<Engine> {
    let home = Home::at(root.join(name).join("home"));
    home.ensure()?;
    let work = root.join(name).join("work");
    std::fs::create_dir_all(&work)?;
    std::fs::write(work.join("a.txt"), "alpha\n")?;
    let mut config = json!({
        "providers": [{
            "id": "tk", "kind": "openai", "baseUrl": server.base_url(), "apiKey": "sk-tk",
            "models": [{"id": "m1", "contextWindow": 128000, "maxOutput": 4096,
                "inputPricePerMTok": 1.0, "outputPricePerMTok": 4.0}]
        }],
        "agent": {"autoVerify": false},
        "checkpoints": {"enabled": false},
    });
    if !telemetry.is_null() {
        config["telemetry"] = telemetry;
    }
    std::fs::write(home.config_path(), config.to_string())?;
    let engine = Engine::open(home).await?;
    engine.start_telemetry("bench");
    Ok(engine)
}

/// One turn of [`CALLS`] one-call steps and an answer; its wall time.
async fn turn(engine: &Engine, server: &ProviderServer) -> Result<Duration> {
    for i in 0..CALLS {
        server.enqueue(
            Reply::new()
                .tool_call(
                    format!("c{i}"),
                    "read_file",
                    json!({"path": "a.txt"}).to_string(),
                )
                .usage(1000, 0, 20),
        );
    }
    server.enqueue(Reply::plain("done").usage(1100, 0, 10));
    let work = engine.home.root().parent().context("home")?.join("work");
    let request = TurnRequest {
        scope: Scope::of_root(&work),
        session: SessionTarget::New { id: None },
        message: "read".into(),
        images: Vec::new(),
        reasoning: None,
        overrides: TurnOverrides::default(),
        controls: TurnControls::new(Approvals::default()),
        origin: TurnOrigin::new("bench"),
    };
    let started = Instant::now();
    let outcome = engine.start_turn(request).await?.outcome().await;
    let took = started.elapsed();
    anyhow::ensure!(matches!(outcome, TurnOutcome::Done(_)), "turn: {outcome:?}");
    Ok(took)
}
