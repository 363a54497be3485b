//! Request bodies for the OpenAI-compatible wire.

use std::collections::BTreeMap;

use seekclaw_config::{Capabilities, ReasoningLevel};
use serde_json::json;

use crate::reasoning::Target;
use crate::testutil::{model, provider};
use crate::types::*;
use crate::wire::build_request;

fn caps(thinking: bool, reasoning: bool) -> Capabilities {
    Capabilities {
        thinking,
        reasoning,
        ..Capabilities::default()
    }
}

fn user(text: &str) -> ChatMessage {
    ChatMessage::User {
        text: text.into(),
        images: vec![],
    }
}

fn tool_loop_history() -> Vec<ChatMessage> {
    vec![
        user("fix it"),
        ChatMessage::Assistant {
            text: String::new(),
            thinking: Some(Thinking {
                text: "look at main.rs".into(),
                signature: None,
            }),
            tool_calls: vec![ToolCall {
                id: "call_1".into(),
                name: "read_file".into(),
                // Truncated by the model: repaired on the way out.
                arguments: r#"{"path":"src/main.rs""#.into(),
            }],
        },
        ChatMessage::Tool {
            call_id: "call_1".into(),
            name: "read_file".into(),
            content: "fn main() {}".into(),
            is_error: false,
            images: vec![],
        },
    ]
}

fn read_tool() -> ToolSpec {
    ToolSpec {
        name: "read_file".into(),
        description: "Read a file".into(),
        parameters: json!({"type":"object","properties":{"path":{"type":"string"}}}).into(),
    }
}

#[test]
fn deepseek_passes_reasoning_back() {
    let p = provider("deepseek", "openai", "https://api.deepseek.com/");
    let mut m = model("deepseek-reasoner", caps(true, true));
    m.max_output = 32768;
    let req = ChatRequest {
        system: "You are SeekClaw.".into(),
        messages: tool_loop_history(),
        tools: vec![read_tool()],
        reasoning: ReasoningLevel::Ultra,
        ..ChatRequest::default()
    };
    let w = build_request(&Target::new(&p, &m), &req).unwrap();
    assert_eq!(w.url, "https://api.deepseek.com/chat/completions");
    assert!(w.stream);
    assert_eq!(w.header("authorization"), Some("Bearer sk-deepseek-secret"));
    assert_eq!(
        w.json(),
        json!({
            "model": "deepseek-reasoner",
            "messages": [
                {"role": "system", "content": "You are SeekClaw."},
                {"role": "user", "content": "fix it"},
                {"role": "assistant", "content": "", "tool_calls": [
                    {"id": "call_1", "type": "function",
                     "function": {"name": "read_file", "arguments": "{\"path\":\"src/main.rs\"}"}}
                ], "reasoning_content": "look at main.rs"},
                {"role": "tool", "tool_call_id": "call_1", "content": "fn main() {}"},
            ],
            "stream": true,
            "stream_options": {"include_usage": true},
            // DeepSeek keeps max_tokens even for a reasoning model.
            "max_tokens": 32768,
            "reasoning_effort": "max",
            "tools": [{"type": "function", "function": {
                "name": "read_file", "description": "Read a file",
                "parameters": {"type":"object","properties":{"path":{"type":"string"}}}
            }}],
        })
    );
}

#[test]
fn kimi_passes_reasoning_back() {
    let p = provider("kimi", "openai", "https://api.moonshot.cn/v1");
    let m = model("kimi-k2-thinking", caps(true, false));
    let req = ChatRequest {
        messages: tool_loop_history(),
        reasoning: ReasoningLevel::Medium,
        max_output: Some(4000),
        temperature: Some(0.6),
        ..ChatRequest::default()
    };
    let w = build_request(&Target::new(&p, &m), &req).unwrap();
    assert_eq!(w.url, "https://api.moonshot.cn/v1/chat/completions");
    assert_eq!(
        w.json(),
        json!({
            "model": "kimi-k2-thinking",
            "messages": [
                {"role": "user", "content": "fix it"},
                {"role": "assistant", "content": "", "tool_calls": [
                    {"id": "call_1", "type": "function",
                     "function": {"name": "read_file", "arguments": "{\"path\":\"src/main.rs\"}"}}
                ], "reasoning_content": "look at main.rs"},
                {"role": "tool", "tool_call_id": "call_1", "content": "fn main() {}"},
            ],
            "stream": true,
            "stream_options": {"include_usage": true},
            "max_tokens": 4000,
            "temperature": 0.6,
            "reasoning_effort": "medium",
        })
    );
}

#[test]
fn openai_reasoning_model() {
    let mut p = provider("openai", "openai", "https://api.openai.com/v1");
    p.organization = Some("org-1".into());
    p.headers = Some(BTreeMap::from([
        ("X-Title".to_string(), "SeekClaw".to_string()),
        ("authorization".to_string(), "Bearer custom".to_string()),
    ]));
    let mut m = model("o3", caps(false, true));
    m.capabilities.max_reasoning_level = ReasoningLevel::High;
    m.max_output = 100_000;
    let mut messages = tool_loop_history();
    messages.push(ChatMessage::Assistant {
        text: "Done.".into(),
        thinking: Some(Thinking {
            text: "not sent to OpenAI".into(),
            signature: None,
        }),
        tool_calls: vec![],
    });
    let req = ChatRequest {
        messages,
        tools: vec![read_tool()],
        reasoning: ReasoningLevel::Ultra,
        ..ChatRequest::default()
    };
    let w = build_request(&Target::new(&p, &m), &req).unwrap();
    assert_eq!(
        w.headers,
        vec![
            ("OpenAI-Organization".to_string(), "org-1".to_string()),
            ("X-Title".to_string(), "SeekClaw".to_string()),
            ("authorization".to_string(), "Bearer custom".to_string()),
        ]
    );
    let body = &w.json();
    assert_eq!(body["max_completion_tokens"], 100_000);
    assert!(body.get("max_tokens").is_none());
    assert_eq!(body["reasoning_effort"], "high");
    assert_eq!(body["messages"][1].get("reasoning_content"), None);
    assert_eq!(
        body["messages"][3],
        json!({"role": "assistant", "content": "Done."})
    );
    assert_eq!(body["tools"][0]["function"]["name"], "read_file");
}

#[test]
fn plain_model_without_key_or_tools() {
    let mut p = provider("ollama", "openai", "http://localhost:11434/v1/");
    p.api_key = None;
    let mut m = model("llama3", caps(false, false));
    m.capabilities.tool_calling = false;
    let req = ChatRequest {
        messages: vec![user("hi")],
        tools: vec![read_tool()],
        reasoning: ReasoningLevel::High,
        ..ChatRequest::default()
    };
    let w = build_request(&Target::new(&p, &m), &req).unwrap();
    assert_eq!(w.url, "http://localhost:11434/v1/chat/completions");
    assert_eq!(w.header("authorization"), None);
    assert_eq!(
        w.json(),
        json!({
            "model": "llama3",
            "messages": [{"role": "user", "content": "hi"}],
            "stream": true,
            "stream_options": {"include_usage": true},
            "max_tokens": 8192,
        })
    );
}

#[test]
fn image_turn_is_not_streamed() {
    let p = provider("openai", "openai", "https://api.openai.com/v1");
    let m = model("gpt-4o", Capabilities::default());
    let png = ImageData {
        media_type: "image/png".into(),
        data_base64: "iVBORw0K".into(),
    };
    let req = ChatRequest {
        messages: vec![
            ChatMessage::User {
                text: "what is this?".into(),
                images: vec![png.clone()],
            },
            ChatMessage::Assistant {
                text: String::new(),
                thinking: None,
                tool_calls: vec![ToolCall {
                    id: "c".into(),
                    name: "capture_screen".into(),
                    arguments: String::new(),
                }],
            },
            ChatMessage::Tool {
                call_id: "c".into(),
                name: "capture_screen".into(),
                content: "screenshot".into(),
                is_error: false,
                images: vec![png],
            },
        ],
        ..ChatRequest::default()
    };
    let w = build_request(&Target::new(&p, &m), &req).unwrap();
    assert!(!w.stream);
    let image_part = json!({"type": "image_url",
        "image_url": {"url": "data:image/png;base64,iVBORw0K", "detail": "auto"}});
    assert_eq!(
        w.json(),
        json!({
            "model": "gpt-4o",
            "messages": [
                {"role": "user", "content": [
                    {"type": "text", "text": "what is this?"}, image_part.clone()]},
                {"role": "assistant", "content": "", "tool_calls": [{"id": "c", "type": "function",
                    "function": {"name": "capture_screen", "arguments": "{}"}}]},
                {"role": "tool", "tool_call_id": "c", "content": [
                    {"type": "text", "text": "screenshot"}, image_part]},
            ],
            "stream": false,
            "max_tokens": 8192,
        })
    );
}
