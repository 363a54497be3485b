//! What a run changed in its copy: the copy against the original, file by
//! file (both walked with the copy's rules, `.git` left out), with the
//! lines added and removed as `git diff --stat` counts them.

use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};
use similar::{ChangeTag, TextDiff};

use super::copy::{Kind, Rules, scan};

/// How one file changed.
#[derive(Debug, Clone, serde::Serialize, PartialEq, Eq)]
pub struct FileChange {
    pub path: String,
    /// `added`, `deleted` or `modified`.
    pub change: &'static str,
    pub insertions: u64,
    pub deletions: u64,
    /// Not UTF-8 text, or over 8 MB: changed, lines not counted.
    pub binary: bool,
}

/// All a copy changed.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct DiffStat {
    pub files_changed: usize,
    pub insertions: u64,
    pub deletions: u64,
    pub changes: Vec<FileChange>,
}

impl DiffStat {
    /// `+12 -3` (as the summary table shows it).
    pub fn short(&self) -> String {
        format!("+{} -{}", self.insertions, self.deletions)
    }
}

/// Compares `copy` with `original`.
pub fn diff_trees(original: &Path, copy: &Path, rules: &Rules) -> io::Result<DiffStat> {
    let rules = Rules {
        skip_git_dirs: true,
        ..rules.clone()
    };
    let files = |root: &Path| -> io::Result<BTreeMap<PathBuf, Kind>> {
        Ok(scan(root, &rules)?
            .entries
            .into_iter()
            .filter(|e| e.kind != Kind::Dir)
            .map(|e| (e.rel, e.kind))
            .collect())
    };
    let (before, after) = (files(original)?, files(copy)?);
    let mut stat = DiffStat::default();
    let all: std::collections::BTreeSet<&PathBuf> = before.keys().chain(after.keys()).collect();
    for rel in all {
        let old = match before.get(rel) {
            Some(kind) => Some(content(&original.join(rel), *kind)?),
            None => None,
        };
        let new = match after.get(rel) {
            Some(kind) => Some(content(&copy.join(rel), *kind)?),
            None => None,
        };
        if let Some(change) = compare(rel, old.as_deref(), new.as_deref()) {
            stat.insertions += change.insertions;
            stat.deletions += change.deletions;
            stat.changes.push(change);
        }
    }
    stat.files_changed = stat.changes.len();
    Ok(stat)
}

/// Files above this are compared by digest (two whole copies of a large
/// asset in memory per comparison would be too many); their lines are not counted.
const LARGE: u64 = 8 << 20;

/// A file's bytes, a large file's digest, or a link's target (the last two
/// start with a NUL: binary to `text`, never equal to a file's bytes).
fn content(path: &Path, kind: Kind) -> io::Result<Vec<u8>> {
    if kind == Kind::Symlink {
        let target = std::fs::read_link(path)?;
        return Ok(format!("\0symlink -> {}", target.display()).into_bytes());
    }
    let mut file = std::fs::File::open(path)?;
    let len = file.metadata()?.len();
    if len <= LARGE {
        let mut bytes = Vec::with_capacity(len as usize);
        io::Read::read_to_end(&mut file, &mut bytes)?;
        return Ok(bytes);
    }
    let mut hasher = Sha256::new();
    io::copy(&mut file, &mut hasher)?;
    let mut digest = b"\0large ".to_vec();
    digest.extend_from_slice(&hasher.finalize());
    Ok(digest)
}

/// A side as text (`""` when the file is missing), `None` when binary.
fn text(bytes: Option<&[u8]>) -> Option<&str> {
    match bytes {
        None => Some(""),
        Some(b) if b.contains(&0) => None,
        Some(b) => std::str::from_utf8(b).ok(),
    }
}

fn compare(rel: &Path, old: Option<&[u8]>, new: Option<&[u8]>) -> Option<FileChange> {
    let change = match (old, new) {
        (Some(a), Some(b)) if a == b => return None,
        (Some(_), Some(_)) => "modified",
        (None, Some(_)) => "added",
        (Some(_), None) => "deleted",
        (None, None) => return None,
    };
    let (insertions, deletions, binary) = match (text(old), text(new)) {
        (Some(a), Some(b)) => {
            let (mut ins, mut del) = (0, 0);
            for c in TextDiff::from_lines(a, b).iter_all_changes() {
                match c.tag() {
                    ChangeTag::Insert => ins += 1,
                    ChangeTag::Delete => del += 1,
                    ChangeTag::Equal => {}
                }
            }
            (ins, del, false)
        }
        _ => (0, 0, true),
    };
    Some(FileChange {
        path: rel.display().to_string(),
        change,
        insertions,
        deletions,
        binary,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn added_deleted_and_modified_files_are_counted_by_line() {
        let tmp = tempfile::tempdir().unwrap();
        let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
        for d in [&a, &b] {
            std::fs::create_dir_all(d.join(".git")).unwrap();
            std::fs::write(d.join("same.txt"), "same\n").unwrap();
        }
        std::fs::write(b.join(".git/HEAD"), "only in the copy's git\n").unwrap();
        std::fs::write(a.join("edit.txt"), "one\ntwo\nthree\n").unwrap();
        std::fs::write(b.join("edit.txt"), "one\n2\nthree\nfour\n").unwrap();
        std::fs::write(a.join("gone.txt"), "x\ny\n").unwrap();
        std::fs::write(b.join("new.bin"), b"\0\x01").unwrap();
        // Large files: compared by digest, equal or not.
        let big = vec![b'x'; LARGE as usize + 1];
        std::fs::write(a.join("big.same"), &big).unwrap();
        std::fs::write(b.join("big.same"), &big).unwrap();
        std::fs::write(a.join("big.edit"), &big).unwrap();
        std::fs::write(b.join("big.edit"), [&big[1..], b"y"].concat()).unwrap();
        let stat = diff_trees(&a, &b, &Rules::default()).unwrap();
        let got: Vec<(&str, &str, u64, u64, bool)> = stat
            .changes
            .iter()
            .map(|c| {
                (
                    c.path.as_str(),
                    c.change,
                    c.insertions,
                    c.deletions,
                    c.binary,
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                ("big.edit", "modified", 0, 0, true),
                ("edit.txt", "modified", 2, 1, false),
                ("gone.txt", "deleted", 0, 2, false),
                ("new.bin", "added", 0, 0, true),
            ]
        );
        assert_eq!((stat.files_changed, stat.short()), (4, "+2 -3".to_string()));
    }
}
