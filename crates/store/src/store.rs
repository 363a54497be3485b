//! The `Store` handle: one writer connection and a few read-only
//! connections over the same WAL database, each behind a std `Mutex`.
//!
//! Writes are serialized through the single writer (so sequence numbers are
//! assigned without races); reads run concurrently on the reader pool and see
//! the last committed state thanks to WAL.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, TryLockError};
use std::time::Duration;

use rusqlite::config::DbConfig;
use rusqlite::{Connection, OpenFlags, Transaction, TransactionBehavior};

use crate::checkpointer::Checkpointer;
use crate::error::{Result, StoreError};
use crate::model::StoreStats;
use crate::schema;

/// Read-only connections; more than the box has cores is of no use.
const READERS: usize = 4;
const BUSY_TIMEOUT: Duration = Duration::from_secs(10);
const STATEMENT_CACHE: usize = 64;
/// Attempts of the shutdown checkpoint, 10 ms apart.
const CHECKPOINT_TRIES: usize = 100;

/// Handle to the SQLite store. Cheap to clone; all clones share the same
/// connections. Every method blocks: call it from `spawn_blocking`.
#[derive(Clone)]
pub struct Store {
    inner: Arc<Inner>,
}

struct Inner {
    path: PathBuf,
    writer: Mutex<Connection>,
    /// Kept for as long as the store: its thread ends when the store is dropped.
    /// `None` for a read-only store, which never writes the log back.
    checkpointer: Option<Checkpointer>,
    readers: Vec<Mutex<Connection>>,
    next_reader: AtomicUsize,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store")
            .field("path", &self.inner.path)
            .finish_non_exhaustive()
    }
}

/// Makes the database readable by its owner only: a new file is created 0600
/// (SQLite gives its `-wal` and `-shm` files the main file's mode), and an
/// existing one with its companions is narrowed to 0600.
fn owner_only(path: &Path) -> Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
        let io = |p: &Path, source| StoreError::Io {
            path: p.display().to_string(),
            source,
        };
        std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(false)
            .mode(0o600)
            .open(path)
            .map_err(|e| io(path, e))?;
        for suffix in ["", "-wal", "-shm"] {
            let mut name = path.as_os_str().to_owned();
            name.push(suffix);
            let file = Path::new(&name);
            match std::fs::set_permissions(file, std::fs::Permissions::from_mode(0o600)) {
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                other => other.map_err(|e| io(file, e))?,
            }
        }
    }
    #[cfg(not(unix))]
    let _ = path;
    Ok(())
}

impl Store {
    /// Opens (creating if needed) the database at `path` and brings its
    /// schema up to date. Does no work proportional to the data size.
    pub fn open(path: &Path) -> Result<Store> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|source| StoreError::Io {
                path: dir.display().to_string(),
                source,
            })?;
        }
        owner_only(path)?;
        let mut writer = Connection::open(path)?;
        configure_writer(&writer)?;
        schema::migrate(&mut writer)?;
        let checkpointer = Checkpointer::start(path, BUSY_TIMEOUT)?;
        checkpointer.watch(&mut writer)?;
        // Readers open after the writer switched to WAL and created the
        // schema, so they never see a rollback-journal database.
        let readers = (0..READERS)
            .map(|_| open_reader(path).map(Mutex::new))
            .collect::<Result<Vec<_>>>()?;
        Ok(Store {
            inner: Arc::new(Inner {
                path: path.to_path_buf(),
                writer: Mutex::new(writer),
                checkpointer: Some(checkpointer),
                readers,
                next_reader: AtomicUsize::new(0),
            }),
        })
    }

    /// Opens an existing database read-only: every connection is opened
    /// `SQLITE_OPEN_READ_ONLY`, so no write can reach the file (an attempt
    /// fails with a read-only error); no migration, no checkpoint thread. For
    /// viewers (`seekclaw inspect`) beside a daemon that may be writing.
    /// The schema must already be current (any seekclaw run migrates it).
    pub fn open_read_only(path: &Path) -> Result<Store> {
        if !path.exists() {
            return Err(StoreError::Io {
                path: path.display().to_string(),
                source: std::io::Error::from(std::io::ErrorKind::NotFound),
            });
        }
        let writer = open_reader(path)?;
        let version: i64 = writer.query_row("PRAGMA user_version", [], |r| r.get(0))?;
        if version != schema::LATEST_VERSION {
            return Err(StoreError::Corrupt(format!(
                "the database has schema version {version}, this seekclaw reads {}; \
                 run any seekclaw command that opens it for writing first",
                schema::LATEST_VERSION
            )));
        }
        // One reader beside the "writer" (itself read-only): a viewer's reads are few.
        let readers = vec![Mutex::new(open_reader(path)?)];
        Ok(Store {
            inner: Arc::new(Inner {
                path: path.to_path_buf(),
                writer: Mutex::new(writer),
                checkpointer: None,
                readers,
                next_reader: AtomicUsize::new(0),
            }),
        })
    }

    /// The database file this store was opened on.
    pub fn path(&self) -> &Path {
        &self.inner.path
    }

    /// `PRAGMA integrity_check`: `"ok"` when healthy, otherwise the problems
    /// found, one per line.
    pub fn integrity_check(&self) -> Result<String> {
        self.read(|tx| {
            let mut stmt = tx.prepare("PRAGMA integrity_check")?;
            let lines = stmt
                .query_map([], |r| r.get::<_, String>(0))?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            Ok(lines.join("\n"))
        })
    }

    /// Folds the WAL back into the main file and truncates it; called on
    /// shutdown. A checkpoint blocked by a concurrent reader is not an error;
    /// one that meets the checkpoint thread's (which never waits) tries again.
    pub fn checkpoint(&self) -> Result<()> {
        let conn = self.writer()?;
        for _ in 0..CHECKPOINT_TRIES {
            let busy: i64 = conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |r| r.get(0))?;
            if busy == 0 {
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        Ok(())
    }

    #[cfg(test)]
    pub(crate) fn checkpointer(&self) -> &Checkpointer {
        self.inner.checkpointer.as_ref().unwrap()
    }

    /// Every connection, locked (a store that is busy for as long as they are held).
    #[cfg(test)]
    pub(crate) fn hold_connections(&self) -> Vec<MutexGuard<'_, Connection>> {
        std::iter::once(&self.inner.writer)
            .chain(&self.inner.readers)
            .map(|c| c.lock().unwrap())
            .collect()
    }

    /// Factory reset: drops every table and recreates the latest schema.
    pub fn reset(&self) -> Result<()> {
        let mut conn = self.writer()?;
        schema::reset(&mut conn)
    }

    /// Row counts of sessions and events.
    pub fn stats(&self) -> Result<StoreStats> {
        self.read(|tx| {
            let sessions = tx.query_row("SELECT COUNT(*) FROM sessions", [], |r| r.get(0))?;
            let events = tx.query_row("SELECT COUNT(*) FROM session_events", [], |r| r.get(0))?;
            Ok(StoreStats { sessions, events })
        })
    }

    /// Runs `f` in an IMMEDIATE transaction on the writer; commits when `f`
    /// succeeds, rolls back otherwise.
    pub(crate) fn write<T>(&self, f: impl FnOnce(&Transaction<'_>) -> Result<T>) -> Result<T> {
        let mut conn = self.writer()?;
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let out = f(&tx)?;
        tx.commit()?;
        Ok(out)
    }

    /// Like [`Store::write`], but only if the write can go through at once:
    /// `None` (nothing written) while another write of this process or of
    /// another one (a `seekclaw run` beside the daemon) holds the database, or
    /// when its commit may have to checkpoint a long log. For a caller that would
    /// rather run a short write on its own thread than hand it to another, but
    /// must never wait there.
    pub(crate) fn try_write<T>(
        &self,
        f: impl FnOnce(&Transaction<'_>) -> Result<T>,
    ) -> Option<Result<T>> {
        if self
            .inner
            .checkpointer
            .as_ref()
            .is_some_and(Checkpointer::catching_up)
        {
            return None;
        }
        let conn = match self.inner.writer.try_lock() {
            Ok(conn) => conn,
            Err(TryLockError::WouldBlock) => return None,
            Err(TryLockError::Poisoned(_)) => return Some(Err(StoreError::Poisoned("writer"))),
        };
        at_once(&conn, TransactionBehavior::Immediate, f)
    }

    /// Runs `f` in a read transaction on a pooled reader, so multi-query
    /// reads see one consistent snapshot.
    pub(crate) fn read<T>(&self, f: impl FnOnce(&Transaction<'_>) -> Result<T>) -> Result<T> {
        let mut conn = self.reader()?;
        let tx = conn.transaction_with_behavior(TransactionBehavior::Deferred)?;
        let out = f(&tx)?;
        tx.commit()?;
        Ok(out)
    }

    /// Like [`Store::read`], but only if a connection is idle and the
    /// database can be read without waiting: `None` otherwise. For a caller that would rather run a short read
    /// on its own thread than hand it to another, but must never wait there.
    /// The writer goes first: any commit drops a reader's whole page cache,
    /// but the writer's survives its own, so right after a turn's writes a
    /// read there touches the disk cache about half as often.
    pub(crate) fn try_read<T>(
        &self,
        f: impl FnOnce(&Transaction<'_>) -> Result<T>,
    ) -> Option<Result<T>> {
        let conn = match self.inner.writer.try_lock() {
            Ok(writer) => writer,
            Err(_) => self
                .inner
                .readers
                .iter()
                .find_map(|reader| reader.try_lock().ok())?,
        };
        at_once(&conn, TransactionBehavior::Deferred, f)
    }

    pub(crate) fn writer(&self) -> Result<MutexGuard<'_, Connection>> {
        self.inner
            .writer
            .lock()
            .map_err(|_| StoreError::Poisoned("writer"))
    }

    /// Takes the first idle reader, starting at a rotating index; waits on
    /// one only when all are busy.
    fn reader(&self) -> Result<MutexGuard<'_, Connection>> {
        let readers = &self.inner.readers;
        // The first idle reader: one connection's page cache stays warm and the
        // others only fill up under real concurrency (idle memory stays small).
        for reader in readers.iter() {
            match reader.try_lock() {
                Ok(guard) => return Ok(guard),
                // A poisoned reader is skipped; the others still serve.
                Err(TryLockError::WouldBlock | TryLockError::Poisoned(_)) => {}
            }
        }
        let start = self.inner.next_reader.fetch_add(1, Ordering::Relaxed) % readers.len();
        readers[start]
            .lock()
            .map_err(|_| StoreError::Poisoned("reader"))
    }
}

/// Runs `f` in a transaction on `conn` that never waits for a lock: `None`
/// (rolled back) when the database is busy, at the start or later. The busy
/// timeout is 0 meanwhile and restored on every path (`new_unchecked`
/// borrows the connection shared; the caller's lock rules out nesting).
fn at_once<T>(
    conn: &Connection,
    behavior: TransactionBehavior,
    f: impl FnOnce(&Transaction<'_>) -> Result<T>,
) -> Option<Result<T>> {
    if let Err(e) = conn.busy_timeout(Duration::ZERO) {
        return Some(Err(e.into()));
    }
    let out = Transaction::new_unchecked(conn, behavior)
        .map_err(StoreError::from)
        .and_then(|tx| {
            let out = f(&tx)?;
            tx.commit()?;
            Ok(out)
        });
    if let Err(e) = conn.busy_timeout(BUSY_TIMEOUT) {
        return Some(Err(e.into()));
    }
    match out {
        // Another process writing, a log being recovered, a restarting
        // checkpoint: leave it to a thread that may wait.
        Err(e) if e.is_retryable() => None,
        out => Some(out),
    }
}

fn configure_writer(conn: &Connection) -> Result<()> {
    conn.busy_timeout(BUSY_TIMEOUT)?;
    let mode: String = conn.query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0))?;
    if !mode.eq_ignore_ascii_case("wal") {
        return Err(StoreError::Corrupt(format!(
            "could not switch the database to WAL mode (got {mode})"
        )));
    }
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    conn.pragma_update(None, "foreign_keys", true)?;
    keep_plans(conn)?;
    Ok(())
}

/// Cached statements keep their plan whatever values are bound. Without the
/// query planner stability guarantee, SQLite (built with STAT4) recompiles a
/// statement like `... WHERE session_pk = ?1 ORDER BY seq` on every run with
/// a new value: every append and log read paid a full re-prepare.
fn keep_plans(conn: &Connection) -> Result<()> {
    conn.set_db_config(DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG, true)?;
    conn.set_prepared_statement_cache_capacity(STATEMENT_CACHE);
    Ok(())
}

fn open_reader(path: &Path) -> Result<Connection> {
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    conn.busy_timeout(BUSY_TIMEOUT)?;
    keep_plans(&conn)?;
    Ok(conn)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::NewSession;

    #[test]
    fn a_read_only_store_reads_beside_a_writer_and_cannot_write() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("seekclaw.db");
        assert!(Store::open_read_only(&path).is_err(), "no database yet");
        let store = Store::open(&path).unwrap();
        store
            .create_session(&crate::testutil::new_session("g", "s"))
            .unwrap();
        let viewer = Store::open_read_only(&path).unwrap();
        assert_eq!(viewer.list_sessions("g", false).unwrap().len(), 1);
        assert_eq!(viewer.last_seq("g", "s").unwrap(), 0);
        store
            .append_event("g", "s", None, &crate::testutil::user("hi"))
            .unwrap();
        assert_eq!(viewer.last_seq("g", "s").unwrap(), 1);
        assert!(
            viewer
                .create_session(&crate::testutil::new_session("g", "t"))
                .is_err()
        );
        assert!(store.session("g", "t").unwrap().is_none());
    }

    #[cfg(unix)]
    #[test]
    fn the_database_files_are_the_owners_only() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("seekclaw.db");
        let mode = |suffix: &str| {
            let mut name = path.as_os_str().to_owned();
            name.push(suffix);
            std::fs::metadata(&name).unwrap().permissions().mode() & 0o777
        };
        {
            let store = Store::open(&path).unwrap();
            store
                .create_session(&crate::testutil::new_session("g", "s"))
                .unwrap();
            for suffix in ["", "-wal", "-shm"] {
                assert_eq!(mode(suffix), 0o600, "seekclaw.db{suffix}");
            }
        }
        // An older, looser file is narrowed when opened.
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        let _store = Store::open(&path).unwrap();
        assert_eq!(mode(""), 0o600);
    }
    use crate::testutil::{new_session, temp_store};

    fn assert_send_sync_clone<T: Send + Sync + Clone>() {}

    #[test]
    fn store_is_send_sync_clone() {
        assert_send_sync_clone::<Store>();
    }

    #[test]
    fn log_statements_keep_their_plan_across_sessions() {
        use crate::items::{EventItem, UserMessage};
        let (_dir, store) = temp_store();
        let user = EventItem::User(UserMessage {
            text: "hi".into(),
            images: Vec::new(),
        });
        for id in ["a", "b", "c"] {
            store.create_session(&new_session("g", id)).unwrap();
            store.append_event("g", id, None, &user).unwrap();
            store.append_event("g", id, None, &user).unwrap();
        }
        let w = store.writer().unwrap();
        let stmt = w
            .prepare_cached(
                "SELECT COALESCE(MAX(seq), 0) FROM session_events WHERE session_pk = ?1",
            )
            .unwrap();
        assert_eq!(
            stmt.get_status(rusqlite::StatementStatus::RePrepare),
            0,
            "a new session_pk must not recompile the cached statement"
        );
    }

    #[test]
    fn a_write_that_may_checkpoint_a_long_log_is_not_tried_inline() {
        let (_dir, store) = temp_store();
        assert!(store.try_write(|_| Ok(())).is_some());
        store.checkpointer().note_pages(100_000);
        assert!(store.try_write(|_| Ok(())).is_none());
        // A commit through the blocking path reports the log's new length.
        store.create_session(&new_session("g", "s")).unwrap();
        assert!(store.try_write(|_| Ok(())).is_some());
    }

    #[test]
    fn pragmas_are_set() {
        let (_dir, store) = temp_store();
        let w = store.writer().unwrap();
        let mode: String = w
            .query_row("PRAGMA journal_mode", [], |r| r.get(0))
            .unwrap();
        assert_eq!(mode, "wal");
        let sync: i64 = w.query_row("PRAGMA synchronous", [], |r| r.get(0)).unwrap();
        assert_eq!(sync, 1, "NORMAL");
        let fk: i64 = w
            .query_row("PRAGMA foreign_keys", [], |r| r.get(0))
            .unwrap();
        assert_eq!(fk, 1);
        let busy: i64 = w
            .query_row("PRAGMA busy_timeout", [], |r| r.get(0))
            .unwrap();
        assert_eq!(busy, 10_000);
        let version: i64 = w
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap();
        assert_eq!(version, schema::LATEST_VERSION);
    }

    #[test]
    fn integrity_check_is_ok() {
        let (_dir, store) = temp_store();
        store.create_session(&new_session("s", "a")).unwrap();
        assert_eq!(store.integrity_check().unwrap(), "ok");
    }

    #[test]
    fn reopen_persists_and_migrations_are_idempotent() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("nested/seekclaw.db");
        {
            let store = Store::open(&path).unwrap();
            store.create_session(&new_session("s", "a")).unwrap();
            store.checkpoint().unwrap();
        }
        let again = Store::open(&path).unwrap();
        let third = Store::open(&path).unwrap();
        assert!(again.session("s", "a").unwrap().is_some());
        assert_eq!(third.stats().unwrap().sessions, 1);
        assert_eq!(third.integrity_check().unwrap(), "ok");
    }

    #[test]
    fn newer_schema_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("db");
        {
            let c = Connection::open(&path).unwrap();
            c.pragma_update(None, "user_version", 99).unwrap();
        }
        assert!(matches!(Store::open(&path), Err(StoreError::Corrupt(_))));
    }

    #[test]
    fn reset_drops_everything_and_keeps_working() {
        let (_dir, store) = temp_store();
        store.create_session(&new_session("s", "a")).unwrap();
        store.upsert_project("p1", "/x", "/x", "x").unwrap();
        // A reader has seen the old schema; it must cope with the new one.
        assert_eq!(store.stats().unwrap().sessions, 1);
        store.reset().unwrap();
        assert_eq!(store.stats().unwrap(), StoreStats::default());
        assert!(store.list_projects().unwrap().is_empty());
        let s = NewSession {
            scope: "s".into(),
            id: "a".into(),
            reasoning_level: "high".into(),
            ..Default::default()
        };
        store.create_session(&s).unwrap();
        assert_eq!(store.stats().unwrap().sessions, 1);
        assert_eq!(store.integrity_check().unwrap(), "ok");
    }

    #[test]
    fn poisoned_writer_is_an_error_not_a_panic() {
        let (_dir, store) = temp_store();
        let clone = store.clone();
        let _ = std::thread::spawn(move || {
            let _guard = clone.inner.writer.lock().unwrap();
            panic!("poison the writer");
        })
        .join();
        let err = store.create_session(&new_session("s", "a")).unwrap_err();
        assert!(matches!(err, StoreError::Poisoned("writer")));
        // Reads still work.
        assert!(store.session("s", "a").unwrap().is_none());
    }
}
