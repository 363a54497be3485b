//! The output side every stdio front end shares (`serve`, `acp`): lines
//! written in order on their own task, so a slow reader of stdout never
//! stalls the engine's bookkeeping.

use tokio::io::{AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

/// Starts the writer: send whole lines (newline included) on the sender;
/// the task ends once every sender is dropped and the lines are written
/// (await it so the last line is never lost). When the reader is gone the
/// rest is drained, so senders never block and the engine finishes its work.
pub fn spawn_line_writer<W>(mut out: W) -> (mpsc::UnboundedSender<Vec<u8>>, JoinHandle<()>)
where
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (tx, mut rx) = mpsc::unbounded_channel::<Vec<u8>>();
    let writer = tokio::spawn(async move {
        while let Some(line) = rx.recv().await {
            if out.write_all(&line).await.is_err() || out.flush().await.is_err() {
                while rx.recv().await.is_some() {}
                return;
            }
        }
    });
    (tx, writer)
}
