//! Checkpoints of a workspace's files, for undoing what an agent did.
//!
//! A content-addressed shadow store under the home (one SQLite file: blobs
//! deduplicated by SHA-256, deflated; per session, a full first tree and then
//! only the changed paths). Never the user's `.git`. The engine decides when
//! to take one and what a rewind means for the conversation; this crate
//! reads, keeps and restores the files. Every call blocks: run it off the
//! async threads.

#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used))]

mod db;
mod diff;
mod error;
mod record;
mod restore;
mod scan;
mod tree;
mod watch;

use std::path::Path;
use std::sync::{Mutex, MutexGuard};

pub use db::Row;
pub use diff::{FileStat, FileStatus, unified};
pub use error::CheckpointError;
pub use record::{Kind, Reach, Take, Taken, Tracker};
pub use restore::{Action, ConflictReason, Plan};
pub use scan::{NotTracked, ScanOptions};
pub use tree::{Content, Entry, Hash, Tree};

/// `checkpoints.*` as the store uses them.
#[derive(Debug, Clone)]
pub struct Settings {
    /// What a scan reads.
    pub scan: ScanOptions,
    /// Checkpoints kept per session (older ones are folded away).
    pub keep: usize,
    /// Tracked files (as the last scan of the root found them) from which a
    /// turn watches its workspace instead of rescanning it after each step.
    pub watch_from: usize,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            scan: ScanOptions::default(),
            keep: 100,
            watch_from: 4_000,
        }
    }
}

/// One file of a checkpoint's diff.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileDiff {
    /// The file and its line counts.
    pub stat: FileStat,
    /// A unified diff (a note for binary files).
    pub diff: String,
}

/// The shadow store of a home.
pub struct Checkpointer {
    db: Mutex<db::Db>,
}

impl Checkpointer {
    /// Opens (creating) the store at `path`.
    pub fn open(path: &Path) -> Result<Checkpointer, CheckpointError> {
        Ok(Checkpointer {
            db: Mutex::new(db::Db::open(path)?),
        })
    }

    /// Opens an existing store at `path` read-only (the inspector): listing
    /// and diffs work, every write fails.
    pub fn open_read_only(path: &Path) -> Result<Checkpointer, CheckpointError> {
        Ok(Checkpointer {
            db: Mutex::new(db::Db::open_read_only(path)?),
        })
    }

    fn db(&self) -> MutexGuard<'_, db::Db> {
        // A panic mid-write rolled its transaction back: the data is whole.
        self.db.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The session's tracker over `root`, from its last checkpoint.
    pub fn tracker(&self, session_id: &str, root: &Path) -> Result<Tracker, CheckpointError> {
        record::load(&self.db(), session_id, root)
    }

    /// Reads the workspace and keeps new bytes, writing no checkpoint (a
    /// turn's start, so that its first checkpoint only rescans).
    pub fn prefetch(&self, t: &mut Tracker, settings: &Settings) -> Result<(), CheckpointError> {
        // Watching first: a change during the scan is seen again, never lost.
        // A small workspace is scanned whole in a few ms, less than a
        // watcher costs to set up and close (the kernel's ~15 ms).
        if t.cache.len() >= settings.watch_from {
            t.watcher = watch::Watcher::start(&t.root);
        }
        let scan = scan::scan(&t.root, &t.cache, &settings.scan)?;
        if let Some(w) = t.watcher.as_mut() {
            w.watch(scan.dirs.iter().cloned());
        }
        record::prefetched(&mut self.db(), t, scan)
    }

    /// Takes a checkpoint (`None`: nothing changed since the last one) and
    /// keeps the session's last `keep`.
    pub fn record(
        &self,
        t: &mut Tracker,
        take: &Take,
        settings: &Settings,
        now_ms: i64,
    ) -> Result<Option<Taken>, CheckpointError> {
        let scanned = record::scan_for(t, take, &settings.scan)?;
        let mut db = self.db();
        let taken = record::commit(&mut db, t, take, scanned, now_ms)?;
        if taken.is_some() {
            db.prune(&t.session_id, settings.keep)?;
        }
        Ok(taken)
    }

    /// The session's checkpoints, oldest first.
    pub fn list(&self, session_id: &str) -> Result<Vec<Row>, CheckpointError> {
        self.db().rows(session_id)
    }

    /// The checkpoint a rewind to log position `seq` goes back to: the last
    /// one at or before it, else the session's first (taken before any
    /// change of the agent). `None`: the session has none.
    pub fn target_of(&self, session_id: &str, seq: u64) -> Result<Option<Row>, CheckpointError> {
        let rows = self.db().rows(session_id)?;
        let at = rows
            .iter()
            .rev()
            .find(|r| r.seq.is_some_and(|s| s <= seq))
            .or(rows.first());
        Ok(at.cloned())
    }

    /// What the checkpoints standing at log position `seq` changed, against
    /// the state before the first of them.
    pub fn diff_at(&self, session_id: &str, seq: u64) -> Result<Vec<FileDiff>, CheckpointError> {
        let db = self.db();
        let rows = db.rows(session_id)?;
        let at: Vec<&Row> = rows.iter().filter(|r| r.seq == Some(seq)).collect();
        let (Some(first), Some(last)) = (at.first(), at.last()) else {
            return Err(CheckpointError::NotFound(format!(
                "no checkpoint of this session stands at seq {seq}"
            )));
        };
        let before = match rows.iter().rev().find(|r| r.id < first.id) {
            Some(prev) if !first.full => db.tree_at(session_id, prev.id)?,
            _ => Tree::new(),
        };
        let after = db.tree_at(session_id, last.id)?;
        if first.full && rows.first().is_some_and(|r| r.id == first.id) {
            // A session's first checkpoint holds the workspace as it found it.
            return Ok(Vec::new());
        }
        Ok(tree::changes(&before, &after)
            .iter()
            .map(|c| {
                let old = diff::bytes_of(&db, c.before.as_ref());
                let new = diff::bytes_of(&db, c.after.as_ref());
                let status = FileStatus::of(c.before.as_ref(), c.after.as_ref());
                FileDiff {
                    stat: diff::counts(&c.path, status, &old, &new),
                    diff: unified(&c.path, &old, &new),
                }
            })
            .collect())
    }

    /// Works out a rewind of the tracker's workspace to checkpoint `target_id`.
    pub fn plan(
        &self,
        t: &mut Tracker,
        target_id: u64,
        settings: &Settings,
    ) -> Result<Plan, CheckpointError> {
        let db = self.db();
        let empty = Tree::new();
        let last: &Tree = t.last.as_deref().unwrap_or(&empty);
        restore::plan(
            &db,
            &t.session_id,
            &t.root,
            target_id,
            last,
            &t.cache,
            &settings.scan,
        )
    }

    /// The plan's files, line counts and unified diffs (conflicts only with `force`).
    pub fn plan_diff(&self, plan: &Plan, force: bool) -> Vec<FileDiff> {
        restore::plan_diff(&self.db(), plan, force)
            .into_iter()
            .map(|(stat, diff)| FileDiff { stat, diff })
            .collect()
    }

    /// Puts the plan's files back (conflicts only with `force`); returns
    /// each with the diff from what was there to what is back.
    pub fn apply(&self, plan: &Plan, force: bool) -> Result<Vec<FileDiff>, CheckpointError> {
        Ok(restore::apply(&self.db(), plan, force)?
            .into_iter()
            .map(|(stat, diff)| FileDiff { stat, diff })
            .collect())
    }

    /// Gives a fork the session's checkpoints up to `upto` (inclusive).
    pub fn fork(&self, from: &str, to: &str, upto: u64) -> Result<(), CheckpointError> {
        self.db().copy_session(from, to, upto)
    }

    /// Forgets a session's checkpoints (and the bytes nothing else uses).
    pub fn delete_session(&self, session_id: &str) -> Result<usize, CheckpointError> {
        self.db().delete_session(session_id)
    }

    /// Forgets every checkpoint and blob (a factory reset).
    pub fn clear(&self) -> Result<(), CheckpointError> {
        self.db().clear()
    }

    /// The store's size on disk.
    pub fn size_bytes(&self) -> Result<u64, CheckpointError> {
        self.db().size_bytes()
    }
}

#[cfg(test)]
mod tests;
