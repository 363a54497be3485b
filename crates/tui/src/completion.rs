//! `@path` completion: the workspace's files (as `ignore` walks them, so
//! `.gitignore`d and hidden files stay out) are indexed once, on a thread of
//! their own the first time an `@` is typed, and cached; Tab then completes
//! the `@` word before the cursor from them.

use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver};
use std::time::Duration;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use crate::app::App;

/// The walk stops after this many files (a huge tree still indexes quickly).
const MAX_FILES: usize = 20_000;
/// Matches kept for the popup.
const MAX_MATCHES: usize = 200;
/// How long Tab waits for an index still being built.
const INDEX_WAIT: Duration = Duration::from_millis(500);

/// The workspace's files, relative to the root with `/` separators.
#[derive(Debug, Default)]
pub enum FileIndex {
    /// Not asked for yet.
    #[default]
    Idle,
    /// Being walked on a thread.
    Loading(Receiver<Vec<String>>),
    /// Walked.
    Ready(Vec<String>),
}

impl FileIndex {
    /// Starts walking `root` (once; later calls do nothing).
    pub fn start(&mut self, root: &Path) {
        if !matches!(self, FileIndex::Idle) {
            return;
        }
        let (tx, rx) = mpsc::channel();
        let root = root.to_path_buf();
        // A thread, not the runtime: the walk is blocking I/O and must not
        // stall the UI's single-threaded runtime.
        std::thread::spawn(move || {
            let _ = tx.send(walk(&root));
        });
        *self = FileIndex::Loading(rx);
    }

    /// The files, waiting up to `wait` for a walk still running.
    pub fn files(&mut self, wait: Duration) -> Option<&[String]> {
        if let FileIndex::Loading(rx) = self {
            match rx.recv_timeout(wait) {
                Ok(files) => *self = FileIndex::Ready(files),
                Err(mpsc::RecvTimeoutError::Timeout) => return None,
                Err(mpsc::RecvTimeoutError::Disconnected) => *self = FileIndex::Ready(Vec::new()),
            }
        }
        match self {
            FileIndex::Ready(files) => Some(files),
            _ => None,
        }
    }
}

/// The files under `root`, sorted, at most [`MAX_FILES`].
pub fn walk(root: &Path) -> Vec<String> {
    let mut files = Vec::new();
    for entry in ignore::WalkBuilder::new(root).build().flatten() {
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        if let Ok(rel) = entry.path().strip_prefix(root) {
            let parts: Vec<String> = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            files.push(parts.join("/"));
        }
        if files.len() >= MAX_FILES {
            break;
        }
    }
    files.sort();
    files
}

/// The files matching `partial`: path prefix first, then file-name prefix,
/// then anywhere in the path (case-insensitive); shorter paths first within each.
pub fn matches(files: &[String], partial: &str) -> Vec<String> {
    let needle = partial.to_lowercase();
    let mut scored: Vec<(u8, &String)> = files
        .iter()
        .filter_map(|f| {
            let lower = f.to_lowercase();
            let name = lower.rsplit('/').next().unwrap_or(&lower);
            let score = if lower.starts_with(&needle) {
                0
            } else if name.starts_with(&needle) {
                1
            } else if lower.contains(&needle) {
                2
            } else {
                return None;
            };
            Some((score, f))
        })
        .collect();
    scored.sort_by(|a, b| (a.0, a.1.len(), a.1).cmp(&(b.0, b.1.len(), b.1)));
    scored
        .into_iter()
        .take(MAX_MATCHES)
        .map(|(_, f)| f.clone())
        .collect()
}

/// The `@` word the cursor ends: (index of the `@`, the partial path after it).
pub fn at_word(chars: &[char], cursor: usize) -> Option<(usize, String)> {
    let cursor = cursor.min(chars.len());
    let start = chars[..cursor]
        .iter()
        .rposition(|c| c.is_whitespace())
        .map_or(0, |i| i + 1);
    if chars.get(start) != Some(&'@') {
        return None;
    }
    Some((start, chars[start + 1..cursor].iter().collect()))
}

/// An open completion popup: Tab/Down and Shift-Tab/Up cycle (the choice is
/// put in the editor as it goes), Enter keeps it, Esc puts back what was typed.
#[derive(Debug, Clone, PartialEq)]
pub struct Completion {
    /// Where the `@` word starts in the editor.
    pub start: usize,
    /// What was typed after the `@`.
    pub typed: String,
    /// The matching files.
    pub matches: Vec<String>,
    /// The one in the editor.
    pub selected: usize,
}

impl App {
    /// Tab with the cursor after an `@` word: completes it. False when there
    /// is no such word (Tab then does what it does otherwise).
    pub(crate) fn complete(&mut self) -> bool {
        let Some((start, typed)) = at_word(self.editor.raw(), self.editor.cursor()) else {
            return false;
        };
        let Some(root) = self.root.clone() else {
            return false;
        };
        self.files.start(&root);
        let Some(files) = self.files.files(INDEX_WAIT) else {
            self.hint = Some("indexing the workspace's files…".into());
            return true;
        };
        let found = matches(files, &typed);
        match found.len() {
            0 => self.hint = Some(format!("no file matches @{typed}")),
            1 => self.put_completion(start, &found[0]),
            _ => {
                self.put_completion(start, &found[0]);
                self.completion = Some(Completion {
                    start,
                    typed,
                    matches: found,
                    selected: 0,
                });
            }
        }
        true
    }

    /// A key while the popup is open: `Some` when it was the popup's.
    pub(crate) fn completion_key(&mut self, key: KeyEvent) -> Option<()> {
        let c = self.completion.as_mut()?;
        let n = c.matches.len().max(1);
        match key.code {
            KeyCode::Tab | KeyCode::Down => c.selected = (c.selected + 1) % n,
            KeyCode::BackTab | KeyCode::Up => c.selected = (c.selected + n - 1) % n,
            KeyCode::Enter if !key.modifiers.contains(KeyModifiers::ALT) => {
                self.completion = None;
                return Some(());
            }
            KeyCode::Esc => {
                let typed = format!("@{}", c.typed);
                let start = c.start;
                self.replace_word(start, &typed);
                self.completion = None;
                return Some(());
            }
            _ => {
                // Any other key keeps the choice and acts as usual.
                self.completion = None;
                return None;
            }
        }
        let (start, pick) = (c.start, c.matches.get(c.selected).cloned());
        if let Some(pick) = pick {
            self.put_completion(start, &pick);
        }
        Some(())
    }

    fn put_completion(&mut self, start: usize, path: &str) {
        self.replace_word(start, &format!("@{path}"));
    }

    /// Replaces the word from `start` to the cursor.
    fn replace_word(&mut self, start: usize, with: &str) {
        let end = self.editor.cursor();
        self.editor.replace_range(start, end, with);
    }
}

/// Where `@` paths are looked up: the chat's workspace directory, else the
/// current one.
pub fn root_of(scope: &crate::Scope) -> Option<PathBuf> {
    match scope {
        crate::Scope::Workspace(dir) => Some(dir.clone()),
        crate::Scope::Global => std::env::current_dir().ok(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_walk_respects_gitignore_and_matching_ranks_prefixes_first() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("src/render")).unwrap();
        std::fs::create_dir_all(root.join("target")).unwrap();
        std::fs::create_dir_all(root.join(".git")).unwrap();
        for f in [
            "src/main.rs",
            "src/render/mod.rs",
            "README.md",
            "target/x.rs",
        ] {
            std::fs::write(root.join(f), "x").unwrap();
        }
        std::fs::write(root.join(".gitignore"), "target/\n").unwrap();
        let files = walk(root);
        assert_eq!(files, ["README.md", "src/main.rs", "src/render/mod.rs"]);
        assert_eq!(
            matches(&files, "src/"),
            ["src/main.rs", "src/render/mod.rs"]
        );
        assert_eq!(matches(&files, "MOD"), ["src/render/mod.rs"]);
        assert_eq!(matches(&files, "re")[0], "README.md");
    }

    #[test]
    fn the_at_word_is_the_one_the_cursor_ends() {
        let chars: Vec<char> = "look at @src/ma please".chars().collect();
        assert_eq!(at_word(&chars, 15), Some((8, "src/ma".to_string())));
        assert_eq!(at_word(&chars, 4), None);
        assert_eq!(at_word(&['@'], 1), Some((0, String::new())));
    }
}
