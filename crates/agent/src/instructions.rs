//! The instruction files a turn's system prompt includes: the user's own
//! (`$SEEKCLAW_HOME/AGENTS.md`), then one per directory from the workspace
//! root down to the directory the front end was started from (the first of
//! `instructions.fileNames` that exists there: `AGENTS.override.md`,
//! `AGENTS.md`, `CLAUDE.md`, `GEMINI.md`). `@path` imports inside them are
//! expanded, confined to the workspace and the SeekClaw home. The total is
//! held to a byte budget by cutting the files farthest from the working
//! directory first: the nearest file is the most specific.
//!
//! Blocking std I/O; read once per turn (off the async threads) so the prompt
//! stays byte-identical across the turn's steps.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use seekclaw_config::InstructionPath;

use serde::Serialize;

/// Imports nest at most this deep (a file importing a file … five times).
pub const MAX_IMPORT_DEPTH: usize = 5;

/// Where a turn's instruction files come from.
#[derive(Debug, Clone, Copy)]
pub struct InstructionScope<'a> {
    /// The SeekClaw home: its `AGENTS.md` is the user's own file.
    pub home: Option<&'a Path>,
    /// The workspace root (`None`: the global scope, only the user's file).
    pub workspace: Option<&'a Path>,
    /// The directory the front end was started from; files are read from the
    /// root down to it (outside the workspace or `None`: the root only).
    pub start: Option<&'a Path>,
    /// Names looked for in each directory, first found wins.
    pub names: &'a [String],
    /// The most bytes of instruction text in all.
    pub max_bytes: usize,
}

/// One instruction file as the prompt includes it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct InstructionFile {
    /// Where it is.
    pub path: PathBuf,
    /// How the prompt names it: relative to the workspace root, or
    /// `~seekclaw/AGENTS.md` for the user's own (in the SeekClaw home).
    pub label: String,
    /// Its text with its imports expanded, cut to the budget.
    #[serde(skip)]
    pub text: String,
    /// Bytes with imports expanded, before any cut.
    pub bytes: usize,
    /// Cut (or left out entirely: `text` empty) to keep within the budget.
    pub truncated: bool,
    /// The user's own file (in the SeekClaw home), not the workspace's.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub user: bool,
    /// Files its `@path` imports brought in.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub imports: Vec<PathBuf>,
}

/// A turn's instruction files, most general first.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Instructions {
    /// The files, most general first.
    pub files: Vec<InstructionFile>,
    /// The budget that was applied.
    pub max_bytes: usize,
}

impl Instructions {
    /// Some file was cut or left out for the budget.
    pub fn truncated(&self) -> bool {
        self.files.iter().any(|f| f.truncated)
    }

    /// What the user reads when the budget cut something.
    pub fn budget_notice(&self) -> Option<String> {
        let cut: Vec<String> = self
            .files
            .iter()
            .filter(|f| f.truncated)
            .map(|f| match f.text.len() {
                0 => format!("{} (left out, {} bytes)", f.label, f.bytes),
                n => format!("{} ({n} of {} bytes)", f.label, f.bytes),
            })
            .collect();
        (!cut.is_empty()).then(|| {
            format!(
                "The instruction files exceed instructions.maxBytes ({} bytes); cut the farthest from the working directory: {}. Raise instructions.maxBytes in config.json or shorten the files.",
                self.max_bytes,
                cut.join(", ")
            )
        })
    }
}

/// Reads the instruction files of `scope`, and says which paths the outcome
/// depended on (every name looked for, every import), for the caller's cache.
pub fn read_instructions(scope: &InstructionScope<'_>) -> (Instructions, Vec<PathBuf>) {
    let mut sources = Vec::new();
    let found = seekclaw_config::instruction_paths(
        scope.home,
        scope.workspace,
        scope.start,
        scope.names,
        &mut sources,
    );
    let confine: Vec<PathBuf> = [scope.workspace, scope.home]
        .into_iter()
        .flatten()
        .filter_map(|p| p.canonicalize().ok())
        .collect();
    let mut expander = Expander {
        confine: &confine,
        seen: HashSet::new(),
        sources: &mut sources,
    };
    let mut files = Vec::new();
    for InstructionPath { path, label, user } in found {
        let Ok(canonical) = path.canonicalize() else {
            continue;
        };
        // The same file reached twice (a home inside the workspace, a link).
        if !expander.seen.insert(canonical.clone()) {
            continue;
        }
        let Some(raw) = read_text(&path) else {
            continue;
        };
        let mut imports = Vec::new();
        let mut stack = vec![canonical];
        let text = expander.expand(&raw, &path, &mut stack, &mut imports);
        files.push(InstructionFile {
            bytes: text.len(),
            path,
            label,
            text,
            truncated: false,
            user,
            imports,
        });
    }
    apply_budget(&mut files, scope.max_bytes);
    let instructions = Instructions {
        files,
        max_bytes: scope.max_bytes,
    };
    (instructions, sources)
}

/// Expands `@path` imports, remembering what it read.
struct Expander<'a> {
    /// Imports must resolve inside one of these (canonical).
    confine: &'a [PathBuf],
    /// Every file already included (an import is included once).
    seen: HashSet<PathBuf>,
    sources: &'a mut Vec<PathBuf>,
}

impl Expander<'_> {
    /// `text` (of the file at `path`) with each import's text inserted after
    /// the line that names it. `stack` holds the files being expanded (a
    /// cycle), `imports` collects the files brought in.
    fn expand(
        &mut self,
        text: &str,
        path: &Path,
        stack: &mut Vec<PathBuf>,
        imports: &mut Vec<PathBuf>,
    ) -> String {
        let dir = path.parent().unwrap_or(Path::new("."));
        let mut out = String::with_capacity(text.len());
        let mut fenced = false;
        for line in text.split_inclusive('\n') {
            out.push_str(line);
            let trimmed = line.trim_start();
            if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
                fenced = !fenced;
                continue;
            }
            if fenced {
                continue;
            }
            for token in import_tokens(line) {
                let target = resolve(dir, token);
                self.sources.push(target.clone());
                let Ok(canonical) = target.canonicalize() else {
                    // Not a file: an `@mention`, not an import.
                    continue;
                };
                if !canonical.is_file() {
                    continue;
                }
                if !line.ends_with('\n') {
                    out.push('\n');
                }
                let note = if !self.confine.iter().any(|c| canonical.starts_with(c)) {
                    Some("outside the workspace and the SeekClaw home")
                } else if stack.contains(&canonical) {
                    Some("it imports itself (a cycle)")
                } else if stack.len() > MAX_IMPORT_DEPTH {
                    Some("imports nest deeper than 5")
                } else if self.seen.contains(&canonical) {
                    Some("already included above")
                } else {
                    None
                };
                if let Some(why) = note {
                    out.push_str(&format!("(@{token} not imported: {why})\n"));
                    continue;
                }
                let Some(body) = read_text(&target) else {
                    continue;
                };
                self.seen.insert(canonical.clone());
                imports.push(seekclaw_config::normalize_path(&target, dir));
                stack.push(canonical);
                let body = self.expand(&body, &target, stack, imports);
                stack.pop();
                out.push_str(&format!("<imported from=\"{token}\">\n"));
                out.push_str(body.trim_end());
                out.push_str("\n</imported>\n");
            }
        }
        out
    }
}

/// The `@path` tokens of a line: an `@` at the start or after whitespace,
/// outside inline code, naming something path-like (an e-mail address or a
/// bare `@name` is not one).
fn import_tokens(line: &str) -> Vec<&str> {
    let mut tokens = Vec::new();
    let mut in_code = false;
    let mut prev_space = true;
    for (i, c) in line.char_indices() {
        if c == '`' {
            in_code = !in_code;
        } else if c == '@' && prev_space && !in_code {
            let rest = &line[i + 1..];
            let end = rest
                .find(|ch: char| ch.is_whitespace() || ch == '`')
                .unwrap_or(rest.len());
            let token = rest[..end].trim_end_matches(['.', ',', ';', ':', ')', ']', '!', '?']);
            let pathlike = token.contains('/') || token.contains('.');
            if !token.is_empty() && pathlike && !token.contains('@') {
                tokens.push(token);
            }
        }
        prev_space = c.is_whitespace() || c == '(';
    }
    tokens
}

/// Where an import token points: `~/x` under the user's home, an absolute
/// path as is, anything else relative to the importing file's folder.
fn resolve(dir: &Path, token: &str) -> PathBuf {
    if let Some(rest) = token.strip_prefix("~/")
        && let Some(home) = seekclaw_config::user_home()
    {
        return home.join(rest);
    }
    let path = Path::new(token);
    if path.is_absolute() {
        path.to_path_buf()
    } else {
        dir.join(path)
    }
}

/// Keeps the total within `max_bytes`: the files nearest the working
/// directory (last) keep their text whole; the first that does not fit is
/// cut at a line break, the ones before it are left out.
fn apply_budget(files: &mut [InstructionFile], max_bytes: usize) {
    let mut left = max_bytes;
    for file in files.iter_mut().rev() {
        if file.text.len() <= left {
            left -= file.text.len();
            continue;
        }
        file.truncated = true;
        let mut cut = floor_char_boundary(&file.text, left);
        if let Some(line_end) = file.text[..cut].rfind('\n') {
            cut = line_end + 1;
        }
        file.text.truncate(cut);
        left = 0;
    }
}

fn floor_char_boundary(text: &str, mut at: usize) -> usize {
    at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// A file's text; `None` when missing, empty or unreadable (logged).
fn read_text(path: &Path) -> Option<String> {
    crate::prompt::read_text(path)
}

#[cfg(test)]
#[path = "instructions_tests.rs"]
mod tests;
