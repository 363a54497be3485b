use tokio::net::windows::named_pipe::{NamedPipeServer, ServerOptions};

use super::DaemonLock;
use crate::error::DaemonError;

/// The named pipe `\\.\pipe\seekclaw`.
pub const PIPE_NAME: &str = r"\\.\pipe\seekclaw";

/// One pipe instance is always waiting for the next client.
pub struct Endpoint {
    next: NamedPipeServer,
    lock: DaemonLock,
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
    Ok(Endpoint { next, lock })
}

impl Endpoint {
    pub async fn accept(&mut self) -> std::io::Result<NamedPipeServer> {
        self.next.connect().await?;
        let fresh = ServerOptions::new().create(PIPE_NAME)?;
        Ok(std::mem::replace(&mut self.next, fresh))
    }

    pub fn display(&self) -> String {
        PIPE_NAME.into()
    }

    pub fn close(&mut self) {
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
