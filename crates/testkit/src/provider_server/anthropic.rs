//! Anthropic `messages` rendering: the typed SSE events and the JSON message.

use serde_json::{Value, json};

use super::reply::{Reply, ResponseIds, Step, anthropic_reason, split_chars};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Thinking,
    Text,
}

/// Builds the block events; consecutive reasoning (or text) steps share one block.
struct Blocks {
    out: Vec<String>,
    open: Option<Kind>,
    index: usize,
    thinking_blocks: usize,
}

impl Blocks {
    fn close(&mut self) {
        let Some(kind) = self.open.take() else {
            return;
        };
        if kind == Kind::Thinking {
            let delta =
                json!({"type": "signature_delta", "signature": signature(self.thinking_blocks)});
            self.delta(delta);
            self.thinking_blocks += 1;
        }
        self.out.push(event(
            "content_block_stop",
            &json!({"type": "content_block_stop", "index": self.index}),
        ));
        self.index += 1;
    }

    fn start(&mut self, block: Value) {
        self.out.push(event(
            "content_block_start",
            &json!({"type": "content_block_start", "index": self.index, "content_block": block}),
        ));
    }

    fn delta(&mut self, delta: Value) {
        self.out.push(event(
            "content_block_delta",
            &json!({"type": "content_block_delta", "index": self.index, "delta": delta}),
        ));
    }

    fn ensure(&mut self, kind: Kind) {
        if self.open == Some(kind) {
            return;
        }
        self.close();
        match kind {
            Kind::Thinking => self.start(json!({"type": "thinking", "thinking": ""})),
            Kind::Text => self.start(json!({"type": "text", "text": ""})),
        }
        self.open = Some(kind);
    }
}

/// `message_start`, the content blocks (thinking with a signature, text, tool_use
/// with split `input_json_delta`), `message_delta` with the stop reason and output
/// tokens, `message_stop`.
pub(crate) fn sse_events(reply: &Reply, ids: &ResponseIds) -> Vec<String> {
    let (input, cached, output) = reply.usage_totals().unwrap_or_default();
    let mut start = message_shell(ids, Value::Null, usage(input, cached, 1));
    if let Some(m) = start.get_mut("content") {
        *m = json!([]);
    }
    let mut b = Blocks {
        out: vec![event(
            "message_start",
            &json!({"type": "message_start", "message": start}),
        )],
        open: None,
        index: 0,
        thinking_blocks: 0,
    };
    for step in &reply.steps {
        match step {
            Step::Reasoning(t) => {
                b.ensure(Kind::Thinking);
                b.delta(json!({"type": "thinking_delta", "thinking": t}));
            }
            Step::Text(t) => {
                b.ensure(Kind::Text);
                b.delta(json!({"type": "text_delta", "text": t}));
            }
            Step::ToolCall {
                id,
                name,
                arguments,
            } => {
                b.close();
                b.start(json!({"type": "tool_use", "id": id, "name": name, "input": {}}));
                for piece in split_chars(arguments, reply.args_chunk()) {
                    b.delta(json!({"type": "input_json_delta", "partial_json": piece}));
                }
                b.out.push(event(
                    "content_block_stop",
                    &json!({"type": "content_block_stop", "index": b.index}),
                ));
                b.index += 1;
            }
            Step::Raw(raw) => b.out.push(raw.clone()),
            // Usage and the stop reason travel in message_start / message_delta.
            Step::Usage { .. } | Step::Finish(_) => {}
        }
    }
    b.close();
    b.out.push(event(
        "message_delta",
        &json!({
            "type": "message_delta",
            "delta": {"stop_reason": stop_reason(reply), "stop_sequence": null},
            "usage": {"output_tokens": output},
        }),
    ));
    b.out
        .push(event("message_stop", &json!({"type": "message_stop"})));
    b.out
}

/// The non-streaming `message` object built from the same steps.
pub(crate) fn message(reply: &Reply, ids: &ResponseIds) -> Value {
    let mut content: Vec<Value> = Vec::new();
    let mut open: Option<Kind> = None;
    let mut thinking_blocks = 0usize;
    for step in &reply.steps {
        match step {
            Step::Reasoning(t) => {
                if open == Some(Kind::Thinking)
                    && let Some(last) = content.last_mut()
                {
                    append(last, "thinking", t);
                    continue;
                }
                content.push(json!({"type": "thinking", "thinking": t, "signature": signature(thinking_blocks)}));
                thinking_blocks += 1;
                open = Some(Kind::Thinking);
            }
            Step::Text(t) => {
                if open == Some(Kind::Text)
                    && let Some(last) = content.last_mut()
                {
                    append(last, "text", t);
                    continue;
                }
                content.push(json!({"type": "text", "text": t}));
                open = Some(Kind::Text);
            }
            Step::ToolCall {
                id,
                name,
                arguments,
            } => {
                // Anthropic always returns an object; an unparsable script stays visible as a string.
                let input = if arguments.trim().is_empty() {
                    json!({})
                } else {
                    serde_json::from_str(arguments)
                        .unwrap_or_else(|_| Value::String(arguments.clone()))
                };
                content.push(json!({"type": "tool_use", "id": id, "name": name, "input": input}));
                open = None;
            }
            Step::Usage { .. } | Step::Finish(_) | Step::Raw(_) => {}
        }
    }
    let (input, cached, output) = reply.usage_totals().unwrap_or_default();
    let mut msg = message_shell(
        ids,
        Value::String(stop_reason(reply).to_string()),
        usage(input, cached, output),
    );
    if let Some(c) = msg.get_mut("content") {
        *c = Value::Array(content);
    }
    msg
}

fn message_shell(ids: &ResponseIds, stop_reason: Value, usage: Value) -> Value {
    json!({
        "id": ids.id,
        "type": "message",
        "role": "assistant",
        "model": ids.model,
        "content": [],
        "stop_reason": stop_reason,
        "stop_sequence": null,
        "usage": usage,
    })
}

fn stop_reason(reply: &Reply) -> &str {
    match reply.finish_reason() {
        Some(r) => anthropic_reason(r),
        None if reply.has_tool_calls() => "tool_use",
        None => "end_turn",
    }
}

/// Anthropic counts cache reads apart from `input_tokens`.
fn usage(input: u64, cached: u64, output: u64) -> Value {
    json!({
        "input_tokens": input.saturating_sub(cached),
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": cached,
        "output_tokens": output,
    })
}

fn append(block: &mut Value, key: &str, t: &str) {
    let joined = format!("{}{t}", block[key].as_str().unwrap_or_default());
    block[key] = Value::String(joined);
}

fn signature(k: usize) -> String {
    format!("testkit-sig-{k}")
}

fn event(name: &str, data: &Value) -> String {
    format!("event: {name}\ndata: {data}\n\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider_server::Wire;

    fn parse(events: &[String]) -> Vec<(String, Value)> {
        events
            .iter()
            .map(|e| {
                let mut lines = e.lines();
                let name = lines.next().unwrap().strip_prefix("event: ").unwrap();
                let data = lines.next().unwrap().strip_prefix("data: ").unwrap();
                (name.to_string(), serde_json::from_str(data).unwrap())
            })
            .collect()
    }

    #[test]
    fn stream_blocks_in_order() {
        let r = Reply::new()
            .reasoning("a")
            .reasoning("b")
            .text("hi")
            .tool_call("tu_1", "bash", r#"{"cmd":"ls -la"}"#)
            .usage(100, 40, 9)
            .finish("tool_calls");
        let ev = parse(&r.render_sse(Wire::Anthropic, "claude"));
        let names: Vec<&str> = ev.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names[0], "message_start");
        assert_eq!(&names[names.len() - 2..], ["message_delta", "message_stop"]);
        let start = &ev[0].1["message"];
        assert_eq!(start["usage"]["input_tokens"], 60);
        assert_eq!(start["usage"]["cache_read_input_tokens"], 40);
        assert_eq!(start["model"], "claude");
        // thinking block 0: start, 2 deltas, signature, stop
        assert_eq!(ev[1].1["content_block"]["type"], "thinking");
        assert_eq!(ev[2].1["delta"]["thinking"], "a");
        assert_eq!(ev[3].1["delta"]["thinking"], "b");
        assert_eq!(ev[4].1["delta"]["type"], "signature_delta");
        assert_eq!(ev[4].1["delta"]["signature"], "testkit-sig-0");
        assert_eq!(ev[5].0, "content_block_stop");
        assert_eq!(ev[6].1["content_block"]["type"], "text");
        assert_eq!(ev[6].1["index"], 1);
        assert_eq!(
            ev[7].1["delta"],
            json!({"type": "text_delta", "text": "hi"})
        );
        assert_eq!(ev[9].1["content_block"]["type"], "tool_use");
        assert_eq!(ev[9].1["content_block"]["name"], "bash");
        assert_eq!(ev[9].1["index"], 2);
        let json: String = ev
            .iter()
            .filter(|(_, v)| v["delta"]["type"] == "input_json_delta")
            .map(|(_, v)| v["delta"]["partial_json"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(json, r#"{"cmd":"ls -la"}"#);
        let md = &ev[ev.len() - 2].1;
        assert_eq!(md["delta"]["stop_reason"], "tool_use");
        assert_eq!(md["usage"]["output_tokens"], 9);
    }

    #[test]
    fn message_object_from_steps() {
        let r = Reply::new()
            .reasoning("x")
            .reasoning("y")
            .text("t1")
            .text("t2")
            .tool_call("tu", "f", r#"{"a":1}"#)
            .usage(5, 0, 2);
        let m = r.render_json(Wire::Anthropic, "claude");
        assert_eq!(m["type"], "message");
        assert_eq!(m["content"][0]["thinking"], "xy");
        assert_eq!(m["content"][0]["signature"], "testkit-sig-0");
        assert_eq!(m["content"][1]["text"], "t1t2");
        assert_eq!(m["content"][2]["input"], json!({"a": 1}));
        assert_eq!(m["stop_reason"], "tool_use");
        assert_eq!(m["usage"]["output_tokens"], 2);
    }
}
