//! What an answer to an MCP elicitation form must look like: the flat
//! schema MCP allows (string with `enum`/`oneOf`, `format`, length; number
//! and integer with bounds; boolean; arrays of enum values; `required`).
//! One rule for the engine (which refuses values that do not fit) and the
//! front ends (which check before they send).

use serde_json::{Map, Value};

/// Checks `content` against `schema` (the restricted, flat schema MCP
/// elicitation allows). `Err` names the first field that is wrong and why,
/// for the person who filled the form in.
pub fn validate(schema: &Value, content: &Map<String, Value>) -> Result<(), String> {
    let properties = schema.get("properties").and_then(Value::as_object);
    let required = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect::<Vec<_>>())
        .unwrap_or_default();
    for name in &required {
        if content.get(*name).is_none_or(Value::is_null) {
            return Err(format!("`{name}` is required"));
        }
    }
    for (name, value) in content {
        let Some(field) = properties.and_then(|p| p.get(name)) else {
            return Err(format!("`{name}` is not a field of this form"));
        };
        if value.is_null() && !required.contains(&name.as_str()) {
            continue;
        }
        check_field(field, value).map_err(|why| format!("`{name}` {why}"))?;
    }
    Ok(())
}

/// The allowed values of a single-select field (`enum`, or `oneOf` consts).
pub fn enum_values(field: &Value) -> Option<Vec<String>> {
    if let Some(values) = field.get("enum").and_then(Value::as_array) {
        return Some(
            values
                .iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect(),
        );
    }
    let options = field
        .get("oneOf")
        .or_else(|| field.get("anyOf"))
        .and_then(Value::as_array)?;
    Some(
        options
            .iter()
            .filter_map(|o| o.get("const").and_then(Value::as_str).map(str::to_string))
            .collect(),
    )
}

fn check_field(field: &Value, value: &Value) -> Result<(), String> {
    let kind = field
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("string");
    match kind {
        "string" => {
            let Some(s) = value.as_str() else {
                return Err("must be text".into());
            };
            if let Some(allowed) = enum_values(field)
                && !allowed.iter().any(|a| a == s)
            {
                return Err(format!("must be one of {}", allowed.join(", ")));
            }
            let chars = s.chars().count() as u64;
            if let Some(min) = field.get("minLength").and_then(Value::as_u64)
                && chars < min
            {
                return Err(format!("must be at least {min} characters"));
            }
            if let Some(max) = field.get("maxLength").and_then(Value::as_u64)
                && chars > max
            {
                return Err(format!("must be at most {max} characters"));
            }
            check_format(field.get("format").and_then(Value::as_str), s)
        }
        "number" | "integer" => {
            let Some(n) = value.as_f64() else {
                return Err(format!(
                    "must be a{} {kind}",
                    if kind == "integer" { "n" } else { "" }
                ));
            };
            if kind == "integer" && !(value.is_i64() || value.is_u64()) {
                return Err("must be a whole number".into());
            }
            if let Some(min) = field.get("minimum").and_then(Value::as_f64)
                && n < min
            {
                return Err(format!("must be at least {min}"));
            }
            if let Some(max) = field.get("maximum").and_then(Value::as_f64)
                && n > max
            {
                return Err(format!("must be at most {max}"));
            }
            Ok(())
        }
        "boolean" => match value {
            Value::Bool(_) => Ok(()),
            _ => Err("must be true or false".into()),
        },
        "array" => {
            let Some(items) = value.as_array() else {
                return Err("must be a list".into());
            };
            let allowed = field.get("items").and_then(enum_values);
            for item in items {
                let ok = match (&allowed, item.as_str()) {
                    (Some(allowed), Some(s)) => allowed.iter().any(|a| a == s),
                    (None, Some(_)) => true,
                    _ => false,
                };
                if !ok {
                    return Err(match &allowed {
                        Some(a) => format!("may only hold {}", a.join(", ")),
                        None => "may only hold text".into(),
                    });
                }
            }
            let n = items.len() as u64;
            if let Some(min) = field.get("minItems").and_then(Value::as_u64)
                && n < min
            {
                return Err(format!("needs at least {min} choices"));
            }
            if let Some(max) = field.get("maxItems").and_then(Value::as_u64)
                && n > max
            {
                return Err(format!("takes at most {max} choices"));
            }
            Ok(())
        }
        other => Err(format!("has a type this form cannot take ({other})")),
    }
}

/// The formats MCP names, checked loosely: enough to catch a value typed
/// into the wrong field, not a full RFC parser.
fn check_format(format: Option<&str>, s: &str) -> Result<(), String> {
    let ok = match format {
        Some("email") => s
            .split_once('@')
            .is_some_and(|(user, host)| !user.is_empty() && host.contains('.')),
        Some("uri") => s
            .split_once(':')
            .is_some_and(|(scheme, rest)| !scheme.is_empty() && !rest.is_empty()),
        Some("date") => is_date(s),
        Some("date-time") => s
            .split_once(['T', 't', ' '])
            .is_some_and(|(d, t)| is_date(d) && t.len() >= 5),
        _ => true,
    };
    if ok {
        Ok(())
    } else {
        Err(format!(
            "must be {}",
            match format {
                Some("email") => "an email address",
                Some("uri") => "a URI (https://…)",
                Some("date") => "a date (YYYY-MM-DD)",
                _ => "a date and time (YYYY-MM-DDTHH:MM)",
            }
        ))
    }
}

fn is_date(s: &str) -> bool {
    let parts: Vec<&str> = s.split('-').collect();
    parts.len() == 3
        && [4, 2, 2]
            .iter()
            .zip(&parts)
            .all(|(n, p)| p.len() == *n && p.chars().all(|c| c.is_ascii_digit()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "minLength": 2},
                "age": {"type": "integer", "minimum": 0, "maximum": 150},
                "score": {"type": "number"},
                "ok": {"type": "boolean"},
                "color": {"type": "string", "enum": ["red", "green"]},
                "hero": {"type": "string", "oneOf": [{"const": "h1", "title": "Superman"}]},
                "email": {"type": "string", "format": "email"},
                "when": {"type": "string", "format": "date"},
                "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}, "maxItems": 1}
            },
            "required": ["name"]
        })
    }

    fn check(content: Value) -> Result<(), String> {
        validate(&schema(), content.as_object().unwrap())
    }

    #[test]
    fn accepts_values_of_the_right_kinds() {
        check(
            json!({"name": "Ada", "age": 36, "score": 1.5, "ok": true, "color": "red",
            "hero": "h1", "email": "a@b.io", "when": "2024-01-31", "tags": ["a"]}),
        )
        .unwrap();
        check(json!({"name": "Ada", "email": null})).unwrap();
    }

    #[test]
    fn refuses_each_kind_of_mistake_naming_the_field() {
        let cases = [
            (json!({}), "`name` is required"),
            (json!({"name": "A"}), "`name` must be at least 2"),
            (
                json!({"name": "Ada", "age": 1.5}),
                "`age` must be a whole number",
            ),
            (
                json!({"name": "Ada", "age": 200}),
                "`age` must be at most 150",
            ),
            (
                json!({"name": "Ada", "age": "3"}),
                "`age` must be an integer",
            ),
            (
                json!({"name": "Ada", "ok": "yes"}),
                "`ok` must be true or false",
            ),
            (
                json!({"name": "Ada", "color": "blue"}),
                "`color` must be one of red, green",
            ),
            (
                json!({"name": "Ada", "hero": "x"}),
                "`hero` must be one of h1",
            ),
            (
                json!({"name": "Ada", "email": "nope"}),
                "`email` must be an email",
            ),
            (
                json!({"name": "Ada", "when": "31/01/2024"}),
                "`when` must be a date",
            ),
            (
                json!({"name": "Ada", "tags": ["a", "b"]}),
                "`tags` takes at most 1",
            ),
            (
                json!({"name": "Ada", "tags": ["c"]}),
                "`tags` may only hold a, b",
            ),
            (json!({"name": "Ada", "extra": 1}), "`extra` is not a field"),
        ];
        for (content, want) in cases {
            let got = check(content.clone()).unwrap_err();
            assert!(got.starts_with(want), "{content}: {got}");
        }
    }
}
