//! A scripted provider server: a real HTTP server on 127.0.0.1 that speaks the
//! OpenAI `chat.completions` and Anthropic `messages` wire formats (SSE and JSON),
//! answers with queued [`Reply`] scripts, injects faults and records every request.
//!
//! It runs on its own thread with its own tokio runtime, so blocking tests and
//! async tests can both use it. HTTP/1.1 (with keep-alive) and HTTP/2 with prior
//! knowledge (h2c) are served on the same port.
//!
//! Routes: `POST /chat/completions`, `POST /v1/chat/completions` (OpenAI),
//! `POST /v1/messages` (Anthropic), `GET /models`, `GET /v1/models`; anything else
//! is a JSON 404 (still recorded).

mod anthropic;
mod body;
mod handler;
mod openai;
mod reply;
#[cfg(test)]
mod tests;

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use hyper::service::service_fn;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto;
use serde_json::Value;
use tokio::net::TcpListener;
use tokio::sync::oneshot;

pub use reply::{BodyMode, Reply, Step, Wire};

/// One request the server received.
#[derive(Debug, Clone, PartialEq)]
pub struct Recorded {
    /// Arrival order, from 0.
    pub index: usize,
    /// The TCP connection it came on, from 1 (see [`ProviderServer::connections`]).
    pub connection: usize,
    pub method: String,
    /// The path without the query.
    pub path: String,
    pub query: Option<String>,
    /// `HTTP/1.1` or `HTTP/2.0`.
    pub version: String,
    /// Header names are lower-case; repeated headers appear repeatedly.
    pub headers: Vec<(String, String)>,
    /// The body parsed as JSON, `Null` if it is not JSON.
    pub body: Value,
    /// The body as text (lossy UTF-8).
    pub raw_body: String,
}

impl Recorded {
    /// The first value of header `name` (any case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// Whether the request asked for a stream (`"stream": true`).
    pub fn is_stream(&self) -> bool {
        self.body["stream"] == Value::Bool(true)
    }
}

/// State shared by the server thread and the test's handle.
pub(crate) struct Shared {
    state: Mutex<State>,
    recorded: Condvar,
    connections: AtomicUsize,
    open: AtomicUsize,
    /// Bytes of streamed bodies taken by hyper.
    body_bytes: AtomicU64,
}

struct State {
    queue: VecDeque<Reply>,
    default: Reply,
    requests: Vec<Recorded>,
    models: Vec<String>,
    completions: usize,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        // A panicking test thread must not take the server down with it.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub(crate) fn record(&self, mut req: Recorded) {
        let mut st = self.lock();
        req.index = st.requests.len();
        st.requests.push(req);
        drop(st);
        self.recorded.notify_all();
    }

    /// The next reply (queue first, else the default) and its serial number from 1.
    pub(crate) fn next_reply(&self, body: &str) -> (Reply, usize) {
        let mut st = self.lock();
        st.completions += 1;
        // A reply that names this request wins; then the first that names none.
        let at = st
            .queue
            .iter()
            .position(|r| r.matching.as_deref().is_some_and(|m| body.contains(m)))
            .or_else(|| st.queue.iter().position(|r| r.matching.is_none()));
        let reply = match at.and_then(|i| st.queue.remove(i)) {
            Some(r) => r,
            None => st.default.clone(),
        };
        (reply, st.completions)
    }

    /// Waits until `n` requests arrived in all (at most `limit`).
    pub(crate) async fn until_requests(&self, n: usize, limit: Duration) {
        let end = Instant::now() + limit;
        while self.lock().requests.len() < n && Instant::now() < end {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }

    pub(crate) fn models(&self) -> Vec<String> {
        self.lock().models.clone()
    }
}

/// Counts a connection as open while its task lives.
struct OpenGuard(Arc<Shared>);

impl Drop for OpenGuard {
    fn drop(&mut self) {
        self.0.open.fetch_sub(1, Ordering::SeqCst);
    }
}

/// The running server. Dropping it stops the server and closes every connection,
/// stalled ones included.
pub struct ProviderServer {
    addr: SocketAddr,
    shared: Arc<Shared>,
    shutdown: Option<oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl ProviderServer {
    /// Binds 127.0.0.1 on an ephemeral port and starts serving. The default
    /// reply is `Reply::plain("ok")`; `/models` lists `testkit-model`.
    pub fn start() -> Result<ProviderServer> {
        let std_listener =
            std::net::TcpListener::bind("127.0.0.1:0").context("bind 127.0.0.1:0")?;
        std_listener.set_nonblocking(true)?;
        let addr = std_listener.local_addr()?;
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .context("build the provider server runtime")?;
        let listener = {
            let _enter = rt.enter();
            TcpListener::from_std(std_listener)?
        };
        let shared = Arc::new(Shared {
            state: Mutex::new(State {
                queue: VecDeque::new(),
                default: Reply::plain("ok"),
                requests: Vec::new(),
                models: vec!["testkit-model".to_string()],
                completions: 0,
            }),
            recorded: Condvar::new(),
            connections: AtomicUsize::new(0),
            open: AtomicUsize::new(0),
            body_bytes: AtomicU64::new(0),
        });
        let (tx, rx) = oneshot::channel();
        let thread_shared = shared.clone();
        let thread = std::thread::Builder::new()
            .name(format!("provider-server-{}", addr.port()))
            .spawn(move || {
                rt.block_on(accept_loop(listener, thread_shared, rx));
                // Dropping the runtime cancels every connection task.
                drop(rt);
            })
            .context("spawn the provider server thread")?;
        Ok(ProviderServer {
            addr,
            shared,
            shutdown: Some(tx),
            thread: Some(thread),
        })
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://127.0.0.1:PORT`, without a trailing slash.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// `base_url()` followed by `path` (which starts with `/`).
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base_url())
    }

    /// Queues a reply; each completion request takes the oldest one.
    pub fn enqueue(&self, reply: Reply) {
        self.shared.lock().queue.push_back(reply);
    }

    /// The reply used when the queue is empty.
    pub fn set_default(&self, reply: Reply) {
        self.shared.lock().default = reply;
    }

    /// The model ids `GET /models` returns.
    pub fn set_models<I, S>(&self, ids: I)
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.shared.lock().models = ids.into_iter().map(Into::into).collect();
    }

    /// Queued replies not consumed yet.
    pub fn pending(&self) -> usize {
        self.shared.lock().queue.len()
    }

    /// Every request received so far, in arrival order.
    pub fn requests(&self) -> Vec<Recorded> {
        self.shared.lock().requests.clone()
    }

    /// Forgets the requests recorded so far (long soaks would otherwise keep
    /// every body); later requests are indexed from 0 again.
    pub fn clear_requests(&self) {
        self.shared.lock().requests.clear();
    }

    /// Blocks until at least `n` requests were received; returns them all.
    /// (Blocking: from async code, call it in `spawn_blocking`.)
    pub fn wait_requests(&self, n: usize, timeout: Duration) -> Result<Vec<Recorded>> {
        let deadline = Instant::now() + timeout;
        let mut st = self.shared.lock();
        while st.requests.len() < n {
            let now = Instant::now();
            if now >= deadline {
                bail!(
                    "provider server got {} of {n} requests within {timeout:?}",
                    st.requests.len()
                );
            }
            st = self
                .shared
                .recorded
                .wait_timeout(st, deadline - now)
                .map(|(g, _)| g)
                .unwrap_or_else(|e| e.into_inner().0);
        }
        Ok(st.requests.clone())
    }

    /// TCP connections accepted so far.
    pub fn connections(&self) -> usize {
        self.shared.connections.load(Ordering::SeqCst)
    }

    /// Bytes of streamed (chunked) response bodies the HTTP layer has taken so
    /// far: what the client read, plus what waits in kernel buffers and hyper's
    /// write buffer (a few hundred KB). A client that stops reading stops it.
    pub fn body_bytes_sent(&self) -> u64 {
        self.shared.body_bytes.load(Ordering::Relaxed)
    }

    /// TCP connections currently open.
    pub fn open_connections(&self) -> usize {
        self.shared.open.load(Ordering::SeqCst)
    }
}

impl Drop for ProviderServer {
    fn drop(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl std::fmt::Debug for ProviderServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProviderServer")
            .field("addr", &self.addr)
            .finish_non_exhaustive()
    }
}

async fn accept_loop(
    listener: TcpListener,
    shared: Arc<Shared>,
    mut shutdown: oneshot::Receiver<()>,
) {
    let mut builder = auto::Builder::new(TokioExecutor::new());
    // No header-read timeout: idle pooled connections must stay usable.
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(None);
    // Room for the "200 concurrent streams over few connections" benchmark.
    builder.http2().max_concurrent_streams(1024);
    let builder = Arc::new(builder);
    loop {
        let stream = tokio::select! {
            _ = &mut shutdown => return,
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(_) => {
                    // E.g. out of file descriptors: back off instead of spinning.
                    tokio::time::sleep(Duration::from_millis(10)).await;
                    continue;
                }
            },
        };
        // Chunks must leave when written, not when Nagle decides.
        let _ = stream.set_nodelay(true);
        let connection = shared.connections.fetch_add(1, Ordering::SeqCst) + 1;
        shared.open.fetch_add(1, Ordering::SeqCst);
        let guard = OpenGuard(shared.clone());
        let conn_shared = shared.clone();
        let builder = builder.clone();
        tokio::spawn(async move {
            let _guard = guard;
            let svc = service_fn(move |req| handler::handle(req, conn_shared.clone(), connection));
            let _ = builder.serve_connection(TokioIo::new(stream), svc).await;
        });
    }
}
