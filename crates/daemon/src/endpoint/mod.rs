//! The daemon's one persistent listener, guarded by a lock file so a second daemon
//! on the same home exits with a clear message instead of stealing the endpoint.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::error::DaemonError;

/// How long a new daemon waits for one that is shutting down (it no longer
/// listens but still holds the lock while it drains): longer than the drain's
/// own bounds (connections 5 s + 1 s, scheduled runs 5 s, MCP, checkpoint).
const DRAIN_WAIT: Duration = Duration::from_secs(20);
/// How often the lock is tried again meanwhile (start-up only).
const DRAIN_POLL: Duration = Duration::from_millis(50);

#[cfg(unix)]
mod unix;
#[cfg(unix)]
pub use unix::{Endpoint, bind_listener, listener_answers, split};

#[cfg(windows)]
mod windows;
#[cfg(windows)]
pub use windows::{Endpoint, bind_listener, listener_answers, split};

/// An exclusive lock on `daemon.lock` holding our pid, kept for the daemon's life.
pub struct DaemonLock {
    file: Option<File>,
    path: PathBuf,
}

impl DaemonLock {
    /// Takes `home`'s lock. When another daemon holds it but no longer
    /// answers on the endpoint, it is shutting down (or still starting):
    /// waits for it to let go, so a client that saw the old daemon say `bye`
    /// and starts a new one at once gets one. A daemon that answers, or one
    /// that holds the lock past [`DRAIN_WAIT`], makes this fail.
    pub async fn acquire_after_drain(
        home: &seekclaw_config::Home,
    ) -> Result<DaemonLock, DaemonError> {
        let path = home.lock_path();
        let deadline = Instant::now() + DRAIN_WAIT;
        let mut told = false;
        loop {
            match DaemonLock::acquire(&path) {
                Err(DaemonError::AlreadyRunning { pid, .. })
                    if Instant::now() < deadline && !listener_answers(home) =>
                {
                    if !told {
                        tracing::info!(pid = %pid, "waiting for the daemon that is shutting down");
                        told = true;
                    }
                    tokio::time::sleep(DRAIN_POLL).await;
                }
                other => return other,
            }
        }
    }

    /// Takes the lock now or fails.
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
                    hint: on_demand_hint(pid),
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

/// For a daemon `seekclaw chat` started on demand (its command line says
/// so): that it goes by itself, so a user starting their own knows to wait.
fn on_demand_hint(pid: &str) -> String {
    let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
    let on_demand = cmdline.split(|b| *b == 0).any(|arg| arg == b"--on-demand");
    if on_demand {
        format!(
            "; it was started on demand (by `seekclaw chat`) and exits by itself once no \
             client has been connected for its idle delay; `kill {pid}` stops it now"
        )
    } else {
        String::new()
    }
}

impl Drop for DaemonLock {
    fn drop(&mut self) {
        self.release();
    }
}
