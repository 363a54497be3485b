//! The OpenSeek stdio protocol that `seekclaw serve` speaks (and whose event
//! stream `seekclaw run --events` writes), reference §2: commands in, events
//! out, one JSON object per line. Pure data; `serve` maps engine events to
//! these types and writes them with serde.

mod command;
mod event;

pub use command::{
    ApprovalDecision, Command, Content, ContentPart, Goal, ImageCheck, ImagePart, Rewind,
    RewindRestore, Steer, SteerKind, Submission,
};
pub use event::{
    AppliedSteerKind, ApprovalOutcome, CheckpointFile, Event, EventLine, Level, NotTracked,
    RewoundFile, Usage,
};

use schemars::generate::SchemaSettings;
use serde_json::{Map, Value, json};

/// The JSON Schema (draft 2020-12) of the serve protocol: the root validates
/// one stdout line ([`EventLine`]), `$defs/Command` one stdin line in the form
/// a client writes. `x-levels` gives each event's `level`.
pub fn schema() -> Value {
    build().0
}

/// The document, and the names of any `$defs` the two directions claimed
/// with different schemas (none, or two types share a name).
fn build() -> (Value, Vec<String>) {
    // Events are written (every always-written field is required, `null`
    // included); commands are read (defaulted fields may be absent).
    let mut write = SchemaSettings::draft2020_12()
        .for_serialize()
        .into_generator();
    let mut read = SchemaSettings::draft2020_12()
        .for_deserialize()
        .into_generator();
    let line = write.subschema_for::<EventLine>().to_value();
    // Named too, so a reader can take `$defs/Event` on its own.
    write.subschema_for::<Event>();
    read.subschema_for::<Command>();

    let mut defs = Map::new();
    let mut clashes = Vec::new();
    for (name, schema) in write
        .take_definitions(true)
        .into_iter()
        .chain(read.take_definitions(true))
    {
        match defs.get(&name) {
            Some(existing) if existing != &schema => clashes.push(name),
            Some(_) => {}
            None => {
                defs.insert(name, schema);
            }
        }
    }
    // The derived line schema inlines every variant; point at `Event` instead.
    if let Some(Value::Object(line)) = defs.get_mut("EventLine") {
        line.remove("oneOf");
        line.insert("allOf".into(), json!([{"$ref": "#/$defs/Event"}]));
    }
    let levels = event_names(&defs)
        .into_iter()
        .map(|name| (name.clone(), json!(Level::of_event(&name))))
        .collect::<Map<_, _>>();
    let doc = json!({
        "$schema": crate::schema::DIALECT,
        "$id": "urn:seekclaw:openseek",
        "title": "SeekClaw serve: the OpenSeek stdio protocol",
        "description": "Commands are JSON objects, one per \\n-terminated line on stdin \
            ($defs/Command, discriminated by `command`); events are JSON objects, one per line \
            on stdout, validated by this document's root: `timestamp`, `level`, `event`, then \
            the event's fields, in that order. Optional strings are written as null, never \
            left out; integers are integers. A reader ignores a line it cannot read (an event \
            a newer engine added, a stray log line). `serve` also reads OpenSeek's key \
            spellings of an image (`mime_type`, `data_base64`) and answers a command it \
            cannot use with `command_error`.",
        "$ref": line["$ref"],
        "x-levels": levels,
        "$defs": defs,
    });
    (doc, clashes)
}

/// Every event name, from the schema's own variants (`event` consts).
fn event_names(defs: &Map<String, Value>) -> Vec<String> {
    let mut names = Vec::new();
    collect_consts(defs.get("Event").unwrap_or(&Value::Null), &mut names);
    names
}

fn collect_consts(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(o) => {
            if let Some(Value::String(name)) = o
                .get("properties")
                .and_then(|p| p.get("event"))
                .and_then(|e| e.get("const"))
            {
                out.push(name.clone());
            }
            o.values().for_each(|x| collect_consts(x, out));
        }
        Value::Array(a) => a.iter().for_each(|x| collect_consts(x, out)),
        _ => {}
    }
}

#[cfg(test)]
mod tests;
