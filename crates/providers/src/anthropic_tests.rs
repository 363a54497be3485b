use seekclaw_config::{Capabilities, Model, Provider, ReasoningLevel};
use serde_json::json;

use crate::error::ProviderError;
use crate::reasoning::Target;
use crate::testutil::{decode_chunks, decode_every_split, model, provider};
use crate::types::*;
use crate::wire::{build_request, parse_completion};

fn claude(thinking: bool) -> (Provider, Model) {
    let mut m = model(
        "claude-sonnet-4",
        Capabilities {
            thinking,
            vision: true,
            ..Capabilities::default()
        },
    );
    m.max_output = 64000;
    (
        provider("anthropic", "anthropic", "https://api.anthropic.com"),
        m,
    )
}

fn tool(name: &str) -> ToolSpec {
    ToolSpec {
        name: name.into(),
        description: format!("{name} tool"),
        parameters: json!({"type": "object"}).into(),
        freeform: None,
    }
}

fn tool_result(id: &str, content: &str, is_error: bool) -> ChatMessage {
    ChatMessage::Tool {
        call_id: id.into(),
        name: "t".into(),
        content: content.into(),
        is_error,
        images: vec![],
    }
}

fn tool_loop() -> Vec<ChatMessage> {
    vec![
        ChatMessage::User {
            text: "fix it".into(),
            images: vec![],
        },
        ChatMessage::Assistant {
            text: "Reading.".into(),
            thinking: Some(Thinking {
                text: "plan".into(),
                signature: Some("sig-1".into()),
            }),
            tool_calls: vec![
                ToolCall {
                    id: "toolu_1".into(),
                    name: "read_file".into(),
                    arguments: r#"{"path":"a.rs"}"#.into(),
                },
                ToolCall {
                    id: "toolu_2".into(),
                    name: "bash".into(),
                    arguments: r#"{"cmd":"ls"#.into(),
                },
            ],
        },
        tool_result("toolu_1", "fn a() {}", false),
        tool_result("toolu_2", "boom", true),
    ]
}

#[test]
fn tool_loop_with_thinking_and_caching() {
    let (p, m) = claude(true);
    let req = ChatRequest {
        system: "You are SeekClaw.".into(),
        messages: tool_loop(),
        tools: vec![tool("read_file"), tool("bash")],
        temperature: Some(0.3),
        reasoning: ReasoningLevel::High,
        thinking_budget_tokens: 4096,
        ..ChatRequest::default()
    };
    let w = build_request(&Target::new(&p, &m), &req).unwrap();
    assert_eq!(w.url, "https://api.anthropic.com/v1/messages");
    assert!(w.stream);
    assert_eq!(w.header("x-api-key"), Some("sk-anthropic-secret"));
    assert_eq!(w.header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(w.header("authorization"), None);
    let eph = json!({"type": "ephemeral"});
    assert_eq!(
        w.json(),
        json!({
            "model": "claude-sonnet-4",
            "max_tokens": 64000,
            "stream": true,
            "system": [{"type": "text", "text": "You are SeekClaw.", "cache_control": eph}],
            "messages": [
                {"role": "user", "content": [{"type": "text", "text": "fix it"}]},
                {"role": "assistant", "content": [
                    {"type": "thinking", "thinking": "plan", "signature": "sig-1"},
                    {"type": "text", "text": "Reading."},
                    {"type": "tool_use", "id": "toolu_1", "name": "read_file", "input": {"path": "a.rs"}},
                    // Truncated arguments repaired; the second-to-last message's last block is cached.
                    {"type": "tool_use", "id": "toolu_2", "name": "bash", "input": {"cmd": "ls"},
                     "cache_control": eph},
                ]},
                {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_1", "content": "fn a() {}", "is_error": false},
                    {"type": "tool_result", "tool_use_id": "toolu_2", "content": "boom", "is_error": true},
                ]},
            ],
            // high × 4096 = 8192; no temperature with thinking.
            "thinking": {"type": "enabled", "budget_tokens": 8192},
            "tools": [
                {"name": "read_file", "description": "read_file tool", "input_schema": {"type": "object"}},
                {"name": "bash", "description": "bash tool", "input_schema": {"type": "object"},
                 "cache_control": eph},
            ],
        })
    );
}

#[test]
fn no_caching_no_thinking() {
    let (mut p, m) = claude(false);
    p.prompt_caching = false;
    p.api_key = None;
    p.base_url = "https://gateway.example.com/anthropic/v1/".into();
    let mut messages = tool_loop();
    messages.push(ChatMessage::Assistant {
        text: "Done.".into(),
        // No signature: not a block Anthropic would accept back.
        thinking: Some(Thinking {
            text: "unsigned".into(),
            signature: None,
        }),
        tool_calls: vec![],
    });
    // An empty step is left out rather than sent as empty content.
    messages.push(ChatMessage::Assistant {
        text: String::new(),
        thinking: None,
        tool_calls: vec![],
    });
    let req = ChatRequest {
        system: "sys".into(),
        messages,
        temperature: Some(0.3),
        max_output: Some(1000),
        reasoning: ReasoningLevel::Ultra,
        ..ChatRequest::default()
    };
    let w = build_request(&Target::new(&p, &m), &req).unwrap();
    assert_eq!(w.url, "https://gateway.example.com/anthropic/v1/messages");
    assert_eq!(w.header("x-api-key"), None);
    let body = &w.json();
    assert_eq!(body["system"], "sys");
    assert_eq!(body["temperature"], 0.3);
    assert_eq!(body["max_tokens"], 1000);
    assert!(body.get("thinking").is_none() && body.get("tools").is_none());
    let msgs = body["messages"].as_array().unwrap();
    assert_eq!(msgs.len(), 4);
    assert_eq!(
        msgs[3],
        json!({"role": "assistant", "content": [{"type": "text", "text": "Done."}]})
    );
    assert!(!body.to_string().contains("cache_control"));
}

#[test]
fn thinking_budget_respects_output_cap() {
    let (p, mut m) = claude(true);
    m.max_output = 8192;
    let req = ChatRequest {
        messages: vec![ChatMessage::User {
            text: "hi".into(),
            images: vec![],
        }],
        reasoning: ReasoningLevel::High,
        thinking_budget_tokens: 16384,
        temperature: Some(1.0),
        ..ChatRequest::default()
    };
    let w = build_request(&Target::new(&p, &m), &req).unwrap();
    assert_eq!(w.json()["max_tokens"], 8192);
    assert_eq!(
        w.json()["thinking"],
        json!({"type": "enabled", "budget_tokens": 6144})
    );
    assert!(w.json().get("temperature").is_none());
    // Below 2048 output tokens there is no room to think.
    let req = ChatRequest {
        max_output: Some(2000),
        ..req
    };
    let w = build_request(&Target::new(&p, &m), &req).unwrap();
    assert!(w.json().get("thinking").is_none());
    assert_eq!(w.json()["temperature"], 1.0);
}

#[test]
fn images_first_and_not_streamed() {
    let (p, m) = claude(false);
    let gif = ImageData {
        media_type: "image/gif".into(),
        data_base64: "R0lGOD".into(),
    };
    let req = ChatRequest {
        messages: vec![
            ChatMessage::User {
                text: "see".into(),
                images: vec![gif.clone()],
            },
            ChatMessage::Assistant {
                text: String::new(),
                thinking: None,
                tool_calls: vec![ToolCall {
                    id: "t1".into(),
                    name: "capture_screen".into(),
                    arguments: String::new(),
                }],
            },
            ChatMessage::Tool {
                call_id: "t1".into(),
                name: "capture_screen".into(),
                content: "captured".into(),
                is_error: false,
                images: vec![gif],
            },
        ],
        ..ChatRequest::default()
    };
    let w = build_request(&Target::new(&p, &m), &req).unwrap();
    assert!(!w.stream);
    let image = json!({"type": "image", "source": {"type": "base64", "media_type": "image/gif", "data": "R0lGOD"}});
    let eph = json!({"type": "ephemeral"});
    assert_eq!(
        w.json()["messages"],
        json!([
            {"role": "user", "content": [image.clone(), {"type": "text", "text": "see"}]},
            {"role": "assistant", "content": [
                {"type": "tool_use", "id": "t1", "name": "capture_screen", "input": {}, "cache_control": eph}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "is_error": false,
                "content": [{"type": "text", "text": "captured"}, image]}]},
        ])
    );
    assert_eq!(w.json()["stream"], false);
}

const RECORDED: &str = concat!(
    "event: message_start\n",
    "data: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"model\":\"claude-sonnet-4\",\"stop_reason\":null,\"usage\":{\"input_tokens\":100,\"cache_creation_input_tokens\":50,\"cache_read_input_tokens\":1000,\"output_tokens\":1}}}\n\n",
    "event: content_block_start\n",
    "data: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"thinking\",\"thinking\":\"\",\"signature\":\"\"}}\n\n",
    "event: content_block_delta\n",
    "data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"thinking_delta\",\"thinking\":\"想一想\"}}\n\n",
    "event: content_block_delta\n",
    "data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"signature_delta\",\"signature\":\"EqQB\"}}\n\n",
    "event: content_block_stop\n",
    "data: {\"type\":\"content_block_stop\",\"index\":0}\n\n",
    "event: ping\n",
    "data: {\"type\":\"ping\"}\n\n",
    "event: content_block_start\n",
    "data: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n",
    "event: content_block_delta\n",
    "data: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"text_delta\",\"text\":\"Café é\"}}\n\n",
    "event: content_block_stop\n",
    "data: {\"type\":\"content_block_stop\",\"index\":1}\n\n",
    "event: content_block_start\n",
    "data: {\"type\":\"content_block_start\",\"index\":2,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"read_file\",\"input\":{}}}\n\n",
    "event: content_block_delta\n",
    "data: {\"type\":\"content_block_delta\",\"index\":2,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"\"}}\n\n",
    "event: content_block_delta\n",
    "data: {\"type\":\"content_block_delta\",\"index\":2,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"pa\"}}\n\n",
    "event: content_block_delta\n",
    "data: {\"type\":\"content_block_delta\",\"index\":2,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"th\\\":\\\"你.rs\\\"}\"}}\n\n",
    "event: content_block_stop\n",
    "data: {\"type\":\"content_block_stop\",\"index\":2}\n\n",
    "event: content_block_start\n",
    "data: {\"type\":\"content_block_start\",\"index\":3,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_2\",\"name\":\"list\",\"input\":{}}}\n\n",
    "event: content_block_stop\n",
    "data: {\"type\":\"content_block_stop\",\"index\":3}\n\n",
    "event: message_delta\n",
    "data: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":42}}\n\n",
    "event: message_stop\n",
    "data: {\"type\":\"message_stop\"}\n\n",
);

#[test]
fn recorded_stream_in_every_split() {
    let (p, m) = claude(true);
    let events = decode_every_split(&Target::new(&p, &m), RECORDED.as_bytes());
    use StreamEvent::*;
    assert_eq!(
        events,
        vec![
            ReasoningDelta("想一想".into()),
            ReasoningSignature("EqQB".into()),
            TextDelta("Café é".into()),
            ToolCallStart {
                index: 0,
                id: "toolu_1".into(),
                name: "read_file".into()
            },
            ToolCallArgsDelta {
                index: 0,
                delta: "{\"pa".into()
            },
            ToolCallArgsDelta {
                index: 0,
                delta: "th\":\"你.rs\"}".into()
            },
            ToolCallStart {
                index: 1,
                id: "toolu_2".into(),
                name: "list".into()
            },
            ToolCallComplete {
                index: 0,
                call: ToolCall {
                    id: "toolu_1".into(),
                    name: "read_file".into(),
                    arguments: "{\"path\":\"你.rs\"}".into()
                }
            },
            ToolCallComplete {
                index: 1,
                call: ToolCall {
                    id: "toolu_2".into(),
                    name: "list".into(),
                    arguments: "{}".into()
                }
            },
            Usage(TokenUsage {
                total_input_tokens: 1150,
                cached_input_tokens: 1000,
                cache_creation_input_tokens: 50,
                output_tokens: 42,
                reasoning_tokens: 0,
            }),
            Finish(FinishReason::ToolCalls),
        ]
    );
}

fn decode(frames: &[&str]) -> Result<Vec<StreamEvent>, ProviderError> {
    let (p, m) = claude(true);
    let text: String = frames.iter().map(|f| format!("data: {f}\n\n")).collect();
    decode_chunks(&Target::new(&p, &m), &[text.as_bytes()])
}

#[test]
fn error_events() {
    for (kind, retryable) in [
        ("overloaded_error", true),
        ("api_error", true),
        ("rate_limit_error", true),
        ("invalid_request_error", false),
    ] {
        let frame = format!(r#"{{"type":"error","error":{{"type":"{kind}","message":"m"}}}}"#);
        let err = decode(&[&frame]).unwrap_err();
        assert_eq!(
            err,
            ProviderError::Stream {
                provider: "anthropic".into(),
                message: format!("{kind}: m"),
                retryable
            }
        );
    }
    // The event name alone identifies the frame when `type` is missing.
    let (p, m) = claude(true);
    let text = "event: error\ndata: {\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n";
    let err = decode_chunks(&Target::new(&p, &m), &[text.as_bytes()]).unwrap_err();
    assert!(err.is_retryable());
}

#[test]
fn end_of_stream_and_usage_merge() {
    // Cut off before message_delta / message_stop.
    let err = decode(&[
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"}}"#,
    ])
    .unwrap_err();
    assert!(matches!(
        err,
        ProviderError::Stream {
            retryable: true,
            ..
        }
    ));
    // A stop reason without message_stop is complete; message_delta usage
    // fields that are present replace earlier ones.
    let events = decode(&[
        r#"{"type":"message_start","message":{"usage":{"input_tokens":10,"output_tokens":1}}}"#,
        r#"{"type":"some_future_event","index":9}"#,
        r#"{"type":"content_block_delta","index":5,"delta":{"type":"input_json_delta","partial_json":"{}"}}"#,
        r#"{"type":"message_delta","delta":{"stop_reason":"max_tokens"},"usage":{"input_tokens":12,"output_tokens":7}}"#,
    ])
    .unwrap();
    assert_eq!(
        events,
        vec![
            StreamEvent::Usage(TokenUsage {
                total_input_tokens: 12,
                cached_input_tokens: 0,
                cache_creation_input_tokens: 0,
                output_tokens: 7,
                reasoning_tokens: 0,
            }),
            StreamEvent::Finish(FinishReason::Length),
        ]
    );
}

/// Found by `wire_proptests`: a block index sized a vector (`index + 1`
/// overflowed at `usize::MAX`, a large one allocated gigabytes per frame).
#[test]
fn huge_block_indices_allocate_nothing() {
    let max = u64::MAX;
    let events = decode(&[
        &format!(r#"{{"type":"content_block_start","index":{max},"content_block":{{}}}}"#),
        &format!(r#"{{"type":"content_block_start","index":{},"content_block":{{}}}}"#, max - 1),
        r#"{"type":"content_block_start","index":1000000000000,"content_block":{"type":"tool_use","id":"t","name":"n","input":{}}}"#,
        r#"{"type":"content_block_delta","index":1000000000000,"delta":{"type":"input_json_delta","partial_json":"{}"}}"#,
        r#"{"type":"content_block_delta","index":7,"delta":{"type":"input_json_delta","partial_json":"x"}}"#,
        r#"{"type":"message_stop"}"#,
    ])
    .unwrap();
    assert_eq!(
        events,
        vec![
            StreamEvent::ToolCallStart {
                index: 0,
                id: "t".into(),
                name: "n".into()
            },
            StreamEvent::ToolCallArgsDelta {
                index: 0,
                delta: "{}".into()
            },
            StreamEvent::ToolCallComplete {
                index: 0,
                call: ToolCall {
                    id: "t".into(),
                    name: "n".into(),
                    arguments: "{}".into()
                }
            },
        ]
    );
}

/// Found by `wire_proptests`: input + cache tokens overflowed `u64`.
#[test]
fn absurd_token_counts_saturate() {
    let events = decode(&[
        r#"{"type":"message_start","message":{"usage":{"input_tokens":18446744073709551615,"cache_creation_input_tokens":1,"cache_read_input_tokens":2}}}"#,
        r#"{"type":"message_stop"}"#,
    ])
    .unwrap();
    assert_eq!(
        events,
        vec![StreamEvent::Usage(TokenUsage {
            total_input_tokens: u64::MAX,
            cached_input_tokens: 2,
            cache_creation_input_tokens: 1,
            output_tokens: 0,
            reasoning_tokens: 0,
        })]
    );
}

#[test]
fn non_streamed_message() {
    let (p, m) = claude(true);
    let t = Target::new(&p, &m);
    let body = br#"{"id":"msg_1","type":"message","role":"assistant","content":[
        {"type":"thinking","thinking":"hmm","signature":"sig"},
        {"type":"text","text":"Hi"},
        {"type":"tool_use","id":"toolu_9","name":"ls","input":{"dir":"."}}],
        "stop_reason":"tool_use",
        "usage":{"input_tokens":3,"cache_read_input_tokens":4,"output_tokens":5}}"#;
    use StreamEvent::*;
    assert_eq!(
        parse_completion(&t, body).unwrap(),
        vec![
            ReasoningDelta("hmm".into()),
            ReasoningSignature("sig".into()),
            TextDelta("Hi".into()),
            ToolCallStart {
                index: 0,
                id: "toolu_9".into(),
                name: "ls".into()
            },
            ToolCallArgsDelta {
                index: 0,
                delta: "{\"dir\":\".\"}".into()
            },
            ToolCallComplete {
                index: 0,
                call: ToolCall {
                    id: "toolu_9".into(),
                    name: "ls".into(),
                    arguments: "{\"dir\":\".\"}".into()
                }
            },
            Usage(TokenUsage {
                total_input_tokens: 7,
                cached_input_tokens: 4,
                cache_creation_input_tokens: 0,
                output_tokens: 5,
                reasoning_tokens: 0,
            }),
            Finish(FinishReason::ToolCalls),
        ]
    );
    // SSE in a non-streamed answer.
    assert_eq!(parse_completion(&t, RECORDED.as_bytes()).unwrap().len(), 11);
    let err = parse_completion(
        &t,
        br#"{"type":"error","error":{"type":"overloaded_error","message":"busy"}}"#,
    )
    .unwrap_err();
    assert!(err.is_retryable());
    let err = parse_completion(&t, br#"{"type":"message"}"#).unwrap_err();
    assert!(matches!(err, ProviderError::InvalidResponse { .. }));
}
