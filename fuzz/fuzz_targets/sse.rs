//! A response body split into chunks of fuzzed sizes: the SSE decoder gives
//! the same events as for the whole body (owned and borrowed APIs alike), and
//! the OpenAI and Anthropic stream decoders and whole-body parsers give
//! events or an error, the same however the body was split.
#![no_main]

use std::convert::Infallible;

use libfuzzer_sys::fuzz_target;
use seekclaw_config::{Model, Provider};
use seekclaw_providers::StreamParser;
use seekclaw_providers::{SseDecoder, SseEvent, SseEventRef, Target, parse_completion};

/// `body` in chunks of 1 to 64 bytes, their sizes drawn from `seed`.
fn chunks(body: &[u8], seed: u8) -> Vec<&[u8]> {
    let mut x = u32::from(seed);
    let mut rest = body;
    let mut out = Vec::new();
    while !rest.is_empty() {
        x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
        let (chunk, tail) = rest.split_at(rest.len().min(1 + (x >> 16) as usize % 64));
        out.push(chunk);
        rest = tail;
    }
    out
}

fn sse_push(chunks: &[&[u8]]) -> Vec<SseEvent> {
    let mut d = SseDecoder::new();
    let mut out = Vec::new();
    for c in chunks {
        d.push(c, &mut out);
    }
    d.finish(&mut out);
    out
}

fn sse_feed(chunks: &[&[u8]]) -> Vec<SseEvent> {
    let mut d = SseDecoder::new();
    let mut out = Vec::new();
    let mut collect = |ev: SseEventRef<'_>| {
        out.push(ev.to_owned_event());
        Ok::<(), Infallible>(())
    };
    for c in chunks {
        let _ = d.feed(c, &mut collect);
    }
    let _ = d.finish_with(&mut collect);
    out
}

fn stream(
    target: &Target,
    chunks: &[&[u8]],
) -> Result<Vec<seekclaw_providers::StreamEvent>, String> {
    let mut parser = StreamParser::new(target).map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    for c in chunks {
        parser.push(c, &mut out).map_err(|e| e.to_string())?;
    }
    parser.finish(&mut out).map_err(|e| e.to_string())?;
    Ok(out)
}

// The first byte seeds the chunk sizes; the rest is the body.
fuzz_target!(|data: &[u8]| {
    let Some((&seed, body)) = data.split_first() else {
        return;
    };
    let split = chunks(body, seed);
    let whole = sse_push(&[body]);
    assert_eq!(sse_push(&split), whole);
    assert_eq!(sse_feed(&split), whole);
    let model = Model::default();
    for kind in ["openai", "anthropic"] {
        let provider = Provider {
            id: kind.into(),
            kind: kind.into(),
            ..Provider::default()
        };
        let target = Target::new(&provider, &model);
        assert_eq!(stream(&target, &split), stream(&target, &[body]));
        let _ = parse_completion(&target, body);
    }
});
