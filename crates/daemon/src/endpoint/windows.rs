use tokio::net::windows::named_pipe::{NamedPipeServer, ServerOptions};

use super::DaemonLock;
use crate::error::DaemonError;

/// The named pipe `\\.\pipe\seekclaw`.
pub const PIPE_NAME: &str = r"\\.\pipe\seekclaw";

/// One pipe instance is always waiting for the next client.
pub struct Endpoint {
    /// `None` once shutdown began: nobody is accepted any more.
    next: Option<NamedPipeServer>,
    lock: DaemonLock,
}

/// Whether a daemon answers on the pipe.
pub fn listener_answers(_home: &seekclaw_config::Home) -> bool {
    tokio::net::windows::named_pipe::ClientOptions::new()
        .open(PIPE_NAME)
        .is_ok()
}

pub fn bind_listener(
    _home: &seekclaw_config::Home,
    lock: DaemonLock,
) -> Result<Endpoint, DaemonError> {
    let next = ServerOptions::new()
        .first_pipe_instance(true)
        .create(PIPE_NAME)
        .map_err(|source| DaemonError::Endpoint {
            path: PIPE_NAME.into(),
            source,
        })?;
    Ok(Endpoint {
        next: Some(next),
        lock,
    })
}

impl Endpoint {
    pub async fn accept(&mut self) -> std::io::Result<NamedPipeServer> {
        let Some(next) = self.next.as_mut() else {
            // Not listening any more: wait for the caller's shutdown branch.
            return std::future::pending().await;
        };
        next.connect().await?;
        let fresh = ServerOptions::new().create(PIPE_NAME)?;
        Ok(std::mem::replace(next, fresh))
    }

    pub fn display(&self) -> String {
        PIPE_NAME.into()
    }

    /// Stops accepting: the waiting pipe instance is closed at once.
    pub fn stop_listening(&mut self) {
        self.next = None;
    }

    /// Stops listening (if not yet) and releases the lock.
    pub fn close(&mut self) {
        self.stop_listening();
        self.lock.release();
    }
}

/// Named pipes have no owned split; tokio's split serializes the halves.
pub fn split(
    stream: NamedPipeServer,
) -> (
    tokio::io::ReadHalf<NamedPipeServer>,
    tokio::io::WriteHalf<NamedPipeServer>,
) {
    tokio::io::split(stream)
}
