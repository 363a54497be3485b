//! In-process figures: bytes → lines / SSE events / stream events.

use std::convert::Infallible;
use std::hint::black_box;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use seekclaw_config::Provider;
use seekclaw_providers::Target;
use seekclaw_providers::{SseDecoder, SseEventRef, StreamEvent, StreamParser};
use seekclaw_testkit::{Reply, Step, Wire};

use crate::{micros, percentile, provider};

const TARGET_BYTES: usize = 10 * 1024 * 1024;
/// About one TCP segment, as reads come off the socket.
const PIECE: usize = 1400;
const ROUNDS: usize = 7;

const WORDS: &[&str] = &[
    "the",
    "function",
    "returns",
    "a",
    "value",
    "when",
    "the",
    "input",
    "is",
    "valid",
    "Result",
    "error",
    "handling",
    "—",
    "naïve",
    "café",
    "配置",
    "文件",
    "let",
    "mut",
    "fn",
    "impl",
    "{",
    "}",
    "`cargo`",
    "test",
    "\"quoted\"",
    "path/to/file.rs",
    "\\n",
    "42",
    "ok.",
];

fn phrase(rng: &mut fastrand::Rng, max_words: usize) -> String {
    let n = rng.usize(1..=max_words);
    let mut s = String::new();
    for _ in 0..n {
        s.push_str(WORDS[rng.usize(..WORDS.len())]);
        s.push(' ');
    }
    s
}

/// A realistic answer: mostly text deltas of a few words, reasoning deltas, and a
/// tool call (arguments in 8-character pieces, as OpenAI streams them) every ~300 steps.
fn steps(n: usize, rng: &mut fastrand::Rng) -> Vec<Step> {
    (0..n)
        .map(|i| {
            if i % 300 == 299 {
                let args = format!(
                    "{{\"path\":\"src/{}.rs\",\"content\":\"{}\"}}",
                    rng.u32(..),
                    phrase(rng, 40).replace('"', "'").replace('\\', "/")
                );
                Step::ToolCall {
                    id: format!("call_{i}"),
                    name: "write_file".into(),
                    arguments: args,
                }
            } else if rng.u8(..10) < 3 {
                Step::Reasoning(phrase(rng, 5))
            } else {
                Step::Text(phrase(rng, 6))
            }
        })
        .collect()
}

fn render(steps: Vec<Step>) -> Vec<String> {
    let reply = steps
        .into_iter()
        .fold(Reply::new(), |r, s| r.step(s))
        .usage(120_000, 80_000, 9_000);
    reply.render_sse(Wire::OpenAi, "deepseek-chat")
}

/// One recorded response of about 10 MB.
fn recorded_stream() -> Vec<u8> {
    let mut rng = fastrand::Rng::with_seed(7);
    let pilot: usize = render(steps(2000, &mut rng)).iter().map(String::len).sum();
    let n = TARGET_BYTES * 2000 / pilot.max(1);
    render(steps(n, &mut rng)).concat().into_bytes()
}

fn target(p: &Provider) -> Target<'_> {
    Target::new(p, &p.models[0])
}

fn baseline(pieces: &[&[u8]]) -> usize {
    let mut lines = 0usize;
    for piece in pieces {
        let mut start = 0;
        for nl in memchr::memchr_iter(b'\n', piece) {
            black_box(&piece[start..nl]);
            lines += 1;
            start = nl + 1;
        }
    }
    lines
}

fn sse_only(pieces: &[&[u8]]) -> usize {
    let mut d = SseDecoder::new();
    let mut n = 0usize;
    for piece in pieces {
        let _ = d.feed(piece, |ev| {
            if let SseEventRef::Message { data, .. } = ev {
                black_box(data);
                n += 1;
            }
            Ok::<(), Infallible>(())
        });
    }
    n
}

fn full_parse(p: &Provider, pieces: &[&[u8]]) -> Result<(usize, usize)> {
    let mut parser = StreamParser::new(&target(p))?;
    let mut out = Vec::new();
    let (mut events, mut calls) = (0usize, 0usize);
    for piece in pieces {
        parser.push(piece, &mut out)?;
        events += out.len();
        calls += out
            .iter()
            .filter(|e| matches!(e, StreamEvent::ToolCallComplete { .. }))
            .count();
        black_box(&out);
        out.clear();
    }
    parser.finish(&mut out)?;
    Ok((events + out.len(), calls))
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

pub fn throughput() -> Result<()> {
    let stream = recorded_stream();
    let pieces: Vec<&[u8]> = stream.chunks(PIECE).collect();
    let p = provider("http://127.0.0.1:1", false);
    let mb = stream.len() as f64 / (1024.0 * 1024.0);
    let (mut a, mut b, mut c) = (Vec::new(), Vec::new(), Vec::new());
    let (mut lines, mut sse, mut events, mut calls) = (0, 0, 0, 0);
    // Interleaved rounds, so load from elsewhere hits all three alike.
    for _ in 0..ROUNDS {
        let t = Instant::now();
        lines = black_box(baseline(&pieces));
        a.push(t.elapsed());
        let t = Instant::now();
        sse = black_box(sse_only(&pieces));
        b.push(t.elapsed());
        let t = Instant::now();
        (events, calls) = black_box(full_parse(&p, &pieces)?);
        c.push(t.elapsed());
    }
    let (a, b, c) = (median(a), median(b), median(c));
    let rate = |d: Duration| mb / d.as_secs_f64();
    println!(
        "\n-- parse throughput: {mb:.1} MB recorded OpenAI SSE in {PIECE}-byte pieces ({} pieces), median of {ROUNDS} --",
        pieces.len()
    );
    println!(
        "(a) memchr line split (baseline) {:>9.1} MB/s  {lines} lines",
        rate(a)
    );
    println!(
        "(b) SseDecoder::feed             {:>9.1} MB/s  {sse} events   ratio {:.2} (target >= 0.5)",
        rate(b),
        a.as_secs_f64() / b.as_secs_f64()
    );
    println!(
        "(c) StreamParser (SSE+JSON)      {:>9.1} MB/s  {events} events ({calls} tool calls)   ratio {:.3}",
        rate(c),
        a.as_secs_f64() / c.as_secs_f64()
    );
    Ok(())
}

/// Time from `parser.push(chunk)` to its event being in hand, one SSE event per
/// chunk as a provider sends them.
pub fn latency() -> Result<()> {
    const CHUNKS: usize = 100_000;
    let mut rng = fastrand::Rng::with_seed(11);
    let text: Vec<Step> = (0..CHUNKS)
        .map(|_| Step::Text(phrase(&mut rng, 6)))
        .collect();
    let chunks = render(text);
    let p = provider("http://127.0.0.1:1", false);
    let mut parser = StreamParser::new(&target(&p))?;
    let mut out = Vec::with_capacity(16);
    let mut samples = Vec::with_capacity(chunks.len());
    let mut timer = Vec::with_capacity(chunks.len());
    let mut yielded = 0usize;
    for chunk in &chunks {
        let t = Instant::now();
        parser.push(chunk.as_bytes(), &mut out)?;
        let first = out.first().map(black_box);
        let d = t.elapsed();
        if first.is_some() {
            samples.push(d);
            yielded += 1;
        }
        out.clear();
        // The cost of the two clock reads alone.
        let t = Instant::now();
        timer.push(black_box(t).elapsed());
    }
    samples.sort();
    timer.sort();
    let max = samples.last().copied().context("no samples")?;
    println!(
        "\n-- chunk → event latency in process ({} chunks, {yielded} yielding events) --",
        chunks.len()
    );
    println!(
        "p50 {}  p99 {}  p99.9 {}  max {}  (target p99 < 100 µs; clock overhead p50 {})",
        micros(percentile(&samples, 50.0)),
        micros(percentile(&samples, 99.0)),
        micros(percentile(&samples, 99.9)),
        micros(max),
        micros(percentile(&timer, 50.0)),
    );
    Ok(())
}
