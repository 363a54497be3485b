//! OpenAI `chat.completions` rendering: `chat.completion.chunk` SSE and the JSON object.

use serde_json::{Map, Value, json};

use super::reply::{Reply, ResponseIds, Step, openai_reason, split_chars};

/// A fixed `created` keeps rendered streams reproducible.
const CREATED: u64 = 1_700_000_000;

/// The SSE events: a role chunk, one chunk per delta (tool calls: name first, then
/// argument pieces), the finish chunk, the usage chunk where scripted, `[DONE]`.
pub(crate) fn sse_events(reply: &Reply, ids: &ResponseIds) -> Vec<String> {
    let mut out = vec![chunk(
        ids,
        json!({"role": "assistant", "content": ""}),
        None,
    )];
    // Without a scripted Finish, the finish chunk follows the last content step.
    let auto_finish_at = match reply.finish_reason() {
        Some(_) => None,
        None => Some(
            reply
                .steps
                .iter()
                .rposition(is_content)
                .map_or(0, |i| i + 1),
        ),
    };
    let auto_reason = if reply.has_tool_calls() {
        "tool_calls"
    } else {
        "stop"
    };
    let mut tool_index = 0usize;
    for (i, step) in reply.steps.iter().enumerate() {
        if auto_finish_at == Some(i) {
            out.push(chunk(ids, json!({}), Some(auto_reason)));
        }
        match step {
            Step::Reasoning(t) => out.push(chunk(ids, json!({"reasoning_content": t}), None)),
            Step::Text(t) => out.push(chunk(ids, json!({"content": t}), None)),
            Step::ToolCall {
                id,
                name,
                arguments,
            } => {
                let head = json!({"tool_calls": [{
                    "index": tool_index,
                    "id": id,
                    "type": "function",
                    "function": {"name": name, "arguments": ""},
                }]});
                out.push(chunk(ids, head, None));
                for piece in split_chars(arguments, reply.args_chunk()) {
                    let delta = json!({"tool_calls": [{
                        "index": tool_index,
                        "function": {"arguments": piece},
                    }]});
                    out.push(chunk(ids, delta, None));
                }
                tool_index += 1;
            }
            Step::Usage {
                input,
                cached,
                output,
            } => {
                let body = json!({
                    "id": ids.id,
                    "object": "chat.completion.chunk",
                    "created": CREATED,
                    "model": ids.model,
                    "choices": [],
                    "usage": usage(*input, *cached, *output),
                });
                out.push(data(&body));
            }
            Step::Finish(r) => out.push(chunk(ids, json!({}), Some(openai_reason(r)))),
            Step::Raw(raw) => out.push(raw.clone()),
        }
    }
    if auto_finish_at == Some(reply.steps.len()) {
        out.push(chunk(ids, json!({}), Some(auto_reason)));
    }
    out.push("data: [DONE]\n\n".to_string());
    out
}

/// One text delta event (what [`Reply::text_flood`] repeats).
pub(crate) fn text_event(ids: &ResponseIds, text: &str) -> String {
    chunk(ids, json!({"content": text}), None)
}

/// The non-streaming `chat.completion` object built from the same steps.
pub(crate) fn completion(reply: &Reply, ids: &ResponseIds) -> Value {
    let mut reasoning = String::new();
    let mut text = String::new();
    let mut tool_calls = Vec::new();
    for step in &reply.steps {
        match step {
            Step::Reasoning(t) => reasoning.push_str(t),
            Step::Text(t) => text.push_str(t),
            Step::ToolCall {
                id,
                name,
                arguments,
            } => tool_calls.push(json!({
                "id": id,
                "type": "function",
                "function": {"name": name, "arguments": arguments},
            })),
            Step::Usage { .. } | Step::Finish(_) | Step::Raw(_) => {}
        }
    }
    let mut message = Map::new();
    message.insert("role".into(), json!("assistant"));
    // Like OpenAI: content is null when the answer is only tool calls.
    let content = if text.is_empty() && !tool_calls.is_empty() {
        Value::Null
    } else {
        Value::String(text)
    };
    message.insert("content".into(), content);
    if !reasoning.is_empty() {
        message.insert("reasoning_content".into(), Value::String(reasoning));
    }
    let has_tools = !tool_calls.is_empty();
    if has_tools {
        message.insert("tool_calls".into(), Value::Array(tool_calls));
    }
    let finish = reply
        .finish_reason()
        .map(openai_reason)
        .unwrap_or(if has_tools { "tool_calls" } else { "stop" });
    let mut out = json!({
        "id": ids.id,
        "object": "chat.completion",
        "created": CREATED,
        "model": ids.model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
    });
    if let (Some((input, cached, output)), Some(obj)) = (reply.usage_totals(), out.as_object_mut())
    {
        obj.insert("usage".into(), usage(input, cached, output));
    }
    out
}

fn is_content(step: &Step) -> bool {
    matches!(
        step,
        Step::Reasoning(_) | Step::Text(_) | Step::ToolCall { .. }
    )
}

fn usage(input: u64, cached: u64, output: u64) -> Value {
    json!({
        "prompt_tokens": input,
        "completion_tokens": output,
        "total_tokens": input + output,
        "prompt_tokens_details": {"cached_tokens": cached},
    })
}

fn chunk(ids: &ResponseIds, delta: Value, finish: Option<&str>) -> String {
    data(&json!({
        "id": ids.id,
        "object": "chat.completion.chunk",
        "created": CREATED,
        "model": ids.model,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }))
}

fn data(v: &Value) -> String {
    format!("data: {v}\n\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider_server::Wire;

    fn parse(events: &[String]) -> Vec<Value> {
        events
            .iter()
            .filter_map(|e| e.strip_prefix("data: "))
            .filter(|d| !d.starts_with("[DONE]"))
            .map(|d| serde_json::from_str(d.trim_end()).unwrap())
            .collect()
    }

    #[test]
    fn text_stream_has_role_content_finish_usage_done() {
        let r = Reply::new().text("Hel").text("lo").usage(12, 5, 3);
        let ev = r.render_sse(Wire::OpenAi, "m1");
        assert_eq!(ev.last().unwrap(), "data: [DONE]\n\n");
        let v = parse(&ev);
        assert_eq!(v.len(), 5);
        assert_eq!(v[0]["choices"][0]["delta"]["role"], "assistant");
        assert_eq!(v[1]["choices"][0]["delta"]["content"], "Hel");
        assert_eq!(v[1]["object"], "chat.completion.chunk");
        assert_eq!(v[1]["model"], "m1");
        assert_eq!(v[2]["choices"][0]["delta"]["content"], "lo");
        // Auto finish goes after the last content step, before usage.
        assert_eq!(v[3]["choices"][0]["finish_reason"], "stop");
        assert_eq!(v[4]["choices"], json!([]));
        assert_eq!(v[4]["usage"]["prompt_tokens"], 12);
        assert_eq!(v[4]["usage"]["completion_tokens"], 3);
        assert_eq!(v[4]["usage"]["prompt_tokens_details"]["cached_tokens"], 5);
    }

    #[test]
    fn tool_call_name_first_then_argument_pieces() {
        let r = Reply::new()
            .reasoning("think")
            .tool_call("call_1", "read_file", r#"{"path":"src/main.rs"}"#)
            .tool_call("call_2", "ls", "{}");
        let v = parse(&r.render_sse(Wire::OpenAi, "m"));
        assert_eq!(v[1]["choices"][0]["delta"]["reasoning_content"], "think");
        let head = &v[2]["choices"][0]["delta"]["tool_calls"][0];
        assert_eq!(head["index"], 0);
        assert_eq!(head["id"], "call_1");
        assert_eq!(head["type"], "function");
        assert_eq!(head["function"]["name"], "read_file");
        let mut args = String::new();
        let mut pieces = 0;
        for c in &v[3..] {
            let tc = &c["choices"][0]["delta"]["tool_calls"][0];
            if tc["index"] == 0 && tc.get("id").is_none() {
                args.push_str(tc["function"]["arguments"].as_str().unwrap());
                pieces += 1;
            }
        }
        assert_eq!(args, r#"{"path":"src/main.rs"}"#);
        assert!(pieces >= 3, "{pieces}");
        let second = v
            .iter()
            .find(|c| c["choices"][0]["delta"]["tool_calls"][0]["id"] == "call_2")
            .unwrap();
        assert_eq!(second["choices"][0]["delta"]["tool_calls"][0]["index"], 1);
        assert_eq!(
            v.last().unwrap()["choices"][0]["finish_reason"],
            "tool_calls"
        );
    }

    #[test]
    fn completion_object_from_steps() {
        let r = Reply::new()
            .reasoning("r1")
            .tool_call("c1", "f", "{\"a\":1}")
            .usage(7, 2, 1)
            .finish("tool_use");
        let v = r.render_json(Wire::OpenAi, "m");
        assert_eq!(v["object"], "chat.completion");
        let msg = &v["choices"][0]["message"];
        assert_eq!(msg["content"], Value::Null);
        assert_eq!(msg["reasoning_content"], "r1");
        assert_eq!(msg["tool_calls"][0]["function"]["arguments"], "{\"a\":1}");
        assert_eq!(v["choices"][0]["finish_reason"], "tool_calls");
        assert_eq!(v["usage"]["total_tokens"], 8);
    }
}
