//! Tool-call arguments as sent back to a provider. Models sometimes produce
//! truncated or doubled JSON; providers reject a request whose history holds
//! invalid `arguments`, which would wedge the session, so history is repaired.

use std::borrow::Cow;

use serde_json::{Map, Value};

/// JSON object text for `raw`: `raw` itself when it is an object; the inner
/// text when it is a JSON string holding an object (double-encoded); else the
/// first balanced `{…}`; else `raw` closed with `}`, `}}` or `"}`; else `{}`.
pub fn sanitize_arguments(raw: &str) -> Cow<'_, str> {
    match repair(raw) {
        Some((text, _)) => text,
        None => Cow::Borrowed("{}"),
    }
}

/// The arguments as a JSON object (Anthropic `tool_use.input`), repaired as in
/// [`sanitize_arguments`]; `{}` when nothing usable is left.
pub fn arguments_value(raw: &str) -> Value {
    match repair(raw) {
        Some((_, Value::Object(map))) => Value::Object(map),
        _ => Value::Object(Map::new()),
    }
}

fn as_object(text: &str) -> Option<Value> {
    match serde_json::from_str::<Value>(text) {
        Ok(v @ Value::Object(_)) => Some(v),
        _ => None,
    }
}

fn repair(raw: &str) -> Option<(Cow<'_, str>, Value)> {
    let trimmed = raw.trim();
    if trimmed.is_empty() {
        return None;
    }
    match serde_json::from_str::<Value>(trimmed) {
        Ok(v @ Value::Object(_)) => return Some((Cow::Borrowed(trimmed), v)),
        Ok(Value::String(inner)) => {
            return as_object(&inner).map(|v| (Cow::Owned(inner), v));
        }
        Ok(_) => return None,
        Err(_) => {}
    }
    if let Some(obj) = first_balanced_object(trimmed)
        && let Some(v) = as_object(obj)
    {
        return Some((Cow::Borrowed(obj), v));
    }
    ["}", "}}", "\"}"].iter().find_map(|suffix| {
        let closed = format!("{trimmed}{suffix}");
        as_object(&closed).map(|v| (Cow::Owned(closed), v))
    })
}

/// The first `{…}` whose braces balance, skipping braces inside strings.
fn first_balanced_object(s: &str) -> Option<&str> {
    let start = s.find('{')?;
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for (i, b) in s.bytes().enumerate().skip(start) {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return s.get(start..=i);
                }
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn sanitizer_table() {
        let cases = [
            (r#"{"path":"a.rs"}"#, r#"{"path":"a.rs"}"#),
            (r#"  {"a": 1}  "#, r#"{"a": 1}"#),
            ("", "{}"),
            ("   ", "{}"),
            ("null", "{}"),
            ("[1,2]", "{}"),
            ("42", "{}"),
            (r#""{\"a\":1}""#, r#"{"a":1}"#),
            (r#""not json""#, "{}"),
            // Doubled output and trailing junk: the first balanced object.
            (r#"{"a":1}{"a":1}"#, r#"{"a":1}"#),
            (r#"{"a":"}{"}garbage"#, r#"{"a":"}{"}"#),
            (r#"noise {"a":{"b":2}} tail"#, r#"{"a":{"b":2}}"#),
            // Truncated: closed with } / }} / "}.
            (r#"{"a":1"#, r#"{"a":1}"#),
            (r#"{"a":{"b":2"#, r#"{"a":{"b":2}}"#),
            (r#"{"path":"src/ma"#, r#"{"path":"src/ma"}"#),
            // Beyond repair.
            (r#"{"a":[1,"#, "{}"),
            ("plain words", "{}"),
        ];
        for (raw, want) in cases {
            assert_eq!(sanitize_arguments(raw), want, "{raw}");
        }
    }

    #[test]
    fn value_form() {
        assert_eq!(arguments_value(r#"{"a":{"b":2"#), json!({"a":{"b":2}}));
        assert_eq!(arguments_value("[]"), json!({}));
        assert_eq!(arguments_value("{"), json!({}));
        assert_eq!(arguments_value(r#"{"s":"é\"}"}"#), json!({"s":"é\"}"}));
    }

    #[test]
    fn valid_input_is_borrowed() {
        assert!(matches!(sanitize_arguments(r#"{"a":1}"#), Cow::Borrowed(_)));
    }
}
