//! From `lsp` in the config to the servers to start: presets by name,
//! languages to file extensions, and the entries that cannot be used.

use std::collections::BTreeMap;

use seekclaw_config::{LspServer, LspSettings};
use serde_json::Value;

/// A preset: its program line and languages.
struct Preset {
    name: &'static str,
    argv: &'static [&'static str],
    languages: &'static [&'static str],
}

const PRESETS: &[Preset] = &[
    Preset {
        name: "rust-analyzer",
        argv: &["rust-analyzer"],
        languages: &["rust"],
    },
    Preset {
        name: "pyright",
        argv: &["pyright-langserver", "--stdio"],
        languages: &["python"],
    },
    Preset {
        name: "typescript-language-server",
        argv: &["typescript-language-server", "--stdio"],
        languages: &["typescript", "javascript"],
    },
    Preset {
        name: "gopls",
        argv: &["gopls"],
        languages: &["go"],
    },
    Preset {
        name: "clangd",
        argv: &["clangd"],
        languages: &["c", "cpp"],
    },
];

/// The names of the presets, for docs and messages.
pub fn preset_names() -> Vec<&'static str> {
    PRESETS.iter().map(|p| p.name).collect()
}

/// A language's file extensions.
const LANGUAGES: &[(&str, &[&str])] = &[
    ("rust", &["rs"]),
    ("python", &["py", "pyi"]),
    ("typescript", &["ts", "tsx", "mts", "cts"]),
    ("javascript", &["js", "jsx", "mjs", "cjs"]),
    ("go", &["go"]),
    ("c", &["c", "h"]),
    (
        "cpp",
        &["cc", "cpp", "cxx", "c++", "hh", "hpp", "hxx", "h++", "h"],
    ),
];

/// The `languageId` of `textDocument/didOpen` for a file extension.
pub fn language_id(extension: &str) -> &'static str {
    match extension {
        "rs" => "rust",
        "py" | "pyi" => "python",
        "ts" | "mts" | "cts" => "typescript",
        "tsx" => "typescriptreact",
        "js" | "mjs" | "cjs" => "javascript",
        "jsx" => "javascriptreact",
        "go" => "go",
        "c" | "h" => "c",
        "cc" | "cpp" | "cxx" | "c++" | "hh" | "hpp" | "hxx" | "h++" => "cpp",
        _ => "plaintext",
    }
}

/// A server to start, resolved from its entry (and preset).
#[derive(Debug, Clone, PartialEq)]
pub struct ServerSpec {
    /// Its name in `lsp.servers`.
    pub name: String,
    /// Program and arguments.
    pub argv: Vec<String>,
    /// Lower-case extensions without the dot.
    pub extensions: Vec<String>,
    /// Extra environment.
    pub env: BTreeMap<String, String>,
    /// `initializationOptions`.
    pub initialization_options: Option<Value>,
    /// Answers to `workspace/configuration`.
    pub settings: Option<Value>,
}

impl ServerSpec {
    /// Whether it covers a file with this extension.
    pub fn covers(&self, extension: &str) -> bool {
        self.extensions.iter().any(|e| e == extension)
    }

    /// The program's name.
    pub fn program(&self) -> &str {
        self.argv.first().map_or("", String::as_str)
    }
}

/// An entry that cannot be used as written, by its path in the config.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpecProblem {
    /// `lsp.servers.NAME.command`.
    pub path: String,
    /// What is wrong.
    pub message: String,
}

/// The enabled servers `settings` describes, and the entries that are unusable.
pub fn resolve(settings: &LspSettings) -> (Vec<ServerSpec>, Vec<SpecProblem>) {
    let mut specs = Vec::new();
    let mut problems = Vec::new();
    for (name, entry) in &settings.entries() {
        if entry.disabled {
            continue;
        }
        match resolve_one(name, entry) {
            Ok(spec) => specs.push(spec),
            Err(problem) => problems.push(problem),
        }
    }
    (specs, problems)
}

fn resolve_one(name: &str, entry: &LspServer) -> Result<ServerSpec, SpecProblem> {
    let at = format!("lsp.servers.{name}");
    let preset = PRESETS.iter().find(|p| p.name.eq_ignore_ascii_case(name));
    let argv = match (&entry.command, preset) {
        (Some(command), _) => command.argv().ok_or_else(|| SpecProblem {
            path: format!("{at}.command"),
            message: "an unclosed quote".into(),
        })?,
        (None, Some(p)) => p.argv.iter().map(|s| s.to_string()).collect(),
        (None, None) => {
            return Err(SpecProblem {
                path: format!("{at}.command"),
                message: format!(
                    "missing, and `{name}` is no preset ({})",
                    preset_names().join(", ")
                ),
            });
        }
    };
    if argv.first().is_none_or(|p| p.trim().is_empty()) {
        return Err(SpecProblem {
            path: format!("{at}.command"),
            message: "empty".into(),
        });
    }
    let mut extensions: Vec<String> = Vec::new();
    let languages: Vec<String> = match (&entry.languages, preset) {
        (Some(l), _) => l.clone(),
        (None, Some(p)) => p.languages.iter().map(|s| s.to_string()).collect(),
        (None, None) => Vec::new(),
    };
    for language in &languages {
        let wanted = language.trim().to_ascii_lowercase();
        let wanted = match wanted.as_str() {
            "c++" => "cpp",
            "py" => "python",
            "ts" => "typescript",
            "js" => "javascript",
            "golang" => "go",
            other => other,
        };
        match LANGUAGES.iter().find(|(l, _)| *l == wanted) {
            Some((_, exts)) => extensions.extend(exts.iter().map(|e| e.to_string())),
            None => {
                return Err(SpecProblem {
                    path: format!("{at}.languages"),
                    message: format!(
                        "unknown language `{language}` (known: {}; or list `extensions`)",
                        LANGUAGES
                            .iter()
                            .map(|(l, _)| *l)
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                });
            }
        }
    }
    for ext in entry.extensions.iter().flatten() {
        extensions.push(ext.trim().trim_start_matches('.').to_ascii_lowercase());
    }
    extensions.retain(|e| !e.is_empty());
    extensions.sort();
    extensions.dedup();
    if extensions.is_empty() {
        return Err(SpecProblem {
            path: format!("{at}.languages"),
            message: "no languages or extensions: it would cover no file".into(),
        });
    }
    Ok(ServerSpec {
        name: name.to_string(),
        argv,
        extensions,
        env: entry.env.clone().unwrap_or_default(),
        initialization_options: entry.initialization_options.clone(),
        settings: entry.settings.clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(json: &str) -> LspSettings {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn presets_by_name_own_keys_override_and_bad_entries_are_named() {
        let (specs, problems) = resolve(&settings(
            r#"{"servers":{
                "pyright":{},
                "gopls":{"disabled":true},
                "clangd":{"command":["/opt/clangd","--log=error"],"extensions":[".cu"]},
                "nothing":{},
                "odd":{"command":["x"],"languages":["cobol"]}
            }}"#,
        ));
        let names: Vec<&str> = specs.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["clangd", "pyright"]);
        assert_eq!(specs[1].argv, ["pyright-langserver", "--stdio"]);
        assert!(specs[1].covers("pyi") && !specs[1].covers("rs"));
        assert_eq!(specs[0].program(), "/opt/clangd");
        assert!(specs[0].covers("cu") && specs[0].covers("cpp"));
        let paths: Vec<&str> = problems.iter().map(|p| p.path.as_str()).collect();
        assert_eq!(
            paths,
            ["lsp.servers.nothing.command", "lsp.servers.odd.languages"]
        );
    }
}
