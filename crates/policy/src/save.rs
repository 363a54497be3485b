//! Saving an allow rule the user chose ("always allow") into the workspace's
//! `.seekclaw/config.json` or the user's `config.json`, through the edit
//! path that keeps the rest of the file as the user wrote it.

use std::path::{Path, PathBuf};

use seekclaw_config::{ConfigError, Home, WorkspaceConfig};
use serde_json::{Value, json};

/// Appends `rules` to `permissions.allow` (those not there yet) of the
/// workspace's config, or the user's when `workspace` is `None`; returns
/// the file written.
pub fn save_allow_rules(
    home: &Home,
    workspace: Option<&Path>,
    rules: &[String],
) -> Result<PathBuf, ConfigError> {
    match workspace {
        Some(root) => {
            let path = seekclaw_config::workspace_config_path(root);
            // A file that is not JSON(5) is refused, never written over.
            let mut doc = seekclaw_config::Document::<WorkspaceConfig>::open(&path)?;
            add(&mut doc.value.permissions, rules);
            doc.save()?;
            Ok(path)
        }
        None => {
            seekclaw_config::edits::edit_config::<_, ConfigError>(home, |c| {
                add(&mut c.permissions, rules);
                Ok(())
            })?;
            Ok(home.config_path())
        }
    }
}

fn add(permissions: &mut Option<Value>, rules: &[String]) {
    let perms = permissions.get_or_insert_with(|| json!({}));
    if !perms.is_object() {
        *perms = json!({});
    }
    let Some(obj) = perms.as_object_mut() else {
        return;
    };
    let allow = obj.entry("allow").or_insert_with(|| json!([]));
    if !allow.is_array() {
        *allow = json!([]);
    }
    if let Some(list) = allow.as_array_mut() {
        for r in rules {
            if !list.iter().any(|v| v.as_str() == Some(r)) {
                list.push(Value::from(r.clone()));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rule_is_added_and_the_users_comments_stay() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join(".seekclaw")).unwrap();
        let path = root.join(".seekclaw/config.json");
        std::fs::write(
            &path,
            "{\n  // my model\n  \"model\": \"m1\",\n  \"permissions\": {\"allow\": [\"Bash(ls:*)\"]}\n}\n",
        )
        .unwrap();
        let home = Home::at(root.join("home"));
        save_allow_rules(&home, Some(root), &["Bash(npm test:*)".into()]).unwrap();
        save_allow_rules(&home, Some(root), &["Bash(npm test:*)".into()]).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains("// my model"), "{text}");
        assert_eq!(text.matches("Bash(npm test:*)").count(), 1, "{text}");
        assert!(text.contains("Bash(ls:*)"), "{text}");
    }
}
