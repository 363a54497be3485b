//! Stream and completion decoding for the OpenAI-compatible wire.

use seekclaw_config::Capabilities;

use super::OpenAiDecoder;
use crate::error::ProviderError;
use crate::reasoning::Target;
use crate::sse::SseEventRef;
use crate::testutil::{decode_chunks, decode_every_split, model, provider};
use crate::types::*;
use crate::wire::{StreamDecoder, parse_completion};

fn deepseek() -> (seekclaw_config::Provider, seekclaw_config::Model) {
    (
        provider("deepseek", "openai", "https://api.deepseek.com"),
        model("deepseek-chat", Capabilities::default()),
    )
}

/// A DeepSeek-style recording: role chunk, reasoning, text with multi-byte
/// characters, two tool calls with arguments split across chunks, finish,
/// a usage-only chunk, keep-alive comments and `[DONE]`.
const RECORDED: &str = concat!(
    ": keep-alive\n\n",
    "data: {\"id\":\"1\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":null,\"reasoning_content\":\"\"}}]}\n\n",
    "data: {\"id\":\"1\",\"choices\":[{\"index\":0,\"delta\":{\"reasoning_content\":\"想一想\"}}]}\n\n",
    "data: {\"id\":\"1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Café \\u00e9 你好\"}}]}\r\n\r\n",
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_a\",\"type\":\"function\",\"function\":{\"name\":\"read_file\",\"arguments\":\"\"}}]}}]}\n\n",
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"{\\\"pa\"}}]}}]}\n\n",
    ": ping\n",
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"th\\\":\\\"é.rs\\\"}\"}}]}}]}\n\n",
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":1,\"id\":\"call_b\",\"function\":{\"name\":\"bash\",\"arguments\":\"{}\"}}]}}]}\n\n",
    "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n",
    "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":1200,\"completion_tokens\":80,\"prompt_cache_hit_tokens\":1024,\"prompt_cache_miss_tokens\":176}}\n\n",
    "data: [DONE]\n\n",
);

#[test]
fn recorded_stream_in_every_split() {
    let (p, m) = deepseek();
    let events = decode_every_split(&Target::new(&p, &m), RECORDED.as_bytes());
    use StreamEvent::*;
    assert_eq!(
        events,
        vec![
            ReasoningDelta("想一想".into()),
            TextDelta("Café é 你好".into()),
            ToolCallStart {
                index: 0,
                id: "call_a".into(),
                name: "read_file".into()
            },
            ToolCallArgsDelta {
                index: 0,
                delta: "{\"pa".into()
            },
            ToolCallArgsDelta {
                index: 0,
                delta: "th\":\"é.rs\"}".into()
            },
            ToolCallStart {
                index: 1,
                id: "call_b".into(),
                name: "bash".into()
            },
            ToolCallArgsDelta {
                index: 1,
                delta: "{}".into()
            },
            ToolCallComplete {
                index: 0,
                call: ToolCall {
                    id: "call_a".into(),
                    name: "read_file".into(),
                    arguments: "{\"path\":\"é.rs\"}".into()
                }
            },
            ToolCallComplete {
                index: 1,
                call: ToolCall {
                    id: "call_b".into(),
                    name: "bash".into(),
                    arguments: "{}".into()
                }
            },
            Usage(TokenUsage {
                total_input_tokens: 1200,
                cached_input_tokens: 1024,
                cache_creation_input_tokens: 0,
                output_tokens: 80,
                reasoning_tokens: 0,
            }),
            Finish(FinishReason::ToolCalls),
        ]
    );
}

fn frames(data: &[&str]) -> String {
    data.iter().map(|d| format!("data: {d}\n\n")).collect()
}

fn decode(data: &[&str]) -> Result<Vec<StreamEvent>, ProviderError> {
    let (p, m) = deepseek();
    decode_chunks(&Target::new(&p, &m), &[frames(data).as_bytes()])
}

#[test]
fn usage_variants() {
    let cases = [
        (
            r#"{"prompt_tokens":10,"completion_tokens":2,"cached_tokens":4}"#,
            4,
        ),
        (
            r#"{"prompt_tokens":10,"completion_tokens":2,"prompt_tokens_details":{"cached_tokens":6}}"#,
            6,
        ),
        (
            r#"{"prompt_tokens":10,"completion_tokens":2,"prompt_tokens_details":null}"#,
            0,
        ),
        (
            r#"{"prompt_tokens":10,"completion_tokens":2,"prompt_cache_hit_tokens":3,"cached_tokens":4}"#,
            3,
        ),
        (
            r#"{"prompt_tokens":10,"completion_tokens":2,"prompt_tokens_details":{"cached_tokens":1},"completion_tokens_details":{"reasoning_tokens":1}}"#,
            1,
        ),
    ];
    for (usage, cached) in cases {
        let chunk =
            format!(r#"{{"choices":[{{"delta":{{}},"finish_reason":"stop"}}],"usage":{usage}}}"#);
        let events = decode(&[&chunk, "[DONE]"]).unwrap();
        assert_eq!(
            events,
            vec![
                StreamEvent::Usage(TokenUsage {
                    total_input_tokens: 10,
                    cached_input_tokens: cached,
                    cache_creation_input_tokens: 0,
                    output_tokens: 2,
                    reasoning_tokens: u64::from(usage.contains("reasoning_tokens")),
                }),
                StreamEvent::Finish(FinishReason::Stop),
            ],
            "{usage}"
        );
    }
    // Moonshot: usage inside the final choice.
    let events = decode(&[
        r#"{"choices":[{"index":0,"delta":{},"finish_reason":"length","usage":{"prompt_tokens":5,"completion_tokens":1,"cached_tokens":2}}]}"#,
        "[DONE]",
    ])
    .unwrap();
    assert_eq!(
        events,
        vec![
            StreamEvent::Usage(TokenUsage {
                total_input_tokens: 5,
                cached_input_tokens: 2,
                cache_creation_input_tokens: 0,
                output_tokens: 1,
                reasoning_tokens: 0,
            }),
            StreamEvent::Finish(FinishReason::Length),
        ]
    );
}

#[test]
fn openrouter_reasoning_and_odd_frames() {
    let events = decode(&[
        "\"just a string\"",
        "OPENROUTER PROCESSING",
        r#"{"choices":[{"delta":{"reasoning":"hmm","content":"ok"}}]}"#,
        r#"{"choices":[{"delta":{"content":""},"finish_reason":"stop"}]}"#,
    ])
    .unwrap();
    assert_eq!(
        events,
        vec![
            StreamEvent::ReasoningDelta("hmm".into()),
            StreamEvent::TextDelta("ok".into()),
            StreamEvent::Finish(FinishReason::Stop),
        ]
    );
}

#[test]
fn tool_call_quirks() {
    use StreamEvent::*;
    // Arguments before the name; no index at all; every call numbered 0.
    let events = decode(&[
        r#"{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"a","function":{"arguments":"{\"x\""}}]}}]}"#,
        r#"{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"name":"f","arguments":":1}"}}]}}]}"#,
        r#"{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"b","function":{"name":"g","arguments":"{}"}}]}}]}"#,
        r#"{"choices":[{"delta":{"tool_calls":[{"function":{"name":"h"}}]}}]}"#,
        r#"{"choices":[{"delta":{"tool_calls":[{"function":{"arguments":"{\"y\":2}"}}]}}]}"#,
        r#"{"choices":[{"delta":{},"finish_reason":"tool_calls"}]}"#,
    ])
    .unwrap();
    assert_eq!(
        events,
        vec![
            ToolCallStart {
                index: 0,
                id: "a".into(),
                name: "f".into()
            },
            ToolCallArgsDelta {
                index: 0,
                delta: "{\"x\"".into()
            },
            ToolCallArgsDelta {
                index: 0,
                delta: ":1}".into()
            },
            ToolCallStart {
                index: 1,
                id: "b".into(),
                name: "g".into()
            },
            ToolCallArgsDelta {
                index: 1,
                delta: "{}".into()
            },
            ToolCallStart {
                index: 2,
                id: "call_2".into(),
                name: "h".into()
            },
            ToolCallArgsDelta {
                index: 2,
                delta: "{\"y\":2}".into()
            },
            ToolCallComplete {
                index: 0,
                call: ToolCall {
                    id: "a".into(),
                    name: "f".into(),
                    arguments: "{\"x\":1}".into()
                }
            },
            ToolCallComplete {
                index: 1,
                call: ToolCall {
                    id: "b".into(),
                    name: "g".into(),
                    arguments: "{}".into()
                }
            },
            ToolCallComplete {
                index: 2,
                call: ToolCall {
                    id: "call_2".into(),
                    name: "h".into(),
                    arguments: "{\"y\":2}".into()
                }
            },
            Finish(FinishReason::ToolCalls),
        ]
    );
}

#[test]
fn error_frames() {
    let err = decode(&[r#"{"error":{"message":"Invalid model","type":"invalid_request_error"}}"#])
        .unwrap_err();
    assert_eq!(
        err,
        ProviderError::Stream {
            provider: "deepseek".into(),
            message: "Invalid model".into(),
            retryable: false
        }
    );
    let err = decode(&[r#"{"error":{"message":"Provider is Overloaded"}}"#]).unwrap_err();
    assert!(err.is_retryable());
    let err = decode(&[r#"{"error":{"code":429,"message":"slow down"}}"#]).unwrap_err();
    assert!(err.is_retryable());
    let err = decode(&[r#"{"error":"rate_limit_exceeded"}"#]).unwrap_err();
    assert!(
        matches!(&err, ProviderError::Stream { message, retryable: true, .. } if message == "rate_limit_exceeded")
    );
    // A broken frame mid-stream: retryable (the router only retries before the first event).
    let err = decode(&[r#"{"choices":[{"delta":{"content":"x"#]).unwrap_err();
    assert!(matches!(
        err,
        ProviderError::Stream {
            retryable: true,
            ..
        }
    ));
}

#[test]
fn end_of_stream_handling() {
    // Cut off: neither [DONE] nor a finish reason.
    let err = decode(&[r#"{"choices":[{"delta":{"content":"partial"}}]}"#]).unwrap_err();
    assert!(
        matches!(
            err,
            ProviderError::Stream {
                retryable: true,
                ..
            }
        ),
        "{err:?}"
    );
    // A finish reason without [DONE] is a complete answer.
    let events =
        decode(&[r#"{"choices":[{"delta":{"content":"a"},"finish_reason":"stop"}]}"#]).unwrap();
    assert_eq!(events.len(), 2);

    // [DONE] flushes at once; anything after it is ignored; finish adds nothing.
    let mut d = OpenAiDecoder::new("p");
    let mut out = Vec::new();
    let msg = |data: &'static str| SseEventRef::Message {
        event: None,
        data: data.as_bytes(),
    };
    d.on_event(SseEventRef::Comment, &mut out).unwrap();
    d.on_event(
        msg(r#"{"choices":[{"delta":{"content":"a"},"finish_reason":"stop"}]}"#),
        &mut out,
    )
    .unwrap();
    assert_eq!(out, vec![StreamEvent::TextDelta("a".into())]);
    assert!(!d.is_done());
    d.on_event(msg(" [DONE] "), &mut out).unwrap();
    assert!(d.is_done());
    assert_eq!(out.len(), 2);
    d.on_event(
        msg(r#"{"choices":[{"delta":{"content":"late"}}]}"#),
        &mut out,
    )
    .unwrap();
    d.finish(&mut out).unwrap();
    assert_eq!(
        out,
        vec![
            StreamEvent::TextDelta("a".into()),
            StreamEvent::Finish(FinishReason::Stop)
        ]
    );
}

#[test]
fn parser_reports_done() {
    let (p, m) = deepseek();
    let mut parser = crate::wire::StreamParser::new(&Target::new(&p, &m)).unwrap();
    let mut out = Vec::new();
    parser
        .push(
            b"data: {\"choices\":[{\"delta\":{\"content\":\"x\"}}]}\n\n",
            &mut out,
        )
        .unwrap();
    assert!(!parser.is_done());
    parser.push(b"data: [DONE]\n\n", &mut out).unwrap();
    assert!(parser.is_done());
    parser.finish(&mut out).unwrap();
    assert_eq!(out, vec![StreamEvent::TextDelta("x".into())]);
}

#[test]
fn non_streamed_completion() {
    let (p, m) = deepseek();
    let t = Target::new(&p, &m);
    let body = br#"{"id":"x","choices":[{"index":0,"message":{"role":"assistant",
        "content":[{"type":"text","text":"Hello "},{"type":"text","text":"world"}],
        "reasoning":"because",
        "tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{\"a\":1}"}},
                      {"type":"function","function":{"name":"g","arguments":{"b":2}}}]},
        "finish_reason":"tool_calls"}],
        "usage":{"prompt_tokens":9,"completion_tokens":3,"prompt_tokens_details":{"cached_tokens":8}}}"#;
    use StreamEvent::*;
    assert_eq!(
        parse_completion(&t, body).unwrap(),
        vec![
            ReasoningDelta("because".into()),
            TextDelta("Hello world".into()),
            ToolCallStart {
                index: 0,
                id: "c1".into(),
                name: "f".into()
            },
            ToolCallArgsDelta {
                index: 0,
                delta: "{\"a\":1}".into()
            },
            ToolCallStart {
                index: 1,
                id: "call_1".into(),
                name: "g".into()
            },
            ToolCallArgsDelta {
                index: 1,
                delta: "{\"b\":2}".into()
            },
            ToolCallComplete {
                index: 0,
                call: ToolCall {
                    id: "c1".into(),
                    name: "f".into(),
                    arguments: "{\"a\":1}".into()
                }
            },
            ToolCallComplete {
                index: 1,
                call: ToolCall {
                    id: "call_1".into(),
                    name: "g".into(),
                    arguments: "{\"b\":2}".into()
                }
            },
            Usage(TokenUsage {
                total_input_tokens: 9,
                cached_input_tokens: 8,
                cache_creation_input_tokens: 0,
                output_tokens: 3,
                reasoning_tokens: 0,
            }),
            Finish(FinishReason::ToolCalls),
        ]
    );
    let plain = br#"{"choices":[{"message":{"content":"hi","reasoning_content":"r"},"finish_reason":"stop"}]}"#;
    assert_eq!(
        parse_completion(&t, plain).unwrap(),
        vec![
            ReasoningDelta("r".into()),
            TextDelta("hi".into()),
            Finish(FinishReason::Stop)
        ]
    );
    // A gateway that streams although stream:false was asked.
    assert_eq!(parse_completion(&t, RECORDED.as_bytes()).unwrap().len(), 11);

    let err = parse_completion(&t, b"<html>502 Bad Gateway</html>").unwrap_err();
    assert!(err.is_retryable(), "{err:?}");
    let err = parse_completion(&t, br#"{"choices":[]}"#).unwrap_err();
    assert!(matches!(err, ProviderError::InvalidResponse { .. }));
    let err = parse_completion(&t, br#"{"choices":"nope"}"#).unwrap_err();
    assert!(matches!(err, ProviderError::InvalidResponse { .. }));
    let err = parse_completion(&t, br#"{"error":{"message":"quota"}}"#).unwrap_err();
    assert_eq!(err.to_string(), "deepseek stream failed: quota");
}

#[test]
fn unescaped_text_is_borrowed() {
    use crate::wire::Text;
    use std::borrow::Cow;
    let t: Option<Text> = serde_json::from_str(r#""plain""#).unwrap();
    assert!(matches!(t, Some(Text(Cow::Borrowed("plain")))));
    let t: Option<Text> = serde_json::from_str(r#""with \"escape\"""#).unwrap();
    assert!(matches!(t, Some(Text(Cow::Owned(_)))));
}

/// Whole-pipeline throughput (SSE + chunk JSON → events) against a plain
/// memchr line split. Run with `cargo test --release -p seekclaw-providers
/// stream_parser_throughput -- --ignored --nocapture`.
#[test]
#[ignore]
fn stream_parser_throughput() {
    let frame = "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hello wörld 你好\"},\"finish_reason\":null}]}\n\n";
    let stream = frame.repeat(10 * 1024 * 1024 / frame.len());
    let chunks: Vec<&[u8]> = stream.as_bytes().chunks(1400).collect();
    let t = std::time::Instant::now();
    let mut lines = 0usize;
    for c in &chunks {
        let mut start = 0;
        for nl in memchr::memchr_iter(b'\n', c) {
            std::hint::black_box(&c[start..nl]);
            lines += 1;
            start = nl + 1;
        }
    }
    let base = t.elapsed();
    let (p, m) = deepseek();
    let mut parser = crate::wire::StreamParser::new(&Target::new(&p, &m)).unwrap();
    let mut out = Vec::new();
    let mut events = 0;
    let t = std::time::Instant::now();
    for c in &chunks {
        parser.push(c, &mut out).unwrap();
        events += out.len();
        out.clear();
    }
    let ours = t.elapsed();
    println!(
        "lines {lines} events {events}: baseline {base:?}, parser {ours:?}, ratio {:.3}",
        base.as_secs_f64() / ours.as_secs_f64()
    );
}
