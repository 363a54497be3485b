//! WAL checkpoints on a thread of their own. SQLite's automatic checkpoint runs
//! inside whichever commit takes the log past its threshold: that commit copies
//! some 4 MB back into the database file and fsyncs, and when it is a turn's
//! closing write, the client's `done` waits for it. The writer's commits only
//! signal this thread instead; it checkpoints on its own connection, PASSIVE, so
//! it never waits for or blocks readers and the writer. Under writes that never
//! pause, a checkpoint beside them never catches up with the log's end (and the
//! log restarts only from a complete one), so past [`CATCH_UP_PAGES`] the commit
//! checkpoints itself, as SQLite would have.

use std::ffi::c_int;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicI32, AtomicU64, Ordering};
use std::sync::mpsc::{SyncSender, sync_channel};
use std::time::Duration;

use rusqlite::Connection;

use crate::error::{Result, StoreError};

/// WAL pages after which a checkpoint is due (SQLite's default threshold).
const WAL_PAGES: c_int = 1000;
/// WAL pages after which the committing connection checkpoints itself.
const CATCH_UP_PAGES: c_int = 4 * WAL_PAGES;

/// Wakes the checkpoint thread. The thread ends once every sender is gone
/// (the store and its writer connection dropped).
pub(crate) struct Checkpointer {
    wake: SyncSender<()>,
    /// WAL pages after the last commit.
    pages: Arc<AtomicI32>,
    /// Wake-ups sent, and checkpoints the thread finished (one per wake-up):
    /// how a test knows the thread has caught up.
    signalled: Arc<AtomicU64>,
    #[cfg_attr(not(test), allow(dead_code))]
    completed: Arc<AtomicU64>,
}

impl Checkpointer {
    /// Opens the thread's connection to `path` and starts the thread, which
    /// first checkpoints whatever log an earlier run left behind.
    pub fn start(path: &Path, busy_timeout: Duration) -> Result<Checkpointer> {
        let conn = Connection::open(path)?;
        conn.busy_timeout(busy_timeout)?;
        // One pending wake-up is enough: a checkpoint covers every commit before it.
        let (wake, due) = sync_channel::<()>(1);
        let completed = Arc::new(AtomicU64::new(0));
        let done_count = completed.clone();
        std::thread::Builder::new()
            .name("seekclaw-wal".into())
            .spawn(move || {
                while due.recv().is_ok() {
                    let done = conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()));
                    report(done);
                    done_count.fetch_add(1, Ordering::Release);
                }
            })
            .map_err(|source| StoreError::Io {
                path: path.display().to_string(),
                source,
            })?;
        // Until the first commit reports it, the log's length is its file's.
        let leftover = std::fs::metadata(format!("{}-wal", path.display()))
            .map(|m| m.len() / (4096 + 24))
            .unwrap_or(0);
        let checkpointer = Checkpointer {
            wake,
            pages: Arc::new(AtomicI32::new(
                c_int::try_from(leftover).unwrap_or(c_int::MAX),
            )),
            signalled: Arc::new(AtomicU64::new(0)),
            completed,
        };
        signal(&checkpointer.wake, &checkpointer.signalled);
        Ok(checkpointer)
    }

    /// Whether every checkpoint asked for so far has run.
    #[cfg(test)]
    pub fn settled(&self) -> bool {
        self.completed.load(Ordering::Acquire) >= self.signalled.load(Ordering::Acquire)
    }

    #[cfg(test)]
    pub fn note_pages(&self, pages: c_int) {
        self.pages.store(pages, Ordering::Relaxed);
    }

    /// Whether the next commit may checkpoint inline ([`CATCH_UP_PAGES`]): a
    /// write that must not hold up its thread for that goes elsewhere.
    pub fn catching_up(&self) -> bool {
        self.pages.load(Ordering::Relaxed) >= CATCH_UP_PAGES - WAL_PAGES / 4
    }

    /// Makes `writer`'s commits signal the thread (instead of checkpointing
    /// themselves) once the log holds [`WAL_PAGES`] pages.
    pub fn watch(&self, writer: &mut Connection) -> Result<()> {
        let (wake, seen, signalled) = (
            self.wake.clone(),
            self.pages.clone(),
            self.signalled.clone(),
        );
        writer.wal_hook(Some(move |wal: &mut rusqlite::hooks::Wal, pages: c_int| {
            seen.store(pages, Ordering::Relaxed);
            if pages >= CATCH_UP_PAGES {
                // A failed checkpoint is not the committed transaction's failure.
                report(wal.checkpoint());
            } else if pages >= WAL_PAGES {
                signal(&wake, &signalled);
            }
            Ok(())
        }))?;
        Ok(())
    }
}

/// Wakes the thread unless a wake-up is already pending.
fn signal(wake: &SyncSender<()>, signalled: &AtomicU64) {
    // Counted first, so a finished checkpoint is never counted before its wake-up.
    signalled.fetch_add(1, Ordering::Release);
    if wake.try_send(()).is_err() {
        signalled.fetch_sub(1, Ordering::Release);
    }
}

/// Logs a failed checkpoint; one that found another checkpoint running (the
/// thread's and a commit's can meet) is no failure: the log gets checkpointed.
fn report(done: rusqlite::Result<()>) {
    match done {
        Ok(()) => {}
        Err(e) if e.sqlite_error_code() == Some(rusqlite::ErrorCode::DatabaseBusy) => {
            tracing::debug!(error = %e, "WAL checkpoint skipped: another one is running");
        }
        Err(e) => tracing::warn!(error = %e, "WAL checkpoint failed; the next one retries"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{new_session, temp_store};

    /// Pages in the WAL file (its size over the frame size), 0 when absent.
    fn wal_frames(db: &Path) -> u64 {
        std::fs::metadata(format!("{}-wal", db.display()))
            .map(|m| m.len() / (4096 + 24))
            .unwrap_or(0)
    }

    /// Waits until the store's checkpoint thread has run every checkpoint asked of it.
    fn wait_settled(store: &crate::store::Store) {
        let waited = std::time::Instant::now();
        while !store.checkpointer().settled() {
            assert!(
                waited.elapsed() < Duration::from_secs(20),
                "no checkpoint ran"
            );
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    #[test]
    fn commits_past_the_threshold_are_checkpointed_by_the_thread() {
        let (_dir, store) = temp_store();
        let big = "x".repeat(40_000);
        store.create_session(&new_session("g", "s")).unwrap();
        let item = crate::items::EventItem::User(crate::items::UserMessage {
            text: big,
            images: Vec::new(),
        });
        // ~16 pages per append, with pauses: the thread's checkpoints complete
        // and the log restarts from its start.
        for i in 0..150 {
            store.append_event("g", "s", None, &item).unwrap();
            if i % 25 == 24 {
                wait_settled(&store);
            }
        }
        let frames = wal_frames(store.path());
        assert!(
            frames < 2 * WAL_PAGES as u64,
            "the WAL grew to {frames} pages: nobody checkpoints it"
        );
        // Writes that never pause (some 11,000 pages): the log stays bounded
        // all the same (a commit's checkpoint that meets the thread's is
        // skipped, so the bound is loose).
        for _ in 0..700 {
            store.append_event("g", "s", None, &item).unwrap();
        }
        let frames = wal_frames(store.path());
        assert!(
            frames <= 2 * CATCH_UP_PAGES as u64,
            "the WAL grew to {frames} pages under sustained writes"
        );
        assert_eq!(store.events("g", "s").unwrap().len(), 850);
    }

    #[test]
    fn a_log_left_by_an_earlier_run_counts_and_is_checkpointed() {
        let (dir, first) = temp_store();
        first.create_session(&new_session("g", "s")).unwrap();
        let path = dir.path().join("seekclaw.db");
        // A reader holding its snapshot keeps every checkpoint short of the
        // log's end, so the log grows past the catch-up mark whatever the
        // checkpoint thread's timing.
        let pin = Connection::open(&path).unwrap();
        pin.execute_batch("BEGIN").unwrap();
        let _: i64 = pin
            .query_row("SELECT COUNT(*) FROM sessions", [], |r| r.get(0))
            .unwrap();
        let item = crate::items::EventItem::User(crate::items::UserMessage {
            text: "y".repeat(40_000),
            images: Vec::new(),
        });
        for _ in 0..450 {
            first.append_event("g", "s", None, &item).unwrap();
        }
        wait_settled(&first);
        // A crash: the store's connections never close, the log stays.
        std::mem::forget(first);
        drop(pin);
        assert!(wal_frames(&path) >= CATCH_UP_PAGES as u64);
        let store = crate::store::Store::open(&path).unwrap();
        assert!(
            store.checkpointer().catching_up(),
            "a long leftover log keeps writes off the async threads"
        );
        wait_settled(&store);
        store.append_event("g", "s", None, &item).unwrap();
        assert!(!store.checkpointer().catching_up(), "the log restarted");
        assert_eq!(store.events("g", "s").unwrap().len(), 451);
    }
}
