//! Property tests: no response body can crash the OpenAI or Anthropic stream
//! decoders (fed through the SSE decoder, split anywhere) or the whole-body
//! parsers. Frames are generated near-valid: the real shapes with fields of
//! the wrong type, huge indices and token counts, unknown kinds. Whatever
//! arrives, the result is events or an error, the same however the bytes were
//! chunked, and held-back events come last, once. `PROPTEST_CASES` raises the
//! case count (`scripts/fuzz --proptest` runs them long).

use proptest::prelude::*;
use seekclaw_config::{Capabilities, Model, Provider};
use serde_json::{Map, Value, json};

use crate::sse::SseEventRef;
use crate::testutil::{decode_chunks, model, provider};
use crate::types::StreamEvent;
use crate::wire::{StreamDecoder, decoder, parse_completion};
use crate::{Target, anthropic, openai};

fn openai_target() -> (Provider, Model) {
    (
        provider("o", "openai", "http://127.0.0.1:1"),
        model("m", Capabilities::default()),
    )
}

fn anthropic_target() -> (Provider, Model) {
    (
        provider("a", "anthropic", "http://127.0.0.1:1"),
        model("m", Capabilities::default()),
    )
}

/// Any JSON value, a few levels deep.
fn arb_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_filter_map("finite", |f| serde_json::Number::from_f64(f)
            .map(Value::Number)),
        any::<String>().prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec(("[a-z_]{1,8}", inner), 0..4)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

/// Mostly `good`, sometimes any JSON value at all (a wrongly typed field).
fn or_wrong(good: impl Strategy<Value = Value> + 'static) -> BoxedStrategy<Value> {
    prop_oneof![8 => good, 1 => arb_json()].boxed()
}

/// An object with each of `fields` present or absent.
fn object(fields: Vec<(&'static str, BoxedStrategy<Value>)>) -> BoxedStrategy<Value> {
    let (names, values): (Vec<_>, Vec<_>) = fields
        .into_iter()
        .map(|(n, v)| (n, prop::option::weighted(0.6, v)))
        .unzip();
    values
        .prop_map(move |vals| {
            let mut m = Map::new();
            for (name, v) in names.iter().zip(vals) {
                if let Some(v) = v {
                    m.insert((*name).to_string(), v);
                }
            }
            Value::Object(m)
        })
        .boxed()
}

fn text() -> BoxedStrategy<Value> {
    or_wrong(prop_oneof![
        prop::sample::select(&["", "x", "你好", "{\"a\":", "}", "read_file", "call_1"][..])
            .prop_map(Value::from),
        any::<String>().prop_map(Value::from),
    ])
}

/// Indices and counts: small, at the edges of every integer type, negative,
/// fractional.
fn number() -> BoxedStrategy<Value> {
    or_wrong(prop_oneof![
        3 => (0u64..4).prop_map(Value::from),
        2 => prop::sample::select(
            &[u64::MAX, u64::MAX - 1, i64::MAX as u64, u32::MAX as u64, 1_000_000_000_000][..]
        )
        .prop_map(Value::from),
        1 => any::<u64>().prop_map(Value::from),
        1 => Just(json!(-1)),
        1 => Just(json!(1.5)),
    ])
}

fn kind(names: &'static [&'static str]) -> BoxedStrategy<Value> {
    or_wrong(prop::sample::select(names).prop_map(Value::from))
}

fn openai_usage() -> BoxedStrategy<Value> {
    object(vec![
        ("prompt_tokens", number()),
        ("completion_tokens", number()),
        ("prompt_cache_hit_tokens", number()),
        ("cached_tokens", number()),
        (
            "prompt_tokens_details",
            or_wrong(object(vec![("cached_tokens", number())])),
        ),
    ])
}

/// A `chat.completion.chunk`.
fn openai_chunk() -> BoxedStrategy<Value> {
    let function = object(vec![("name", text()), ("arguments", text())]);
    let tool = object(vec![
        ("index", number()),
        ("id", text()),
        ("type", text()),
        ("function", or_wrong(function)),
    ]);
    let delta = object(vec![
        ("role", text()),
        ("content", text()),
        ("reasoning_content", text()),
        ("reasoning", text()),
        (
            "tool_calls",
            or_wrong(prop::collection::vec(tool, 0..3).prop_map(Value::Array)),
        ),
    ]);
    let choice = object(vec![
        ("index", number()),
        ("delta", or_wrong(delta)),
        (
            "finish_reason",
            or_wrong(kind(&["stop", "tool_calls", "length", "x", ""])),
        ),
        ("usage", or_wrong(openai_usage())),
    ]);
    object(vec![
        (
            "choices",
            or_wrong(prop::collection::vec(choice, 0..3).prop_map(Value::Array)),
        ),
        ("usage", or_wrong(openai_usage())),
        (
            "error",
            prop_oneof![
                Just(json!({"message": "overloaded", "code": 529})),
                arb_json(),
            ]
            .boxed(),
        ),
    ])
}

fn anthropic_usage() -> BoxedStrategy<Value> {
    object(vec![
        ("input_tokens", number()),
        ("output_tokens", number()),
        ("cache_read_input_tokens", number()),
        ("cache_creation_input_tokens", number()),
    ])
}

/// A Messages API stream event: mostly one of the real shapes (with wrong
/// types and odd numbers inside), sometimes any mix of their fields.
fn anthropic_frame() -> BoxedStrategy<Value> {
    let block = object(vec![
        (
            "type",
            kind(&["tool_use", "text", "thinking", "redacted_thinking", "x"]),
        ),
        ("id", text()),
        ("name", text()),
        ("input", prop_oneof![Just(json!({})), arb_json()].boxed()),
        ("text", text()),
        ("thinking", text()),
        ("signature", text()),
    ]);
    let delta = object(vec![
        (
            "type",
            kind(&[
                "text_delta",
                "thinking_delta",
                "signature_delta",
                "input_json_delta",
                "x",
            ]),
        ),
        ("text", text()),
        ("thinking", text()),
        ("signature", text()),
        ("partial_json", text()),
        (
            "stop_reason",
            kind(&["end_turn", "tool_use", "max_tokens", "x"]),
        ),
    ]);
    let typed = |name: &'static str, fields: Vec<(&'static str, BoxedStrategy<Value>)>| {
        object(fields).prop_map(move |mut v| {
            if let Value::Object(m) = &mut v {
                m.insert("type".into(), name.into());
            }
            v
        })
    };
    let any_mix = object(vec![
        (
            "type",
            kind(&[
                "message_start",
                "content_block_start",
                "content_block_delta",
                "content_block_stop",
                "message_delta",
                "message_stop",
                "ping",
                "error",
                "x",
            ]),
        ),
        ("index", number()),
        (
            "message",
            or_wrong(object(vec![("usage", or_wrong(anthropic_usage()))])),
        ),
        ("content_block", or_wrong(block.clone())),
        ("delta", or_wrong(delta.clone())),
        ("usage", or_wrong(anthropic_usage())),
        ("error", arb_json().boxed()),
    ]);
    prop_oneof![
        1 => typed("message_start", vec![("message", object(vec![("usage", anthropic_usage())]))]),
        1 => typed("content_block_start", vec![("index", number()), ("content_block", block)]),
        3 => typed("content_block_delta", vec![("index", number()), ("delta", delta.clone())]),
        1 => typed("content_block_stop", vec![("index", number())]),
        1 => typed("message_delta", vec![("delta", delta), ("usage", anthropic_usage())]),
        1 => typed("error", vec![("error", arb_json().boxed())]),
        2 => any_mix,
    ]
    .boxed()
}

/// One SSE event carrying a generated frame, `[DONE]`, a comment or junk.
fn sse_event(frame: BoxedStrategy<Value>) -> impl Strategy<Value = Vec<u8>> {
    let event_name = prop::option::weighted(
        0.3,
        prop::sample::select(&["error", "message_start", "content_block_delta", "x"][..]),
    );
    prop_oneof![
        8 => (event_name, frame).prop_map(|(name, v)| {
            let mut out = Vec::new();
            if let Some(name) = name {
                out.extend_from_slice(format!("event: {name}\n").as_bytes());
            }
            out.extend_from_slice(format!("data: {v}\n\n").as_bytes());
            out
        }),
        1 => Just(b"data: [DONE]\n\n".to_vec()),
        1 => Just(b": keep-alive\n\n".to_vec()),
        1 => prop::collection::vec(any::<u8>(), 0..32)
            .prop_map(|junk| [&b"data: "[..], &junk, b"\n\n"].concat()),
    ]
}

fn split_at<'a>(input: &'a [u8], cuts: &[prop::sample::Index]) -> Vec<&'a [u8]> {
    let mut at: Vec<usize> = cuts.iter().map(|c| c.index(input.len() + 1)).collect();
    at.push(0);
    at.push(input.len());
    at.sort_unstable();
    at.windows(2).map(|w| &input[w[0]..w[1]]).collect()
}

/// The promises of [`StreamDecoder`] for a stream that ended well: calls
/// complete once each, in index order, after every piece of theirs; then at
/// most one usage and one finish reason, last.
fn check_events(events: &[StreamEvent], input_len: usize) -> Result<(), TestCaseError> {
    prop_assert!(
        events.len() <= 4 * input_len + 2,
        "{} events from {input_len} bytes",
        events.len()
    );
    let held = events
        .iter()
        .position(|e| {
            matches!(
                e,
                StreamEvent::ToolCallComplete { .. }
                    | StreamEvent::Usage(_)
                    | StreamEvent::Finish(_)
            )
        })
        .unwrap_or(events.len());
    let (deltas, tail) = events.split_at(held);
    let completes = tail
        .iter()
        .take_while(|e| matches!(e, StreamEvent::ToolCallComplete { .. }))
        .count();
    for (i, e) in tail[..completes].iter().enumerate() {
        let in_order = matches!(e, StreamEvent::ToolCallComplete { index, .. } if *index == i);
        prop_assert!(in_order, "completion {i} is {e:?}");
    }
    let rest = &tail[completes..];
    match rest {
        [] | [StreamEvent::Usage(_)] | [StreamEvent::Finish(_)] => {}
        [StreamEvent::Usage(_), StreamEvent::Finish(_)] => {}
        _ => prop_assert!(false, "held-back events out of order: {rest:?}"),
    }
    for e in deltas {
        match e {
            StreamEvent::ToolCallStart { index, .. }
            | StreamEvent::ToolCallArgsDelta { index, .. } => {
                prop_assert!(*index < completes, "{e:?} but {completes} calls completed");
            }
            _ => {}
        }
    }
    Ok(())
}

/// Decodes `events` (and the end marker, if any) whole and split at `cuts`:
/// the same outcome both ways, and a good outcome keeps the promises.
fn check_stream(
    target: &Target,
    events: &[Vec<u8>],
    end: Option<&[u8]>,
    cuts: &[prop::sample::Index],
) -> Result<(), TestCaseError> {
    let mut input = events.concat();
    input.extend_from_slice(end.unwrap_or_default());
    // `decode_chunks` also checks the owned SSE path against the borrowed one.
    let whole = decode_chunks(target, &[&input]);
    let split = decode_chunks(target, &split_at(&input, cuts));
    prop_assert_eq!(&whole, &split);
    if let Ok(events) = &whole {
        check_events(events, input.len())?;
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// OpenAI-compatible streams of near-valid chunks.
    #[test]
    fn openai_streams_never_crash(
        events in prop::collection::vec(sse_event(openai_chunk()), 0..10),
        ended in any::<bool>(),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..6),
    ) {
        let (p, m) = openai_target();
        let end = ended.then_some(&b"data: [DONE]\n\n"[..]);
        check_stream(&Target::new(&p, &m), &events, end, &cuts)?;
    }

    /// Anthropic streams of near-valid events.
    #[test]
    fn anthropic_streams_never_crash(
        events in prop::collection::vec(sse_event(anthropic_frame()), 0..10),
        ended in any::<bool>(),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..6),
    ) {
        let (p, m) = anthropic_target();
        let end = ended.then_some(&b"data: {\"type\":\"message_stop\"}\n\n"[..]);
        check_stream(&Target::new(&p, &m), &events, end, &cuts)?;
    }

    /// Arbitrary `data:` payloads (and event names) straight into both
    /// decoders: a value or an error each time, and `finish` after anything.
    #[test]
    fn arbitrary_data_payloads_never_crash(
        frames in prop::collection::vec(
            (
                prop::option::of(prop::sample::select(&["error", "message_stop", "x"][..])),
                prop_oneof![
                    prop::collection::vec(any::<u8>(), 0..64),
                    prop::collection::vec(any::<u8>(), 0..64).prop_map(|b| [&b"{"[..], &b].concat()),
                    arb_json().prop_map(|v| v.to_string().into_bytes()),
                ],
            ),
            0..8,
        )
    ) {
        let mut decoders: [Box<dyn StreamDecoder>; 2] = [
            Box::new(openai::OpenAiDecoder::new("o")),
            Box::new(anthropic::AnthropicDecoder::new("a")),
        ];
        for dec in &mut decoders {
            let mut out = Vec::new();
            for (event, data) in &frames {
                let _ = dec.on_event(SseEventRef::Message { event: *event, data }, &mut out);
                let _ = dec.on_event(SseEventRef::Comment, &mut out);
            }
            let _ = dec.finish(&mut out);
            let total: usize = frames.iter().map(|(_, d)| d.len()).sum();
            prop_assert!(out.len() <= 4 * total + 2);
        }
    }

    /// Whole (non-streamed) bodies: arbitrary bytes, arbitrary JSON and
    /// near-valid frames, for both kinds.
    #[test]
    fn completion_bodies_never_crash(
        body in prop_oneof![
            prop::collection::vec(any::<u8>(), 0..128),
            arb_json().prop_map(|v| v.to_string().into_bytes()),
            openai_chunk().prop_map(|v| v.to_string().into_bytes()),
            anthropic_frame().prop_map(|v| v.to_string().into_bytes()),
            prop::collection::vec(openai_chunk(), 0..3)
                .prop_map(|c| json!({"choices": c.iter().map(|c| json!({"message": c, "finish_reason": "stop"})).collect::<Vec<_>>()}).to_string().into_bytes()),
            prop::collection::vec(anthropic_frame(), 0..3)
                .prop_map(|c| json!({"type": "message", "content": c}).to_string().into_bytes()),
        ]
    ) {
        for (p, m) in [openai_target(), anthropic_target()] {
            let target = Target::new(&p, &m);
            if let Ok(events) = parse_completion(&target, &body) {
                check_events(&events, body.len())?;
            }
            // The plain decoder also takes any body as one data payload.
            let mut dec = decoder(&target).map_err(|e| TestCaseError::fail(e.to_string()))?;
            let mut out = Vec::new();
            let _ = dec.on_event(SseEventRef::Message { event: None, data: &body }, &mut out);
            let _ = dec.finish(&mut out);
        }
    }
}
