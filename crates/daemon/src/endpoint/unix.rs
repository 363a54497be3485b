use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;

use tokio::net::unix::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::{UnixListener, UnixStream};

use seekclaw_protocol::{Envelope, ErrorCode, MethodError};

use super::DaemonLock;
use crate::error::DaemonError;

/// The Unix socket `daemon.sock` (mode 0600) inside the 0700 home.
pub struct Endpoint {
    /// `None` once shutdown began: nobody is accepted any more.
    listener: Option<UnixListener>,
    path: PathBuf,
    lock: DaemonLock,
}

/// Whether a daemon answers on `home`'s socket (a connect succeeds).
pub fn listener_answers(home: &seekclaw_config::Home) -> bool {
    std::os::unix::net::UnixStream::connect(home.socket_path()).is_ok()
}

pub fn bind_listener(
    home: &seekclaw_config::Home,
    lock: DaemonLock,
) -> Result<Endpoint, DaemonError> {
    let path = home.socket_path();
    let io_err = |source| DaemonError::Endpoint {
        path: path.display().to_string(),
        source,
    };
    if path.exists() {
        // We hold the lock, so a listener here belongs to something else (an older
        // daemon without the lock); a socket nobody answers on is stale.
        if std::os::unix::net::UnixStream::connect(&path).is_ok() {
            return Err(DaemonError::AlreadyRunning {
                pid: "unknown".into(),
                hint: String::new(),
            });
        }
        tracing::info!(socket = %path.display(), "removing stale socket");
        std::fs::remove_file(&path).map_err(io_err)?;
    }
    let listener = UnixListener::bind(&path).map_err(io_err)?;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).map_err(io_err)?;
    Ok(Endpoint {
        listener: Some(listener),
        path,
        lock,
    })
}

impl Endpoint {
    /// The next connection from the daemon's own user (or root). Anyone else
    /// (reaching a socket whose mode or home was loosened) is told why and
    /// closed.
    pub async fn accept(&mut self) -> std::io::Result<UnixStream> {
        let Some(listener) = &self.listener else {
            // Not listening any more: wait for the caller's shutdown branch.
            return std::future::pending().await;
        };
        loop {
            let (stream, _) = listener.accept().await?;
            match peer_allowed(&stream) {
                Ok(()) => return Ok(stream),
                Err(uid) => {
                    tracing::warn!(uid, "refused a connection from another user");
                    // One short line fits the socket buffer: never waits.
                    let _ = stream.try_write(&forbidden_line());
                }
            }
        }
    }

    pub fn display(&self) -> String {
        self.path.display().to_string()
    }

    /// Stops accepting: the listener is closed and the socket file removed at
    /// once, so a client that connects during the drain is refused
    /// (ENOENT/ECONNREFUSED) instead of reaching a dying daemon. The lock is
    /// kept until [`Endpoint::close`].
    pub fn stop_listening(&mut self) {
        if self.listener.take().is_some() {
            let _ = std::fs::remove_file(&self.path);
        }
    }

    /// Stops listening (if not yet) and releases the lock.
    pub fn close(&mut self) {
        self.stop_listening();
        self.lock.release();
    }
}

/// Owned halves: reads and writes never contend on a shared lock.
pub fn split(stream: UnixStream) -> (OwnedReadHalf, OwnedWriteHalf) {
    stream.into_split()
}

/// The error envelope a refused peer reads before the connection closes.
fn forbidden_line() -> Vec<u8> {
    let refusal = MethodError::new(
        ErrorCode::Forbidden,
        "Only the user running the daemon may connect",
    );
    Envelope::error(0, &refusal).to_line()
}

/// `SO_PEERCRED`: the peer runs as the daemon's user or as root; else its uid.
fn peer_allowed(stream: &UnixStream) -> Result<(), u32> {
    let own = rustix::process::geteuid().as_raw();
    match stream.peer_cred() {
        Ok(cred) if cred.uid() == own || cred.uid() == 0 => Ok(()),
        Ok(cred) => Err(cred.uid()),
        // Credentials that cannot be read are not trusted.
        Err(_) => Err(u32::MAX),
    }
}
