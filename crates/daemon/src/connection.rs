//! One client connection: a reader that parses lines and starts requests, and one
//! writer fed by a bounded queue. Requests run concurrently; each gets exactly one
//! terminal envelope.

use std::sync::Arc;
use std::sync::Mutex;
use std::time::Duration;

use futures::FutureExt;
use seekclaw_protocol::{
    Envelope, ErrorCode, MAX_LINE_BYTES, Method, MethodError, Request, Serving, parse_request,
};
use tokio::io::{AsyncRead, AsyncWrite, BufReader};
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::daemon::Daemon;
use crate::dispatch;
use crate::framing::{Frame, LineReader};
use crate::outbox::{Outbox, run_writer};

/// Requests of one connection in flight at once; beyond this the reader stops reading
/// (back-pressure instead of unbounded task growth).
const MAX_IN_FLIGHT: usize = 512;
/// How long a closing connection waits for its running requests before giving up.
const DRAIN_GRACE: Duration = Duration::from_secs(5);

/// The session a connection last created or resumed; used by chats without `sessionId`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LegacySession {
    pub scope: String,
    pub id: String,
}

/// Per-connection state shared by its request tasks.
pub struct Connection {
    pub outbox: Outbox,
    pub legacy: Mutex<Option<LegacySession>>,
    /// Fires when the connection closes; running turns watch it.
    pub closing: CancellationToken,
}

impl Connection {
    pub fn set_legacy(&self, session: Option<LegacySession>) {
        if let Ok(mut slot) = self.legacy.lock() {
            *slot = session;
        }
    }

    /// Forgets the legacy session if it is `id` (archive, delete).
    pub fn clear_legacy_if(&self, id: &str) {
        if let Ok(mut slot) = self.legacy.lock()
            && slot.as_ref().is_some_and(|s| s.id == id)
        {
            *slot = None;
        }
    }
}

/// Serves one accepted stream until the peer leaves, the daemon shuts down, or the
/// client is disconnected for not reading.
pub async fn serve_connection<S>(daemon: Arc<Daemon>, id: u64, stream: S)
where
    S: AsyncRead + AsyncWrite + Send + 'static,
{
    let (read_half, write_half) = tokio::io::split(stream);
    let kill = daemon.kill.child_token();
    let closing = daemon.shutdown.child_token();
    let (outbox, rx) = Outbox::new(daemon.slow_client_timeout, kill.clone());
    let writer = tokio::spawn(run_writer(write_half, rx, kill.clone()));
    let conn = Arc::new(Connection {
        outbox: outbox.clone(),
        legacy: Mutex::new(None),
        closing: closing.clone(),
    });
    daemon.connections.insert(id, outbox);

    let requests = TaskTracker::new();
    let permits = Arc::new(Semaphore::new(MAX_IN_FLIGHT));
    let mut reader = LineReader::new(
        BufReader::with_capacity(64 * 1024, read_half),
        MAX_LINE_BYTES,
    );
    loop {
        let frame = tokio::select! {
            _ = closing.cancelled() => break,
            _ = kill.cancelled() => break,
            frame = reader.next() => frame,
        };
        match frame {
            Err(_) | Ok(Frame::Eof) => break,
            Ok(Frame::TooLarge(len)) => {
                let err = MethodError::new(
                    ErrorCode::TooLarge,
                    format!("Request line too large: {len} bytes (limit {MAX_LINE_BYTES} bytes)"),
                );
                conn.outbox.send(&Envelope::error(0, &err)).await;
            }
            Ok(Frame::Line(line)) => {
                let Ok(permit) = permits.clone().acquire_owned().await else {
                    break;
                };
                match parse_request(&line) {
                    Err(bad) => {
                        conn.outbox.send(&Envelope::error(bad.id, &bad.error)).await;
                    }
                    Ok(req) => start_request(&daemon, &conn, &requests, req, permit).await,
                }
            }
        }
    }

    // The connection is closing: its turns stop, running requests finish and flush.
    closing.cancel();
    requests.close();
    if tokio::time::timeout(DRAIN_GRACE, requests.wait())
        .await
        .is_err()
    {
        kill.cancel();
    }
    daemon.connections.remove(id);
    drop(conn);
    drop(reader);
    let _ = writer.await;
    tracing::debug!(conn = id, "connection closed");
}

async fn start_request(
    daemon: &Arc<Daemon>,
    conn: &Arc<Connection>,
    requests: &TaskTracker,
    req: Request,
    permit: tokio::sync::OwnedSemaphorePermit,
) {
    let Some(method) = Method::from_name(&req.method) else {
        let err = MethodError::new(
            ErrorCode::UnknownMethod,
            format!("Unknown method: {}", req.method),
        );
        conn.outbox.send(&Envelope::error(req.id, &err)).await;
        return;
    };
    if method.spec().serving == Serving::Inline {
        let env = dispatch::inline(method, &req);
        conn.outbox.send(&env).await;
        return;
    }
    let daemon = daemon.clone();
    let conn = conn.clone();
    requests.spawn(async move {
        let id = req.id;
        let run = dispatch::handle(&daemon, &conn, method, req);
        let env = match std::panic::AssertUnwindSafe(run).catch_unwind().await {
            Ok(env) => env,
            Err(_) => {
                tracing::error!(method = method.spec().name, "request handler panicked");
                Envelope::error(
                    id,
                    &MethodError::internal("Internal error while handling the request"),
                )
            }
        };
        conn.outbox.send(&env).await;
        drop(permit);
    });
}
