//! OpenAI-compatible chat completions (reference §6.10): OpenAI, DeepSeek, Kimi,
//! OpenRouter, Ollama, LM Studio, vLLM and other `kind:"openai"` servers.

#[cfg(test)]
mod custom_tests;
mod decode;

use serde_json::{Map, Value, json};

use crate::args::sanitize_arguments;
use crate::reasoning::{Target, effective_level, is_deepseek, is_kimi, reasoning_effort};
use crate::types::{ChatMessage, ChatRequest, ImageData};
use crate::wire::{FunctionSpec, WireRequest, WireTool, api_key, join_url, with_custom_headers};

pub use decode::OpenAiDecoder;
pub(crate) use decode::parse_completion;

/// `POST {baseUrl}/chat/completions` for `req`.
pub fn build_request(target: &Target, req: &ChatRequest) -> WireRequest {
    let caps = &target.model.capabilities;
    let deepseek = is_deepseek(target);
    // Kimi rejects tool loops whose assistant steps lack their reasoning.
    let pass_back_reasoning = deepseek || is_kimi(target);
    let has_images = req.messages.iter().any(has_images);
    // Image turns go non-streaming, as in the original; a gateway that
    // streams anyway is handled by `parse_completion`.
    let stream = caps.streaming && !has_images;

    // Freeform tools go as custom tools, and their calls replay as custom calls.
    let freeform: Vec<&str> = if caps.tool_calling
        && seekclaw_config::uses_freeform_tools(target.provider, target.model)
    {
        req.tools
            .iter()
            .filter(|t| t.freeform.is_some())
            .map(|t| t.name.as_str())
            .collect()
    } else {
        Vec::new()
    };
    let mut messages = Vec::with_capacity(req.messages.len() + 1);
    if !req.system.is_empty() {
        messages.push(json!({"role": "system", "content": req.system}));
    }
    // Tool messages take text only: a tool's images (a screenshot) go in a
    // user message right after the run of tool results they belong to.
    let mut pending: Vec<(&str, &[ImageData])> = Vec::new();
    for m in &req.messages {
        if !matches!(m, ChatMessage::Tool { .. }) {
            flush_tool_images(&mut messages, &mut pending);
        }
        if let ChatMessage::Tool { name, images, .. } = m
            && !images.is_empty()
        {
            pending.push((name, images));
        }
        messages.push(message(m, pass_back_reasoning, &freeform));
    }
    flush_tool_images(&mut messages, &mut pending);

    let mut body = Map::new();
    body.insert("model".into(), json!(target.model.id));
    body.insert("messages".into(), Value::Array(messages));
    body.insert("stream".into(), json!(stream));
    if stream {
        body.insert("stream_options".into(), json!({"include_usage": true}));
    }
    let max_tokens = req.max_output.unwrap_or(target.model.max_output);
    let max_key = if caps.reasoning && !deepseek {
        "max_completion_tokens"
    } else {
        "max_tokens"
    };
    body.insert(max_key.into(), json!(max_tokens));
    if let Some(t) = req.temperature {
        body.insert("temperature".into(), json!(t));
    }
    let level = effective_level(target, req.reasoning);
    if let Some(effort) = reasoning_effort(target, level) {
        body.insert("reasoning_effort".into(), json!(effort));
    }
    let tools = if caps.tool_calling {
        req.tools
            .iter()
            .map(|t| match &t.freeform {
                Some(g) if freeform.contains(&t.name.as_str()) => WireTool::Custom {
                    kind: "custom",
                    custom: json!({
                        "name": t.name,
                        "description": t.description,
                        "format": {"type": "grammar", "grammar": {
                            "syntax": g.syntax, "definition": g.definition,
                        }},
                    }),
                },
                _ => WireTool::Function {
                    kind: "function",
                    function: FunctionSpec {
                        name: t.name.clone(),
                        description: t.description.clone(),
                        parameters: t.parameters.clone(),
                    },
                },
            })
            .collect()
    } else {
        Vec::new()
    };

    let mut headers = Vec::new();
    if let Some(key) = api_key(target) {
        headers.push(("Authorization".into(), format!("Bearer {key}")));
    }
    if let Some(org) = target
        .provider
        .organization
        .as_deref()
        .filter(|o| !o.trim().is_empty())
    {
        headers.push(("OpenAI-Organization".into(), org.trim().to_string()));
    }
    WireRequest {
        url: join_url(&target.provider.base_url, "/chat/completions"),
        headers: with_custom_headers(target, headers),
        body: Value::Object(body),
        tools,
        stream,
    }
}

fn has_images(m: &ChatMessage) -> bool {
    match m {
        ChatMessage::User { images, .. } | ChatMessage::Tool { images, .. } => !images.is_empty(),
        ChatMessage::Assistant { .. } => false,
    }
}

fn message(m: &ChatMessage, pass_back_reasoning: bool, freeform: &[&str]) -> Value {
    match m {
        ChatMessage::User { text, images } => {
            json!({"role": "user", "content": content(text, images)})
        }
        ChatMessage::Assistant {
            text,
            thinking,
            tool_calls,
        } => {
            let mut msg = Map::new();
            msg.insert("role".into(), json!("assistant"));
            // Some servers reject `null` content; an empty string is always accepted.
            msg.insert("content".into(), json!(text));
            if !tool_calls.is_empty() {
                let calls = tool_calls
                    .iter()
                    .map(|c| {
                        if freeform.contains(&c.name.as_str()) {
                            return custom_call(c);
                        }
                        json!({"id": c.id, "type": "function", "function": {
                            "name": c.name,
                            "arguments": sanitize_arguments(&c.arguments),
                        }})
                    })
                    .collect();
                msg.insert("tool_calls".into(), Value::Array(calls));
            }
            if pass_back_reasoning
                && let Some(th) = thinking.as_ref().filter(|t| !t.text.is_empty())
            {
                msg.insert("reasoning_content".into(), json!(th.text));
            }
            Value::Object(msg)
        }
        ChatMessage::Tool {
            call_id,
            content: text,
            images,
            ..
        } => {
            let text = if images.is_empty() || !text.is_empty() {
                text.clone()
            } else {
                "(image attached below)".to_string()
            };
            json!({"role": "tool", "tool_call_id": call_id, "content": text})
        }
    }
}

/// A freeform tool's call as the model made it: its raw input text (the
/// `input` of the arguments it was decoded into).
fn custom_call(c: &crate::types::ToolCall) -> Value {
    let input = serde_json::from_str::<Value>(&c.arguments)
        .ok()
        .and_then(|v| v.get("input").and_then(Value::as_str).map(str::to_string))
        .unwrap_or_else(|| c.arguments.clone());
    json!({"id": c.id, "type": "custom", "custom": {"name": c.name, "input": input}})
}

/// The user message carrying the images of the tool results just sent.
fn flush_tool_images(messages: &mut Vec<Value>, pending: &mut Vec<(&str, &[ImageData])>) {
    if pending.is_empty() {
        return;
    }
    let names: Vec<&str> = pending.iter().map(|(n, _)| *n).collect();
    let images: Vec<ImageData> = pending
        .drain(..)
        .flat_map(|(_, imgs)| imgs.iter().cloned())
        .collect();
    let text = format!(
        "Image(s) returned by the {} tool call(s) above.",
        names.join(", ")
    );
    messages.push(json!({"role": "user", "content": content(&text, &images)}));
}

/// A plain string, or text first then the images as data URLs.
fn content(text: &str, images: &[ImageData]) -> Value {
    if images.is_empty() {
        return json!(text);
    }
    let mut parts = Vec::with_capacity(images.len() + 1);
    if !text.is_empty() {
        parts.push(json!({"type": "text", "text": text}));
    }
    for img in images {
        parts.push(json!({"type": "image_url", "image_url": {
            "url": format!("data:{};base64,{}", img.media_type, img.data_base64),
            "detail": "auto",
        }}));
    }
    Value::Array(parts)
}

#[cfg(test)]
mod tests {
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
            freeform: None,
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
                    // Tool messages take text only: the image follows as a user message.
                    {"role": "tool", "tool_call_id": "c", "content": "screenshot"},
                    {"role": "user", "content": [
                        {"type": "text", "text": "Image(s) returned by the capture_screen tool call(s) above."},
                        image_part]},
                ],
                "stream": false,
                "max_tokens": 8192,
            })
        );
    }
}
