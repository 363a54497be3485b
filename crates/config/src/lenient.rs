//! Typed reading of a parsed JSON tree in which one wrongly typed field falls
//! back to its default alone: the first error serde meets is located by its
//! path, that value is left out of a scratch copy of the tree (every config
//! struct is `#[serde(default)]`, so a missing field takes its default), and
//! the read is tried again. The tree on disk is never changed by this.

use std::collections::HashMap;
use std::fmt;

use serde::de::DeserializeOwned;
use serde_json::Value;
use serde_path_to_error::Segment;

/// One field of a file that could not be used as written; its default applies.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldWarning {
    /// Where it is, e.g. `agent.maxSteps` or `providers[1].timeoutSeconds`.
    pub path: String,
    /// What is wrong, e.g. `expected a number, found "forty"`.
    pub message: String,
}

impl fmt::Display for FieldWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path, self.message)
    }
}

/// Why a tree could not be read as `T` at all (its top level is the wrong
/// kind of value): no single field can fall back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct WholeValue(pub String);

/// How many fields may fall back before the file counts as unreadable.
const MAX_FALLBACKS: usize = 256;

/// Reads `value` as `T`; each field serde refuses is left out (its default
/// applies) and reported.
pub(crate) fn from_value<T: DeserializeOwned>(
    value: &Value,
) -> Result<(T, Vec<FieldWarning>), WholeValue> {
    // Structs also read from lists (by position): a file must be an object.
    if !value.is_object() {
        return Err(WholeValue(format!(
            "expected an object at the top level, found {}",
            shown(value)
        )));
    }
    let mut scratch: Option<Value> = None;
    let mut warnings = Vec::new();
    // Elements taken out of each array so far, keyed by the array's path in
    // the scratch tree, so reported indexes stay those of the file.
    let mut removed: HashMap<String, Vec<usize>> = HashMap::new();
    loop {
        let tree = scratch.as_ref().unwrap_or(value);
        let err = match serde_path_to_error::deserialize::<_, T>(tree) {
            Ok(typed) => return Ok((typed, warnings)),
            Err(err) => err,
        };
        let segments: Vec<Segment> = err.path().iter().cloned().collect();
        if segments.is_empty() || warnings.len() >= MAX_FALLBACKS {
            return Err(WholeValue(friendly(&err.inner().to_string(), tree)));
        }
        let tree = scratch.get_or_insert_with(|| value.clone());
        let Some(found) = take(tree, &segments) else {
            // The path does not lead to a value (an error serde could not
            // place): nothing can fall back alone.
            return Err(WholeValue(err.inner().to_string()));
        };
        warnings.push(FieldWarning {
            path: file_path(&segments, &mut removed),
            message: friendly(&err.inner().to_string(), &found),
        });
    }
}

/// Removes and returns the value at `segments`.
fn take(tree: &mut Value, segments: &[Segment]) -> Option<Value> {
    let (last, parents) = segments.split_last()?;
    let mut node = tree;
    for segment in parents {
        node = match (segment, node) {
            (Segment::Map { key }, Value::Object(map)) => map.get_mut(key)?,
            (Segment::Seq { index }, Value::Array(items)) => items.get_mut(*index)?,
            _ => return None,
        };
    }
    match (last, node) {
        (Segment::Map { key }, Value::Object(map)) => map.shift_remove(key),
        (Segment::Seq { index }, Value::Array(items)) if *index < items.len() => {
            Some(items.remove(*index))
        }
        _ => None,
    }
}

/// `agent.maxSteps`, `providers[2].models[0].id`: the path as the user's file
/// numbers it, recording the element taken out when the last step is an index.
fn file_path(segments: &[Segment], removed: &mut HashMap<String, Vec<usize>>) -> String {
    let mut scratch_path = String::new();
    let mut shown = String::new();
    for (i, segment) in segments.iter().enumerate() {
        match segment {
            Segment::Map { key } => {
                let sep = if shown.is_empty() { "" } else { "." };
                scratch_path.push_str(&format!("{sep}{key}"));
                shown.push_str(&format!("{sep}{key}"));
            }
            Segment::Seq { index } => {
                let gone = removed.entry(scratch_path.clone()).or_default();
                let original = original_index(*index, gone);
                if i + 1 == segments.len() {
                    gone.push(original);
                }
                scratch_path.push_str(&format!("[{index}]"));
                shown.push_str(&format!("[{original}]"));
            }
            Segment::Enum { variant } => {
                scratch_path.push_str(&format!("::{variant}"));
                shown.push_str(&format!("::{variant}"));
            }
            Segment::Unknown => {
                scratch_path.push_str(".?");
                shown.push_str(".?");
            }
        }
    }
    shown
}

/// The index in the file of the element now at `index`, given the file
/// indexes already taken out of its array.
fn original_index(index: usize, gone: &[usize]) -> usize {
    let mut original = index;
    let mut sorted = gone.to_vec();
    sorted.sort_unstable();
    for g in sorted {
        if g <= original {
            original += 1;
        }
    }
    original
}

/// serde's `invalid type: string "forty", expected u32` as
/// `expected a number, found "forty"`; other messages as they are.
fn friendly(message: &str, found: &Value) -> String {
    let Some(rest) = message
        .strip_prefix("invalid type: ")
        .or_else(|| message.strip_prefix("invalid value: "))
    else {
        return message.to_string();
    };
    let expected = rest
        .split_once(", expected ")
        .map_or(rest, |(_, expected)| expected);
    format!(
        "expected {}, found {}",
        expected_name(expected),
        shown(found)
    )
}

/// Rust type names in serde's messages, in the user's words.
fn expected_name(expected: &str) -> String {
    let word = match expected {
        "u8" | "u16" | "u32" | "u64" | "usize" => "a whole number (0 or more)",
        "i8" | "i16" | "i32" | "i64" | "isize" => "a whole number",
        "f32" | "f64" => "a number",
        "a boolean" | "bool" => "true or false",
        "a string" => "a string",
        "a sequence" => "a list",
        "a map" => "an object",
        other if other.starts_with("struct ") => "an object",
        other => other,
    };
    word.to_string()
}

/// A value as written, cut short when long.
fn shown(value: &Value) -> String {
    const MAX: usize = 60;
    let text = match value {
        Value::Object(_) => "an object".to_string(),
        Value::Array(_) => "a list".to_string(),
        other => other.to_string(),
    };
    if text.chars().count() <= MAX {
        return text;
    }
    let cut: String = text.chars().take(MAX).collect();
    format!("{cut}…")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use serde_json::json;

    #[derive(Debug, Default, PartialEq, Deserialize)]
    #[serde(default, rename_all = "camelCase")]
    struct Inner {
        max_steps: u32,
        name: String,
        #[serde(flatten)]
        extra: serde_json::Map<String, Value>,
    }

    #[derive(Debug, Default, PartialEq, Deserialize)]
    #[serde(default, rename_all = "camelCase")]
    struct Outer {
        agent: Inner,
        items: Vec<Inner>,
        flag: bool,
    }

    #[test]
    fn a_wrongly_typed_field_falls_back_alone_and_is_named() {
        let file = json!({"agent": {"maxSteps": "forty", "name": "n", "future": 1}, "flag": true});
        let (typed, warnings): (Outer, _) = from_value(&file).unwrap();
        assert_eq!(typed.agent.max_steps, 0);
        assert_eq!(typed.agent.name, "n");
        assert_eq!(typed.agent.extra["future"], 1);
        assert!(typed.flag);
        assert_eq!(warnings.len(), 1);
        assert_eq!(
            warnings[0].to_string(),
            r#"agent.maxSteps: expected a whole number (0 or more), found "forty""#
        );
        // The caller's tree is untouched.
        assert_eq!(file["agent"]["maxSteps"], "forty");
    }

    #[test]
    fn several_bad_fields_and_array_elements_keep_the_files_numbering() {
        let file = json!({
            "flag": "yes",
            "items": ["x", {"maxSteps": 1}, 7, {"maxSteps": -2, "name": "keep"}],
        });
        let (typed, warnings): (Outer, _) = from_value(&file).unwrap();
        let paths: Vec<&str> = warnings.iter().map(|w| w.path.as_str()).collect();
        assert_eq!(paths, ["flag", "items[0]", "items[2]", "items[3].maxSteps"]);
        assert_eq!(typed.items.len(), 2);
        assert_eq!(typed.items[1].name, "keep");
        assert_eq!(
            warnings[0].message,
            r#"expected true or false, found "yes""#
        );
        assert_eq!(warnings[1].message, r#"expected an object, found "x""#);
    }

    #[test]
    fn a_top_level_of_the_wrong_kind_is_not_a_field() {
        let err = from_value::<Outer>(&json!([1, 2])).unwrap_err();
        assert_eq!(err.0, "expected an object at the top level, found a list");
    }
}
