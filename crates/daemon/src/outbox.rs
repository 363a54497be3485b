//! The bounded outbound queue of one connection. Request tasks and broadcasts
//! queue complete lines; the connection task writes them.

use std::time::Duration;

use seekclaw_protocol::Envelope;
use tokio::sync::mpsc::{self, error::TrySendError};
use tokio_util::sync::CancellationToken;

/// Lines a connection may have queued before senders start to wait.
pub const QUEUE_LINES: usize = 1024;

/// Sending side of a connection. Cheap to clone; every request task holds one.
#[derive(Clone)]
pub struct Outbox {
    tx: mpsc::Sender<Vec<u8>>,
    stall_timeout: Duration,
    kill: CancellationToken,
}

impl Outbox {
    pub fn new(
        stall_timeout: Duration,
        kill: CancellationToken,
    ) -> (Outbox, mpsc::Receiver<Vec<u8>>) {
        let (tx, rx) = mpsc::channel(QUEUE_LINES);
        (
            Outbox {
                tx,
                stall_timeout,
                kill,
            },
            rx,
        )
    }

    /// Queues one envelope. A client whose queue stays full for the stall timeout is
    /// disconnected (its kill token fires) so it cannot hold anyone else up.
    /// Returns false when the line was not queued.
    pub async fn send(&self, env: &Envelope) -> bool {
        self.send_line(env.to_line()).await
    }

    /// Queues bytes holding one or more complete lines. (A killed connection's
    /// writer has dropped its receiver, so this then fails fast as `Closed`.)
    pub async fn send_line(&self, line: Vec<u8>) -> bool {
        let line = match self.tx.try_send(line) {
            Ok(()) => return true,
            Err(TrySendError::Closed(_)) => return false,
            Err(TrySendError::Full(line)) => line,
        };
        tokio::select! {
            _ = self.kill.cancelled() => false,
            sent = tokio::time::timeout(self.stall_timeout, self.tx.send(line)) => match sent {
                Ok(Ok(())) => true,
                Ok(Err(_)) => false,
                Err(_) => {
                    tracing::warn!(timeout = ?self.stall_timeout, "client stopped reading; disconnecting it");
                    self.kill.cancel();
                    false
                }
            },
        }
    }
}
