use super::*;
use crate::{Config, Document, Model, Provider, State, WorkspaceConfig, save_json_edit};
use serde_json::json;

/// A config as a person writes one: line and block comments, trailing
/// commas, a blank line, odd spacing, unquoted keys and single quotes.
const WRITTEN: &str = r#"// my seekclaw config
{
  /* the agent */
  "agent": {
      "maxSteps":   40,   // enough
      mode: 'edit',
  },

  "providers": [
    // local first
    {
      "id": "local",
      "baseUrl": "http://127.0.0.1:8080/v1",
      "models": ["qwen", {"id": "coder"},],
    },
    { "id": "cloud", "baseUrl": "https://api.example.com/v1", "apiKey": "sk-x", "models": [] },
  ],
  "future": {"x": 1}, // not ours
}
"#;

fn edit_config(text: &str, change: impl Fn(&mut Config)) -> String {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.json");
    std::fs::write(&path, text).unwrap();
    let mut doc = Document::<Config>::open(&path).unwrap();
    change(&mut doc.value);
    doc.save().unwrap();
    let saved = std::fs::read_to_string(&path).unwrap();
    // What was written still reads, and as the edit meant.
    let reread = Document::<Config>::open(&path).unwrap();
    let mut expected = Document::<Config>::open_text(text);
    change(&mut expected);
    assert_eq!(
        serde_json::to_value(&reread.value).unwrap(),
        serde_json::to_value(&expected).unwrap()
    );
    saved
}

impl Document<Config> {
    fn open_text(text: &str) -> Config {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.json");
        std::fs::write(&path, text).unwrap();
        Document::<Config>::open(&path).unwrap().value
    }
}

#[test]
fn a_changed_value_is_the_only_change() {
    let saved = edit_config(WRITTEN, |c| c.agent.max_steps = 7);
    assert_eq!(
        saved,
        WRITTEN.replace("\"maxSteps\":   40,", "\"maxSteps\":   7,")
    );
}

#[test]
fn an_edit_that_changes_nothing_writes_nothing() {
    let saved = edit_config(WRITTEN, |_| {});
    assert_eq!(saved, WRITTEN);
}

#[test]
fn a_new_key_is_added_and_the_rest_stays() {
    let saved = edit_config(WRITTEN, |c| c.daemon.slow_client_timeout_seconds = 99);
    assert!(
        saved.starts_with(WRITTEN.split("\"future\"").next().unwrap()),
        "{saved}"
    );
    assert!(
        saved.contains("\"slowClientTimeoutSeconds\": 99"),
        "{saved}"
    );
    assert!(saved.contains("// not ours\n"), "{saved}");
}

#[test]
fn a_removed_provider_goes_with_nothing_else() {
    let saved = edit_config(WRITTEN, |c| c.providers.retain(|p| p.id != "cloud"));
    let cloud = "    { \"id\": \"cloud\", \"baseUrl\": \"https://api.example.com/v1\", \"apiKey\": \"sk-x\", \"models\": [] },\n";
    assert_eq!(saved, WRITTEN.replace(cloud, ""));
}

#[test]
fn an_added_provider_and_model_keep_every_comment() {
    let saved = edit_config(WRITTEN, |c| {
        c.providers.push(Provider {
            id: "third".into(),
            base_url: "http://third".into(),
            ..Default::default()
        });
        c.providers[0].models.push(Model {
            id: "big".into(),
            ..Default::default()
        });
    });
    for kept in [
        "// my seekclaw config",
        "/* the agent */",
        "\"maxSteps\":   40,   // enough",
        "mode: 'edit',",
        "// local first",
        "\"future\": {\"x\": 1}, // not ours",
        "\"models\": [\"qwen\", {\"id\": \"coder\"},",
    ] {
        assert!(saved.contains(kept), "{kept:?} lost:\n{saved}");
    }
    let third = saved.find("\"third\"").unwrap();
    assert!(third > saved.find("\"cloud\"").unwrap(), "{saved}");
    assert!(saved.contains("\"big\""), "{saved}");
}

#[test]
fn a_model_written_as_its_id_is_edited_in_place() {
    let saved = edit_config(WRITTEN, |c| {
        c.providers[0].models.retain(|m| m.id != "qwen");
    });
    assert_eq!(
        saved,
        WRITTEN.replace(
            "[\"qwen\", {\"id\": \"coder\"},]",
            "[ {\"id\": \"coder\"},]"
        )
    );
}

#[test]
fn a_reordered_list_is_rewritten_and_the_rest_stays() {
    let saved = edit_config(WRITTEN, |c| c.providers.reverse());
    let cloud = saved.find("\"cloud\"").unwrap();
    assert!(cloud < saved.find("\"local\"").unwrap(), "{saved}");
    assert!(saved.contains("/* the agent */"), "{saved}");
    assert!(saved.contains("// not ours"), "{saved}");
}

#[test]
fn a_byte_order_mark_stays() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("state.json");
    std::fs::write(&path, "\u{feff}{\n  // mine\n}\n").unwrap();
    let mut doc = Document::<State>::open(&path).unwrap();
    doc.value.disabled_skills.insert("x".into(), String::new());
    doc.save().unwrap();
    let saved = std::fs::read_to_string(&path).unwrap();
    assert!(saved.starts_with("\u{feff}{\n  // mine\n"), "{saved:?}");
    assert!(saved.contains("\"x\""), "{saved}");
}

#[test]
fn a_workspace_file_edited_through_its_strict_view_keeps_its_comments() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.json");
    let text =
        "{\n  // team settings\n  \"mode\": \"plan\", /* for now */\n  \"extra\": true,\n}\n";
    std::fs::write(&path, text).unwrap();
    let mut ws: WorkspaceConfig = crate::read_json_lenient(&path).unwrap().unwrap();
    ws.mode = Some(crate::AgentMode::Auto);
    save_json_edit(&path, &ws).unwrap();
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        text.replace("\"plan\"", "\"auto\"")
    );
    // The MCP servers file is edited as plain JSON.
    let text = "{\n  \"servers\": { // mine\n    \"a\": {\"command\": \"x\"},\n  },\n}\n";
    std::fs::write(&path, text).unwrap();
    let mut doc: Value = crate::read_json_lenient(&path).unwrap().unwrap();
    doc["servers"]["b"] = json!({"command": "y"});
    save_json_edit(&path, &doc).unwrap();
    let saved = std::fs::read_to_string(&path).unwrap();
    assert!(
        saved.starts_with("{\n  \"servers\": { // mine\n    \"a\": {\"command\": \"x\"},"),
        "{saved}"
    );
    assert!(saved.contains("\"b\""), "{saved}");
}

#[test]
fn a_new_file_is_plain_json() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ws.json");
    save_json_edit(&path, &json!({"mode": "plan"})).unwrap();
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "{\n  \"mode\": \"plan\"\n}\n"
    );
}

#[test]
fn rewrite_applies_nested_changes_only() {
    let text = "{ \"a\": {\"b\": 1, /* c */ \"c\": [1,2]}, \"d\": 'x' }";
    let before = json!({"a": {"b": 1, "c": [1, 2]}, "d": "x"});
    let after = json!({"a": {"b": 2, "c": [1, 2]}, "d": "x"});
    assert_eq!(
        rewrite(text, &before, &after).unwrap(),
        "{ \"a\": {\"b\": 2, /* c */ \"c\": [1,2]}, \"d\": 'x' }"
    );
}
