//! File plumbing shared by the file tools: the write lock as a guard, text reads
//! with clear refusals, atomic writes and unified diffs.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use similar::TextDiff;

use crate::beneath;
use crate::budget;
use crate::confine::ConfinedPath;
use crate::error::ToolError;
use crate::locks::{LockError, WriteLocks};
use crate::tool::ToolContext;

/// How much of a file decides whether it is binary (a NUL byte in it).
pub(crate) const BINARY_PROBE_BYTES: usize = 8 * 1024;
/// A diff for clients, not the model; still bounded.
const MAX_DIFF_CHARS: usize = 256 * 1024;

/// The write lock on one file, released when dropped (also when the call is
/// cancelled mid-way). It owns what it needs, so it can travel with the work
/// to a blocking thread and be released only when that work is done.
pub(crate) struct FileLock {
    locks: Arc<WriteLocks>,
    root: PathBuf,
    file: PathBuf,
    owner: String,
}

impl FileLock {
    pub(crate) async fn acquire(ctx: &ToolContext, file: &Path) -> Result<Self, LockError> {
        ctx.locks
            .acquire(
                &ctx.workspace_root,
                file,
                &ctx.owner,
                ctx.lock_timeout,
                &ctx.cancel,
            )
            .await?;
        Ok(FileLock {
            locks: ctx.locks.clone(),
            root: ctx.workspace_root.clone(),
            file: file.to_path_buf(),
            owner: ctx.owner.clone(),
        })
    }
}

impl Drop for FileLock {
    fn drop(&mut self) {
        self.locks.release(&self.root, &self.file, &self.owner);
    }
}

pub(crate) fn looks_binary(bytes: &[u8]) -> bool {
    bytes[..bytes.len().min(BINARY_PROBE_BYTES)].contains(&0)
}

pub(crate) fn not_found(path: &ConfinedPath) -> ToolError {
    ToolError::failed(format!("File not found: {}", path.abs.display()))
}

/// The current bytes of a file, `None` when it does not exist. Opened once,
/// beneath the workspace root; the type is checked on what was opened.
pub(crate) fn read_if_exists(path: &ConfinedPath) -> Result<Option<Vec<u8>>, ToolError> {
    let read_err = |e| ToolError::io(format!("Cannot read {}", path.rel), e);
    let mut file = match beneath::open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(read_err(e)),
    };
    let meta = file.metadata().map_err(read_err)?;
    if meta.is_dir() {
        return Err(ToolError::failed(format!(
            "{} is a directory, not a file.",
            path.rel
        )));
    }
    // A FIFO or device would block the read or never end.
    if !meta.is_file() {
        return Err(ToolError::failed(format!(
            "{} is not a regular file.",
            path.rel
        )));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.read_to_end(&mut bytes).map_err(read_err)?;
    Ok(Some(bytes))
}

/// The text of a file that is about to be edited.
pub(crate) fn read_text_for_edit(path: &ConfinedPath) -> Result<String, ToolError> {
    let bytes = read_if_exists(path)?.ok_or_else(|| not_found(path))?;
    if looks_binary(&bytes) {
        return Err(ToolError::failed(format!(
            "Cannot edit {}: it looks like a binary file (NUL byte in the first 8 KB).",
            path.rel
        )));
    }
    String::from_utf8(bytes).map_err(|_| {
        ToolError::failed(format!(
            "Cannot edit {}: it is not valid UTF-8 text. Use bash to change files in other encodings.",
            path.rel
        ))
    })
}

/// Replaces `path` atomically (see [`beneath::write_atomic`]), creating its
/// folder if needed.
pub(crate) fn write_atomic(path: &ConfinedPath, data: &[u8]) -> Result<(), ToolError> {
    beneath::write_atomic(path, data)
        .map_err(|e| ToolError::io(format!("Cannot write {}", path.rel), e))
}

/// Context lines around each change.
const DIFF_CONTEXT: usize = 3;

/// A unified diff `--- a/<rel>` / `+++ b/<rel>` with 3 context lines. Only the
/// changed window (plus context) is handed to the differ, so a one-line edit in a
/// 10 MB file costs a byte comparison, not a line diff of the whole file.
pub(crate) fn unified_diff(rel: &str, old: &str, new: &str) -> String {
    if old == new {
        return String::new();
    }
    let window = changed_window(old.as_bytes(), new.as_bytes());
    let diff = TextDiff::configure()
        .timeout(Duration::from_secs(2))
        .diff_lines(
            &old[window.start..window.old_end],
            &new[window.start..window.new_end],
        );
    let text = diff
        .unified_diff()
        .context_radius(DIFF_CONTEXT)
        .header(&format!("a/{rel}"), &format!("b/{rel}"))
        .to_string();
    let text = shift_hunks(&text, window.lines_before);
    budget::truncate(&text, MAX_DIFF_CHARS, "diff")
}

/// The byte ranges of `old` and `new` that differ, widened to whole lines plus
/// context; both start at `start` (the texts agree up to there).
#[derive(Debug, PartialEq, Eq)]
struct Window {
    start: usize,
    old_end: usize,
    new_end: usize,
    /// Lines before `start`, to renumber the hunks.
    lines_before: usize,
}

fn changed_window(old: &[u8], new: &[u8]) -> Window {
    let prefix = common_prefix(old, new);
    let mut start = line_start(old, prefix);
    for _ in 0..DIFF_CONTEXT {
        if start == 0 {
            break;
        }
        start = line_start(old, start - 1);
    }
    let max_suffix = old.len().min(new.len()) - prefix;
    let suffix = common_suffix(old, new, max_suffix);
    let (old_cut, new_cut) = (old.len() - suffix, new.len() - suffix);
    // The common tail is the same text in both, so a line end found in it is
    // a line end at the same distance in each.
    let mut extra = 0;
    let tail = &old[old_cut..];
    for _ in 0..=DIFF_CONTEXT {
        match tail[extra..].iter().position(|&c| c == b'\n') {
            Some(i) => extra += i + 1,
            None => {
                extra = tail.len();
                break;
            }
        }
    }
    Window {
        start,
        old_end: old_cut + extra,
        new_end: new_cut + extra,
        lines_before: old[..start].iter().filter(|&&c| c == b'\n').count(),
    }
}

/// Start of the line holding byte `at` (or the end of `text`).
fn line_start(text: &[u8], at: usize) -> usize {
    text[..at.min(text.len())]
        .iter()
        .rposition(|&c| c == b'\n')
        .map_or(0, |i| i + 1)
}

fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    const CHUNK: usize = 4096;
    let len = a.len().min(b.len());
    let mut i = 0;
    // Whole chunks compare as memcmp; the byte loop runs on one chunk only.
    while i + CHUNK <= len && a[i..i + CHUNK] == b[i..i + CHUNK] {
        i += CHUNK;
    }
    while i < len && a[i] == b[i] {
        i += 1;
    }
    i
}

fn common_suffix(a: &[u8], b: &[u8], max: usize) -> usize {
    const CHUNK: usize = 4096;
    let (la, lb) = (a.len(), b.len());
    let mut n = 0;
    while n + CHUNK <= max && a[la - n - CHUNK..la - n] == b[lb - n - CHUNK..lb - n] {
        n += CHUNK;
    }
    while n < max && a[la - n - 1] == b[lb - n - 1] {
        n += 1;
    }
    n
}

/// Adds `lines` to both start numbers of every `@@ -a,b +c,d @@` header.
fn shift_hunks(diff: &str, lines: usize) -> String {
    if lines == 0 {
        return diff.to_string();
    }
    let mut out = String::with_capacity(diff.len() + 16);
    for line in diff.split_inclusive('\n') {
        match shift_header(line, lines) {
            Some(shifted) => out.push_str(&shifted),
            None => out.push_str(line),
        }
    }
    out
}

fn shift_header(line: &str, lines: usize) -> Option<String> {
    let rest = line.strip_prefix("@@ -")?;
    let (ranges, tail) = rest.split_once(" @@")?;
    let (old, new) = ranges.split_once(" +")?;
    let shift = |range: &str| -> Option<String> {
        let (start, len) = match range.split_once(',') {
            Some((s, l)) => (s, Some(l)),
            None => (range, None),
        };
        let start: usize = start.parse().ok()?;
        Some(match len {
            Some(len) => format!("{},{len}", start + lines),
            None => format!("{}", start + lines),
        })
    };
    Some(format!("@@ -{} +{} @@{tail}", shift(old)?, shift(new)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diff_has_git_style_headers() {
        let diff = unified_diff("src/a.rs", "a\nb\nc\n", "a\nB\nc\n");
        assert!(
            diff.starts_with("--- a/src/a.rs\n+++ b/src/a.rs\n@@ -1,3 +1,3 @@\n"),
            "{diff}"
        );
        assert!(diff.contains("-b\n+B\n"));
    }

    #[test]
    fn windowed_diffs_match_whole_file_diffs() {
        let base: String = (1..=40).map(|i| format!("line {i}\n")).collect();
        let cases = [
            base.replace("line 20\n", "LINE 20\n"),
            base.replace("line 1\n", "first\n"),
            base.replace("line 40\n", "last"),
            base.replace("line 10\n", "")
                .replace("line 30\n", "thirty\nmore\n"),
            format!("{base}appended\n"),
            format!("new head\n{base}"),
            String::new(),
            base.replace("line 2", "line 2x"),
        ];
        for new in cases {
            let whole = TextDiff::from_lines(base.as_str(), new.as_str())
                .unified_diff()
                .context_radius(3)
                .header("a/f", "b/f")
                .to_string();
            assert_eq!(unified_diff("f", &base, &new), whole, "for {new:?}");
        }
        assert_eq!(unified_diff("f", "same\n", "same\n"), "");
    }

    #[test]
    fn a_one_line_edit_in_a_big_file_is_cheap() {
        let old: String = (0..400_000)
            .map(|i| format!("line {i:08} text\n"))
            .collect();
        let new = old.replacen("line 00200000 text", "changed", 1);
        let started = std::time::Instant::now();
        let diff = unified_diff("big", &old, &new);
        assert!(diff.contains("@@ -199998,7 +199998,7 @@\n"), "{diff}");
        assert!(diff.contains("-line 00200000 text\n+changed\n"));
        assert!(started.elapsed() < std::time::Duration::from_secs(1));
    }

    #[test]
    fn binary_probe_looks_at_the_first_8k() {
        assert!(looks_binary(b"ab\0cd"));
        let mut late = vec![b'a'; BINARY_PROBE_BYTES];
        late.push(0);
        assert!(!looks_binary(&late));
    }
}
