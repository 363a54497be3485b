//! The sandbox's private temp dir (`seekclaw-sandbox-<hash of the home>`,
//! used when the daemon's home lies under the system temp dir): made on a
//! turn's first sandboxed command and removed when its last user is gone, so
//! no turn leaves one behind.
//!
//! One dir serves every turn of a home, in any process (daemon, `serve`,
//! `run`): each user holds a shared `flock` on it, and whoever lets go last
//! (an exclusive lock then succeeds) removes it. A dir removed between our
//! open and our lock is detected by its inode and made again.

use std::fs::File;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use rustix::fs::{FlockOperation, flock};

/// A shared hold on the private temp dir; the last one dropped removes it.
#[derive(Debug)]
pub(crate) struct TempHold {
    dir: File,
    path: PathBuf,
}

impl TempHold {
    /// Makes `path` (0700) if needed and holds it.
    pub(crate) fn acquire(path: &Path) -> std::io::Result<TempHold> {
        loop {
            super::ensure_private_dir(path)?;
            let dir = File::open(path)?;
            // Waits only while a last user removes it (a short exclusive lock).
            flock(&dir, FlockOperation::LockShared)?;
            let held = dir.metadata()?;
            match std::fs::metadata(path) {
                Ok(now) if now.dev() == held.dev() && now.ino() == held.ino() => {
                    return Ok(TempHold {
                        dir,
                        path: path.to_path_buf(),
                    });
                }
                // Removed (and perhaps made again) while we waited: hold the new one.
                Ok(_) => continue,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                Err(e) => return Err(e),
            }
        }
    }
}

impl Drop for TempHold {
    fn drop(&mut self) {
        // Exclusive without waiting: granted only when no one else holds it.
        // What cannot be removed is retried by the next last user.
        if flock(&self.dir, FlockOperation::NonBlockingLockExclusive).is_ok() {
            let _ = std::fs::remove_dir_all(&self.path);
        }
        // The lock goes with the file.
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_hold_removes_the_dir_and_a_new_one_makes_it_again() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("seekclaw-sandbox-test");
        let first = TempHold::acquire(&dir).unwrap();
        let second = TempHold::acquire(&dir).unwrap();
        std::fs::write(dir.join("f"), "x").unwrap();
        drop(first);
        assert!(dir.join("f").is_file(), "another user still holds it");
        drop(second);
        assert!(!dir.exists(), "the last user removes it");
        let again = TempHold::acquire(&dir).unwrap();
        assert!(dir.is_dir());
        let mode = std::os::unix::fs::PermissionsExt::mode(&dir.metadata().unwrap().permissions());
        assert_eq!(mode & 0o777, 0o700);
        drop(again);
        assert!(!dir.exists());
    }
}
