//! The streamed response body: a producer task paces chunks into a one-slot
//! channel and injects the faults; the body side hands them to hyper.

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use hyper::body::{Body, Frame};
use tokio::sync::mpsc;
use tokio::time::{Instant, sleep, sleep_until};

use super::Shared;
use super::reply::Reply;

type Item = Result<Bytes, io::Error>;

/// Pause between the parts of a split character, so they leave as separate writes.
const SPLIT_GAP: Duration = Duration::from_millis(3);
/// Lets hyper flush the last chunks before the abort.
const RESET_GRACE: Duration = Duration::from_millis(10);

/// A body fed by a channel. A one-slot channel makes hyper see `Pending` between
/// chunks, so each chunk is flushed on its own (real chunk boundaries).
pub(crate) struct ChannelBody {
    rx: mpsc::Receiver<Item>,
    /// Counts the bytes hyper takes ([`super::ProviderServer::body_bytes_sent`]).
    shared: Arc<Shared>,
}

impl ChannelBody {
    pub(crate) fn new(rx: mpsc::Receiver<Item>, shared: Arc<Shared>) -> ChannelBody {
        ChannelBody { rx, shared }
    }
}

impl Body for ChannelBody {
    type Data = Bytes;
    type Error = io::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, io::Error>>> {
        let item = std::task::ready!(self.rx.poll_recv(cx));
        if let Some(Ok(bytes)) = &item {
            let n = u64::try_from(bytes.len()).unwrap_or(u64::MAX);
            self.shared.body_bytes.fetch_add(n, Ordering::Relaxed);
        }
        Poll::Ready(item.map(|r| r.map(Frame::data)))
    }
}

/// The chunks of one body, made as they are sent (a flood repeats one shared
/// chunk instead of holding every copy).
pub(crate) struct Chunks {
    iter: Box<dyn Iterator<Item = Bytes> + Send>,
    len: usize,
}

impl Chunks {
    /// `events` with `times` copies of `unit` inserted before `events[at]`.
    pub(crate) fn flooded(events: Vec<Bytes>, at: usize, unit: Bytes, times: usize) -> Chunks {
        let at = at.min(events.len());
        let len = events.len() + times;
        let mut events = events;
        let tail = events.split_off(at);
        let iter = events
            .into_iter()
            .chain(std::iter::repeat_n(unit, times))
            .chain(tail);
        Chunks {
            iter: Box::new(iter),
            len,
        }
    }
}

impl From<Vec<Bytes>> for Chunks {
    fn from(chunks: Vec<Bytes>) -> Chunks {
        Chunks {
            len: chunks.len(),
            iter: Box::new(chunks.into_iter()),
        }
    }
}

/// Pacing and faults of one streamed body.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Plan {
    chunk_delay: Duration,
    stall_after: Option<usize>,
    reset_after: Option<usize>,
    keepalive: Option<Duration>,
    split_utf8: bool,
}

impl Plan {
    pub(crate) fn of(reply: &Reply) -> Plan {
        Plan {
            chunk_delay: reply.chunk_delay,
            stall_after: reply.stall_after,
            reset_after: reply.reset_after,
            keepalive: reply.keepalive,
            split_utf8: reply.split_utf8,
        }
    }

    /// Nothing to pace or break: the body can go out in one piece.
    pub(crate) fn is_plain(&self) -> bool {
        self.chunk_delay.is_zero()
            && self.stall_after.is_none()
            && self.reset_after.is_none()
            && !self.split_utf8
    }
}

/// Sends `chunks` with the plan's pacing and faults. Ends early when the client
/// goes away (the receiver is dropped). A fault count beyond the chunk count
/// applies after the last chunk.
pub(crate) async fn produce(tx: mpsc::Sender<Item>, chunks: Chunks, plan: Plan) {
    let total = chunks.len;
    let reset_at = plan.reset_after.map(|n| n.min(total));
    let stall_at = plan.stall_after.map(|n| n.min(total));
    let mut chunks = chunks.iter;
    for i in 0..=total {
        if reset_at == Some(i) {
            sleep(RESET_GRACE).await;
            let err = io::Error::new(io::ErrorKind::ConnectionAborted, "testkit: reset_after");
            let _ = tx.send(Err(err)).await;
            return;
        }
        if stall_at == Some(i) {
            wait(&tx, None, plan.keepalive).await;
            return;
        }
        let Some(chunk) = chunks.next() else {
            return;
        };
        if !plan.chunk_delay.is_zero() && !wait(&tx, Some(plan.chunk_delay), plan.keepalive).await {
            return;
        }
        let parts = if plan.split_utf8 {
            split_inside_chars(&chunk)
        } else {
            vec![chunk]
        };
        for (k, part) in parts.into_iter().enumerate() {
            if k > 0 {
                sleep(SPLIT_GAP).await;
            }
            if tx.send(Ok(part)).await.is_err() {
                return;
            }
        }
    }
}

/// Waits `dur` (forever if `None`), sending `: ping` comments every `keepalive`.
/// Returns false once the client is gone.
async fn wait(tx: &mpsc::Sender<Item>, dur: Option<Duration>, keepalive: Option<Duration>) -> bool {
    let deadline = dur.map(|d| Instant::now() + d);
    loop {
        let next_ping = keepalive.map(|k| Instant::now() + k);
        let wake = match (deadline, next_ping) {
            (Some(d), Some(p)) => Some(d.min(p)),
            (d, p) => d.or(p),
        };
        match wake {
            Some(t) => {
                tokio::select! {
                    _ = sleep_until(t) => {}
                    _ = tx.closed() => return false,
                }
            }
            None => {
                tx.closed().await;
                return false;
            }
        }
        if deadline.is_some_and(|d| Instant::now() >= d) {
            return true;
        }
        if tx
            .send(Ok(Bytes::from_static(b": ping\n\n")))
            .await
            .is_err()
        {
            return false;
        }
    }
}

/// Cuts `chunk` after the first byte of every multi-byte UTF-8 sequence.
pub(crate) fn split_inside_chars(chunk: &Bytes) -> Vec<Bytes> {
    let mut parts = Vec::new();
    let mut start = 0;
    for (i, b) in chunk.iter().enumerate() {
        // 0b11xxxxxx starts a multi-byte sequence.
        if *b >= 0xC0 && i + 1 < chunk.len() {
            parts.push(chunk.slice(start..i + 1));
            start = i + 1;
        }
    }
    if start < chunk.len() || parts.is_empty() {
        parts.push(chunk.slice(start..));
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_cuts_inside_each_multibyte_char() {
        let parts = split_inside_chars(&Bytes::from("aé€b"));
        assert_eq!(parts.len(), 3);
        for p in &parts[..2] {
            assert!(
                std::str::from_utf8(p).is_err(),
                "{p:?} should be cut mid-char"
            );
        }
        let joined: Vec<u8> = parts.iter().flat_map(|p| p.iter().copied()).collect();
        assert_eq!(joined, "aé€b".as_bytes());
        assert_eq!(split_inside_chars(&Bytes::from("ascii")).len(), 1);
    }

    #[tokio::test]
    async fn produce_sends_chunks_then_ends() {
        let (tx, mut rx) = mpsc::channel(1);
        let plan = Plan::of(&Reply::new());
        tokio::spawn(produce(
            tx,
            vec![Bytes::from("a"), Bytes::from("b")].into(),
            plan,
        ));
        assert_eq!(rx.recv().await.unwrap().unwrap(), "a");
        assert_eq!(rx.recv().await.unwrap().unwrap(), "b");
        assert!(rx.recv().await.is_none());
    }

    #[tokio::test]
    async fn produce_resets_and_stalls_with_pings() {
        let (tx, mut rx) = mpsc::channel(1);
        let plan = Plan::of(&Reply::new().reset_after(1));
        tokio::spawn(produce(
            tx,
            vec![Bytes::from("a"), Bytes::from("b")].into(),
            plan,
        ));
        assert_eq!(rx.recv().await.unwrap().unwrap(), "a");
        assert!(rx.recv().await.unwrap().is_err());

        let (tx, mut rx) = mpsc::channel(1);
        let reply = Reply::new()
            .stall_after(1)
            .keepalive_comments(Duration::from_millis(5));
        tokio::spawn(produce(
            tx,
            vec![Bytes::from("a"), Bytes::from("b")].into(),
            Plan::of(&reply),
        ));
        assert_eq!(rx.recv().await.unwrap().unwrap(), "a");
        for _ in 0..3 {
            assert_eq!(rx.recv().await.unwrap().unwrap(), ": ping\n\n");
        }
    }
}
