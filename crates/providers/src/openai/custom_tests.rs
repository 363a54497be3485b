//! Freeform (custom) tools on the chat-completions wire: sent with their
//! grammar to models that take them, decoded into `{"input": …}` arguments
//! (whole and streamed), replayed as custom calls.

use seekclaw_config::Capabilities;
use serde_json::{Value, json};

use crate::reasoning::Target;
use crate::testutil::{decode_every_split, model, provider};
use crate::types::*;
use crate::wire::{build_request, parse_completion};

fn patch_tool() -> ToolSpec {
    ToolSpec {
        name: "apply_patch".into(),
        description: "Edit files with a patch.".into(),
        parameters:
            json!({"type":"object","properties":{"input":{"type":"string"}},"required":["input"]})
                .into(),
        freeform: Some(ToolGrammar {
            syntax: "lark".into(),
            definition: "start: \"*** Begin Patch\"".into(),
        }),
    }
}

fn history() -> Vec<ChatMessage> {
    vec![
        ChatMessage::User {
            text: "fix".into(),
            images: vec![],
        },
        ChatMessage::Assistant {
            text: String::new(),
            thinking: None,
            tool_calls: vec![ToolCall {
                id: "call_1".into(),
                name: "apply_patch".into(),
                arguments: json!({"input": "*** Begin Patch\n*** End Patch"}).to_string(),
            }],
        },
        ChatMessage::Tool {
            call_id: "call_1".into(),
            name: "apply_patch".into(),
            content: "Updated a.rs".into(),
            is_error: false,
            images: vec![],
        },
    ]
}

fn body(base_url: &str, id: &str, caps: Capabilities) -> Value {
    let p = provider("openai", "openai", base_url);
    let m = model(id, caps);
    let req = ChatRequest {
        messages: history(),
        tools: vec![patch_tool()],
        ..ChatRequest::default()
    };
    build_request(&Target::new(&p, &m), &req).unwrap().json()
}

#[test]
fn gpt5_on_openai_gets_a_custom_tool_with_its_grammar_and_replays_custom_calls() {
    let b = body(
        "https://api.openai.com/v1",
        "gpt-5",
        Capabilities::default(),
    );
    assert_eq!(
        b["tools"],
        json!([{"type": "custom", "custom": {
            "name": "apply_patch",
            "description": "Edit files with a patch.",
            "format": {"type": "grammar", "grammar": {
                "syntax": "lark", "definition": "start: \"*** Begin Patch\"",
            }},
        }}])
    );
    assert_eq!(
        b["messages"][1]["tool_calls"],
        json!([{"id": "call_1", "type": "custom", "custom": {
            "name": "apply_patch", "input": "*** Begin Patch\n*** End Patch",
        }}])
    );
    assert_eq!(b["messages"][2]["role"], "tool");
    assert_eq!(b["messages"][2]["tool_call_id"], "call_1");
}

#[test]
fn elsewhere_it_is_a_function_tool() {
    for (url, id, caps) in [
        (
            "https://api.openai.com/v1",
            "gpt-4.1",
            Capabilities::default(),
        ),
        (
            "https://openrouter.ai/api/v1",
            "openai/gpt-5",
            Capabilities::default(),
        ),
        (
            "https://api.openai.com/v1",
            "gpt-5",
            Capabilities {
                freeform_tools: Some(false),
                ..Capabilities::default()
            },
        ),
    ] {
        let b = body(url, id, caps);
        assert_eq!(b["tools"][0]["type"], "function", "{url} {id}");
        assert_eq!(b["tools"][0]["function"]["name"], "apply_patch");
        assert_eq!(
            b["tools"][0]["function"]["parameters"]["required"],
            json!(["input"])
        );
        let call = &b["messages"][1]["tool_calls"][0];
        assert_eq!(call["type"], "function");
        assert_eq!(
            call["function"]["arguments"],
            json!({"input": "*** Begin Patch\n*** End Patch"}).to_string()
        );
    }
    // Opted in on another server.
    let caps = Capabilities {
        freeform_tools: Some(true),
        ..Capabilities::default()
    };
    let b = body("http://127.0.0.1:9/v1", "local", caps);
    assert_eq!(b["tools"][0]["type"], "custom");
}

fn completed(events: &[StreamEvent]) -> Vec<ToolCall> {
    events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::ToolCallComplete { call, .. } => Some(call.clone()),
            _ => None,
        })
        .collect()
}

const PATCH: &str = "*** Begin Patch\n*** Update File: a.rs\n@@\n-\"x\"\n+\"y\" é\n*** End Patch";

#[test]
fn a_whole_response_with_a_custom_call() {
    let response = json!({"choices": [{"message": {"role": "assistant", "content": null,
        "tool_calls": [{"id": "call_9", "type": "custom",
            "custom": {"name": "apply_patch", "input": PATCH}}]},
        "finish_reason": "tool_calls"}]});
    let p = provider("openai", "openai", "https://api.openai.com/v1");
    let m = model("gpt-5", Capabilities::default());
    let events = parse_completion(
        &Target::new(&p, &m),
        &serde_json::to_vec(&response).unwrap(),
    )
    .unwrap();
    let calls = completed(&events);
    assert_eq!(calls.len(), 1);
    assert_eq!(
        (calls[0].id.as_str(), calls[0].name.as_str()),
        ("call_9", "apply_patch")
    );
    let args: Value = serde_json::from_str(&calls[0].arguments).unwrap();
    assert_eq!(args, json!({"input": PATCH}));
}

#[test]
fn a_streamed_custom_call_in_every_split() {
    let piece = |s: &str| serde_json::to_string(s).unwrap();
    let (a, b) = PATCH.split_at(40);
    let stream = [
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_c\",\"type\":\"custom\",\"custom\":{\"name\":\"apply_patch\",\"input\":\"\"}}]}}]}\n\n"
            .to_string(),
        format!(
            "data: {{\"choices\":[{{\"index\":0,\"delta\":{{\"tool_calls\":[{{\"index\":0,\"custom\":{{\"input\":{}}}}}]}}}}]}}\n\n",
            piece(a)
        ),
        format!(
            "data: {{\"choices\":[{{\"index\":0,\"delta\":{{\"tool_calls\":[{{\"index\":0,\"custom\":{{\"input\":{}}}}}]}}}}]}}\n\n",
            piece(b)
        ),
        "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n".to_string(),
        "data: [DONE]\n\n".to_string(),
    ]
    .concat();
    let p = provider("openai", "openai", "https://api.openai.com/v1");
    let m = model("gpt-5", Capabilities::default());
    let target = Target::new(&p, &m);
    let events = decode_every_split(&target, stream.as_bytes());
    let calls = completed(&events);
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].name, "apply_patch");
    let args: Value = serde_json::from_str(&calls[0].arguments).unwrap();
    assert_eq!(args, json!({"input": PATCH}));
    // The argument deltas add up to the final arguments.
    let deltas: String = events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::ToolCallArgsDelta { delta, .. } => Some(delta.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(deltas, calls[0].arguments);
}
