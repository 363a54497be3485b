//! Anthropic Messages API (reference §6.10), with signed thinking blocks kept
//! and sent back (the original dropped them, which breaks thinking tool loops).

mod decode;

use serde_json::{Map, Value, json};

use crate::args::arguments_value;
use crate::reasoning::{Target, anthropic_budget, effective_level, thinking_enabled};
use crate::types::{ChatMessage, ChatRequest, ImageData};
use crate::wire::{WireRequest, WireTool, api_key, join_url, with_custom_headers};

pub use decode::AnthropicDecoder;
pub(crate) use decode::parse_completion;

pub const ANTHROPIC_VERSION: &str = "2023-06-01";

/// `POST {baseUrl}/v1/messages` for `req`.
pub fn build_request(target: &Target, req: &ChatRequest) -> WireRequest {
    let caps = &target.model.capabilities;
    let caching = target.provider.prompt_caching;
    let has_images = req.messages.iter().any(|m| match m {
        ChatMessage::User { images, .. } | ChatMessage::Tool { images, .. } => !images.is_empty(),
        ChatMessage::Assistant { .. } => false,
    });
    let stream = caps.streaming && !has_images;

    let level = effective_level(target, req.reasoning);
    let mut max_tokens = req.max_output.unwrap_or(target.model.max_output);
    let budget = if thinking_enabled(target, level) {
        anthropic_budget(level, req.thinking_budget_tokens, max_tokens)
    } else {
        0
    };
    if budget > 0 {
        // The API requires max_tokens > budget_tokens; the formula's reserve
        // already guarantees it, this keeps it true if the formula changes.
        max_tokens = max_tokens.max(budget + 1);
    }

    let mut messages = messages(&req.messages);
    if caching && messages.len() >= 2 {
        let i = messages.len() - 2;
        if let Some((_, blocks)) = messages.get_mut(i) {
            // Thinking blocks cannot carry cache_control.
            if let Some(Value::Object(block)) = blocks
                .iter_mut()
                .rev()
                .find(|b| b["type"] != "thinking" && b["type"] != "redacted_thinking")
            {
                block.insert("cache_control".into(), ephemeral());
            }
        }
    }

    let mut body = Map::new();
    body.insert("model".into(), json!(target.model.id));
    body.insert("max_tokens".into(), json!(max_tokens));
    body.insert("stream".into(), json!(stream));
    if !req.system.is_empty() {
        let system = if caching {
            json!([{"type": "text", "text": req.system, "cache_control": ephemeral()}])
        } else {
            json!(req.system)
        };
        body.insert("system".into(), system);
    }
    let messages = messages
        .into_iter()
        .map(|(role, content)| json!({"role": role, "content": content}))
        .collect();
    body.insert("messages".into(), Value::Array(messages));
    if budget > 0 {
        body.insert(
            "thinking".into(),
            json!({"type": "enabled", "budget_tokens": budget}),
        );
    } else if let Some(t) = req.temperature {
        body.insert("temperature".into(), json!(t));
    }
    let mut tools: Vec<WireTool> = if caps.tool_calling {
        req.tools
            .iter()
            .map(|t| WireTool::Input {
                name: t.name.clone(),
                description: t.description.clone(),
                input_schema: t.parameters.clone(),
                cache_control: None,
            })
            .collect()
    } else {
        Vec::new()
    };
    if caching && let Some(WireTool::Input { cache_control, .. }) = tools.last_mut() {
        *cache_control = Some(ephemeral());
    }

    let mut headers = Vec::new();
    if let Some(key) = api_key(target) {
        headers.push(("x-api-key".into(), key.to_string()));
    }
    headers.push(("anthropic-version".into(), ANTHROPIC_VERSION.into()));
    WireRequest {
        url: messages_url(&target.provider.base_url),
        headers: with_custom_headers(target, headers),
        body: Value::Object(body),
        tools,
        stream,
    }
}

/// `{base}/v1/messages`, without doubling a `/v1` the base already has.
fn messages_url(base: &str) -> String {
    let trimmed = base.trim().trim_end_matches('/');
    if trimmed.ends_with("/v1") {
        join_url(trimmed, "/messages")
    } else {
        join_url(trimmed, "/v1/messages")
    }
}

fn ephemeral() -> Value {
    json!({"type": "ephemeral"})
}

/// Neutral messages as `(role, content blocks)`. Consecutive tool results form
/// one user message; messages that would have no blocks are left out (the API
/// rejects empty content, and merges the neighbours of the same role).
fn messages(msgs: &[ChatMessage]) -> Vec<(&'static str, Vec<Value>)> {
    let mut out: Vec<(&'static str, Vec<Value>)> = Vec::with_capacity(msgs.len());
    let mut results: Vec<Value> = Vec::new();
    for m in msgs {
        if let ChatMessage::Tool {
            call_id,
            content,
            is_error,
            images,
            ..
        } = m
        {
            let content = if images.is_empty() {
                json!(content)
            } else {
                let mut blocks = Vec::with_capacity(images.len() + 1);
                if !content.is_empty() {
                    blocks.push(json!({"type": "text", "text": content}));
                }
                blocks.extend(images.iter().map(image_block));
                Value::Array(blocks)
            };
            results.push(json!({
                "type": "tool_result",
                "tool_use_id": call_id,
                "content": content,
                "is_error": is_error,
            }));
            continue;
        }
        if !results.is_empty() {
            out.push(("user", std::mem::take(&mut results)));
        }
        match m {
            ChatMessage::User { text, images } => {
                let mut blocks: Vec<Value> = images.iter().map(image_block).collect();
                if !text.is_empty() {
                    blocks.push(json!({"type": "text", "text": text}));
                }
                if !blocks.is_empty() {
                    out.push(("user", blocks));
                }
            }
            ChatMessage::Assistant {
                text,
                thinking,
                tool_calls,
            } => {
                let mut blocks = Vec::with_capacity(tool_calls.len() + 2);
                if let Some(th) = thinking
                    && let Some(sig) = th.signature.as_deref().filter(|s| !s.is_empty())
                {
                    blocks.push(json!({"type": "thinking", "thinking": th.text, "signature": sig}));
                }
                if !text.is_empty() {
                    blocks.push(json!({"type": "text", "text": text}));
                }
                for c in tool_calls {
                    blocks.push(json!({
                        "type": "tool_use",
                        "id": c.id,
                        "name": c.name,
                        "input": arguments_value(&c.arguments),
                    }));
                }
                if !blocks.is_empty() {
                    out.push(("assistant", blocks));
                }
            }
            ChatMessage::Tool { .. } => {}
        }
    }
    if !results.is_empty() {
        out.push(("user", results));
    }
    out
}

fn image_block(img: &ImageData) -> Value {
    json!({"type": "image", "source": {
        "type": "base64",
        "media_type": img.media_type,
        "data": img.data_base64,
    }})
}

#[cfg(test)]
#[path = "anthropic_tests.rs"]
mod tests;
