//! Tool arguments: JSON Schemas generated from the args structs, and a lenient
//! decoder (models send numbers as strings, or the whole object as a string).

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde::Deserialize;
use serde::de::{DeserializeOwned, Deserializer};
use serde_json::Value;

use crate::error::ToolError;

/// Decodes a call's arguments; `null` means no arguments.
pub(crate) fn parse_args<T: DeserializeOwned>(args: Value) -> Result<T, ToolError> {
    let args = match args {
        Value::Null => Value::Object(serde_json::Map::new()),
        // Some models double-encode the object as a JSON string.
        Value::String(text) => serde_json::from_str(&text).map_err(|e| {
            ToolError::InvalidArgs(format!("arguments are not a JSON object ({e})"))
        })?,
        other => other,
    };
    serde_json::from_value(args).map_err(|e| ToolError::InvalidArgs(e.to_string()))
}

/// The parameters schema of `T`: inlined, without `$schema`/`title`, and with
/// optional fields as plain types (no `null` unions some providers reject).
pub(crate) fn schema_of<T: JsonSchema>() -> Value {
    let generator = SchemaSettings::draft2020_12()
        .with(|s| {
            s.inline_subschemas = true;
            s.meta_schema = None;
        })
        .into_generator();
    let mut value = generator.into_root_schema_for::<T>().to_value();
    clean_schema(&mut value);
    value
}

fn clean_schema(value: &mut Value) {
    let Value::Object(map) = value else { return };
    map.remove("$schema");
    map.remove("title");
    if let Some(Value::Array(types)) = map.get("type") {
        let non_null: Vec<Value> = types
            .iter()
            .filter(|t| t.as_str() != Some("null"))
            .cloned()
            .collect();
        if non_null.len() == 1 {
            map.insert("type".into(), non_null[0].clone());
        }
    }
    // Rust integer widths mean nothing to a model.
    if map.get("format").and_then(Value::as_str).is_some_and(|f| {
        matches!(
            f,
            "uint"
                | "uint8"
                | "uint16"
                | "uint32"
                | "uint64"
                | "int"
                | "int32"
                | "int64"
                | "double"
                | "float"
        )
    }) {
        map.remove("format");
    }
    if let Some(Value::Object(props)) = map.get_mut("properties") {
        props.values_mut().for_each(clean_schema);
    }
    for key in ["items", "additionalProperties"] {
        if let Some(inner) = map.get_mut(key) {
            clean_schema(inner);
        }
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        if let Some(Value::Array(list)) = map.get_mut(key) {
            list.iter_mut().for_each(clean_schema);
        }
    }
}

/// `Option<u64>` accepting numbers, numeric strings and floats; negatives become 0.
pub(crate) fn lenient_u64<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    use serde::de::Error;
    match Option::<Value>::deserialize(d)? {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => {
            if let Some(u) = n.as_u64() {
                Ok(Some(u))
            } else if let Some(i) = n.as_i64() {
                Ok(Some(i.max(0) as u64))
            } else {
                Ok(n.as_f64().map(|f| f.max(0.0) as u64))
            }
        }
        Some(Value::String(s)) => s
            .trim()
            .parse::<f64>()
            .map(|f| Some(f.max(0.0) as u64))
            .map_err(|_| D::Error::custom(format!("expected a number, got \"{s}\""))),
        Some(other) => Err(D::Error::custom(format!("expected a number, got {other}"))),
    }
}

/// `Option<bool>` accepting `true`/`false` also as strings.
pub(crate) fn lenient_bool<'de, D: Deserializer<'de>>(d: D) -> Result<Option<bool>, D::Error> {
    use serde::de::Error;
    match Option::<Value>::deserialize(d)? {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(b)),
        Some(Value::String(s)) => match s.trim().to_ascii_lowercase().as_str() {
            "true" => Ok(Some(true)),
            "false" => Ok(Some(false)),
            _ => Err(D::Error::custom(format!(
                "expected true or false, got \"{s}\""
            ))),
        },
        Some(other) => Err(D::Error::custom(format!(
            "expected true or false, got {other}"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[derive(Debug, Deserialize, JsonSchema)]
    struct Demo {
        /// The file.
        path: String,
        #[serde(default, deserialize_with = "lenient_u64")]
        limit: Option<u64>,
        #[serde(default, deserialize_with = "lenient_bool")]
        all: Option<bool>,
    }

    #[test]
    fn schema_is_plain_json_schema() {
        let schema = schema_of::<Demo>();
        assert_eq!(schema["type"], "object");
        assert_eq!(schema["required"], json!(["path"]));
        assert_eq!(schema["properties"]["path"]["description"], "The file.");
        assert_eq!(schema["properties"]["limit"]["type"], "integer");
        assert!(schema["properties"]["limit"].get("format").is_none());
        assert!(schema.get("$schema").is_none() && schema.get("title").is_none());
    }

    #[test]
    fn lenient_decoding() {
        let d: Demo = parse_args(json!({"path": "a", "limit": "20", "all": "true"})).unwrap();
        assert_eq!((d.limit, d.all), (Some(20), Some(true)));
        let d: Demo = parse_args(json!({"path": "a", "limit": -3, "all": null})).unwrap();
        assert_eq!((d.limit, d.all), (Some(0), None));
        let d: Demo = parse_args(Value::String(r#"{"path":"x","limit":2.0}"#.into())).unwrap();
        assert_eq!((d.path.as_str(), d.limit), ("x", Some(2)));
    }

    #[test]
    fn bad_arguments_say_how_to_recover() {
        let err = parse_args::<Demo>(json!({"limit": 1})).unwrap_err();
        assert_eq!(
            err.to_string(),
            "Invalid tool arguments: missing field `path`. Regenerate the tool call with valid JSON arguments."
        );
        let err = parse_args::<Demo>(Value::String("{oops".into())).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("Invalid tool arguments: arguments are not a JSON object")
        );
    }
}
