//! Rewinding a workspace to a checkpoint: what would change, what the user
//! changed meanwhile (a conflict), and putting the bytes back.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::db::Db;
use crate::diff::{FileStat, FileStatus, bytes_of, counts, unified};
use crate::error::CheckpointError;
use crate::scan::{self, ScanOptions};
use crate::tree::{Content, Entry, Tree};

/// Why a path is not restored without `force`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum ConflictReason {
    /// Someone other than the agent changed it after the checkpoint.
    ChangedByUser,
}

/// One path a rewind would change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Action {
    /// Workspace-relative path.
    pub path: String,
    /// What it holds now (`None`: absent).
    pub now: Option<Entry>,
    /// What it is put back to (`None`: removed).
    pub to: Option<Entry>,
    /// Set when the user changed it after the checkpoint.
    pub conflict: Option<ConflictReason>,
}

/// What rewinding to a checkpoint would do.
#[derive(Debug, Clone, Default)]
pub struct Plan {
    /// The workspace.
    pub root: PathBuf,
    /// The checkpoint rewound to (`None`: the session has none, nothing to do).
    pub target_id: Option<u64>,
    /// Paths to change, conflicts included.
    pub actions: Vec<Action>,
    /// Files only the user created after the checkpoint: never removed.
    pub kept: Vec<String>,
    /// Paths whose bytes were over `maxFileBytes` at the checkpoint.
    pub unrestorable: Vec<String>,
}

impl Plan {
    /// The paths the user changed after the checkpoint.
    pub fn conflicts(&self) -> Vec<String> {
        self.actions
            .iter()
            .filter(|a| a.conflict.is_some())
            .map(|a| a.path.clone())
            .collect()
    }
}

/// Works out a rewind of the session's workspace to checkpoint `target_id`,
/// given its state at its last checkpoint (`last`) and now.
pub(crate) fn plan(
    db: &Db,
    session_id: &str,
    root: &Path,
    target_id: u64,
    last: &Tree,
    cache: &Tree,
    opts: &ScanOptions,
) -> Result<Plan, CheckpointError> {
    let target = db.tree_at(session_id, target_id)?;
    let now = scan::scan(root, cache, opts)?.tree;
    let later: BTreeMap<String, (bool, bool)> = db
        .changed_after(session_id, target_id)?
        .into_iter()
        .map(|l| (l.path, (l.by_user, l.by_agent)))
        .collect();
    let paths: BTreeSet<&String> = target
        .keys()
        .chain(last.keys())
        .chain(now.keys())
        .chain(later.keys())
        .collect();
    let mut out = Plan {
        root: root.to_path_buf(),
        target_id: Some(target_id),
        ..Plan::default()
    };
    for path in paths {
        let (tgt, was, is) = (target.get(path), last.get(path), now.get(path));
        if same(tgt, is) {
            continue;
        }
        let (by_user, by_agent) = later.get(path).copied().unwrap_or((false, false));
        if tgt.is_none() && !by_agent {
            out.kept.push(path.clone());
            continue;
        }
        if tgt.is_some_and(|e| e.content == Content::Oversize) {
            out.unrestorable.push(path.clone());
            continue;
        }
        let user = by_user || !same(was, is);
        out.actions.push(Action {
            path: path.clone(),
            now: is.copied(),
            to: tgt.copied(),
            conflict: user.then_some(ConflictReason::ChangedByUser),
        });
    }
    Ok(out)
}

fn same(a: Option<&Entry>, b: Option<&Entry>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => a.same_as(b),
        _ => false,
    }
}

/// The unified diff of a plan: from the disk now to the checkpoint.
pub(crate) fn plan_diff(db: &Db, plan: &Plan, force: bool) -> Vec<(FileStat, String)> {
    plan.actions
        .iter()
        .filter(|a| force || a.conflict.is_none())
        .map(|a| {
            let old = a
                .now
                .as_ref()
                .and_then(|e| scan::read_content(&plan.root.join(&a.path), &e.content).ok());
            let new = bytes_of(db, a.to.as_ref());
            let status = FileStatus::of(a.now.as_ref(), a.to.as_ref());
            (
                counts(&a.path, status, &old, &new),
                unified(&a.path, &old, &new),
            )
        })
        .collect()
}

/// Applies a plan's actions (conflicts only with `force`); returns what
/// changed, with the diff from what was there to what is back.
pub(crate) fn apply(
    db: &Db,
    plan: &Plan,
    force: bool,
) -> Result<Vec<(FileStat, String)>, CheckpointError> {
    let root = plan
        .root
        .canonicalize()
        .map_err(|e| CheckpointError::io(&plan.root, e))?;
    let mut done = Vec::new();
    let mut emptied = BTreeSet::new();
    for (stat, diff) in plan_diff(db, plan, force) {
        let Some(action) = plan.actions.iter().find(|a| a.path == stat.path) else {
            continue;
        };
        let full = confined(&root, &action.path)?;
        match &action.to {
            Some(entry) => put_back(db, &full, entry)?,
            None => {
                remove(&full)?;
                if let Some(parent) = full.parent() {
                    emptied.insert(parent.to_path_buf());
                }
            }
        }
        done.push((stat, diff));
    }
    // Folders the agent made and the rewind emptied go too.
    for dir in emptied.into_iter().rev() {
        let mut d = dir.as_path();
        while d != root && d.starts_with(&root) && std::fs::remove_dir(d).is_ok() {
            match d.parent() {
                Some(p) => d = p,
                None => break,
            }
        }
    }
    Ok(done)
}

/// `root/rel`, refusing a path whose folder leads outside the workspace
/// (a symlinked folder the agent made).
fn confined(root: &Path, rel: &str) -> Result<PathBuf, CheckpointError> {
    let full = root.join(rel);
    let mut probe = full.parent().map(Path::to_path_buf);
    // The nearest existing ancestor must resolve inside the root.
    while let Some(dir) = probe {
        if let Ok(real) = dir.canonicalize() {
            if real.starts_with(root) {
                return Ok(full);
            }
            return Err(CheckpointError::Io {
                path: full.display().to_string(),
                source: std::io::Error::other("its folder leads outside the workspace"),
            });
        }
        probe = dir.parent().map(Path::to_path_buf);
    }
    Ok(full)
}

fn remove(path: &Path) -> Result<(), CheckpointError> {
    match std::fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(CheckpointError::io(path, e)),
    }
}

/// Writes the entry's bytes (and executable bit) atomically: a temp file
/// beside it, renamed over.
fn put_back(db: &Db, path: &Path, entry: &Entry) -> Result<(), CheckpointError> {
    let bytes = bytes_of(db, Some(entry)).ok_or_else(|| {
        CheckpointError::Corrupt(format!("the bytes of {} are not kept", path.display()))
    })?;
    let io = |e| CheckpointError::io(path, e);
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| CheckpointError::io(dir, e))?;
    }
    // A folder where the file was: only an empty one is replaced.
    if path.is_dir() && !path.is_symlink() {
        std::fs::remove_dir(path).map_err(io)?;
    }
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = path.with_file_name(format!(".{name}.seekclaw-rewind"));
    let _ = std::fs::remove_file(&tmp);
    match entry.content {
        Content::Symlink(_) => {
            #[cfg(unix)]
            {
                use std::os::unix::ffi::OsStrExt;
                let target = std::ffi::OsStr::from_bytes(&bytes);
                std::os::unix::fs::symlink(target, &tmp).map_err(io)?;
            }
            #[cfg(not(unix))]
            std::fs::write(&tmp, &bytes).map_err(io)?;
        }
        _ => {
            let mut f = std::fs::File::create(&tmp).map_err(io)?;
            // No fsync per file (git does none either): the rename keeps
            // a crash from leaving a half-written file in its place.
            f.write_all(&bytes).map_err(io)?;
            set_mode(&tmp, entry.mode).map_err(io)?;
        }
    }
    std::fs::rename(&tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        io(e)
    })
}

#[cfg(unix)]
fn set_mode(path: &Path, mode: u32) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode & 0o7777))
}

#[cfg(not(unix))]
fn set_mode(_path: &Path, _mode: u32) -> std::io::Result<()> {
    Ok(())
}
