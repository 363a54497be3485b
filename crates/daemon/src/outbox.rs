//! The outbound queue of one connection, bounded in bytes. Request tasks and
//! broadcasts queue complete lines; the connection task writes them.
//!
//! Each queued chunk holds byte permits of the connection's budget until the
//! connection has written it to the socket, so a client that stops reading stops
//! the senders: a turn then waits in `send_line`, is not polled, reads nothing
//! more from its provider, and the provider's stream waits in kernel buffers.

use std::ops::Deref;
use std::sync::Arc;
use std::time::Duration;

use seekclaw_protocol::Envelope;
use tokio::sync::mpsc::{self, error::TryRecvError};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, TryAcquireError};
use tokio_util::sync::CancellationToken;

/// Bytes a connection may have queued and not yet written before senders wait.
pub const QUEUE_BYTES: usize = 4 << 20;
/// Bytes of broadcasts that may wait for room on one connection (each waits in
/// its own task); past this the client is too far behind and is disconnected.
pub const SPILL_BYTES: usize = 1 << 20;
/// What a chunk costs beyond its bytes (its allocation and queue slot), so a
/// flood of tiny lines is bounded too.
const CHUNK_OVERHEAD: usize = 64;

/// Complete lines in the queue, with the budget they hold until written.
pub struct Queued {
    pub lines: Vec<u8>,
    held: OwnedSemaphorePermit,
}

impl Queued {
    /// Splits into the bytes and their budget (released when dropped).
    pub fn into_parts(self) -> (Vec<u8>, OwnedSemaphorePermit) {
        (self.lines, self.held)
    }
}

impl Deref for Queued {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.lines
    }
}

/// Receiving side of a connection's queue, read by its writer.
pub struct Queue {
    rx: mpsc::UnboundedReceiver<Queued>,
}

impl Queue {
    pub async fn recv(&mut self) -> Option<Queued> {
        self.rx.recv().await
    }

    pub fn try_recv(&mut self) -> Result<Queued, TryRecvError> {
        self.rx.try_recv()
    }
}

/// Sending side of a connection. Cheap to clone; every request task holds one.
#[derive(Clone)]
pub struct Outbox {
    // Unbounded as a channel; the byte budget is what bounds it.
    tx: mpsc::UnboundedSender<Queued>,
    budget: Arc<Semaphore>,
    spill: Arc<Semaphore>,
    /// The budgets' sizes: no chunk may ask for more than all of one.
    caps: (u32, u32),
    stall_timeout: Duration,
    kill: CancellationToken,
}

impl Outbox {
    pub fn new(stall_timeout: Duration, kill: CancellationToken) -> (Outbox, Queue) {
        Self::with_budget(QUEUE_BYTES, stall_timeout, kill)
    }

    fn with_budget(
        bytes: usize,
        stall_timeout: Duration,
        kill: CancellationToken,
    ) -> (Outbox, Queue) {
        let (tx, rx) = mpsc::unbounded_channel();
        let caps = (to_permits(bytes), to_permits(SPILL_BYTES.min(bytes)));
        (
            Outbox {
                tx,
                budget: Arc::new(Semaphore::new(caps.0 as usize)),
                spill: Arc::new(Semaphore::new(caps.1 as usize)),
                caps,
                stall_timeout,
                kill,
            },
            Queue { rx },
        )
    }

    /// Whether the connection's writer is gone (nothing queued is sent).
    pub fn is_closed(&self) -> bool {
        self.tx.is_closed()
    }

    /// Queues one envelope. A client whose queue stays full for the stall timeout is
    /// disconnected (its kill token fires) so it cannot hold anyone else up.
    /// Returns false when the line was not queued.
    pub async fn send(&self, env: &Envelope) -> bool {
        self.send_line(env.to_line()).await
    }

    /// Queues bytes holding one or more complete lines, waiting while the
    /// connection's byte budget is spent. (A killed connection's writer has
    /// dropped its receiver, so this then fails fast.)
    pub async fn send_line(&self, line: Vec<u8>) -> bool {
        if self.tx.is_closed() {
            return false;
        }
        let cost = cost_of(&line, self.caps.0);
        let held = match self.budget.clone().try_acquire_many_owned(cost) {
            Ok(held) => held,
            Err(TryAcquireError::Closed) => return false,
            Err(TryAcquireError::NoPermits) => {
                let room = self.budget.clone().acquire_many_owned(cost);
                tokio::select! {
                    _ = self.kill.cancelled() => return false,
                    got = tokio::time::timeout(self.stall_timeout, room) => match got {
                        Ok(Ok(held)) => held,
                        Ok(Err(_)) => return false,
                        Err(_) => {
                            tracing::warn!(timeout = ?self.stall_timeout, "client stopped reading; disconnecting it");
                            self.kill.cancel();
                            return false;
                        }
                    },
                }
            }
        };
        self.tx.send(Queued { lines: line, held }).is_ok()
    }

    /// Queues `line` without waiting (broadcasts). When the budget is spent the
    /// line waits in a task of its own, and those waiting lines are bounded too
    /// (`SPILL_BYTES`): a client that far behind is disconnected.
    pub fn post_line(&self, line: Vec<u8>) {
        if self.tx.is_closed() {
            return;
        }
        let cost = cost_of(&line, self.caps.0);
        match self.budget.clone().try_acquire_many_owned(cost) {
            Ok(held) => {
                let _ = self.tx.send(Queued { lines: line, held });
                return;
            }
            Err(TryAcquireError::Closed) => return,
            Err(TryAcquireError::NoPermits) => {}
        }
        match self
            .spill
            .clone()
            .try_acquire_many_owned(cost_of(&line, self.caps.1))
        {
            Ok(waiting) => {
                let outbox = self.clone();
                tokio::spawn(async move {
                    outbox.send_line(line).await;
                    drop(waiting);
                });
            }
            Err(_) => {
                tracing::warn!("client too far behind on broadcasts; disconnecting it");
                self.kill.cancel();
            }
        }
    }
}

/// Permits for `line`: its allocation plus the overhead, capped at the whole
/// budget (`cap`) so a line larger than the budget still goes, alone.
fn cost_of(line: &Vec<u8>, cap: u32) -> u32 {
    to_permits(line.capacity().max(line.len()) + CHUNK_OVERHEAD).min(cap)
}

/// Bytes as semaphore permits (which count in `u32` per acquire).
fn to_permits(bytes: usize) -> u32 {
    u32::try_from(bytes.min(Semaphore::MAX_PERMITS)).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(n: usize) -> Vec<u8> {
        let mut l = vec![b'x'; n - 1];
        l.push(b'\n');
        l.shrink_to_fit();
        l
    }

    fn outbox(budget: usize, stall_ms: u64) -> (Outbox, Queue, CancellationToken) {
        let kill = CancellationToken::new();
        let (o, q) = Outbox::with_budget(budget, Duration::from_millis(stall_ms), kill.clone());
        (o, q, kill)
    }

    #[tokio::test]
    async fn the_queue_is_bounded_in_bytes_until_written() {
        // Three 400-byte lines fit in 1,500 bytes (with overhead); a fourth waits.
        let (o, mut q, kill) = outbox(1500, 10_000);
        for _ in 0..3 {
            assert!(o.send_line(line(400)).await);
        }
        let o2 = o.clone();
        let mut fourth = tokio::spawn(async move { o2.send_line(line(400)).await });
        let waits = tokio::time::timeout(Duration::from_millis(50), &mut fourth).await;
        assert!(waits.is_err(), "a fourth line must wait for room");
        // Taken off the queue but not yet written: still counts.
        let taken = q.recv().await.unwrap();
        let waits = tokio::time::timeout(Duration::from_millis(50), &mut fourth).await;
        assert!(waits.is_err(), "a line being written still holds its room");
        drop(taken);
        assert!(fourth.await.unwrap(), "written bytes make room");
        assert!(!kill.is_cancelled());
    }

    #[tokio::test]
    async fn a_line_larger_than_the_budget_goes_alone() {
        let (o, mut q, _kill) = outbox(1000, 10_000);
        assert!(o.send_line(line(10)).await);
        let o2 = o.clone();
        let mut big = tokio::spawn(async move { o2.send_line(line(5000)).await });
        let waits = tokio::time::timeout(Duration::from_millis(50), &mut big).await;
        assert!(waits.is_err(), "the big line waits for an empty queue");
        drop(q.recv().await.unwrap());
        assert!(big.await.unwrap(), "then it is queued whole");
        assert_eq!(q.recv().await.unwrap().len(), 5000);
    }

    #[tokio::test]
    async fn a_client_that_takes_nothing_is_disconnected_after_the_stall_timeout() {
        let (o, _q, kill) = outbox(1000, 50);
        assert!(o.send_line(line(900)).await);
        assert!(!o.send_line(line(900)).await);
        assert!(kill.is_cancelled());
        assert!(!o.send_line(line(900)).await, "a killed outbox fails fast");
    }

    #[tokio::test]
    async fn waiting_broadcasts_are_bounded_too() {
        let (o, mut q, kill) = outbox(SPILL_BYTES * 2, 10_000);
        assert!(o.send_line(line(SPILL_BYTES * 2 - 100)).await);
        // Each of these waits in a task; together they may hold SPILL_BYTES.
        let each = 1000;
        for _ in 0..SPILL_BYTES / (each + CHUNK_OVERHEAD) {
            o.post_line(line(each));
        }
        assert!(!kill.is_cancelled());
        o.post_line(line(each));
        assert!(kill.is_cancelled(), "one more is too far behind");

        // Below that, waiting broadcasts are delivered once there is room.
        let (o, mut q2, kill) = outbox(2000, 10_000);
        assert!(o.send_line(line(1500)).await);
        o.post_line(line(700));
        o.post_line(line(10));
        drop(q2.recv().await.unwrap());
        let mut got = Vec::new();
        for _ in 0..2 {
            let chunk = tokio::time::timeout(Duration::from_secs(5), q2.recv()).await;
            got.push(chunk.unwrap().unwrap().len());
        }
        got.sort_unstable();
        assert_eq!(got, vec![10, 700]);
        assert!(!kill.is_cancelled());
        drop(q.recv().await);
    }
}
