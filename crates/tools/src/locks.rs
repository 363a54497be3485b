//! One coordinator per daemon, shared by every turn and scheduled run: a write lock
//! per (workspace, file). Mutating file tools take it, waiting a bounded time, so two
//! turns never interleave edits to the same file.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use serde::Serialize;
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

/// Why a write lock was not taken.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LockError {
    /// The holder kept the file past the wait limit.
    #[error(
        "Write lock timeout: {path} is being edited by another task ({holder}). Wait for it to finish, re-read the latest file content, then retry."
    )]
    Timeout {
        /// Workspace-relative path of the file.
        path: String,
        /// Owner id of the turn holding the lock.
        holder: String,
    },
    /// The turn was cancelled while it waited.
    #[error("Cancelled while waiting for the write lock on {path}")]
    Cancelled {
        /// Workspace-relative path of the file.
        path: String,
    },
}

/// A held lock, as `lock.list` shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LockInfo {
    /// The workspace root.
    pub workspace: String,
    /// Absolute path of the file.
    pub file: String,
    /// Owner id of the turn holding it.
    pub owner: String,
    /// When it was taken.
    pub acquired_at: String,
    /// `file` relative to `workspace` (or `file` itself when outside it).
    pub path: String,
}

type Key = (PathBuf, PathBuf);

/// The write locks of the daemon: one per (workspace, file), held by a turn.
#[derive(Default)]
pub struct WriteLocks {
    held: Mutex<BTreeMap<Key, LockInfo>>,
    released: Notify,
}

/// `2026-07-31T12:00:00.1234567+00:00`, the timestamp format of every wire shape.
fn now_iso() -> String {
    use chrono::Timelike;
    let now = chrono::Utc::now();
    let ticks = (now.nanosecond() / 100).min(9_999_999);
    format!("{}.{ticks:07}+00:00", now.format("%Y-%m-%dT%H:%M:%S"))
}

fn relative(workspace: &Path, file: &Path) -> String {
    file.strip_prefix(workspace)
        .unwrap_or(file)
        .display()
        .to_string()
}

impl WriteLocks {
    /// The lock table. A panic elsewhere while this lock was held is recovered
    /// from: each section inserts or removes whole entries, so the table stays
    /// true, and refusing every later write for good would be worse.
    fn held(&self) -> MutexGuard<'_, BTreeMap<Key, LockInfo>> {
        self.held.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// No lock held.
    pub fn new() -> Self {
        Self::default()
    }

    /// Takes the lock on `file` for `owner`, waiting up to `timeout`. Re-entrant for
    /// the same owner. Cancellation aborts the wait without taking the lock.
    pub async fn acquire(
        &self,
        workspace: &Path,
        file: &Path,
        owner: &str,
        timeout: Duration,
        cancel: &CancellationToken,
    ) -> Result<(), LockError> {
        let key = (workspace.to_path_buf(), file.to_path_buf());
        let path = relative(workspace, file);
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            // Registered before the check so a release in between is not missed.
            let notified = self.released.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            let holder = match self.try_take(&key, owner, &path) {
                None => return Ok(()),
                Some(holder) => holder,
            };
            tokio::select! {
                _ = &mut notified => continue,
                _ = cancel.cancelled() => return Err(LockError::Cancelled { path }),
                _ = tokio::time::sleep_until(deadline) => {
                    return Err(LockError::Timeout { path, holder });
                }
            }
        }
    }

    /// Takes the lock if free (or already ours); otherwise returns the holder.
    fn try_take(&self, key: &Key, owner: &str, path: &str) -> Option<String> {
        let mut held = self.held();
        match held.get(key) {
            Some(info) if info.owner != owner => Some(info.owner.clone()),
            Some(_) => None,
            None => {
                held.insert(
                    key.clone(),
                    LockInfo {
                        workspace: key.0.display().to_string(),
                        file: key.1.display().to_string(),
                        owner: owner.to_string(),
                        acquired_at: now_iso(),
                        path: path.to_string(),
                    },
                );
                None
            }
        }
    }

    /// Releases one lock; a release by anyone but the holder does nothing.
    pub fn release(&self, workspace: &Path, file: &Path, owner: &str) -> bool {
        let key = (workspace.to_path_buf(), file.to_path_buf());
        let removed = {
            let mut held = self.held();
            held.get(&key).is_some_and(|i| i.owner == owner) && held.remove(&key).is_some()
        };
        if removed {
            self.released.notify_waiters();
        }
        removed
    }

    /// Releases everything `owner` holds (a turn ending, however it ends).
    pub fn release_all(&self, owner: &str) -> usize {
        let removed = {
            let mut held = self.held();
            let before = held.len();
            held.retain(|_, info| info.owner != owner);
            before - held.len()
        };
        if removed > 0 {
            self.released.notify_waiters();
        }
        removed
    }

    /// Held locks sorted by workspace, then file.
    pub fn snapshot(&self) -> Vec<LockInfo> {
        self.held().values().cloned().collect()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    const WS: &str = "/repo";

    fn ws() -> &'static Path {
        Path::new(WS)
    }

    #[tokio::test]
    async fn acquire_release_and_snapshot() {
        let locks = WriteLocks::new();
        let never = CancellationToken::new();
        let file = Path::new("/repo/src/a.rs");
        locks
            .acquire(ws(), file, "s1/0000aaaa", Duration::from_secs(1), &never)
            .await
            .unwrap();
        // Re-entrant for the holder.
        locks
            .acquire(ws(), file, "s1/0000aaaa", Duration::from_millis(10), &never)
            .await
            .unwrap();
        let snap = locks.snapshot();
        assert_eq!(snap.len(), 1);
        assert_eq!(
            (snap[0].owner.as_str(), snap[0].path.as_str()),
            ("s1/0000aaaa", "src/a.rs")
        );
        assert!(snap[0].acquired_at.ends_with("+00:00"));
        assert!(
            !locks.release(ws(), file, "someone-else"),
            "wrong owner is a no-op"
        );
        assert!(locks.release(ws(), file, "s1/0000aaaa"));
        assert!(locks.snapshot().is_empty());
    }

    #[tokio::test]
    async fn contention_times_out_naming_the_holder() {
        let locks = WriteLocks::new();
        let never = CancellationToken::new();
        let file = Path::new("/repo/b.txt");
        locks
            .acquire(ws(), file, "A/11111111", Duration::from_secs(1), &never)
            .await
            .unwrap();
        let err = locks
            .acquire(ws(), file, "B/22222222", Duration::from_millis(50), &never)
            .await
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "Write lock timeout: b.txt is being edited by another task (A/11111111). Wait for it to finish, re-read the latest file content, then retry."
        );
    }

    #[tokio::test]
    async fn a_waiter_wakes_on_release_and_release_all() {
        let locks = Arc::new(WriteLocks::new());
        let never = CancellationToken::new();
        let (f1, f2) = (Path::new("/repo/1"), Path::new("/repo/2"));
        locks
            .acquire(ws(), f1, "A", Duration::from_secs(1), &never)
            .await
            .unwrap();
        locks
            .acquire(ws(), f2, "A", Duration::from_secs(1), &never)
            .await
            .unwrap();
        let waiter = {
            let locks = locks.clone();
            tokio::spawn(async move {
                let never = CancellationToken::new();
                locks
                    .acquire(
                        ws(),
                        Path::new("/repo/2"),
                        "B",
                        Duration::from_secs(5),
                        &never,
                    )
                    .await
            })
        };
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(!waiter.is_finished());
        assert_eq!(locks.release_all("A"), 2);
        waiter.await.unwrap().unwrap();
        assert_eq!(locks.snapshot()[0].owner, "B");
    }

    #[tokio::test]
    async fn cancellation_aborts_the_wait_without_taking_the_lock() {
        let locks = WriteLocks::new();
        let cancel = CancellationToken::new();
        let file = Path::new("/repo/c");
        locks
            .acquire(ws(), file, "A", Duration::from_secs(1), &cancel)
            .await
            .unwrap();
        let other = CancellationToken::new();
        other.cancel();
        let err = locks
            .acquire(ws(), file, "B", Duration::from_secs(5), &other)
            .await
            .unwrap_err();
        assert!(matches!(err, LockError::Cancelled { .. }));
        assert_eq!(locks.snapshot()[0].owner, "A");
    }
}
