//! The JSON Schema (draft 2020-12) of the whole protocol, built from the method
//! and event tables: `seekclaw protocol schema` prints it.
//!
//! The document validates one envelope (a response line) at its root. Its
//! `$defs` hold the request, the envelope, every params, result and details
//! type. Two annotation keywords describe the rest:
//!
//! - `x-methods`: per method, in table order, its aliases, serving, capabilities,
//!   `params` (a `$ref`) and `reply`: the events that end it (`error` always may)
//!   and what their `data` holds. A JSON result is a string with
//!   `"contentMediaType": "application/json"` and a `contentSchema` (the
//!   standard content vocabulary, §8 of the validation spec: the string is
//!   JSON text whose value matches `contentSchema`); a plain-text result is a
//!   string, with a `pattern` when its form is fixed. A turn also lists the
//!   events it `streams`.
//! - `x-events`: per event, whether it is terminal, who gets it, what `data`
//!   holds, and its `details` schema (a `$ref`, or absent when it has none).

use schemars::generate::SchemaSettings;
use schemars::{JsonSchema, SchemaGenerator};
use serde_json::{Map, Value, json};

use crate::events::{Audience, EVENTS, event};
use crate::methods::{CAPABILITIES, METHODS, Reply, Serving};
use crate::request::RawRequestShape;

/// The `$schema` of the document.
pub const DIALECT: &str = "https://json-schema.org/draft/2020-12/schema";

/// The protocol's JSON Schema document (see the module docs for its layout).
pub fn schema() -> Value {
    build().0
}

/// The document, and the names of any `$defs` that two types claimed with
/// different schemas (none, or the table has a naming clash).
pub(crate) fn build() -> (Value, Vec<String>) {
    // Params are read (deserialize contract: optional fields may be absent);
    // results and details are written (serialize contract: every field that
    // is always written is required).
    let mut read = SchemaSettings::draft2020_12()
        .for_deserialize()
        .into_generator();
    let mut write = SchemaSettings::draft2020_12()
        .for_serialize()
        .into_generator();

    let methods = method_entries(&mut read, &mut write);
    let events = event_entries(&mut write);
    let request = request_schema(&mut read);
    let envelope = envelope_schema(&mut write);

    let mut defs = Map::new();
    let mut clashes = Vec::new();
    for (name, schema) in read
        .take_definitions(true)
        .into_iter()
        .chain(write.take_definitions(true))
    {
        match defs.get(&name) {
            Some(existing) if existing != &schema => clashes.push(name),
            Some(_) => {}
            None => {
                defs.insert(name, schema);
            }
        }
    }
    defs.insert("Request".into(), request);
    defs.insert("Envelope".into(), envelope);

    let doc = json!({
        "$schema": DIALECT,
        "$id": format!("urn:seekclaw:protocol:{}", crate::PROTOCOL_VERSION),
        "title": format!("SeekClaw daemon protocol {}", crate::PROTOCOL_VERSION),
        "description": "One JSON object per \\n-terminated UTF-8 line. A client sends a \
            Request ($defs/Request); the daemon answers every request with streamed events \
            (for a turn) and exactly one terminal envelope (pong, bye, result, done, cancelled \
            or error), and broadcasts schedule.* events with id 0. This document validates \
            one envelope. `data` is always a string: a structured result is JSON text inside \
            it (contentMediaType application/json, contentSchema in x-methods). Any method \
            may end with `error` (details.code says why).",
        "$ref": "#/$defs/Envelope",
        "x-protocol": {
            "version": crate::PROTOCOL_VERSION,
            "transport": crate::TRANSPORT,
            "maxLineBytes": crate::MAX_LINE_BYTES,
            "capabilities": CAPABILITIES.iter().map(|(_, n)| *n).collect::<Vec<_>>(),
        },
        "x-methods": methods,
        "x-events": events,
        "$defs": defs,
    });
    (doc, clashes)
}

fn serving_name(s: Serving) -> &'static str {
    match s {
        Serving::Inline => "inline",
        Serving::Task => "task",
        Serving::Exclusive => "exclusive",
    }
}

/// The `data` of a `result` carrying JSON text of `content`.
fn json_data(content: Value) -> Value {
    json!({
        "type": "string",
        "contentMediaType": "application/json",
        "contentSchema": content,
    })
}

fn reply_entry(reply: Reply, write: &mut SchemaGenerator) -> Value {
    match reply {
        Reply::Json(f) => json!({
            "events": [event::RESULT],
            "data": json_data(f(write).to_value()),
        }),
        Reply::Text(description, pattern) => {
            let mut data = json!({"type": "string", "description": description});
            if let Some(p) = pattern {
                data["pattern"] = Value::from(p);
            }
            json!({"events": [event::RESULT], "data": data})
        }
        Reply::TextDetails(description, pattern, details) => json!({
            "events": [event::RESULT],
            "data": {"type": "string", "description": description, "pattern": pattern},
            "details": details(write).to_value(),
        }),
        Reply::Empty(name) => json!({"events": [name], "data": {"const": ""}}),
        Reply::Watch => json!({
            "events": [event::RESULT],
            "data": {"type": "string", "const": "unwatched", "description": "Once `session.unwatch` \
                ends the watch; until then every turn on the session streams as `turn_start`, \
                its events, `turn_end`."},
            "streams": EVENTS
                .iter()
                .filter(|e| e.audience == Audience::Turn && !e.terminal)
                .map(|e| e.name)
                .collect::<Vec<_>>(),
        }),
        Reply::Turn => json!({
            "events": [event::DONE, event::CANCELLED],
            "data": {"type": "string", "description": "done: the last non-empty assistant \
                text of the turn; cancelled: the partial or last assistant text."},
            "streams": EVENTS
                .iter()
                .filter(|e| e.audience == Audience::Turn && !e.terminal)
                .map(|e| e.name)
                .collect::<Vec<_>>(),
        }),
    }
}

fn method_entries(read: &mut SchemaGenerator, write: &mut SchemaGenerator) -> Value {
    let mut out = Map::new();
    for spec in METHODS {
        let capabilities: Vec<&str> = spec
            .capabilities
            .iter()
            .filter_map(|c| CAPABILITIES.iter().find(|(k, _)| k == c).map(|(_, n)| *n))
            .collect();
        out.insert(
            spec.name.into(),
            json!({
                "aliases": spec.aliases,
                "serving": serving_name(spec.serving),
                "capabilities": capabilities,
                "params": (spec.params)(read).to_value(),
                "reply": reply_entry(spec.reply, write),
            }),
        );
    }
    Value::Object(out)
}

fn audience_name(a: Audience) -> &'static str {
    match a {
        Audience::Request => "request",
        Audience::Turn => "turn",
        Audience::Broadcast => "broadcast",
    }
}

fn event_entries(write: &mut SchemaGenerator) -> Value {
    let mut out = Map::new();
    for e in EVENTS {
        let data = match e.data_json {
            Some(content) => {
                let mut data = json_data(content(write).to_value());
                data["description"] = Value::from(e.data);
                data
            }
            None => json!({"type": "string", "description": e.data}),
        };
        let mut entry = json!({
            "terminal": e.terminal,
            "audience": audience_name(e.audience),
            "data": data,
        });
        if let Some(details) = e.details {
            entry["details"] = details(write).to_value();
        }
        out.insert(e.name.into(), entry);
    }
    Value::Object(out)
}

/// A request line, with each method's params checked by name (aliases too).
fn request_schema(read: &mut SchemaGenerator) -> Value {
    let base = RawRequestShape::json_schema(read).to_value();
    let rules: Vec<Value> = METHODS
        .iter()
        .flat_map(|spec| {
            let params = (spec.params)(read).to_value();
            std::iter::once(spec.name)
                .chain(spec.aliases.iter().copied())
                .map(move |name| {
                    json!({
                        "if": {"properties": {"method": {"const": name}}, "required": ["method"]},
                        "then": {"properties": {"params": params.clone()}},
                    })
                })
        })
        .collect();
    let mut request = base;
    request["allOf"] = Value::Array(rules);
    request
}

/// One response line: the generic shape, then per event its details and
/// `sessionId` rules.
fn envelope_schema(write: &mut SchemaGenerator) -> Value {
    let names: Vec<&str> = EVENTS.iter().map(|e| e.name).collect();
    let rules: Vec<Value> = EVENTS
        .iter()
        .map(|e| {
            let mut then = vec![match e.details {
                Some(details) => json!({
                    "properties": {"details": details(write).to_value()},
                    "required": ["details"],
                }),
                // A result's `details` are its method's (see the method's
                // reply: `agent.mode.get`'s); other detail-less events carry none.
                None if e.name == event::RESULT => json!({
                    "properties": {"details": {"type": "object"}},
                }),
                None => json!({"not": {"required": ["details"]}}),
            }];
            match e.audience {
                Audience::Broadcast => {
                    then.push(json!({"properties": {"id": {"const": 0}}}));
                    then.push(json!({"not": {"required": ["sessionId"]}}));
                }
                Audience::Turn => then.push(json!({"required": ["sessionId"]})),
                Audience::Request => {}
            }
            json!({
                "if": {"properties": {"event": {"const": e.name}}, "required": ["event"]},
                "then": {"allOf": then},
            })
        })
        .collect();
    json!({
        "description": "One response line: {id, event, data, sessionId?, details?, seq?}, keys \
            in this order. `sessionId` is left out when there is none; `seq` is on a session's \
            turn events only.",
        "type": "object",
        "properties": {
            "id": {"type": "integer", "description": "The request's id; 0 for broadcasts and \
                for lines that could not be read as a request."},
            "event": {"enum": names},
            "data": {"type": "string"},
            "sessionId": {"type": "string", "pattern": "\\S"},
            "details": {"type": "object"},
            "seq": {"type": "integer", "minimum": 1, "description": "The event's place in its \
                session's stream (ours, additive): strictly increasing per session; \
                `session.watch {afterSeq}` resumes after it."},
        },
        "required": ["id", "event", "data"],
        "additionalProperties": false,
        "allOf": rules,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_method_and_event_is_described_once() {
        let (doc, clashes) = build();
        assert!(clashes.is_empty(), "$defs claimed twice: {clashes:?}");
        assert_eq!(doc["$schema"], DIALECT);
        let methods = doc["x-methods"].as_object().unwrap();
        assert_eq!(methods.len(), METHODS.len());
        for spec in METHODS {
            let m = &methods[spec.name];
            assert!(m["params"].is_object(), "{}", spec.name);
            assert!(m["reply"]["events"].is_array(), "{}", spec.name);
        }
        let events = doc["x-events"].as_object().unwrap();
        assert_eq!(events.len(), EVENTS.len());
        for name in event::TERMINAL {
            assert_eq!(events[*name]["terminal"], true, "{name}");
        }
        // Every `$ref` resolves inside the document.
        let text = doc.to_string();
        let defs = doc["$defs"].as_object().unwrap();
        for piece in text.split("\"$ref\":\"#/$defs/").skip(1) {
            let name = piece.split('"').next().unwrap();
            assert!(defs.contains_key(name), "dangling $ref {name}");
        }
    }

    #[test]
    fn json_results_name_their_content() {
        let doc = schema();
        let get = &doc["x-methods"]["session.get"]["reply"]["data"];
        assert_eq!(get["contentMediaType"], "application/json");
        assert_eq!(get["contentSchema"]["$ref"], "#/$defs/SessionDetail");
        let new = &doc["x-methods"]["session.new"]["reply"]["data"];
        assert_eq!(new["type"], "string");
        assert!(new.get("contentSchema").is_none());
        let chat = &doc["x-methods"]["chat"];
        assert_eq!(chat["aliases"], json!(["agent.runTurn", "agent/runTurn"]));
        assert!(
            chat["reply"]["streams"]
                .as_array()
                .unwrap()
                .contains(&json!("delta"))
        );
    }

    #[test]
    fn the_document_is_valid_draft_2020_12_and_checks_envelopes() {
        let doc = schema();
        jsonschema::meta::validate(&doc).unwrap();
        let v = jsonschema::draft202012::new(&doc).unwrap();
        let lines = [
            crate::Envelope::new(1, event::PONG, "").to_line(),
            crate::Envelope::error(2, &crate::MethodError::invalid_param("id", "x")).to_line(),
            crate::Envelope::event(
                3,
                "read_file",
                &crate::events::ToolStartDetails {
                    call_id: "c".into(),
                    summary: String::new(),
                },
            )
            .with_session(Some("s".into()))
            .to_line(),
            crate::Envelope::json_result(4, &crate::ProtocolInfo::from_table()).to_line(),
        ];
        for line in lines {
            let env: Value = serde_json::from_slice(&line).unwrap();
            assert!(v.is_valid(&env), "{env}");
        }
        let bad = [
            json!({"id": 1, "event": "nope", "data": ""}),
            json!({"id": 1, "event": "delta", "data": 5, "sessionId": "s"}),
            json!({"id": 1, "event": "delta", "data": "x"}),
            json!({"id": 1, "event": "tool_done", "data": "x", "sessionId": "s",
                "details": {"callId": "c", "success": true}}),
            json!({"id": 3, "event": "schedule.updated", "data": "t",
                "details": {"taskId": "t", "name": "n", "status": "success"}}),
            json!({"id": 1, "event": "error", "data": "x", "details": {"code": "oops"}}),
            json!({"id": 1, "event": "pong", "data": "", "extra": 1}),
        ];
        for env in bad {
            assert!(!v.is_valid(&env), "{env}");
        }
    }
}
