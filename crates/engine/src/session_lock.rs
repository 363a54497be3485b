//! One turn per session across processes: the daemon, `serve` and `seekclaw
//! run` share one store, and two of them running turns on one session would
//! interleave its log. Each turn holds an advisory lock on the session's file
//! under `turns/`; the OS releases it when the process exits or is killed, so
//! a crash never leaves a session locked.

use std::fs::{File, OpenOptions, TryLockError};
use std::io;
use std::path::PathBuf;

use seekclaw_config::Home;
use sha2::{Digest, Sha256};

/// A held session lock; released when dropped.
#[derive(Debug)]
pub struct SessionLock {
    _file: File,
}

/// The lock file of `session_id` (ids compare case-insensitively, as the
/// turn registry does; hashed, since an imported id may hold any character).
fn lock_path(home: &Home, session_id: &str) -> PathBuf {
    let digest = Sha256::digest(session_id.to_lowercase().as_bytes());
    let name: String = digest[..16].iter().map(|b| format!("{b:02x}")).collect();
    home.turn_locks_dir().join(format!("{name}.lock"))
}

/// Takes the session's lock without waiting; `None` when another process
/// (or another handle in this one) holds it.
pub fn try_hold(home: &Home, session_id: &str) -> io::Result<Option<SessionLock>> {
    let path = lock_path(home, session_id);
    let file = match open(&path) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            // A home made before `turns/` existed.
            home.ensure().map_err(io::Error::other)?;
            open(&path)?
        }
        other => other?,
    };
    match file.try_lock() {
        Ok(()) => Ok(Some(SessionLock { _file: file })),
        Err(TryLockError::WouldBlock) => Ok(None),
        Err(TryLockError::Error(e)) => Err(e),
    }
}

fn open(path: &std::path::Path) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.read(true).write(true).create(true).truncate(false);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    options.open(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_holder_at_a_time_and_dropping_releases() {
        let dir = tempfile::tempdir().unwrap();
        let home = Home::at(dir.path());
        home.ensure().unwrap();
        let held = try_hold(&home, "Abc").unwrap().expect("free");
        // Another open file description is another holder, as another process is.
        assert!(
            try_hold(&home, "abc").unwrap().is_none(),
            "same session, any case"
        );
        assert!(try_hold(&home, "other").unwrap().is_some());
        drop(held);
        assert!(try_hold(&home, "abc").unwrap().is_some());
    }

    #[test]
    fn a_home_without_the_directory_gets_it() {
        let dir = tempfile::tempdir().unwrap();
        let home = Home::at(dir.path().join("h"));
        assert!(try_hold(&home, "s").unwrap().is_some());
    }
}
