//! `lsp`: the language servers asked for diagnostics after an edit. Absent
//! or empty, no server is ever started. A server entry named like a preset
//! (`"pyright": {}`) takes the preset's command and languages; its own keys
//! override them.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::unknown::UnknownFields;

/// How long an edit waits for its diagnostics unless `lsp.waitMilliseconds` says otherwise.
pub const DEFAULT_LSP_WAIT_MS: u64 = 1500;

/// `lsp`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct LspSettings {
    /// Server name → how to start it and which files it covers.
    pub servers: BTreeMap<String, LspServer>,
    /// The most an edit waits for its diagnostics, server start included
    /// (default 1500).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wait_milliseconds: Option<u64>,
    /// Unknown keys of `lsp`, kept so a newer config round-trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl LspSettings {
    /// Nothing configured (left out of a written config).
    pub fn is_empty(&self) -> bool {
        *self == LspSettings::default()
    }

    /// The wait bound in effect.
    pub fn wait_ms(&self) -> u64 {
        self.wait_milliseconds.unwrap_or(DEFAULT_LSP_WAIT_MS)
    }

    /// Every server entry: `lsp.servers`, and the entries written directly
    /// under `lsp` as other tools write them (`"lsp": {"pyright": {"command":
    /// […], "languages": […]}}`, `"gopls": {}` for a preset). An entry in
    /// `servers` wins over one of the same name beside it.
    pub fn entries(&self) -> BTreeMap<String, LspServer> {
        let mut all = self.servers.clone();
        for (name, value) in &self.extra {
            if let Some(server) = direct_entry(value) {
                all.entry(name.clone()).or_insert(server);
            }
        }
        all
    }
}

/// A server entry written directly under `lsp`, if `value` reads as one
/// (an object of a server's keys).
fn direct_entry(value: &Value) -> Option<LspServer> {
    match value {
        Value::Object(_) => serde_json::from_value(value.clone()).ok(),
        _ => None,
    }
}

/// The program line of a server: an argv list, or one string split like a
/// shell would (`"pyright-langserver --stdio"`). Written back as it was read.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum LspCommand {
    /// `["pyright-langserver", "--stdio"]`.
    Argv(Vec<String>),
    /// `"pyright-langserver --stdio"`.
    Line(String),
}

// By hand: an untagged enum's error names no expected shape.
impl<'de> Deserialize<'de> for LspCommand {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = LspCommand;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a list of strings (program and arguments) or one command line")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<LspCommand, E> {
                Ok(LspCommand::Line(v.to_string()))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<LspCommand, A::Error> {
                let mut argv = Vec::new();
                while let Some(word) = seq.next_element::<String>()? {
                    argv.push(word);
                }
                Ok(LspCommand::Argv(argv))
            }
        }
        d.deserialize_any(V)
    }
}

impl LspCommand {
    /// The argv; `None` when a line does not split (an open quote).
    pub fn argv(&self) -> Option<Vec<String>> {
        match self {
            LspCommand::Argv(argv) => Some(argv.clone()),
            LspCommand::Line(line) => split_line(line),
        }
    }
}

/// Whitespace-separated words; single and double quotes group.
fn split_line(line: &str) -> Option<Vec<String>> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut quote: Option<char> = None;
    for c in line.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.get_or_insert_with(String::new).push(c),
            (None, '"' | '\'') => {
                quote = Some(c);
                word.get_or_insert_with(String::new);
            }
            (None, c) if c.is_whitespace() => words.extend(word.take()),
            (None, c) => word.get_or_insert_with(String::new).push(c),
        }
    }
    if quote.is_some() {
        return None;
    }
    words.extend(word);
    Some(words)
}

/// One language server.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct LspServer {
    /// The program and its arguments (a preset's when left out).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub command: Option<LspCommand>,
    /// Languages it covers (`python`, `rust`, `typescript`, …), each standing
    /// for its usual file extensions.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub languages: Option<Vec<String>>,
    /// File extensions it covers besides its languages' (`pyi`, no dot needed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub extensions: Option<Vec<String>>,
    /// Extra environment of the started program.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub env: Option<BTreeMap<String, String>>,
    /// Sent as `initializationOptions` in `initialize`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub initialization_options: Option<Value>,
    /// What the server reads through `workspace/configuration` (looked up by
    /// its `section`, dotted).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub settings: Option<Value>,
    /// A disabled server stays configured but is never started.
    #[serde(skip_serializing_if = "is_false")]
    pub disabled: bool,
    /// Unknown keys of the server entry, kept so a newer config round-trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

fn is_false(b: &bool) -> bool {
    !*b
}

impl UnknownFields for LspSettings {
    fn unknown_fields(&self, at: &str, out: &mut Vec<String>) {
        let join = |key: &str| {
            if at.is_empty() {
                key.to_string()
            } else {
                format!("{at}.{key}")
            }
        };
        for (key, value) in &self.extra {
            match direct_entry(value) {
                Some(server) => server.unknown_fields(&join(key), out),
                None => out.push(join(key)),
            }
        }
        for (name, server) in &self.servers {
            server.unknown_fields(&join(&format!("servers.{name}")), out);
        }
    }
}

impl UnknownFields for LspServer {
    fn unknown_fields(&self, at: &str, out: &mut Vec<String>) {
        out.extend(self.extra.keys().map(|k| format!("{at}.{k}")));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn servers_written_directly_under_lsp_count_too() {
        let parsed: LspSettings = serde_json::from_str(
            r#"{"pyright": {"command": ["pyright-langserver", "--stdio"], "languages": ["python"]},
                "gopls": {}, "clangd": {"disabled": true}, "waitMilliseconds": 900, "odd": 3,
                "servers": {"gopls": {"command": "gopls serve"}}}"#,
        )
        .unwrap();
        let all = parsed.entries();
        assert_eq!(
            all["pyright"].command.as_ref().unwrap().argv().unwrap(),
            ["pyright-langserver", "--stdio"]
        );
        assert_eq!(
            all["pyright"].languages.as_deref(),
            Some(&["python".to_string()][..])
        );
        assert!(all["clangd"].disabled && !all.contains_key("odd"));
        assert_eq!(
            all["gopls"].command.as_ref().unwrap().argv().unwrap(),
            ["gopls", "serve"],
            "servers wins"
        );
        assert_eq!(parsed.wait_ms(), 900);
        let mut unknown = Vec::new();
        parsed.unknown_fields("lsp", &mut unknown);
        assert_eq!(unknown, ["lsp.odd"]);
        // Written back as it was read.
        let again = serde_json::to_value(&parsed).unwrap();
        assert_eq!(again["pyright"]["languages"], serde_json::json!(["python"]));
    }

    #[test]
    fn a_preset_by_name_and_a_full_entry_round_trip() {
        let text = r#"{"servers":{"pyright":{},"mine":{"command":"my-ls --stdio 'a b'","languages":["python"],"extensions":["pyw"],"env":{"A":"1"},"initializationOptions":{"x":1},"settings":{"python":{"analysis":{}}},"disabled":true,"future":2}},"waitMilliseconds":900,"other":true}"#;
        let parsed: LspSettings = serde_json::from_str(text).unwrap();
        assert_eq!(parsed.wait_ms(), 900);
        let mine = &parsed.servers["mine"];
        assert!(mine.disabled);
        assert_eq!(
            mine.command.as_ref().unwrap().argv().unwrap(),
            ["my-ls", "--stdio", "a b"]
        );
        let again: Value = serde_json::to_value(&parsed).unwrap();
        assert_eq!(again, serde_json::from_str::<Value>(text).unwrap());
        let mut unknown = Vec::new();
        parsed.unknown_fields("lsp", &mut unknown);
        assert_eq!(unknown, ["lsp.other", "lsp.servers.mine.future"]);
    }

    #[test]
    fn bad_entries_fall_back_alone_and_are_reported_by_path() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.json");
        std::fs::write(
            &path,
            r#"{"lsp": {"servers": {"pyright": {"disabled": "yes", "langauges": ["python"]},
                "x": {"command": 5, "extensions": ["x"]}}, "waitMilliseconds": "soon"}}"#,
        )
        .unwrap();
        let loaded = crate::load_json_file::<crate::Config>(&path).unwrap();
        let mut paths: Vec<&str> = loaded.warnings.iter().map(|w| w.path.as_str()).collect();
        paths.sort();
        assert_eq!(
            paths,
            [
                "lsp.servers.pyright.disabled",
                "lsp.servers.pyright.langauges",
                "lsp.servers.x.command",
                "lsp.waitMilliseconds"
            ],
            "{:?}",
            loaded.warnings
        );
        let command = loaded.warnings.iter().find(|w| w.path.ends_with("command"));
        assert!(
            command.unwrap().message.contains("a list of strings"),
            "{command:?}"
        );
        let lsp = &loaded.value.lsp;
        assert_eq!(lsp.wait_ms(), DEFAULT_LSP_WAIT_MS);
        assert!(!lsp.servers["pyright"].disabled);
        assert_eq!(lsp.servers["x"].command, None);
        // What was written stays in the file when it is saved again.
        assert!(
            serde_json::to_string(&loaded.value)
                .unwrap()
                .contains("langauges")
        );
    }

    #[test]
    fn an_argv_command_and_defaults() {
        let parsed: LspSettings =
            serde_json::from_str(r#"{"servers":{"x":{"command":["a","--b"]}}}"#).unwrap();
        assert_eq!(parsed.wait_ms(), DEFAULT_LSP_WAIT_MS);
        assert_eq!(
            parsed.servers["x"]
                .command
                .as_ref()
                .unwrap()
                .argv()
                .unwrap(),
            ["a", "--b"]
        );
        assert!(LspSettings::default().is_empty());
        assert_eq!(split_line("a 'b"), None);
    }
}
