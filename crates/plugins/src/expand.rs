//! `${CLAUDE_PLUGIN_ROOT}` (and our `${SEEKCLAW_PLUGIN_ROOT}`) in hook
//! commands and MCP server entries: the plugin's installed folder.

use std::path::Path;

use serde_json::Value;

const VARS: [&str; 2] = ["${CLAUDE_PLUGIN_ROOT}", "${SEEKCLAW_PLUGIN_ROOT}"];

/// `text` with the plugin root variables replaced by `root`.
pub fn expand(text: &str, root: &Path) -> String {
    let root = root.to_string_lossy();
    VARS.iter()
        .fold(text.to_string(), |acc, var| acc.replace(var, &root))
}

/// Every string inside `value` expanded (keys stay as they are).
pub fn expand_value(value: &mut Value, root: &Path) {
    match value {
        Value::String(s) if s.contains("_PLUGIN_ROOT}") => *s = expand(s, root),
        Value::Array(items) => items.iter_mut().for_each(|v| expand_value(v, root)),
        Value::Object(map) => map.values_mut().for_each(|v| expand_value(v, root)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_spellings_and_nested_values() {
        let root = Path::new("/p/demo");
        assert_eq!(
            expand(
                "${CLAUDE_PLUGIN_ROOT}/a ${SEEKCLAW_PLUGIN_ROOT}/b $HOME",
                root
            ),
            "/p/demo/a /p/demo/b $HOME"
        );
        let mut v = serde_json::json!({"env":{"X":"${CLAUDE_PLUGIN_ROOT}"},"args":["${CLAUDE_PLUGIN_ROOT}/s"],"n":1});
        expand_value(&mut v, root);
        assert_eq!(v["env"]["X"], "/p/demo");
        assert_eq!(v["args"][0], "/p/demo/s");
    }
}
