//! The shadow store: one SQLite file under the home holding deduplicated
//! blobs and, per session, checkpoints as changes over a full first tree.
//! Never the user's `.git`. Each checkpoint is one transaction, so a killed
//! process leaves either the whole checkpoint or none of it.

use std::io::{Read, Write};
use std::path::Path;
use std::time::Duration;

use flate2::Compression;
use flate2::read::DeflateDecoder;
use flate2::write::DeflateEncoder;
use rusqlite::{Connection, OptionalExtension, Transaction, params};

use crate::error::CheckpointError;
use crate::tree::{Content, Entry, Hash, Tree};

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS blobs (
  id INTEGER PRIMARY KEY,
  hash BLOB NOT NULL UNIQUE,
  size INTEGER NOT NULL,
  deflated INTEGER NOT NULL,
  data BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS checkpoints (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  session_id TEXT NOT NULL,
  root TEXT NOT NULL,
  seq INTEGER,
  turn_seq INTEGER NOT NULL,
  kind TEXT NOT NULL,
  full INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  files INTEGER NOT NULL,
  added INTEGER NOT NULL,
  removed INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS checkpoints_session ON checkpoints(session_id, id);
CREATE INDEX IF NOT EXISTS checkpoints_root ON checkpoints(root, id);
CREATE TABLE IF NOT EXISTS entries (
  checkpoint_id INTEGER NOT NULL REFERENCES checkpoints(id) ON DELETE CASCADE,
  path TEXT NOT NULL,
  present INTEGER NOT NULL,
  kind INTEGER NOT NULL,
  hash BLOB,
  mode INTEGER NOT NULL,
  size INTEGER NOT NULL,
  mtime INTEGER NOT NULL,
  ino INTEGER NOT NULL,
  external INTEGER NOT NULL,
  PRIMARY KEY (checkpoint_id, path)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS entries_hash ON entries(hash);
";

/// One stored checkpoint's header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// Store order.
    pub id: u64,
    /// The session it belongs to.
    pub session_id: String,
    /// The workspace root it tracks.
    pub root: String,
    /// The session-log position it stands at (`None` once the log was
    /// truncated before it).
    pub seq: Option<u64>,
    /// The seq of the user message of its turn (0: between turns).
    pub turn_seq: u64,
    /// `turn` (before a turn's first change), `step`, `job`, `verify`, `rewind`.
    pub kind: String,
    /// Holds the whole tree, not changes.
    pub full: bool,
    /// Unix ms.
    pub created_at: i64,
    /// Files changed, lines added and removed against the state before it.
    pub files: u32,
    /// Lines added.
    pub added: u32,
    /// Lines removed.
    pub removed: u32,
}

/// A new checkpoint's header.
pub struct NewRow<'a> {
    pub session_id: &'a str,
    pub root: &'a str,
    pub seq: u64,
    pub turn_seq: u64,
    pub kind: &'a str,
    pub full: bool,
    pub created_at: i64,
    pub files: u32,
    pub added: u32,
    pub removed: u32,
}

/// One stored path of a checkpoint (`entry: None`: deleted there).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stored {
    pub path: String,
    pub entry: Option<Entry>,
    /// Changed by someone other than the agent (found before a turn).
    pub external: bool,
}

/// A path changed after some checkpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Later {
    pub path: String,
    /// Someone other than the agent changed it (found before a turn).
    pub by_user: bool,
    /// The agent changed it.
    pub by_agent: bool,
}

/// The connection to the shadow store.
pub struct Db {
    conn: Connection,
}

const BUSY: Duration = Duration::from_secs(10);

impl Db {
    /// Opens an existing store at `path` for reading only: no schema, no
    /// pragma that writes; a writer's WAL is read as it stands.
    pub fn open_read_only(path: &Path) -> Result<Db, CheckpointError> {
        let flags =
            rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = Connection::open_with_flags(path, flags)?;
        conn.busy_timeout(BUSY)?;
        Ok(Db { conn })
    }

    /// Opens (creating) the store at `path`.
    pub fn open(path: &Path) -> Result<Db, CheckpointError> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| CheckpointError::io(dir, e))?;
        }
        let conn = Connection::open(path)?;
        conn.busy_timeout(BUSY)?;
        let _: String = conn.query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0))?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        conn.pragma_update(None, "foreign_keys", true)?;
        // Collected blobs give their pages back a little at a time.
        conn.pragma_update(None, "auto_vacuum", "INCREMENTAL")?;
        conn.execute_batch(SCHEMA)?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let _ = std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600));
        }
        Ok(Db { conn })
    }

    /// Starts a write transaction.
    pub fn write(&mut self) -> Result<Transaction<'_>, CheckpointError> {
        Ok(self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?)
    }

    /// Whether the blob is kept.
    pub fn has_blob(&self, hash: &Hash) -> Result<bool, CheckpointError> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT 1 FROM blobs WHERE hash = ?1")?;
        Ok(stmt.exists([&hash[..]])?)
    }

    /// A kept blob's bytes.
    pub fn blob(&self, hash: &Hash) -> Result<Vec<u8>, CheckpointError> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT deflated, data FROM blobs WHERE hash = ?1")?;
        let row: Option<(bool, Vec<u8>)> = stmt
            .query_row([&hash[..]], |r| Ok((r.get(0)?, r.get(1)?)))
            .optional()?;
        let (deflated, data) = row.ok_or_else(|| {
            CheckpointError::Corrupt(format!("blob {} is missing", crate::tree::hex(hash)))
        })?;
        if !deflated {
            return Ok(data);
        }
        let mut out = Vec::new();
        DeflateDecoder::new(&data[..])
            .read_to_end(&mut out)
            .map_err(|e| CheckpointError::Corrupt(format!("blob damaged: {e}")))?;
        Ok(out)
    }

    /// The store's size on disk, in bytes.
    pub fn size_bytes(&self) -> Result<u64, CheckpointError> {
        let pages: i64 = self.conn.query_row("PRAGMA page_count", [], |r| r.get(0))?;
        let size: i64 = self.conn.query_row("PRAGMA page_size", [], |r| r.get(0))?;
        Ok((pages * size) as u64)
    }

    /// The session's checkpoints, oldest first.
    pub fn rows(&self, session_id: &str) -> Result<Vec<Row>, CheckpointError> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT id, session_id, root, seq, turn_seq, kind, full, created_at, files, added, removed
             FROM checkpoints WHERE session_id = ?1 ORDER BY id",
        )?;
        let rows = stmt
            .query_map([session_id], row_of)?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(rows)
    }

    /// The session's tree as of checkpoint `id` (inclusive): its last full
    /// tree at or before `id`, then every change up to `id`.
    pub fn tree_at(&self, session_id: &str, id: u64) -> Result<Tree, CheckpointError> {
        let base: Option<i64> = self.conn.query_row(
            "SELECT MAX(id) FROM checkpoints WHERE session_id = ?1 AND id <= ?2 AND full = 1",
            params![session_id, id as i64],
            |r| r.get(0),
        )?;
        let mut tree = Tree::new();
        let Some(base) = base else {
            return Ok(tree);
        };
        let mut stmt = self.conn.prepare_cached(
            "SELECT e.path, e.present, e.kind, e.hash, e.mode, e.size, e.mtime, e.ino, e.external
             FROM entries e JOIN checkpoints c ON c.id = e.checkpoint_id
             WHERE c.session_id = ?1 AND c.id >= ?2 AND c.id <= ?3 ORDER BY c.id",
        )?;
        let rows = stmt.query_map(params![session_id, base, id as i64], stored_of)?;
        for row in rows {
            let s = row?;
            match s.entry {
                Some(e) => tree.insert(s.path, e),
                None => tree.remove(&s.path),
            };
        }
        Ok(tree)
    }

    /// The newest tree any session recorded for the workspace at `root`
    /// (empty when none): a new session's stat cache.
    pub fn newest_tree_of_root(&self, root: &str) -> Result<Tree, CheckpointError> {
        let newest: Option<(String, i64)> = self
            .conn
            .query_row(
                "SELECT session_id, id FROM checkpoints WHERE root = ?1 ORDER BY id DESC LIMIT 1",
                [root],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()?;
        match newest {
            Some((session, id)) => self.tree_at(&session, id as u64),
            None => Ok(Tree::new()),
        }
    }

    /// Paths changed by checkpoints after `id`, and by whom.
    pub fn changed_after(&self, session_id: &str, id: u64) -> Result<Vec<Later>, CheckpointError> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT e.path, MAX(e.external), MIN(e.external) FROM entries e
             JOIN checkpoints c ON c.id = e.checkpoint_id
             WHERE c.session_id = ?1 AND c.id > ?2 GROUP BY e.path",
        )?;
        let rows = stmt
            .query_map(params![session_id, id as i64], |r| {
                Ok(Later {
                    path: r.get(0)?,
                    by_user: r.get(1)?,
                    by_agent: !r.get::<_, bool>(2)?,
                })
            })?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(rows)
    }

    /// Copies the session's checkpoints up to `upto` (inclusive) to a fork.
    pub fn copy_session(&mut self, from: &str, to: &str, upto: u64) -> Result<(), CheckpointError> {
        let tx = self.write()?;
        let ids: Vec<i64> = {
            let mut stmt = tx.prepare(
                "SELECT id FROM checkpoints WHERE session_id = ?1 AND id <= ?2 ORDER BY id",
            )?;
            stmt.query_map(params![from, upto as i64], |r| r.get(0))?
                .collect::<Result<_, _>>()?
        };
        for id in ids {
            tx.execute(
                "INSERT INTO checkpoints (session_id, root, seq, turn_seq, kind, full, created_at, files, added, removed)
                 SELECT ?1, root, seq, turn_seq, kind, full, created_at, files, added, removed FROM checkpoints WHERE id = ?2",
                params![to, id],
            )?;
            let new_id = tx.last_insert_rowid();
            tx.execute(
                "INSERT INTO entries (checkpoint_id, path, present, kind, hash, mode, size, mtime, ino, external)
                 SELECT ?1, path, present, kind, hash, mode, size, mtime, ino, external FROM entries WHERE checkpoint_id = ?2",
                params![new_id, id],
            )?;
        }
        tx.commit()?;
        Ok(())
    }

    /// Deletes a session's checkpoints and the blobs no other uses.
    pub fn delete_session(&mut self, session_id: &str) -> Result<usize, CheckpointError> {
        let tx = self.write()?;
        let n = tx.execute(
            "DELETE FROM checkpoints WHERE session_id = ?1",
            [session_id],
        )?;
        collect_blobs(&tx)?;
        tx.commit()?;
        Ok(n)
    }

    /// Deletes everything and gives the space back.
    pub fn clear(&mut self) -> Result<(), CheckpointError> {
        self.conn
            .execute_batch("DELETE FROM entries; DELETE FROM checkpoints; DELETE FROM blobs;")?;
        self.conn.execute_batch("VACUUM")?;
        Ok(())
    }

    /// Keeps the session's last `keep` checkpoints: the oldest kept one
    /// becomes a full tree, older ones go, and so do blobs nothing uses.
    pub fn prune(&mut self, session_id: &str, keep: usize) -> Result<usize, CheckpointError> {
        let rows = self.rows(session_id)?;
        if rows.len() <= keep.max(1) {
            return Ok(0);
        }
        let first_kept = &rows[rows.len() - keep.max(1)];
        let tree = self.tree_at(session_id, first_kept.id)?;
        let tx = self.write()?;
        tx.execute(
            "DELETE FROM entries WHERE checkpoint_id = ?1",
            [first_kept.id as i64],
        )?;
        for (path, entry) in &tree {
            insert_entry(&tx, first_kept.id, path, Some(entry), false)?;
        }
        tx.execute(
            "UPDATE checkpoints SET full = 1 WHERE id = ?1",
            [first_kept.id as i64],
        )?;
        let n = tx.execute(
            "DELETE FROM checkpoints WHERE session_id = ?1 AND id < ?2",
            params![session_id, first_kept.id as i64],
        )?;
        collect_blobs(&tx)?;
        tx.commit()?;
        Ok(n)
    }
}

/// Deletes blobs no entry uses.
fn collect_blobs(tx: &Transaction<'_>) -> Result<(), CheckpointError> {
    tx.execute(
        "DELETE FROM blobs WHERE NOT EXISTS (SELECT 1 FROM entries e WHERE e.hash = blobs.hash)",
        [],
    )?;
    tx.execute_batch("PRAGMA incremental_vacuum")?;
    Ok(())
}

/// Blobs smaller than this are kept as they are (deflate gains nothing).
const DEFLATE_FROM: usize = 256;

/// Keeps `bytes` under `hash` unless already kept.
pub fn put_blob(tx: &Transaction<'_>, hash: &Hash, bytes: &[u8]) -> Result<(), CheckpointError> {
    let mut deflated = false;
    let mut data = None;
    if bytes.len() >= DEFLATE_FROM {
        let mut enc = DeflateEncoder::new(Vec::new(), Compression::fast());
        let squeezed = enc.write_all(bytes).and_then(|_| enc.finish());
        if let Some(z) = squeezed.ok().filter(|z| z.len() < bytes.len() * 9 / 10) {
            deflated = true;
            data = Some(z);
        }
    }
    let data = data.as_deref().unwrap_or(bytes);
    let mut stmt = tx.prepare_cached(
        "INSERT OR IGNORE INTO blobs (hash, size, deflated, data) VALUES (?1, ?2, ?3, ?4)",
    )?;
    stmt.execute(params![&hash[..], bytes.len() as i64, deflated, data])?;
    Ok(())
}

/// Detaches the session's checkpoints standing at or after `seq`.
pub fn detach_from(
    tx: &Transaction<'_>,
    session_id: &str,
    seq: u64,
) -> Result<(), CheckpointError> {
    tx.execute(
        "UPDATE checkpoints SET seq = NULL WHERE session_id = ?1 AND seq >= ?2",
        params![session_id, seq as i64],
    )?;
    Ok(())
}

/// Writes a checkpoint's header; returns its id.
pub fn insert_row(tx: &Transaction<'_>, row: &NewRow<'_>) -> Result<u64, CheckpointError> {
    tx.execute(
        "INSERT INTO checkpoints (session_id, root, seq, turn_seq, kind, full, created_at, files, added, removed)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
        params![
            row.session_id,
            row.root,
            row.seq as i64,
            row.turn_seq as i64,
            row.kind,
            row.full,
            row.created_at,
            row.files,
            row.added,
            row.removed
        ],
    )?;
    Ok(tx.last_insert_rowid() as u64)
}

/// Writes one path of a checkpoint.
pub fn insert_entry(
    tx: &Transaction<'_>,
    checkpoint_id: u64,
    path: &str,
    entry: Option<&Entry>,
    external: bool,
) -> Result<(), CheckpointError> {
    let mut stmt = tx.prepare_cached(
        "INSERT OR REPLACE INTO entries (checkpoint_id, path, present, kind, hash, mode, size, mtime, ino, external)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
    )?;
    let (present, kind, hash, mode, size, mtime, ino) = match entry {
        None => (false, 0, None, 0, 0, 0, 0),
        Some(e) => {
            let (kind, hash) = match &e.content {
                Content::File(h) => (0, Some(&h[..])),
                Content::Symlink(h) => (1, Some(&h[..])),
                Content::Oversize => (2, None),
            };
            (
                true,
                kind,
                hash,
                e.mode,
                e.size as i64,
                e.mtime_ns,
                e.ino as i64,
            )
        }
    };
    stmt.execute(params![
        checkpoint_id as i64,
        path,
        present,
        kind,
        hash,
        mode,
        size,
        mtime,
        ino,
        external
    ])?;
    Ok(())
}

fn row_of(r: &rusqlite::Row<'_>) -> rusqlite::Result<Row> {
    Ok(Row {
        id: r.get::<_, i64>(0)? as u64,
        session_id: r.get(1)?,
        root: r.get(2)?,
        seq: r.get::<_, Option<i64>>(3)?.map(|s| s as u64),
        turn_seq: r.get::<_, i64>(4)? as u64,
        kind: r.get(5)?,
        full: r.get(6)?,
        created_at: r.get(7)?,
        files: r.get(8)?,
        added: r.get(9)?,
        removed: r.get(10)?,
    })
}

fn stored_of(r: &rusqlite::Row<'_>) -> rusqlite::Result<Stored> {
    let present: bool = r.get(1)?;
    let entry = if present {
        let kind: i64 = r.get(2)?;
        let hash: Option<Vec<u8>> = r.get(3)?;
        let hash: Option<Hash> = hash.and_then(|h| h.try_into().ok());
        let content = match (kind, hash) {
            (0, Some(h)) => Content::File(h),
            (1, Some(h)) => Content::Symlink(h),
            _ => Content::Oversize,
        };
        Some(Entry {
            content,
            mode: r.get(4)?,
            size: r.get::<_, i64>(5)? as u64,
            mtime_ns: r.get(6)?,
            ino: r.get::<_, i64>(7)? as u64,
        })
    } else {
        None
    };
    Ok(Stored {
        path: r.get(0)?,
        entry,
        external: r.get(8)?,
    })
}
