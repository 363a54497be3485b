//! The documented configuration defaults are the binary's: every row of the
//! "Configuration defaults" table in docs/configuration.md, and every
//! "`agent.key` … (default N)" in the prose of the README and docs/*.md, is
//! compared with what an empty `config.json` reads as, through the loader the
//! binary uses.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use seekclaw_config::{Config, UiLanguage, load_json_file};
use serde_json::Value;

/// The top-level sections a config key starts with.
const SECTIONS: [&str; 6] = ["agent.", "routing.", "daemon.", "mcp.", "ui.", "profiles."];

fn repo() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The page with the defaults table.
fn configuration_page() -> String {
    std::fs::read_to_string(repo().join("docs/configuration.md")).expect("docs/configuration.md")
}

/// The README and every page of docs/, one after the other.
fn all_docs() -> String {
    let mut pages = vec![repo().join("README.md")];
    let mut docs: Vec<_> = std::fs::read_dir(repo().join("docs"))
        .expect("docs/")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    pages.extend(docs);
    pages
        .iter()
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect::<Vec<_>>()
        .join("\n")
}

/// What an empty `config.json` reads as.
fn empty_config() -> Config {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.json");
    std::fs::write(&path, "{}\n").unwrap();
    let loaded = load_json_file::<Config>(&path).unwrap();
    assert!(loaded.warnings.is_empty(), "{:?}", loaded.warnings);
    loaded.value
}

/// The value `key` (dotted, camelCase) has in `config`. Keys left out of a
/// written file when they hold their default are read from the struct.
fn effective(config: &Config, key: &str) -> Option<Value> {
    let special = match key {
        "agent.subagentMaxSteps" => Some(Value::from(config.agent.subagent_max_steps)),
        "agent.subagentTimeoutSeconds" => Some(Value::from(config.agent.subagent_timeout_seconds)),
        "agent.webSearch.engine" => Some(Value::from(config.agent.web_search.engine.as_str())),
        "ui.language" => Some(Value::from(match config.ui.language() {
            UiLanguage::Zh => "zh",
            UiLanguage::En => "en",
        })),
        "ui.notify" => serde_json::to_value(config.ui.notify()).ok(),
        _ => None,
    };
    if special.is_some() {
        return special;
    }
    let tree = serde_json::to_value(config).unwrap();
    let pointer = format!("/{}", key.replace('.', "/"));
    tree.pointer(&pointer).cloned()
}

/// A documented value as JSON: `40`, `true`, `"never"` (quoted or not).
fn documented(text: &str) -> Value {
    let text = text.trim().trim_matches('`');
    serde_json::from_str(text).unwrap_or_else(|_| Value::from(text))
}

/// `(key, value)` of each row of the table under "## Configuration defaults".
fn table_rows(readme: &str) -> Vec<(String, String)> {
    let start = readme
        .find("## Configuration defaults")
        .expect("docs/configuration.md has a Configuration defaults section");
    readme[start..]
        .lines()
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .filter_map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            let key = cells.get(1)?.strip_prefix('`')?.strip_suffix('`')?;
            Some((key.to_string(), cells.get(2)?.to_string()))
        })
        .collect()
}

/// `(key, value)` of each "`section.key` … (default N)" in the prose: a
/// backticked config key at most 60 characters before "(default ".
fn prose_mentions(readme: &str) -> Vec<(String, String)> {
    let mut found = Vec::new();
    for line in readme.lines().filter(|l| !l.starts_with('|')) {
        let mut rest = line;
        while let Some(at) = rest.find("(default ") {
            let before = &rest[..at];
            let value: String = rest[at + "(default ".len()..]
                .chars()
                .take_while(|c| *c != ')' && *c != ',' && *c != ';')
                .collect();
            let key = before
                .rsplit('`')
                .nth(1)
                .filter(|k| SECTIONS.iter().any(|s| k.starts_with(s)))
                .filter(|k| !k.contains(' '));
            let close = before.rfind('`').is_some_and(|end| at - end <= 60);
            if let Some(key) = key.filter(|_| close) {
                found.push((key.to_string(), value.trim().to_string()));
            }
            rest = &rest[at + 1..];
        }
    }
    found
}

#[test]
fn the_docs_state_the_binarys_defaults() {
    let config = empty_config();
    let rows = table_rows(&configuration_page());
    assert!(rows.len() >= 30, "the table: {rows:?}");
    let prose = prose_mentions(&all_docs());
    for key in [
        "agent.subagentMaxSteps",
        "agent.approvalTimeoutSeconds",
        "daemon.slowClientTimeoutSeconds",
    ] {
        assert!(
            prose.iter().any(|(k, _)| k == key),
            "{key} not found in the prose: {prose:?}"
        );
    }
    let mut wrong = Vec::new();
    for (key, text) in rows.iter().chain(&prose) {
        let want = documented(text);
        match effective(&config, key) {
            Some(got) if got == want => {}
            got => wrong.push(format!("{key}: documented {want}, the binary has {got:?}")),
        }
    }
    assert!(
        wrong.is_empty(),
        "documented defaults that are wrong:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn the_docs_never_say_a_broken_config_is_moved_aside() {
    let docs = all_docs();
    for stale in ["moved to `*.bad-", ".bad-<time>", "moved aside"] {
        assert!(!docs.contains(stale), "the docs still say {stale:?}");
    }
}

/// The checks catch what they are for: a wrong number, a wrong word.
#[test]
fn a_wrong_default_is_caught() {
    let config = empty_config();
    let doc = "### Configuration defaults\n\n| key | default | |\n|---|---|---|\n\
               | `agent.maxSteps` | `41` | x |\n| `ui.language` | `\"en\"` | y |\n\n\
               Each waits `agent.approvalTimeoutSeconds` (default 601).\n";
    let mentions: Vec<(String, String)> = table_rows(doc)
        .into_iter()
        .chain(prose_mentions(doc))
        .collect();
    assert_eq!(mentions.len(), 3, "{mentions:?}");
    for (key, text) in mentions {
        assert_ne!(effective(&config, &key), Some(documented(&text)), "{key}");
    }
}

/// The dotted paths of `value`'s leaves; the objects at `maps` (keyed by
/// names the user picks) count as leaves.
fn leaves(value: &Value, path: &str, maps: &[&str], out: &mut Vec<String>) {
    match value {
        Value::Object(fields) if !maps.contains(&path) && !fields.is_empty() => {
            for (key, v) in fields {
                let child = if path.is_empty() {
                    key.clone()
                } else {
                    format!("{path}.{key}")
                };
                leaves(v, &child, maps, out);
            }
        }
        Value::Array(items) if !items.is_empty() => {
            for item in items {
                leaves(item, &format!("{path}[]"), maps, out);
            }
        }
        _ => out.push(path.to_string()),
    }
}

/// Every key the binary writes to `config.json` (with a provider and a model)
/// and `state.json` is named in docs/configuration.md: top-level sections by
/// their dotted path, a provider's and a model's keys by name in their tables.
#[test]
fn every_key_the_binary_writes_is_documented() {
    let page = configuration_page();
    let mut config = empty_config();
    let provider = serde_json::json!({"id": "p", "baseUrl": "http://x", "models": ["m"]});
    config
        .providers
        .push(serde_json::from_value(provider).unwrap());
    let mut keys = Vec::new();
    let maps = ["profiles", "routing.strategies", "mcp.servers"];
    leaves(
        &serde_json::to_value(&config).unwrap(),
        "",
        &maps,
        &mut keys,
    );
    let state = serde_json::to_value(seekclaw_config::State::default()).unwrap();
    leaves(&state, "", &[], &mut keys);
    let missing: Vec<&String> = keys
        .iter()
        .filter(|key| {
            let documented = match key.strip_prefix("providers[].") {
                Some(rest) => {
                    let leaf = rest.trim_start_matches("models[].");
                    let name = leaf.rsplit('.').next().unwrap_or(leaf);
                    page.contains(&format!("`{leaf}`")) || page.contains(&format!("`{name}`"))
                }
                None => page.contains(&format!("`{key}`")),
            };
            !documented
        })
        .collect();
    assert!(keys.len() > 50, "{keys:?}");
    assert!(
        missing.is_empty(),
        "keys missing from docs/configuration.md: {missing:?}"
    );
}
