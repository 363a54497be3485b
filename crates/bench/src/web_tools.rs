//! `web-tools`: the two tools that reach past the workspace.
//! - `web_search` over a local fake engine serving a 100 kB Bing results
//!   page: the tool's whole call (request, parse with a real HTML parser,
//!   de-duplicate, format) against the same page fetched by a bare
//!   keep-alive HTTP/1.1 client (the engine's own answer time), interleaved.
//! - `capture_screen` of a 1920×1080 Xvfb display through the daemon: a turn
//!   whose model calls it against the same turn calling `read_file` on a
//!   small file; the difference is what capture, scaling, PNG encoding and
//!   the image's trip into the next model request cost.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use seekclaw_config::{SearchEngine, WebSearchSettings};
use seekclaw_testkit::{
    DaemonProcess, FakeWeb, ProviderServer, Reply, StartOptions, WebReply, Xvfb, pages,
};
use seekclaw_tools::{ToolContext, WriteLocks, builtin_registry};
use serde_json::json;
use tokio_util::sync::CancellationToken;

use crate::stats::{Timings, ms};

const SEARCH_TARGET_MS: f64 = 5.0;
const CAPTURE_TARGET_MS: f64 = 300.0;
const PAGE_BYTES: usize = 100_000;

pub struct WebToolsArgs<'a> {
    pub bin: &'a Path,
    pub runs: usize,
    pub captures: usize,
    pub json: bool,
}

/// The page at `target`, over `stream` (keep-alive), start to last byte.
fn bare_get(stream: &mut BufReader<TcpStream>, target: &str) -> Result<Duration> {
    let start = Instant::now();
    stream
        .get_mut()
        .write_all(format!("GET {target} HTTP/1.1\r\nHost: x\r\n\r\n").as_bytes())?;
    let mut length = 0;
    loop {
        let mut line = String::new();
        stream.read_line(&mut line)?;
        if line.trim().is_empty() {
            break;
        }
        if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
            length = v.trim().parse()?;
        }
    }
    let mut body = vec![0; length];
    stream.read_exact(&mut body)?;
    Ok(start.elapsed())
}

fn search_bench(runs: usize) -> Result<(Timings, Timings, usize)> {
    let hits: Vec<(String, String, String)> = (0..20)
        .map(|i| {
            (
                format!("Result number {i} about async Rust"),
                format!("https://site{i}.example/path/{i}"),
                format!("Snippet {i}: tokio, futures and the async book explained at length."),
            )
        })
        .collect();
    let refs: Vec<(&str, &str, &str)> = hits
        .iter()
        .map(|(a, b, c)| (a.as_str(), b.as_str(), c.as_str()))
        .collect();
    let page = pages::bing(&refs, PAGE_BYTES);
    let size = page.len();
    let fake = FakeWeb::start()?;
    fake.route("setlang=en", WebReply::html(page));
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let registry = builtin_registry();
    let tool = registry.get("web_search").context("no web_search tool")?;
    let mut ctx = ToolContext::new(
        std::env::temp_dir(),
        false,
        "bench/00000000".into(),
        Arc::new(WriteLocks::new()),
        Duration::from_secs(5),
        Duration::from_secs(60),
        true,
        60_000,
        CancellationToken::new(),
    );
    ctx.web_search = Arc::new(WebSearchSettings {
        engine: SearchEngine::Bing,
        url: Some(fake.base_url()),
        ..WebSearchSettings::default()
    });
    let args = json!({"query": "async rust", "max_results": 8});
    let call = |ctx: &ToolContext| -> Result<Duration> {
        let start = Instant::now();
        let out = rt.block_on(tool.execute(args.clone(), ctx));
        let took = start.elapsed();
        if !out.success || !out.content.contains("8. Result number 7") {
            bail!("web_search failed: {}", out.content);
        }
        Ok(took)
    };
    let addr = fake.base_url().trim_start_matches("http://").to_string();
    let mut bare = BufReader::new(TcpStream::connect(&addr)?);
    let target = "/search?q=async+rust&count=13&setlang=en";
    for _ in 0..10 {
        call(&ctx)?;
        bare_get(&mut bare, target)?;
    }
    let (mut tool_t, mut bare_t) = (Vec::new(), Vec::new());
    for i in 0..runs {
        if i % 2 == 0 {
            tool_t.push(call(&ctx)?);
            bare_t.push(bare_get(&mut bare, target)?);
        } else {
            bare_t.push(bare_get(&mut bare, target)?);
            tool_t.push(call(&ctx)?);
        }
    }
    let (Some(t), Some(b)) = (Timings::of(&tool_t), Timings::of(&bare_t)) else {
        bail!("no runs");
    };
    Ok((t, b, size))
}

/// One turn: the model calls `tool` with `args`, then answers; chat → done.
fn tool_turn(
    d: &DaemonProcess,
    server: &ProviderServer,
    ws: &str,
    tool: &str,
    args: &str,
) -> Result<Duration> {
    server.enqueue(Reply::new().tool_call("c1", tool, args));
    server.enqueue(Reply::plain("ok"));
    let mut c = d.connect()?;
    let start = Instant::now();
    let id = c.send(
        "chat",
        json!({"message": "look", "workspace": ws, "model": "tk/eyes"}),
    )?;
    let all = c.collect(id)?;
    let took = start.elapsed();
    let done = all
        .iter()
        .find(|e| e["event"] == "tool_done")
        .context("no tool_done")?;
    if done["details"]["success"] != true {
        bail!("{tool} failed: {done}");
    }
    Ok(took)
}

fn capture_bench(bin: &Path, runs: usize) -> Result<(Timings, Timings)> {
    let xvfb = Xvfb::start(1920, 1080)?;
    let server = ProviderServer::start()?;
    let config = json!({
        "providers": [{"id": "tk", "kind": "openai", "baseUrl": server.base_url(), "apiKey": "k",
            "models": [{"id": "eyes", "contextWindow": 128000, "maxOutput": 4096,
                        "capabilities": {"vision": true}}]}],
    });
    let d = DaemonProcess::start_with(
        bin,
        StartOptions {
            config: Some(config),
            env: vec![("DISPLAY".into(), xvfb.display().into())],
            ..StartOptions::default()
        },
    )?;
    let tmp = tempfile::tempdir()?;
    std::fs::write(tmp.path().join("small.txt"), "hello\n")?;
    let ws = tmp.path().display().to_string();
    let read = (r#"{"path":"small.txt"}"#, "read_file");
    let shot = (r#"{}"#, "capture_screen");
    for _ in 0..2 {
        tool_turn(&d, &server, &ws, read.1, read.0)?;
        tool_turn(&d, &server, &ws, shot.1, shot.0)?;
    }
    let (mut with, mut without) = (Vec::new(), Vec::new());
    for i in 0..runs {
        if i % 2 == 0 {
            with.push(tool_turn(&d, &server, &ws, shot.1, shot.0)?);
            without.push(tool_turn(&d, &server, &ws, read.1, read.0)?);
        } else {
            without.push(tool_turn(&d, &server, &ws, read.1, read.0)?);
            with.push(tool_turn(&d, &server, &ws, shot.1, shot.0)?);
        }
    }
    let (Some(w), Some(wo)) = (Timings::of(&with), Timings::of(&without)) else {
        bail!("no runs");
    };
    Ok((w, wo))
}

pub fn run(args: &WebToolsArgs<'_>) -> Result<()> {
    let (tool, bare, size) = search_bench(args.runs)?;
    let overhead = ms(tool.median) - ms(bare.median);
    let capture = if args.captures > 0 {
        Some(capture_bench(args.bin, args.captures)?)
    } else {
        None
    };
    let capture_extra = capture.map(|(w, wo)| ms(w.median) - ms(wo.median));
    if args.json {
        println!(
            "{}",
            json!({
                "searchRuns": args.runs, "pageBytes": size,
                "engineMedianMs": ms(bare.median), "toolMedianMs": ms(tool.median),
                "toolP95Ms": ms(tool.p95), "searchOverheadMs": overhead,
                "captureTurnMedianMs": capture.map(|(w, _)| ms(w.median)),
                "baselineTurnMedianMs": capture.map(|(_, wo)| ms(wo.median)),
                "captureExtraMs": capture_extra,
            })
        );
        return Ok(());
    }
    println!(
        "web-tools: web_search over a local fake engine ({size}-byte Bing page, 20 results, 8 kept), {} runs each, interleaved",
        args.runs
    );
    println!(
        "  engine alone (keep-alive GET)  median {:7.3} ms   p95 {:7.3} ms",
        ms(bare.median),
        ms(bare.p95)
    );
    println!(
        "  web_search call                median {:7.3} ms   p95 {:7.3} ms",
        ms(tool.median),
        ms(tool.p95)
    );
    println!(
        "  overhead                       median {overhead:+7.3} ms   (target < {SEARCH_TARGET_MS} ms: {})",
        if overhead < SEARCH_TARGET_MS {
            "met"
        } else {
            "NOT met"
        }
    );
    if let (Some((w, wo)), Some(extra)) = (capture, capture_extra) {
        println!(
            "capture_screen of a 1920x1080 Xvfb display through the daemon, {} turns each, interleaved",
            args.captures
        );
        println!(
            "  turn with read_file            median {:7.3} ms",
            ms(wo.median)
        );
        println!(
            "  turn with capture_screen       median {:7.3} ms   p95 {:7.3} ms",
            ms(w.median),
            ms(w.p95)
        );
        println!(
            "  capture to model request       median {extra:+7.3} ms   (target < {CAPTURE_TARGET_MS} ms: {})",
            if extra < CAPTURE_TARGET_MS {
                "met"
            } else {
                "NOT met"
            }
        );
    }
    Ok(())
}
