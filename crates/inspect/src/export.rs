//! `seekclaw inspect --export FILE.html`: one self-contained page. The app's
//! script and style are inlined and allowed by their hashes in a CSP `<meta>`
//! tag (nothing else may run), and the sessions ride along as a JSON blob in
//! a `<script type="application/json">` block, which never executes.
//!
//! The file grows with the session, not with its square: the model view at
//! each step (what the model had been sent) is baked as the previous step's
//! view cut to its first `keep` messages plus the messages `add`ed, and the
//! system prompt and tool list, the same for every step, once per session.

use seekclaw_store::{EventItem, SessionEvent, TurnUsage};
use serde_json::{Map, Value, json};

use seekclaw_providers::types::ChatMessage;

use crate::data::{Data, SidebarRow, message_json, tools_tokens};
use crate::{InspectError, assets};

/// The export of `ids` (every session when empty).
pub fn export_html(data: &Data, ids: &[String]) -> Result<String, InspectError> {
    let all = data.sessions(true, None)?;
    let chosen: Vec<SidebarRow> = if ids.is_empty() {
        all
    } else {
        let mut out = Vec::new();
        for id in ids {
            let scope = data.scope_of(id, None)?;
            out.extend(
                all.iter()
                    .filter(|s| s.id == *id && s.scope == scope)
                    .cloned(),
            );
        }
        out
    };
    let mut logs = Map::new();
    for s in &chosen {
        let (scope, id) = (s.scope.as_str(), s.id.as_str());
        let events = data.all_events(scope, id)?;
        let context = data.turn_context(scope, id)?;
        let prompt = context.as_ref().map(|c| c.system_prompt.as_str());
        let tools = context.as_ref().and_then(|c| c.tools.as_deref());
        let usage = data.usage(scope, id)?;
        let mut log = log_json(&events, prompt, tools, &usage);
        // Which instruction files the prompt included, as the live page shows.
        let files = context.as_ref().and_then(|c| c.instructions.as_deref());
        if let Some(files) = files.and_then(|f| serde_json::from_str::<Value>(f).ok()) {
            log["instructionFiles"] = files;
        }
        logs.insert(format!("{scope}\n{id}"), log);
    }
    let blob = json!({"sessions": chosen, "logs": logs});
    Ok(page(&blob))
}

/// A session's events, its usage ledger per turn, and the model view at
/// each assistant step (the exported page has no server to ask) as a chain
/// of differences: a step's messages are the previous step's first `keep`
/// plus `add`. Steps extend the conversation, so `add` is mostly the step's
/// new messages; a summary or a repair rewrites only from where it changes.
fn log_json(
    events: &[SessionEvent],
    system_prompt: Option<&str>,
    tools: Option<&str>,
    usage: &[TurnUsage],
) -> Value {
    let tools: Option<Value> = tools.and_then(|t| serde_json::from_str(t).ok());
    let system_tokens = system_prompt.map_or(0, seekclaw_agent::estimate_text);
    // The previous step's messages (typed: comparing them is cheap; the
    // page's JSON and the token estimates are made for added ones only).
    let mut previous: Vec<(Option<u64>, ChatMessage)> = Vec::new();
    let mut tokens: Vec<u64> = Vec::new();
    let mut views = Vec::new();
    for e in events.iter().filter(|e| e.item.kind() == "assistant") {
        let before = &events[..events.partition_point(|x| x.seq < e.seq)];
        let messages = seekclaw_agent::model_messages(before);
        let keep = previous
            .iter()
            .zip(&messages)
            .take_while(|(a, b)| a == b)
            .count();
        tokens.truncate(keep);
        let add: Vec<Value> = messages[keep..]
            .iter()
            .map(|(from, m)| {
                let mut v = message_json(*from, m);
                tokens.push(v["tokens"].as_u64().unwrap_or(0));
                if let Some(event) = from.and_then(|seq| event_at(events, seq)) {
                    refer_to_event(&mut v, &event.item);
                }
                v
            })
            .collect();
        views.push(json!({
            "seq": e.seq,
            "keep": keep,
            "add": add,
            "messageTokens": tokens.iter().sum::<u64>(),
        }));
        previous = messages;
    }
    json!({
        "events": events,
        "usage": usage,
        "views": views,
        "systemPrompt": system_prompt,
        "systemTokens": system_tokens,
        "tools": tools,
        "toolTokens": tools_tokens(tools.as_ref()),
    })
}

/// The event with this seq (`events` in seq order).
fn event_at(events: &[SessionEvent], seq: u64) -> Option<&SessionEvent> {
    events
        .binary_search_by_key(&seq, |e| e.seq)
        .ok()
        .map(|i| &events[i])
}

/// A message's text (and reasoning) the same as its event's is left out,
/// marked `textFromEvent` (`thinkingFromEvent`): the page takes it from the
/// event, which the export carries anyway. Tool output is most of a long
/// session; this way it is in the file once.
fn refer_to_event(message: &mut Value, item: &EventItem) {
    let (text, thinking) = match item {
        EventItem::User(m) | EventItem::Steer(m) => (m.text.as_str(), None),
        EventItem::Assistant(a) => (a.text.as_str(), a.thinking.as_deref()),
        EventItem::ToolResult(r) => (r.output.as_str(), None),
        EventItem::Summary(s) => (s.text.as_str(), None),
        EventItem::Runtime(n) => (n.text.as_str(), None),
        EventItem::Terminal(t) => (t.text.as_str(), None),
        // The model is never sent either.
        EventItem::Rewind(_) | EventItem::Hook(_) => ("", None),
    };
    let Some(fields) = message.as_object_mut() else {
        return;
    };
    if !text.is_empty() && fields.get("text").and_then(Value::as_str) == Some(text) {
        fields.remove("text");
        fields.insert("textFromEvent".into(), Value::Bool(true));
    }
    if let Some(thinking) = thinking.filter(|t| !t.is_empty())
        && fields.get("thinking").and_then(Value::as_str) == Some(thinking)
    {
        fields.remove("thinking");
        fields.insert("thinkingFromEvent".into(), Value::Bool(true));
    }
}

/// `sha256-…` of an inline block, as CSP wants it.
fn hash(text: &str) -> String {
    use base64::Engine as _;
    use sha2::Digest as _;
    let digest = sha2::Sha256::digest(text.as_bytes());
    format!(
        "'sha256-{}'",
        base64::engine::general_purpose::STANDARD.encode(digest)
    )
}

/// The page around `blob`. `<` in the JSON is written `\u003c`, so no
/// content can close the data block or open a comment in it.
fn page(blob: &Value) -> String {
    let data = blob.to_string().replace('<', "\\u003c");
    let css = assets::APP_CSS;
    let js = assets::APP_JS;
    let csp = format!(
        "default-src 'none'; script-src {}; style-src {}; img-src data:; base-uri 'none'; form-action 'none'",
        hash(js),
        hash(css)
    );
    let body = body_of(assets::INDEX_HTML);
    format!(
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"{csp}\">\n\
         <meta name=\"referrer\" content=\"no-referrer\">\n\
         <title>seekclaw inspect (export)</title>\n<style>{css}</style>\n</head>\n\
         {body}\n<script type=\"application/json\" id=\"seekclaw-data\">{data}</script>\n\
         <script>{js}</script>\n</html>\n"
    )
}

/// The `<body>…</body>` of the served page, without its script tag.
fn body_of(index: &str) -> String {
    let start = index.find("<body").unwrap_or(0);
    let end = index
        .find("</body>")
        .map_or(index.len(), |e| e + "</body>".len());
    index[start..end].replace("<script src=\"/app.js\"></script>", "")
}

#[cfg(test)]
mod tests {
    use seekclaw_store::{AssistantMessage, ToolCall, ToolResult, UserMessage};

    use super::*;

    fn ev(seq: u64, item: EventItem) -> SessionEvent {
        SessionEvent {
            seq,
            unix_ms: 0,
            turn: None,
            item,
        }
    }

    /// `steps` steps of a tool call and its result, `chars` of output each.
    fn session(steps: u64, chars: usize) -> Vec<SessionEvent> {
        let mut events = vec![ev(
            1,
            EventItem::User(UserMessage {
                text: "go".into(),
                images: Vec::new(),
            }),
        )];
        for i in 0..steps {
            let id = format!("c{i}");
            events.push(ev(
                2 + 2 * i,
                EventItem::Assistant(AssistantMessage {
                    text: format!("step {i}"),
                    tool_calls: vec![ToolCall {
                        id: id.clone(),
                        name: "read_file".into(),
                        arguments_json: "{}".into(),
                    }],
                    ..AssistantMessage::default()
                }),
            ));
            events.push(ev(
                3 + 2 * i,
                EventItem::ToolResult(ToolResult {
                    tool_call_id: id,
                    tool_name: "read_file".into(),
                    success: true,
                    output: "x".repeat(chars),
                    ..ToolResult::default()
                }),
            ));
        }
        events
    }

    /// Each step's view rebuilt from the chain equals the view the server
    /// answers; the baked size grows with the session, not its square.
    #[test]
    fn views_chain_to_the_served_ones_and_grow_linearly() {
        let prompt = "p".repeat(4000);
        let events = session(60, 1000);
        let log = log_json(&events, Some(&prompt), Some("[]"), &[]);
        let mut messages: Vec<Value> = Vec::new();
        let mut referred = 0;
        for view in log["views"].as_array().unwrap() {
            let keep = view["keep"].as_u64().unwrap() as usize;
            messages.truncate(keep);
            for m in view["add"].as_array().unwrap() {
                let mut m = m.clone();
                if m.as_object_mut().unwrap().remove("textFromEvent").is_some() {
                    referred += 1;
                    let seq = m["seq"].as_u64().unwrap();
                    let item = &event_at(&events, seq).unwrap().item;
                    m["text"] = match item {
                        EventItem::ToolResult(r) => r.output.clone().into(),
                        EventItem::Assistant(a) => a.text.clone().into(),
                        EventItem::User(u) => u.text.clone().into(),
                        _ => unreachable!(),
                    };
                }
                messages.push(m);
            }
            let seq = view["seq"].as_u64().unwrap();
            let served = crate::data::model_view_of(&events, seq, Some(&prompt), Some("[]"));
            assert_eq!(
                Value::Array(messages.clone()),
                served["messages"],
                "step #{seq}"
            );
            let total = view["messageTokens"].as_u64().unwrap()
                + log["systemTokens"].as_u64().unwrap()
                + log["toolTokens"].as_u64().unwrap();
            assert_eq!(total, served["estimatedTokens"].as_u64().unwrap());
        }
        assert!(
            referred >= 110,
            "tool output and step texts come from their events"
        );
        let size = |steps| {
            log_json(&session(steps, 1000), Some(&prompt), None, &[])
                .to_string()
                .len()
        };
        let (small, large) = (size(50), size(200));
        assert!(
            large < small * 5,
            "50 steps: {small} bytes, 200 steps: {large} bytes"
        );
    }

    #[test]
    fn data_cannot_close_its_block() {
        let html = page(&json!({"x": "</script><script>alert(1)</script><!--"}));
        assert_eq!(html.matches("</script>").count(), 2, "{html}");
        assert!(!html.contains("<!--"));
        assert!(html.contains("script-src 'sha256-"));
    }
}
