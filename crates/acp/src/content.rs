//! A `session/prompt`'s content blocks as the engine's user message: text
//! joined, images taken in by the engine's image rules, resource links named
//! (the model can read them with its tools), embedded resources inlined.

use seekclaw_agent::UserImage;
use seekclaw_protocol::Params;
use serde_json::{Map, Value, json};

use crate::rpc::RpcError;

/// The message a prompt makes.
#[derive(Debug, Default)]
pub struct Message {
    /// The text, blocks in order.
    pub text: String,
    /// Its images.
    pub images: Vec<UserImage>,
}

/// Reads `prompt` (an array of ACP content blocks).
pub fn message(prompt: &Value) -> Result<Message, RpcError> {
    let blocks = prompt
        .as_array()
        .ok_or_else(|| RpcError::params("params.prompt must be an array of content blocks"))?;
    let mut parts: Vec<String> = Vec::new();
    let mut images = Vec::new();
    for (i, block) in blocks.iter().enumerate() {
        let kind = block["type"].as_str().unwrap_or_default();
        match kind {
            "text" => parts.push(string(block, "text", i)?.to_string()),
            "image" => images.push(image(block, images.len() + 1, i)?),
            "resource_link" => {
                let uri = string(block, "uri", i)?;
                let name = block["name"].as_str().unwrap_or(uri);
                parts.push(format!("[Referenced: {name} <{uri}>]"));
            }
            "resource" => parts.push(embedded(&block["resource"], &mut images, i)?),
            "audio" => {
                return Err(RpcError::params(format!(
                    "prompt[{i}]: audio is not supported (promptCapabilities.audio is false)"
                )));
            }
            other => {
                return Err(RpcError::params(format!(
                    "prompt[{i}]: unknown content block type {other:?}"
                )));
            }
        }
    }
    let images = checked(images)?;
    Ok(Message {
        text: parts.join("\n\n"),
        images,
    })
}

fn string<'v>(block: &'v Value, field: &str, i: usize) -> Result<&'v str, RpcError> {
    block[field]
        .as_str()
        .ok_or_else(|| RpcError::params(format!("prompt[{i}].{field} must be a string")))
}

fn image(block: &Value, n: usize, i: usize) -> Result<Value, RpcError> {
    let data = string(block, "data", i)?;
    let media_type = string(block, "mimeType", i)?;
    let name = block["uri"]
        .as_str()
        .and_then(|u| u.rsplit('/').next())
        .filter(|s| !s.is_empty())
        .map_or_else(|| format!("image-{n}"), str::to_string);
    Ok(json!({"name": name, "mediaType": media_type, "data": data}))
}

/// An embedded resource: text inline, with its uri; an image blob as an
/// image; another blob is refused (the model could not read it).
fn embedded(resource: &Value, images: &mut Vec<Value>, i: usize) -> Result<String, RpcError> {
    let uri = resource["uri"]
        .as_str()
        .ok_or_else(|| RpcError::params(format!("prompt[{i}].resource.uri must be a string")))?;
    if let Some(text) = resource["text"].as_str() {
        return Ok(format!("<context uri=\"{uri}\">\n{text}\n</context>"));
    }
    let mime = resource["mimeType"].as_str().unwrap_or_default();
    match resource["blob"].as_str() {
        Some(blob) if mime.starts_with("image/") => {
            let name = uri.rsplit('/').next().unwrap_or(uri).to_string();
            images.push(json!({"name": name, "mediaType": mime, "data": blob}));
            Ok(format!("[Attached image: {uri}]"))
        }
        Some(_) => Err(RpcError::params(format!(
            "prompt[{i}]: the binary resource {uri} ({mime}) cannot be read by the model"
        ))),
        None => Err(RpcError::params(format!(
            "prompt[{i}].resource needs \"text\" or \"blob\""
        ))),
    }
}

/// The engine's image rules (types, sizes, count), shared with the daemon.
fn checked(images: Vec<Value>) -> Result<Vec<UserImage>, RpcError> {
    if images.is_empty() {
        return Ok(Vec::new());
    }
    let mut params = Map::new();
    params.insert("images".into(), Value::Array(images));
    Ok(seekclaw_engine::parse_images(&Params::new(params))?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_join_in_order() {
        let m = message(&json!([
            {"type": "text", "text": "look at"},
            {"type": "resource_link", "uri": "file:///w/a.rs", "name": "a.rs"},
            {"type": "resource", "resource": {"uri": "file:///w/b.rs", "text": "fn b() {}"}},
        ]))
        .unwrap();
        assert_eq!(
            m.text,
            "look at\n\n[Referenced: a.rs <file:///w/a.rs>]\n\n<context uri=\"file:///w/b.rs\">\nfn b() {}\n</context>"
        );
    }

    #[test]
    fn bad_blocks_say_which() {
        let e = message(&json!([{"type": "text"}])).unwrap_err();
        assert_eq!(e.message, "prompt[0].text must be a string");
        let e =
            message(&json!([{"type": "audio", "data": "", "mimeType": "audio/wav"}])).unwrap_err();
        assert!(e.message.contains("audio is not supported"));
        assert!(message(&json!("hi")).is_err());
    }
}
