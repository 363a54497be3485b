//! With the `schema-check` feature, every envelope a [`crate::Client`] reads is
//! checked against the protocol's JSON Schema (`seekclaw protocol schema`):
//! the envelope itself, and for the answer to a request sent through the
//! client, that its event is one the method may send and that its `data`
//! matches the method's reply schema (JSON text is parsed and checked against
//! its `contentSchema`). The schema is compiled once per test process; each
//! method's reply schema when first needed.

use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex};

use jsonschema::Validator;
use serde_json::{Map, Value, json};

/// What an answer to one method may look like.
struct ReplyCheck {
    /// Terminal events besides `error`.
    events: Vec<String>,
    /// Events a turn streams before its terminal.
    streams: Vec<String>,
    /// `data` when it is JSON text: the schema of the parsed value.
    json: Option<Arc<Validator>>,
    /// `data` as a string.
    text: Arc<Validator>,
    /// `details` of a `result` that carries them; `None`: a result has none.
    details: Option<Arc<Validator>>,
}

struct Checker {
    envelope: Validator,
    defs: Value,
    /// Method (and alias) → its entry in `x-methods`.
    methods: HashMap<String, Value>,
    replies: Mutex<HashMap<String, Arc<ReplyCheck>>>,
    /// Compiled subschemas by their text (many methods share one).
    compiled: Mutex<HashMap<String, Arc<Validator>>>,
}

static CHECKER: LazyLock<Result<Checker, String>> = LazyLock::new(Checker::new);

fn compile(schema: &Value) -> Result<Validator, String> {
    jsonschema::draft202012::new(schema).map_err(|e| format!("the schema does not compile: {e}"))
}

impl Checker {
    fn new() -> Result<Checker, String> {
        let doc = seekclaw_protocol::schema();
        let envelope = compile(&doc)?;
        let mut methods = HashMap::new();
        for (name, entry) in doc["x-methods"].as_object().into_iter().flatten() {
            methods.insert(name.clone(), entry.clone());
            for alias in entry["aliases"].as_array().into_iter().flatten() {
                if let Some(alias) = alias.as_str() {
                    methods.insert(alias.to_string(), entry.clone());
                }
            }
        }
        Ok(Checker {
            envelope,
            defs: doc["$defs"].clone(),
            methods,
            replies: Mutex::new(HashMap::new()),
            compiled: Mutex::new(HashMap::new()),
        })
    }

    /// A subschema of the document, compiled with the document's `$defs`.
    fn sub(&self, schema: &Value) -> Result<Arc<Validator>, String> {
        let key = schema.to_string();
        let mut compiled = self.compiled.lock().map_err(|e| e.to_string())?;
        if let Some(v) = compiled.get(&key) {
            return Ok(v.clone());
        }
        let mut doc = Map::new();
        doc.insert(
            "$schema".into(),
            json!("https://json-schema.org/draft/2020-12/schema"),
        );
        doc.insert("$defs".into(), self.defs.clone());
        if let Value::Object(fields) = schema {
            doc.extend(fields.clone());
        }
        let v = Arc::new(compile(&Value::Object(doc))?);
        compiled.insert(key, v.clone());
        Ok(v)
    }

    fn reply(&self, method: &str) -> Result<Option<Arc<ReplyCheck>>, String> {
        if let Some(r) = self.replies.lock().map_err(|e| e.to_string())?.get(method) {
            return Ok(Some(r.clone()));
        }
        let Some(entry) = self.methods.get(method) else {
            return Ok(None);
        };
        let reply = &entry["reply"];
        let names = |v: &Value| -> Vec<String> {
            v.as_array()
                .into_iter()
                .flatten()
                .filter_map(|s| s.as_str().map(str::to_string))
                .collect()
        };
        let data = &reply["data"];
        let json = match data.get("contentSchema") {
            Some(content) => Some(self.sub(content)?),
            None => None,
        };
        let check = Arc::new(ReplyCheck {
            events: names(&reply["events"]),
            streams: names(&reply["streams"]),
            json,
            text: self.sub(data)?,
            details: match reply.get("details") {
                Some(d) => Some(self.sub(d)?),
                None => None,
            },
        });
        self.replies
            .lock()
            .map_err(|e| e.to_string())?
            .insert(method.to_string(), check.clone());
        Ok(Some(check))
    }

    fn check(&self, line: &str, sent: &HashMap<i64, String>) -> Result<(), String> {
        let env: Value = serde_json::from_str(line).map_err(|e| format!("not JSON: {e}"))?;
        if let Some(e) = self.envelope.iter_errors(&env).next() {
            return Err(format!("envelope: {e} (at {})", e.instance_path()));
        }
        let Some(method) = env["id"].as_i64().and_then(|id| sent.get(&id)) else {
            return Ok(());
        };
        let Some(reply) = self.reply(method)? else {
            return Ok(());
        };
        let event = env["event"].as_str().unwrap_or_default();
        if event == seekclaw_protocol::event::ERROR || reply.streams.iter().any(|s| s == event) {
            return Ok(());
        }
        if !reply.events.iter().any(|e| e == event) {
            return Err(format!("{method} does not answer with `{event}`"));
        }
        match (&reply.details, env.get("details")) {
            (Some(schema), Some(details)) => {
                if let Some(e) = schema.iter_errors(details).next() {
                    return Err(format!("{method} details: {e}"));
                }
            }
            (Some(_), None) => return Err(format!("{method} answers without its details")),
            (None, Some(_)) if event == seekclaw_protocol::event::RESULT => {
                return Err(format!("{method}'s result carries no details"));
            }
            _ => {}
        }
        let data = Value::from(env["data"].as_str().unwrap_or_default());
        if let Some(e) = reply.text.iter_errors(&data).next() {
            return Err(format!("{method} data: {e}"));
        }
        if let Some(json) = &reply.json {
            let value: Value = serde_json::from_str(data.as_str().unwrap_or_default())
                .map_err(|e| format!("{method} data is not JSON: {e}"))?;
            if let Some(e) = json.iter_errors(&value).next() {
                return Err(format!(
                    "{method} data: {e} (at {} of the data)",
                    e.instance_path()
                ));
            }
        }
        Ok(())
    }
}

/// Checks one envelope line against the schema; `method`: the method of the
/// request it answers, if known. `Err` names what does not match.
pub fn check_envelope(line: &str, method: Option<&str>) -> Result<(), String> {
    let checker = CHECKER.as_ref().map_err(Clone::clone)?;
    let sent: HashMap<i64, String> = method
        .and_then(|m| {
            let env: Value = serde_json::from_str(line).ok()?;
            Some((env["id"].as_i64()?, m.to_string()))
        })
        .into_iter()
        .collect();
    checker.check(line.trim_end(), &sent)
}

/// Checks one envelope line read from the daemon; `sent` maps the ids of the
/// requests the client sent to their methods. A violation fails the test
/// here, with the offending line.
pub(crate) fn check_line(line: &str, sent: &HashMap<i64, String>) {
    let checker = match &*CHECKER {
        Ok(c) => c,
        Err(e) => panic!("protocol schema: {e}"),
    };
    if let Err(e) = checker.check(line.trim_end(), sent) {
        panic!("envelope does not match `seekclaw protocol schema`: {e}\n  line: {line}");
    }
}
