//! The bounded outbound queue of one connection and its single writer task.

use std::time::Duration;

use seekclaw_protocol::Envelope;
use tokio::io::{AsyncWrite, AsyncWriteExt, BufWriter};
use tokio::sync::mpsc::{self, error::TrySendError};
use tokio_util::sync::CancellationToken;

/// Lines a connection may have queued before senders start to wait.
pub const QUEUE_LINES: usize = 1024;
/// Bytes batched into one write before flushing.
const BATCH_BYTES: usize = 256 * 1024;

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

    pub async fn send_line(&self, line: Vec<u8>) -> bool {
        if self.kill.is_cancelled() {
            return false;
        }
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

/// Writes queued lines until every sender is gone or the connection is killed.
/// Batches whatever is already queued into one flush, which keeps many small
/// envelopes (pings, deltas) cheap.
pub async fn run_writer<W: AsyncWrite + Unpin>(
    writer: W,
    mut rx: mpsc::Receiver<Vec<u8>>,
    kill: CancellationToken,
) {
    let mut out = BufWriter::with_capacity(64 * 1024, writer);
    loop {
        let first = tokio::select! {
            biased;
            _ = kill.cancelled() => break,
            line = rx.recv() => line,
        };
        let Some(first) = first else { break };
        let write = async {
            out.write_all(&first).await?;
            let mut batched = first.len();
            while batched < BATCH_BYTES {
                let Ok(more) = rx.try_recv() else { break };
                batched += more.len();
                out.write_all(&more).await?;
            }
            out.flush().await
        };
        let ok = tokio::select! {
            biased;
            _ = kill.cancelled() => false,
            res = write => res.is_ok(),
        };
        if !ok {
            kill.cancel();
            break;
        }
    }
    if !kill.is_cancelled() {
        let _ = out.shutdown().await;
    }
}
