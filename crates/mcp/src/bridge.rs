//! MCP tools as registry tools: `mcp__<server>__<tool>` names, definitions with
//! capped descriptions and schemas, and results rendered for the model (text and
//! images kept; errors are failed results, never failed turns).

use std::collections::HashSet;
use std::sync::{Arc, Weak};

use rmcp::model::{CallToolResult, ContentBlock, ResourceContents, Tool as McpToolDef};
use seekclaw_tools::budget;
use seekclaw_tools::{
    Tool, ToolContext, ToolDefinition, ToolFlags, ToolFuture, ToolImage, ToolOutput,
};
use serde_json::{Map, Value};

use crate::manager::{Slot, SlotMap};
use crate::spec::Transport;
use crate::sync::lock;

/// Longest tool name providers accept.
const MAX_NAME: usize = 64;
const MAX_DESCRIPTION: usize = 1024;
/// A bigger input schema is replaced by a bare object schema.
const MAX_SCHEMA_CHARS: usize = 16_384;

/// Words that mark a tool as changing something: hidden in plan/readonly modes.
const MUTATING_WORDS: &[&str] = &[
    "add",
    "append",
    "apply",
    "archive",
    "assign",
    "cancel",
    "clear",
    "close",
    "commit",
    "copy",
    "create",
    "delete",
    "deploy",
    "destroy",
    "disable",
    "drop",
    "edit",
    "enable",
    "exec",
    "execute",
    "insert",
    "install",
    "kill",
    "merge",
    "mkdir",
    "modify",
    "move",
    "mv",
    "patch",
    "post",
    "publish",
    "purge",
    "push",
    "put",
    "remove",
    "rename",
    "replace",
    "reset",
    "restart",
    "revert",
    "rm",
    "run",
    "save",
    "send",
    "set",
    "shell",
    "spawn",
    "start",
    "stop",
    "submit",
    "toggle",
    "trigger",
    "truncate",
    "uninstall",
    "update",
    "upload",
    "upsert",
    "write",
];

/// Replaces characters outside `[A-Za-z0-9_-]` with `-`.
pub fn sanitize(segment: &str) -> String {
    let s: String = segment
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '-'
            }
        })
        .collect();
    if s.is_empty() { "-".to_string() } else { s }
}

/// Allocates unique registry names for one turn's MCP tools.
#[derive(Debug, Default)]
pub struct Names {
    taken: HashSet<String>,
}

impl Names {
    /// Names already used by built-in tools.
    pub fn with_taken(taken: impl IntoIterator<Item = String>) -> Names {
        Names {
            taken: taken.into_iter().collect(),
        }
    }

    /// `mcp__<server>__<tool>`, at most 64 characters, `-2`, `-3`… on collisions.
    pub fn allocate(&mut self, server: &str, tool: &str) -> String {
        let base: String = format!("mcp__{}__{}", sanitize(server), sanitize(tool))
            .chars()
            .take(MAX_NAME)
            .collect();
        let mut name = base.clone();
        let mut n = 2;
        while self.taken.contains(&name) {
            let suffix = format!("-{n}");
            let keep = MAX_NAME.saturating_sub(suffix.len()).min(base.len());
            name = format!("{}{suffix}", &base[..keep]);
            n += 1;
        }
        self.taken.insert(name.clone());
        name
    }
}

/// Whether a tool changes things: its annotations when they say so, else its name.
pub fn looks_mutating(tool: &McpToolDef) -> bool {
    let hints = tool.annotations.as_ref();
    if hints.and_then(|a| a.destructive_hint) == Some(true) {
        return true;
    }
    if hints.and_then(|a| a.read_only_hint) == Some(true) {
        return false;
    }
    words(&tool.name)
        .iter()
        .any(|w| MUTATING_WORDS.contains(&w.as_str()))
}

/// `createIssue`, `create_issue`, `create-issue` → `create`, `issue`;
/// `SQLExecute` → `sql`, `execute`.
fn words(name: &str) -> Vec<String> {
    let chars: Vec<char> = name.chars().collect();
    let mut out = Vec::new();
    let mut cur = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_ascii_alphanumeric() {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            continue;
        }
        if c.is_ascii_uppercase() && i > 0 {
            let prev = chars[i - 1];
            let next_lower = chars.get(i + 1).is_some_and(|n| n.is_ascii_lowercase());
            let boundary = prev.is_ascii_lowercase()
                || prev.is_ascii_digit()
                || (prev.is_ascii_uppercase() && next_lower);
            if boundary && !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
        }
        cur.push(c.to_ascii_lowercase());
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// One MCP tool in a turn's registry.
pub struct McpTool {
    def: ToolDefinition,
    /// The server's own name for it.
    raw_name: String,
    /// The slot the tool was listed by; calls prefer the live slot of its spec.
    slot: Arc<Slot>,
    slots: Weak<SlotMap>,
}

impl McpTool {
    pub(crate) fn new(
        name: String,
        tool: &McpToolDef,
        slot: Arc<Slot>,
        slots: Weak<SlotMap>,
    ) -> McpTool {
        let server = slot.spec.name.clone();
        let description = match tool.description.as_deref().map(str::trim) {
            Some(d) if !d.is_empty() => d.chars().take(MAX_DESCRIPTION).collect(),
            _ => format!("Tool `{}` from MCP server `{server}`.", tool.name),
        };
        let mutating = looks_mutating(tool);
        // A remote server is the network: off when the session's network is off.
        let remote = !matches!(slot.spec.transport, Transport::Stdio { .. });
        McpTool {
            def: ToolDefinition {
                name,
                description,
                parameters: Arc::new(schema(&tool.input_schema)),
                flags: ToolFlags {
                    mutating,
                    network: remote,
                    vision: false,
                    display: false,
                    parallel_safe: !mutating,
                },
                status_label: format!("Calling {server}"),
                freeform: None,
            },
            raw_name: tool.name.to_string(),
            slot,
            slots,
        }
    }

    /// The server's current slot: after a reload or reconnect under the same
    /// spec, the new one; else the one the tool came from.
    fn live_slot(&self) -> Arc<Slot> {
        self.slots
            .upgrade()
            .and_then(|map| lock(&map).get(&self.slot.spec).cloned())
            .unwrap_or_else(|| self.slot.clone())
    }
}

fn schema(input: &Map<String, Value>) -> Value {
    let mut schema = input.clone();
    let too_big = serde_json::to_string(&schema).map_or(true, |s| s.len() > MAX_SCHEMA_CHARS);
    if too_big {
        schema = Map::new();
    }
    schema
        .entry("type")
        .or_insert_with(|| Value::String("object".into()));
    if !schema.contains_key("properties") {
        schema.insert("properties".into(), Value::Object(Map::new()));
    }
    Value::Object(schema)
}

impl Tool for McpTool {
    fn definition(&self) -> &ToolDefinition {
        &self.def
    }

    fn execute<'a>(&'a self, args: Value, ctx: &'a ToolContext) -> ToolFuture<'a> {
        Box::pin(async move {
            let arguments = match args {
                Value::Object(map) => map,
                Value::Null => Map::new(),
                other => {
                    return ToolOutput::error(format!(
                        "Invalid tool arguments: expected a JSON object, got {other}. Regenerate the tool call."
                    ));
                }
            };
            let name = &self.raw_name;
            let slot = self.live_slot();
            slot.touch_used();
            let server = &slot.spec.name;
            let caller = match slot.caller() {
                Ok(caller) => caller,
                Err(why) => {
                    return ToolOutput::error(format!(
                        "MCP tool `{name}` is unavailable: server '{server}' is not connected ({why})."
                    ));
                }
            };
            let timeout = slot.call_timeout();
            // While it runs, the server's questions go to this turn's person.
            let _in_flight = caller.enter(&ctx.owner, ctx.elicit.clone());
            let call = caller.within(timeout, caller.call(name, arguments));
            tokio::select! {
                _ = ctx.cancel.cancelled() => ToolOutput::error(format!("MCP tool `{name}` was cancelled.")),
                result = call => match result {
                    Err(_) => ToolOutput::error(format!(
                        "MCP tool `{name}` timed out after {}s.",
                        timeout.as_secs()
                    )),
                    Ok(Err(e)) => match slot.login_problem() {
                        // A refused refresh surfaces as a transport error: say what to do.
                        Some(why) => ToolOutput::error(format!("MCP tool `{name}` call failed: {why}")),
                        None => ToolOutput::error(format!("MCP tool `{name}` call failed: {e}")),
                    },
                    Ok(Ok(result)) => render(server, name, &result, ctx.max_output_chars),
                },
            }
        })
    }
}

/// Whether a text block already says what the structured content says: the same
/// JSON, or the one value of a `{"result": …}` wrapper (as SDKs produce).
fn mirrors(text: &str, structured: &Value) -> bool {
    let same = |v: &Value| match v {
        Value::String(s) => s.trim() == text.trim(),
        other => serde_json::from_str::<Value>(text).is_ok_and(|t| &t == other),
    };
    if same(structured) {
        return true;
    }
    match structured {
        Value::Object(map) if map.len() == 1 => map.values().all(same),
        _ => false,
    }
}

/// The model's view of a result: text blocks joined by newlines, images kept (and
/// marked in the text), resources inlined, structured content appended unless a
/// text block already mirrors it.
pub fn render(server: &str, tool: &str, result: &CallToolResult, max_chars: usize) -> ToolOutput {
    let mut parts: Vec<String> = Vec::new();
    let mut images = Vec::new();
    for block in &result.content {
        match block {
            ContentBlock::Text(t) => parts.push(t.text.clone()),
            ContentBlock::Image(i) => {
                parts.push(format!("[image: {}]", i.mime_type));
                images.push(ToolImage {
                    media_type: i.mime_type.clone(),
                    data_base64: i.data.clone(),
                });
            }
            ContentBlock::Audio(a) => parts.push(format!("[audio: {}]", a.mime_type)),
            ContentBlock::Resource(r) => parts.push(match &r.resource {
                ResourceContents::TextResourceContents { uri, text, .. } => {
                    format!("[resource {uri}]\n{text}")
                }
                ResourceContents::BlobResourceContents {
                    uri,
                    mime_type,
                    blob,
                    ..
                } => format!(
                    "[resource {uri} ({}, {} bytes base64)]",
                    mime_type.as_deref().unwrap_or("binary"),
                    blob.len()
                ),
                _ => "[resource]".to_string(),
            }),
            ContentBlock::ResourceLink(link) => {
                parts.push(format!("[resource link {} ({})]", link.uri, link.name));
            }
            #[allow(unreachable_patterns)]
            _ => parts.push("[unsupported content]".to_string()),
        }
    }
    if let Some(structured) = &result.structured_content
        && !parts.iter().any(|p| mirrors(p, structured))
    {
        parts.push(structured.to_string());
    }
    let text = parts.join("\n");
    let failed = result.is_error == Some(true);
    let text = if text.trim().is_empty() {
        if failed {
            format!("MCP tool `{tool}` reported an error without details.")
        } else {
            "(no output)".to_string()
        }
    } else {
        text
    };
    let content = budget::truncate(&text, max_chars.max(1000), "MCP result");
    let first = content
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or_default();
    let summary = budget::cut_line(first.trim(), 120);
    ToolOutput {
        success: !failed,
        summary: if failed {
            format!("{server}/{tool} failed: {summary}")
        } else {
            format!("{server}/{tool}: {summary}")
        },
        content,
        images,
        ..ToolOutput::default()
    }
}

#[cfg(test)]
#[path = "bridge_tests.rs"]
mod tests;
