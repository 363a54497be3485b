//! Wakes the chat when the home's `config.json` or `state.json` changes
//! (inotify on Linux), so the status bar follows an edit made anywhere (a
//! fix in an editor, `seekclaw model use` in another shell) at once, and an
//! idle chat still wakes only when something happens: no polling.

use std::path::Path;

/// A watch on the home folder; `None` where it cannot be had (another
/// system, no inotify): the bar then refreshes at a turn's end only.
pub struct ConfigWatch {
    /// A change was seen (coalesced: one wake-up however many writes).
    changes: tokio::sync::mpsc::Receiver<()>,
}

impl ConfigWatch {
    /// Watches `home` (the folder holding `config.json`) from a thread that
    /// sleeps in a blocking read until the kernel reports a change.
    #[cfg(target_os = "linux")]
    pub fn new(home: &Path) -> Option<ConfigWatch> {
        use rustix::fs::inotify::{self, CreateFlags, WatchFlags};
        let fd = inotify::init(CreateFlags::CLOEXEC).ok()?;
        // Atomic writes arrive as a rename, editors' as a close after writing.
        let flags = WatchFlags::CLOSE_WRITE
            | WatchFlags::MOVED_TO
            | WatchFlags::CREATE
            | WatchFlags::DELETE;
        inotify::add_watch(&fd, home, flags).ok()?;
        let (tx, changes) = tokio::sync::mpsc::channel(1);
        std::thread::Builder::new()
            .name("config-watch".into())
            .spawn(move || {
                let mut buf = [std::mem::MaybeUninit::<u8>::uninit(); 4096];
                let mut reader = inotify::Reader::new(&fd, &mut buf);
                // Ends with the chat (the receiver gone) or a read error.
                while let Ok(event) = reader.next() {
                    let config = event
                        .file_name()
                        .is_some_and(|n| matches!(n.to_bytes(), b"config.json" | b"state.json"));
                    if config
                        && let Err(tokio::sync::mpsc::error::TrySendError::Closed(())) =
                            tx.try_send(())
                    {
                        return;
                    }
                }
            })
            .ok()?;
        Some(ConfigWatch { changes })
    }

    /// Watches nothing elsewhere.
    #[cfg(not(target_os = "linux"))]
    pub fn new(_home: &Path) -> Option<ConfigWatch> {
        None
    }

    /// Resolves once one of the config files changed (other files of the
    /// home, such as the database, are read past).
    async fn changed(&mut self) {
        if self.changes.recv().await.is_none() {
            std::future::pending::<()>().await;
        }
    }
}

/// Resolves when the watched config files change; never without a watch.
pub async fn changed(watch: &mut Option<ConfigWatch>) {
    match watch {
        Some(w) => w.changed().await,
        None => std::future::pending().await,
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use std::time::Duration;

    #[tokio::test]
    async fn a_config_write_wakes_it_and_other_files_do_not() {
        let dir = tempfile::tempdir().unwrap();
        let mut watch = ConfigWatch::new(dir.path());
        assert!(watch.is_some());
        std::fs::write(dir.path().join("seekclaw.db-wal"), "x").unwrap();
        let quiet = tokio::time::timeout(Duration::from_millis(200), changed(&mut watch)).await;
        assert!(quiet.is_err(), "the database is not the config");
        // Written beside, then renamed over, as every edit does.
        std::fs::write(dir.path().join(".config.json.tmp"), "{}").unwrap();
        std::fs::rename(
            dir.path().join(".config.json.tmp"),
            dir.path().join("config.json"),
        )
        .unwrap();
        tokio::time::timeout(Duration::from_secs(5), changed(&mut watch))
            .await
            .unwrap();
    }
}
