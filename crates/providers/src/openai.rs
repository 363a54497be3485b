//! OpenAI-compatible chat completions (reference §6.10): OpenAI, DeepSeek, Kimi,
//! OpenRouter, Ollama, LM Studio, vLLM and other `kind:"openai"` servers.

mod decode;
#[cfg(test)]
mod decode_tests;
#[cfg(test)]
mod tests;

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

    let mut messages = Vec::with_capacity(req.messages.len() + 1);
    if !req.system.is_empty() {
        messages.push(json!({"role": "system", "content": req.system}));
    }
    for m in &req.messages {
        messages.push(message(m, pass_back_reasoning));
    }

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
            .map(|t| WireTool::Function {
                kind: "function",
                function: FunctionSpec {
                    name: t.name.clone(),
                    description: t.description.clone(),
                    parameters: t.parameters.clone(),
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

fn message(m: &ChatMessage, pass_back_reasoning: bool) -> Value {
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
        } => json!({"role": "tool", "tool_call_id": call_id, "content": content(text, images)}),
    }
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
