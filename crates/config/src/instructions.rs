//! `instructions`: the project instruction files the system prompt includes
//! (`AGENTS.md` and the files other agents read), and how much of them.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::unknown::{UnknownFields, extra};

/// The names looked for in each directory, first found wins: Codex's override,
/// the shared `AGENTS.md`, then Claude Code's and Gemini CLI's files.
pub const DEFAULT_INSTRUCTION_FILE_NAMES: [&str; 4] =
    ["AGENTS.override.md", "AGENTS.md", "CLAUDE.md", "GEMINI.md"];

/// The most instruction text a prompt carries unless `instructions.maxBytes` says otherwise (64 KiB).
pub const DEFAULT_INSTRUCTIONS_MAX_BYTES: usize = 64 * 1024;

/// `instructions`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct InstructionSettings {
    /// File names looked for in each directory, in order; the first that
    /// exists is used (default: `AGENTS.override.md`, `AGENTS.md`,
    /// `CLAUDE.md`, `GEMINI.md`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file_names: Option<Vec<String>>,
    /// The most bytes of instruction text in a prompt, all files together
    /// (default 65536); the files farthest from the working directory are
    /// cut first.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_bytes: Option<usize>,
    /// Unknown keys of `instructions`, kept so a newer config round-trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl InstructionSettings {
    /// Nothing configured (left out of a written config).
    pub fn is_empty(&self) -> bool {
        *self == InstructionSettings::default()
    }

    /// The names in effect (an empty list or blank names fall back to the defaults).
    pub fn names(&self) -> Vec<String> {
        let configured: Vec<String> = self
            .file_names
            .iter()
            .flatten()
            .map(|n| n.trim().to_string())
            .filter(|n| !n.is_empty() && !n.contains(['/', '\\']))
            .collect();
        if configured.is_empty() {
            DEFAULT_INSTRUCTION_FILE_NAMES
                .iter()
                .map(|n| n.to_string())
                .collect()
        } else {
            configured
        }
    }

    /// The budget in effect.
    pub fn budget(&self) -> usize {
        self.max_bytes.unwrap_or(DEFAULT_INSTRUCTIONS_MAX_BYTES)
    }
}

impl UnknownFields for InstructionSettings {
    fn unknown_fields(&self, at: &str, out: &mut Vec<String>) {
        extra(&self.extra, at, out);
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn names_default_and_configured() {
        let empty = InstructionSettings::default();
        assert_eq!(empty.names()[1], "AGENTS.md");
        assert_eq!(empty.budget(), 65536);
        let own: InstructionSettings = serde_json::from_value(
            serde_json::json!({"fileNames": ["RULES.md", " ", "a/b.md"], "maxBytes": 10}),
        )
        .unwrap();
        assert_eq!(own.names(), vec!["RULES.md".to_string()]);
        assert_eq!(own.budget(), 10);
        let blank: InstructionSettings =
            serde_json::from_value(serde_json::json!({"fileNames": []})).unwrap();
        assert_eq!(blank.names().len(), 4);
    }
}
