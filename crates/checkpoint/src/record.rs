//! Taking a checkpoint: scan, compare with the session's last one, keep the
//! new bytes and the changed paths in one transaction.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::db::{self, Db, NewRow};
use crate::diff::{FileStat, line_counts};
use crate::error::CheckpointError;
use crate::scan::{self, NotTracked, Scan, ScanOptions};
use crate::tree::{Change, Content, Entry, Tree, changes};

/// Why a checkpoint is taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Before a turn's first change (what the user left, between turns).
    Turn,
    /// After a step whose tools changed files.
    Step,
    /// A background job ended.
    Job,
    /// After the verify (repair) command.
    Verify,
    /// After a rewind restored files.
    Rewind,
}

impl Kind {
    /// The stored name.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Turn => "turn",
            Kind::Step => "step",
            Kind::Job => "job",
            Kind::Verify => "verify",
            Kind::Rewind => "rewind",
        }
    }
}

/// What to read for a checkpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reach {
    /// The whole workspace (after `bash`, a job, the verify command).
    Whole,
    /// Only these paths (what file tools wrote).
    Paths(Vec<String>),
}

/// A checkpoint to take.
#[derive(Debug, Clone)]
pub struct Take {
    /// The session-log position it stands at.
    pub seq: u64,
    /// The seq of its turn's user message (0 between turns).
    pub turn_seq: u64,
    /// Why.
    pub kind: Kind,
    /// What to read.
    pub reach: Reach,
}

/// A checkpoint that was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Taken {
    /// Store order.
    pub id: u64,
    /// Its log position.
    pub seq: u64,
    /// Its turn's user message.
    pub turn_seq: u64,
    /// Why it was taken.
    pub kind: Kind,
    /// The changed files (empty for a session's first, which holds them all).
    pub files: Vec<FileStat>,
    /// Lines added over all files.
    pub added: u32,
    /// Lines removed.
    pub removed: u32,
    /// Files tracked now.
    pub tracked: usize,
    /// What the scan left out (a turn's first checkpoint says it once).
    pub not_tracked: Option<NotTracked>,
}

/// One session's view of its workspace while it works: the state its last
/// checkpoint recorded and the stat cache that makes the next scan cheap.
pub struct Tracker {
    pub(crate) session_id: String,
    pub(crate) root: PathBuf,
    /// The state of the last checkpoint (`None`: the session has none yet).
    pub(crate) last: Option<Arc<Tree>>,
    /// The newest scan's tree: reused hashes.
    pub(crate) cache: Arc<Tree>,
    /// What the newest whole scan left out.
    pub(crate) not_tracked: NotTracked,
    /// What changed since the last read, from the kernel (a turn's tracker).
    pub(crate) watcher: Option<crate::watch::Watcher>,
}

/// Loads the session's tracker: its last checkpoint's tree, or the newest
/// tree of another session of the same workspace as a stat cache.
pub(crate) fn load(db: &Db, session_id: &str, root: &Path) -> Result<Tracker, CheckpointError> {
    let rows = db.rows(session_id)?;
    let last = match rows.last() {
        Some(row) => Some(Arc::new(db.tree_at(session_id, row.id)?)),
        None => None,
    };
    let cache = match &last {
        Some(t) => t.clone(),
        None => Arc::new(db.newest_tree_of_root(&root.to_string_lossy())?),
    };
    Ok(Tracker {
        session_id: session_id.to_string(),
        root: root.to_path_buf(),
        last,
        cache,
        not_tracked: NotTracked::default(),
        watcher: None,
    })
}

/// Keeps the bytes a turn-start scan found that are not kept yet, writing
/// no checkpoint: the turn's first checkpoint then only rescans.
pub(crate) fn prefetched(
    db: &mut Db,
    t: &mut Tracker,
    mut scan: Scan,
) -> Result<(), CheckpointError> {
    let fresh: Vec<String> = scan
        .tree
        .iter()
        .filter(|(p, e)| t.cache.get(*p) != Some(*e))
        .map(|(p, _)| p.clone())
        .collect();
    keep_blobs(db, &t.root, &mut scan.tree, &fresh)?;
    t.cache = Arc::new(scan.tree);
    t.not_tracked = scan.not_tracked;
    Ok(())
}

/// Reads what a checkpoint covers (no store lock held): the paths a file
/// tool names, else what the watcher saw change, else everything.
pub(crate) fn scan_for(
    t: &mut Tracker,
    take: &Take,
    opts: &ScanOptions,
) -> Result<Scan, CheckpointError> {
    if let (Reach::Paths(paths), Some(last)) = (&take.reach, &t.last) {
        return Ok(Scan {
            tree: scan::rescan_paths(&t.root, last, paths, opts)?,
            ..Scan::default()
        });
    }
    if let Some(dirty) = t.watcher.as_mut().and_then(|w| w.drain()) {
        let (tree, dirs) = scan::rescan_dirty(&t.root, &t.cache, &dirty, opts)?;
        if let Some(w) = t.watcher.as_mut() {
            w.watch(dirs);
        }
        return Ok(Scan {
            tree,
            not_tracked: t.not_tracked.clone(),
            dirs: Vec::new(),
        });
    }
    // No watcher, or it lost track: everything, watched afresh.
    if t.watcher.is_some() {
        t.watcher = crate::watch::Watcher::start(&t.root);
    }
    let scan = scan::scan(&t.root, &t.cache, opts)?;
    if let Some(w) = t.watcher.as_mut() {
        w.watch(scan.dirs.iter().cloned());
    }
    Ok(scan)
}

/// Writes a checkpoint of `scanned`; `None` when nothing changed since the last one.
pub(crate) fn commit(
    db: &mut Db,
    t: &mut Tracker,
    take: &Take,
    scanned: Scan,
    now_ms: i64,
) -> Result<Option<Taken>, CheckpointError> {
    let whole = take.reach == Reach::Whole || t.last.is_none();
    if whole {
        t.not_tracked = scanned.not_tracked.clone();
    }
    let mut tree = scanned.tree;
    let full = t.last.is_none();
    let empty = Tree::new();
    let before: &Tree = t.last.as_deref().unwrap_or(&empty);
    // Bytes earlier checkpoints use are kept; only the changed ones are checked.
    let fresh: Vec<String> = changes(before, &tree)
        .into_iter()
        .filter(|c| c.after.is_some())
        .map(|c| c.path)
        .collect();
    keep_blobs(db, &t.root, &mut tree, &fresh)?;
    let diff = changes(before, &tree);
    let tree = Arc::new(tree);
    t.cache = tree.clone();
    if !full && diff.is_empty() {
        t.last = Some(tree);
        return Ok(None);
    }
    let files: Vec<FileStat> = if full {
        Vec::new()
    } else {
        diff.iter().map(|c| line_counts(db, c)).collect()
    };
    let added = files.iter().map(|f| f.added).sum();
    let removed = files.iter().map(|f| f.removed).sum();
    let external = take.kind == Kind::Turn;
    let tx = db.write()?;
    // A turn's first checkpoint stands at its user message: any standing
    // at or after it are from before the log was cut back (truncated).
    if take.kind == Kind::Turn {
        db::detach_from(&tx, &t.session_id, take.seq)?;
    }
    let id = db::insert_row(
        &tx,
        &NewRow {
            session_id: &t.session_id,
            root: &t.root.to_string_lossy(),
            seq: take.seq,
            turn_seq: take.turn_seq,
            kind: take.kind.as_str(),
            full,
            created_at: now_ms,
            files: files.len() as u32,
            added,
            removed,
        },
    )?;
    if full {
        for (path, entry) in tree.iter() {
            db::insert_entry(&tx, id, path, Some(entry), external)?;
        }
    } else {
        for Change { path, after, .. } in &diff {
            db::insert_entry(&tx, id, path, after.as_ref(), external)?;
        }
    }
    tx.commit()?;
    let tracked = tree.len();
    t.last = Some(tree);
    let not_tracked = whole.then(|| t.not_tracked.clone());
    Ok(Some(Taken {
        id,
        seq: take.seq,
        turn_seq: take.turn_seq,
        kind: take.kind,
        files,
        added,
        removed,
        tracked,
        not_tracked,
    }))
}

/// Keeps the bytes of the `paths` of `tree` not kept yet. A file that
/// changed since it was hashed is kept as it reads now, and reread next time.
fn keep_blobs(
    db: &mut Db,
    root: &Path,
    tree: &mut Tree,
    paths: &[String],
) -> Result<(), CheckpointError> {
    let mut missing = Vec::new();
    for path in paths {
        let Some(entry) = tree.get(path) else {
            continue;
        };
        if let Some(hash) = entry.hash()
            && !db.has_blob(hash)?
        {
            missing.push((path.clone(), *entry));
        }
    }
    if missing.is_empty() {
        return Ok(());
    }
    let tx = db.write()?;
    for (path, entry) in missing {
        let full = root.join(&path);
        let bytes = match scan::read_content(&full, &entry.content) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                tree.remove(&path);
                continue;
            }
            Err(e) => return Err(CheckpointError::io(&full, e)),
        };
        let hash = scan::hash_bytes(&bytes);
        if Some(&hash) != entry.hash() {
            let content = match entry.content {
                Content::Symlink(_) => Content::Symlink(hash),
                _ => Content::File(hash),
            };
            tree.insert(
                path,
                Entry {
                    content,
                    size: bytes.len() as u64,
                    mtime_ns: 0,
                    ..entry
                },
            );
        }
        db::put_blob(&tx, &hash, &bytes)?;
    }
    tx.commit()?;
    Ok(())
}
