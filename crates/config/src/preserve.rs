//! An edit applied to the text of a JSON(5) file as the user wrote it: only
//! the values the edit changed are rewritten; comments, blank lines, key
//! order, trailing commas and formatting elsewhere stay byte for byte. The
//! text is parsed to a concrete syntax tree (`jsonc-parser`), the change
//! `before` → `after` (typed views, as trees) is applied node by node, and the
//! tree is printed back.

use jsonc_parser::ParseOptions;
use jsonc_parser::cst::{CstArray, CstInputValue, CstNode, CstObject, CstRootNode};
use serde_json::{Map, Value};

use crate::document::{apply, by_id, written_id};

/// `text` with the change `before` → `after` applied; `None` when the text
/// cannot be parsed to a syntax tree (a JSON5 form the editor does not know),
/// so the caller falls back to writing the whole tree.
pub(crate) fn rewrite(text: &str, before: &Value, after: &Value) -> Option<String> {
    let root = CstRootNode::parse(text, &ParseOptions::default()).ok()?;
    match root.value() {
        Some(node) => {
            if !apply_node(node, before, after) {
                root.set_value(input(after));
            }
        }
        None => root.set_value(input(after)),
    }
    Some(root.to_string())
}

/// Applies the change to `node` in place; false when it must be replaced
/// whole (the caller knows how: a property's value, an element, the root).
fn apply_node(node: CstNode, before: &Value, after: &Value) -> bool {
    if before == after {
        return true;
    }
    match (before, after) {
        (Value::Object(before), Value::Object(after)) => match node.as_object() {
            Some(object) => {
                apply_object(&object, before, after);
                true
            }
            None => false,
        },
        (Value::Array(b), Value::Array(a)) if by_id(b) && by_id(a) => match node.as_array() {
            Some(array) => apply_by_id(&array, before, after),
            None => false,
        },
        _ => false,
    }
}

fn apply_object(object: &CstObject, before: &Map<String, Value>, after: &Map<String, Value>) {
    for (key, new) in after {
        let old = before.get(key);
        if old == Some(new) {
            continue;
        }
        match (object.get(key), old) {
            (Some(prop), Some(old)) => {
                let done = prop.value().is_some_and(|v| apply_node(v, old, new));
                if !done {
                    prop.set_value(input(new));
                }
            }
            (Some(prop), None) => prop.set_value(input(new)),
            (None, _) => {
                object.append(key, input(new));
            }
        }
    }
    for key in before.keys() {
        if !after.contains_key(key)
            && let Some(prop) = object.get(key)
        {
            prop.remove();
        }
    }
}

/// A list of objects with ids (providers, models): removed elements go, kept
/// ones are edited in place, new ones are inserted after the element that
/// precedes them in the edit. An element the typed view could not read keeps
/// its place. When the edit reorders the kept elements, the list is replaced
/// whole (as the tree edit orders it); false then.
fn apply_by_id(array: &CstArray, before: &Value, after: &Value) -> bool {
    let (Value::Array(b), Value::Array(a)) = (before, after) else {
        return false;
    };
    let id_in = |list: &[Value], id: &str| {
        list.iter()
            .position(|v| v.get("id").and_then(Value::as_str) == Some(id))
    };
    let written = |array: &CstArray| -> Vec<(CstNode, Option<String>)> {
        array
            .elements()
            .into_iter()
            .map(|node| {
                let id = node
                    .to_serde_value()
                    .and_then(|v| written_id(&v).map(str::to_string));
                (node, id)
            })
            .collect()
    };
    let kept_in_file: Vec<String> = written(array)
        .into_iter()
        .filter_map(|(_, id)| id)
        .filter(|id| id_in(b, id).is_some() && id_in(a, id).is_some())
        .collect();
    let kept_in_edit: Vec<String> = a
        .iter()
        .filter_map(|v| v.get("id").and_then(Value::as_str))
        .filter(|id| kept_in_file.iter().any(|k| k == id))
        .map(str::to_string)
        .collect();
    if kept_in_file != kept_in_edit {
        let Some(mut tree) = array.to_serde_value() else {
            return false;
        };
        apply(&mut tree, before, after);
        return replace(CstNode::from(array.clone()), &tree);
    }
    for (node, id) in written(array) {
        let Some(id) = id else { continue };
        match (id_in(b, &id), id_in(a, &id)) {
            (Some(_), None) => node.remove(),
            (Some(old), Some(new)) if !apply_node(node.clone(), &b[old], &a[new]) => {
                replace(node, &a[new]);
            }
            _ => {}
        }
    }
    // A new element goes before the next element of the edit that the file
    // has, else at the end.
    for (i, new) in a.iter().enumerate() {
        let present = written(array);
        let at = |id: Option<&str>| present.iter().position(|(_, w)| w.as_deref() == id);
        if at(new.get("id").and_then(Value::as_str)).is_some() {
            continue;
        }
        let next = a[i + 1..]
            .iter()
            .find_map(|later| at(later.get("id").and_then(Value::as_str)));
        match next {
            Some(at) => {
                array.insert(at, input(new));
            }
            None => {
                array.append(input(new));
            }
        }
    }
    true
}

/// Replaces a value node with `value`; false when the node is not a value.
fn replace(node: CstNode, value: &Value) -> bool {
    let with = input(value);
    if let Some(n) = node.as_object() {
        n.replace_with(with);
    } else if let Some(n) = node.as_array() {
        n.replace_with(with);
    } else if let Some(n) = node.as_string_lit() {
        n.replace_with(with);
    } else if let Some(n) = node.as_number_lit() {
        n.replace_with(with);
    } else if let Some(n) = node.as_boolean_lit() {
        n.replace_with(with);
    } else if let Some(n) = node.as_null_keyword() {
        n.replace_with(with);
    } else if let Some(n) = node.as_word_lit() {
        n.replace_with(with);
    } else {
        return false;
    }
    true
}

/// A JSON value as the syntax tree's input.
fn input(value: &Value) -> CstInputValue {
    match value {
        Value::Null => CstInputValue::Null,
        Value::Bool(b) => CstInputValue::Bool(*b),
        Value::Number(n) => CstInputValue::Number(n.to_string()),
        Value::String(s) => CstInputValue::String(s.clone()),
        Value::Array(items) => CstInputValue::Array(items.iter().map(input).collect()),
        Value::Object(map) => {
            CstInputValue::Object(map.iter().map(|(k, v)| (k.clone(), input(v))).collect())
        }
    }
}

#[cfg(test)]
#[path = "preserve_tests.rs"]
mod tests;
