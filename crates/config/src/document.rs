//! A read-modify-write of a JSON file that changes only what the edit
//! changed. The edit works on the typed view; what it changed (the typed
//! view before and after, as trees) is then applied to the text as the user
//! wrote it (`preserve`), so comments and formatting stay, and a field the
//! typed view could not read (wrongly typed, so it fell back to its default)
//! or an element it left out is written back verbatim rather than replaced
//! by a default.

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::error::{ConfigError, Result};
use crate::jsonfile::{Source, pretty, read_source, save_text_file, typed_tree};
use crate::lenient::FieldWarning;
use crate::unknown::UnknownFields;

/// A file opened for an edit. A file that is not JSON(5) cannot be opened:
/// an edit must never write over what it could not read.
#[derive(Debug)]
pub struct Document<T> {
    path: PathBuf,
    /// As on disk; `None` when the file is missing or blank.
    source: Option<Source>,
    /// The typed view as read, as a tree: the base the edit is measured from.
    before: Value,
    /// The typed view, for the edit to change.
    pub value: T,
    /// Fields the typed view could not use as written (kept in the file).
    pub warnings: Vec<FieldWarning>,
}

impl<T: DeserializeOwned + Serialize + Default + UnknownFields> Document<T> {
    /// Reads `path`; [`ConfigError::Invalid`] when it is not JSON(5).
    pub fn open(path: &Path) -> Result<Document<T>> {
        let source = read_source(path)?;
        let (value, warnings) = match &source {
            None => (T::default(), Vec::new()),
            Some(source) => {
                let loaded = typed_tree::<T>(path, &source.tree)?;
                (loaded.value, loaded.warnings)
            }
        };
        let before = to_tree(path, &value)?;
        Ok(Document {
            path: path.to_path_buf(),
            source,
            before,
            value,
            warnings,
        })
    }

    /// The file's tree with the edit applied (the whole typed view for a new file).
    pub fn edited_tree(&self) -> Result<Value> {
        let after = to_tree(&self.path, &self.value)?;
        Ok(match &self.source {
            None => after,
            Some(source) => {
                let mut tree = source.tree.clone();
                apply(&mut tree, &self.before, &after);
                tree
            }
        })
    }

    /// The file's text with the edit applied: as written except for the
    /// values the edit changed (2-space JSON for a new file).
    pub fn edited_text(&self) -> Result<Vec<u8>> {
        let after = to_tree(&self.path, &self.value)?;
        edited_text(&self.path, self.source.as_ref(), &self.before, &after)
    }

    /// Writes the edited text atomically (see [`crate::save_json_file`]); an
    /// edit that changed nothing leaves the file as it is.
    pub fn save(&self) -> Result<()> {
        let after = to_tree(&self.path, &self.value)?;
        if self.source.is_some() && after == self.before {
            return Ok(());
        }
        save_text_file(
            &self.path,
            &edited_text(&self.path, self.source.as_ref(), &self.before, &after)?,
        )
    }
}

/// Saves `value` over the file at `path`, changing in its text only what
/// differs from the typed view of what the file holds now (comments and
/// formatting elsewhere stay; a new file is 2-space JSON). For files edited
/// through a typed view read strictly (a workspace's `.seekclaw/config.json`,
/// an MCP servers file). A file that is not JSON(5) is never written over.
pub fn save_json_edit<T: DeserializeOwned + Serialize>(path: &Path, value: &T) -> Result<()> {
    let source = read_source(path)?;
    let after = to_tree(path, value)?;
    let before = match &source {
        None => after.clone(),
        // What the typed view makes of the file now: fields it does not know
        // are not part of the edit and stay.
        Some(source) => match serde_json::from_value::<T>(source.tree.clone()) {
            Ok(typed) => to_tree(path, &typed)?,
            Err(_) => source.tree.clone(),
        },
    };
    if source.is_some() && before == after {
        return Ok(());
    }
    save_text_file(path, &edited_text(path, source.as_ref(), &before, &after)?)
}

/// The text of `source` with the change `before` → `after` applied.
fn edited_text(
    path: &Path,
    source: Option<&Source>,
    before: &Value,
    after: &Value,
) -> Result<Vec<u8>> {
    let Some(source) = source else {
        return pretty(path, after);
    };
    let text = match crate::preserve::rewrite(&source.text, before, after) {
        Some(text) => text,
        // A JSON5 form the syntax-tree editor does not know: the tree as
        // edited, reformatted, rather than no edit at all.
        None => {
            let mut tree = source.tree.clone();
            apply(&mut tree, before, after);
            return pretty(path, &tree);
        }
    };
    let mut bytes = Vec::with_capacity(text.len() + 3);
    if source.bom {
        bytes.extend_from_slice("\u{feff}".as_bytes());
    }
    bytes.extend_from_slice(text.as_bytes());
    Ok(bytes)
}

fn to_tree<T: Serialize>(path: &Path, value: &T) -> Result<Value> {
    serde_json::to_value(value).map_err(|e| ConfigError::Json {
        path: path.to_path_buf(),
        message: e.to_string(),
    })
}

/// Applies the change `before` → `after` to `tree` (which `before` was read
/// from). Parts that did not change are left exactly as written.
pub(crate) fn apply(tree: &mut Value, before: &Value, after: &Value) {
    if before == after {
        return;
    }
    match (tree, before, after) {
        (Value::Object(tree), Value::Object(before), Value::Object(after)) => {
            apply_object(tree, before, after);
        }
        (Value::Array(tree), Value::Array(before), Value::Array(after))
            if by_id(before) && by_id(after) =>
        {
            apply_by_id(tree, before, after);
        }
        (tree, _, after) => *tree = after.clone(),
    }
}

fn apply_object(
    tree: &mut Map<String, Value>,
    before: &Map<String, Value>,
    after: &Map<String, Value>,
) {
    for (key, new) in after {
        let old = before.get(key);
        if old == Some(new) {
            continue;
        }
        match (tree.get_mut(key), old) {
            (Some(written), Some(old)) => apply(written, old, new),
            _ => {
                tree.insert(key.clone(), new.clone());
            }
        }
    }
    for key in before.keys() {
        if !after.contains_key(key) {
            tree.shift_remove(key);
        }
    }
}

/// Lists of objects with ids (providers, models) are matched by id, so an
/// element the typed view could not read stays where it is.
pub(crate) fn by_id(items: &[Value]) -> bool {
    items.iter().all(|v| id_of(v).is_some())
}

fn id_of(v: &Value) -> Option<&str> {
    v.get("id").and_then(Value::as_str)
}

/// The id of an element as written: a model may be written as its bare id.
pub(crate) fn written_id(v: &Value) -> Option<&str> {
    v.as_str().or_else(|| id_of(v))
}

/// The edit's order wins; an element only the file has (the typed view
/// could not read it) keeps its place.
fn apply_by_id(tree: &mut Vec<Value>, before: &[Value], after: &[Value]) {
    let find = |list: &[Value], id: &str| list.iter().position(|v| id_of(v) == Some(id));
    let mut written: Vec<Option<Value>> = tree.drain(..).map(Some).collect();
    let mut unread = Vec::new();
    for (i, slot) in written.iter_mut().enumerate() {
        let known = slot
            .as_ref()
            .and_then(written_id)
            .is_some_and(|id| find(before, id).is_some());
        if !known && let Some(v) = slot.take() {
            unread.push((i, v));
        }
    }
    let mut out = Vec::with_capacity(after.len() + unread.len());
    for new in after {
        let id = id_of(new).unwrap_or_default();
        let mine = written
            .iter_mut()
            .find(|slot| slot.as_ref().and_then(written_id) == Some(id))
            .and_then(Option::take);
        match (mine, find(before, id)) {
            (Some(mut mine), Some(b)) => {
                apply(&mut mine, &before[b], new);
                out.push(mine);
            }
            _ => out.push(new.clone()),
        }
    }
    for (i, v) in unread {
        out.insert(i.min(out.len()), v);
    }
    *tree = out;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;
    use serde_json::json;

    #[test]
    fn a_reordered_list_takes_the_edits_order_and_unread_elements_keep_their_place() {
        let mut tree = json!([{"id": "a", "x": 1}, 5, {"id": "b"}]);
        let before = json!([{"id": "a"}, {"id": "b"}]);
        let after = json!([{"id": "b"}, {"id": "c"}, {"id": "a"}]);
        apply(&mut tree, &before, &after);
        assert_eq!(
            tree,
            json!([{"id": "b"}, 5, {"id": "c"}, {"id": "a", "x": 1}])
        );
    }

    #[test]
    fn a_model_written_as_its_id_is_matched_by_it() {
        let mut tree = json!(["m1", {"id": "m2"}]);
        let before = json!([{"id": "m1", "x": 0}, {"id": "m2"}]);
        let after = json!([{"id": "m1", "x": 0}, {"id": "m2"}, {"id": "m3"}]);
        apply(&mut tree, &before, &after);
        assert_eq!(tree, json!(["m1", {"id": "m2"}, {"id": "m3"}]));
        let changed = json!([{"id": "m1", "x": 1}]);
        apply(&mut tree, &after, &changed);
        assert_eq!(tree, json!([{"id": "m1", "x": 1}]));
    }

    #[test]
    fn an_edit_keeps_what_the_typed_view_could_not_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.json");
        std::fs::write(
            &path,
            r#"{
              // mine
              "agent": {"maxSteps": "forty", "mode": "PLAN"},
              "providers": [
                {"id": "a", "baseUrl": "http://a", "timeoutSeconds": "slow", "models": [{"id": "m"}]},
                "not a provider",
              ],
              "future": {"x": 1},
            }"#,
        )
        .unwrap();
        let mut doc = Document::<Config>::open(&path).unwrap();
        let paths: Vec<&str> = doc.warnings.iter().map(|w| w.path.as_str()).collect();
        assert_eq!(
            paths,
            [
                "agent.maxSteps",
                "providers[0].timeoutSeconds",
                "providers[1]",
                "future"
            ]
        );
        assert_eq!(doc.value.agent.max_steps, 40);
        doc.value.providers.push(crate::Provider {
            id: "b".into(),
            base_url: "http://b".into(),
            ..Default::default()
        });
        doc.value.providers[0].priority = 5;
        doc.save().unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains("// mine"), "{text}");
        let saved: Value = json5::from_str(&text).unwrap();
        assert_eq!(saved["agent"], json!({"maxSteps": "forty", "mode": "PLAN"}));
        assert_eq!(saved["future"], json!({"x": 1}));
        let providers = saved["providers"].as_array().unwrap();
        assert_eq!(providers.len(), 3);
        assert_eq!(providers[0]["timeoutSeconds"], "slow");
        assert_eq!(providers[0]["priority"], 5);
        assert_eq!(providers[1], "not a provider");
        assert_eq!(providers[2]["id"], "b");
    }

    #[test]
    fn a_removed_provider_goes_and_a_new_file_is_the_whole_view() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.json");
        let mut doc = Document::<Config>::open(&path).unwrap();
        doc.value.agent.max_steps = 7;
        doc.save().unwrap();
        let saved: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(saved["activeProfile"], "default");
        assert_eq!(saved["agent"]["maxSteps"], 7);

        std::fs::write(
            &path,
            r#"{"providers": [{"id": "a", "baseUrl": "u"}, {"id": "b", "baseUrl": "u", "x": 1}]}"#,
        )
        .unwrap();
        let mut doc = Document::<Config>::open(&path).unwrap();
        doc.value.providers.retain(|p| p.id != "a");
        doc.save().unwrap();
        let saved: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(
            saved["providers"],
            json!([{"id": "b", "baseUrl": "u", "x": 1}])
        );
    }

    #[test]
    fn a_file_that_is_not_json_cannot_be_opened_and_stays() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.json");
        let text = "{\n  \"agent\": {}\n  \"providers\": []\n}\n";
        std::fs::write(&path, text).unwrap();
        let err = Document::<Config>::open(&path).unwrap_err();
        let ConfigError::Invalid(problem) = err else {
            panic!("{err:?}")
        };
        assert_eq!((problem.line, problem.column), (Some(3), Some(3)));
        assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
    }
}
