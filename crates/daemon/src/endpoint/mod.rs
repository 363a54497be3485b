//! The daemon's one persistent listener, guarded by a lock file so a second daemon
//! on the same home exits with a clear message instead of stealing the endpoint.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use crate::error::DaemonError;

#[cfg(unix)]
mod unix;
#[cfg(unix)]
pub use unix::{Endpoint, bind_listener, split};

#[cfg(windows)]
mod windows;
#[cfg(windows)]
pub use windows::{Endpoint, bind_listener, split};

/// An exclusive lock on `daemon.lock` holding our pid, kept for the daemon's life.
pub struct DaemonLock {
    file: Option<File>,
    path: PathBuf,
}

impl DaemonLock {
    pub fn acquire(path: &Path) -> Result<DaemonLock, DaemonError> {
        let io_err = |source| DaemonError::Endpoint {
            path: path.display().to_string(),
            source,
        };
        let mut options = OpenOptions::new();
        options.read(true).write(true).create(true).truncate(false);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(0o600);
        }
        let mut file = options.open(path).map_err(io_err)?;
        match file.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                let mut pid = String::new();
                let _ = file.read_to_string(&mut pid);
                let pid = pid.trim();
                return Err(DaemonError::AlreadyRunning {
                    pid: if pid.is_empty() {
                        "unknown".into()
                    } else {
                        pid.into()
                    },
                });
            }
            Err(std::fs::TryLockError::Error(e)) => return Err(io_err(e)),
        }
        file.set_len(0).map_err(io_err)?;
        file.seek(SeekFrom::Start(0)).map_err(io_err)?;
        writeln!(file, "{}", std::process::id()).map_err(io_err)?;
        file.flush().map_err(io_err)?;
        Ok(DaemonLock {
            file: Some(file),
            path: path.to_path_buf(),
        })
    }

    /// Removes the pid file, then drops the lock.
    pub fn release(&mut self) {
        if let Some(file) = self.file.take() {
            let _ = std::fs::remove_file(&self.path);
            drop(file);
        }
    }
}

impl Drop for DaemonLock {
    fn drop(&mut self) {
        self.release();
    }
}
