//! How a checkpoint's files changed, in lines, and as unified diffs.

use serde::Serialize;
use similar::{ChangeTag, TextDiff};

use crate::db::Db;
use crate::tree::{Change, Content, Entry};

/// Text over this size is counted as changed without a line diff.
const DIFF_LIMIT: usize = 1024 * 1024;

/// How one file changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum FileStatus {
    /// It did not exist before.
    Added,
    /// Its bytes or executable bit changed.
    Modified,
    /// It was removed.
    Deleted,
}

/// One changed file and its line counts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FileStat {
    /// Workspace-relative path.
    pub path: String,
    /// How it changed.
    pub status: FileStatus,
    /// Lines added.
    pub added: u32,
    /// Lines removed.
    pub removed: u32,
    /// Not text (or too large to compare by line).
    pub binary: bool,
}

impl FileStatus {
    pub(crate) fn of(before: Option<&Entry>, after: Option<&Entry>) -> FileStatus {
        match (before, after) {
            (None, _) => FileStatus::Added,
            (Some(_), None) => FileStatus::Deleted,
            _ => FileStatus::Modified,
        }
    }
}

/// The bytes an entry holds, from the store (empty when absent or not kept).
pub(crate) fn bytes_of(db: &Db, entry: Option<&Entry>) -> Option<Vec<u8>> {
    let entry = entry?;
    match &entry.content {
        Content::File(h) | Content::Symlink(h) => db.blob(h).ok(),
        Content::Oversize => None,
    }
}

fn text(bytes: &Option<Vec<u8>>) -> Option<&str> {
    match bytes {
        None => Some(""),
        Some(b) if b.len() > DIFF_LIMIT || b.contains(&0) => None,
        Some(b) => std::str::from_utf8(b).ok(),
    }
}

/// Line counts of one change, from the kept bytes.
pub(crate) fn line_counts(db: &Db, change: &Change) -> FileStat {
    let old = bytes_of(db, change.before.as_ref());
    let new = bytes_of(db, change.after.as_ref());
    let status = FileStatus::of(change.before.as_ref(), change.after.as_ref());
    counts(&change.path, status, &old, &new)
}

pub(crate) fn counts(
    path: &str,
    status: FileStatus,
    old: &Option<Vec<u8>>,
    new: &Option<Vec<u8>>,
) -> FileStat {
    let (mut added, mut removed, mut binary) = (0, 0, false);
    match (text(old), text(new)) {
        (Some(a), Some(b)) => {
            for op in TextDiff::from_lines(a, b).iter_all_changes() {
                match op.tag() {
                    ChangeTag::Insert => added += 1,
                    ChangeTag::Delete => removed += 1,
                    ChangeTag::Equal => {}
                }
            }
        }
        _ => binary = true,
    }
    FileStat {
        path: path.to_string(),
        status,
        added,
        removed,
        binary,
    }
}

/// A git-style unified diff of one file from `old` to `new` (`None`: absent).
pub fn unified(path: &str, old: &Option<Vec<u8>>, new: &Option<Vec<u8>>) -> String {
    let (from, to) = (
        if old.is_some() {
            format!("a/{path}")
        } else {
            "/dev/null".into()
        },
        if new.is_some() {
            format!("b/{path}")
        } else {
            "/dev/null".into()
        },
    );
    match (text(old), text(new)) {
        (Some(a), Some(b)) => {
            if a == b {
                return format!("--- {from}\n+++ {to}\n(mode changed)\n");
            }
            TextDiff::from_lines(a, b)
                .unified_diff()
                .context_radius(3)
                .header(&from, &to)
                .to_string()
        }
        _ => format!("Binary files {from} and {to} differ\n"),
    }
}
