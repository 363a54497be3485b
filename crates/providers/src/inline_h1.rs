//! Plain-HTTP/1.1 provider requests whose connection is driven inside the
//! caller's task.
//!
//! Local model servers (Ollama, LM Studio, llama.cpp, vLLM on `http://`) speak
//! HTTP/1.1 only. Through reqwest, hyper's connection runs as a task of its own
//! and hands the body over one chunk per task round trip: two wake-ups (often
//! across worker threads) for every streamed delta, which made the daemon's
//! relay of a fast local stream ~30 % slower than reading it directly. Here the
//! turn's own future polls the connection right before the body, so a chunk goes
//! from the socket to the SSE decoder within one poll. TLS, proxies and h2c stay
//! with reqwest (a TLS server normally negotiates HTTP/2, which has no such
//! hand-off).
//!
//! Connections are kept alive in a small pool per `host:port`. An idle
//! connection is not polled, so a server's close is found on checkout (one poll);
//! a request the connection refused unsent is retried once on a fresh one.

use std::collections::HashMap;
use std::future::{Future, poll_fn};
use std::pin::{Pin, pin};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::client::conn::http1::{self, Connection, SendRequest};
use hyper::header::{ACCEPT, CONTENT_TYPE, HOST, HeaderMap, HeaderName, HeaderValue};
use hyper::{Request, StatusCode, Uri};
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;
use tower_service::Service;

use crate::transport::error_chain;

/// How long an unused connection may wait in the pool.
const IDLE_LIMIT: Duration = Duration::from_secs(90);
/// Idle connections kept per `host:port`.
const IDLE_PER_HOST: usize = 64;

type Io = TokioIo<TcpStream>;
type RequestBody = Full<Bytes>;

/// Whether a request goes through this module: a plain `http://` URL with no
/// proxy, no h2c (`http2PriorKnowledge`) and no credentials in the URL (reqwest
/// turns those into basic auth).
pub fn eligible(url: &str, proxy: Option<&str>, http2_prior_knowledge: bool) -> bool {
    let no_proxy = proxy.is_none_or(|p| p.trim().is_empty());
    let Some(rest) = url
        .get(..7)
        .filter(|scheme| scheme.eq_ignore_ascii_case("http://"))
        .and_then(|_| url.get(7..))
    else {
        return false;
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    no_proxy && !http2_prior_knowledge && !authority.contains('@')
}

/// Kept-alive connections by `host:port`, newest last.
#[derive(Default)]
pub struct InlinePool {
    idle: Mutex<HashMap<String, Vec<Conn>>>,
}

/// One HTTP/1.1 connection: the request handle and the connection future that
/// must be polled for anything to move.
struct Conn {
    send: SendRequest<RequestBody>,
    driver: Driver,
    idle_since: Instant,
}

struct Driver {
    /// `None` once the connection future finished (closed, or failed).
    /// Dropping it right away matters: only then does hyper hand a queued
    /// request back unsent and end a pending body with an error; kept, they
    /// would wait for a wake-up that never comes.
    conn: Option<Pin<Box<Connection<Io, RequestBody>>>>,
}

impl Driver {
    fn poll(&mut self, cx: &mut Context<'_>) {
        if let Some(conn) = self.conn.as_mut()
            && conn.as_mut().poll(cx).is_ready()
        {
            self.conn = None;
        }
    }

    fn finished(&self) -> bool {
        self.conn.is_none()
    }

    /// One poll without a waker: notices a close that already arrived.
    fn poll_now(&mut self) {
        self.poll(&mut Context::from_waker(Waker::noop()));
    }
}

/// Runs `fut` while driving the connection: each poll first lets the connection
/// read, decode and write, then polls `fut` (which consumes what it produced).
async fn drive<F: Future>(driver: &mut Driver, fut: F) -> F::Output {
    let mut fut = pin!(fut);
    poll_fn(|cx| {
        driver.poll(cx);
        fut.as_mut().poll(cx)
    })
    .await
}

/// Sends a request on the connection: like [`drive`], and when `send` has
/// queued the request but not got its response, the connection is polled
/// once more so the request is written in this same poll (not after a
/// round trip through the scheduler: hyper wakes the connection's task, which
/// is this one).
async fn drive_send<F: Future>(driver: &mut Driver, send: F) -> F::Output {
    let mut send = pin!(send);
    poll_fn(|cx| {
        driver.poll(cx);
        let sent = send.as_mut().poll(cx);
        if sent.is_pending() {
            driver.poll(cx);
        }
        sent
    })
    .await
}

/// What a request needs besides its body.
pub struct Outgoing<'a> {
    pub url: &'a str,
    pub headers: &'a [(String, String)],
    pub body: Bytes,
    pub connect_timeout: Duration,
}

/// A response whose body is read through the same connection driver.
pub struct InlineResponse<'p> {
    pool: &'p InlinePool,
    authority: String,
    status: StatusCode,
    headers: HeaderMap,
    body: Incoming,
    conn: Conn,
    ended: bool,
}

/// Failure of a request, before or after its headers.
#[derive(Debug)]
pub enum InlineError {
    /// Could not connect or send (the text names the cause).
    Connect(String),
    /// The connect timeout passed.
    ConnectTimeout,
}

impl InlinePool {
    /// Sends the POST and waits for the response headers (the caller bounds
    /// the wait). Uses a kept-alive connection when one is still open.
    pub async fn post(&self, out: Outgoing<'_>) -> Result<InlineResponse<'_>, InlineError> {
        // Parsed as reqwest would (trimmed, percent-encoded), then as hyper needs it.
        let uri: Uri = reqwest::Url::parse(out.url.trim())
            .map_err(|e| e.to_string())
            .and_then(|url| url.as_str().parse::<Uri>().map_err(|e| e.to_string()))
            .map_err(|e| InlineError::Connect(format!("invalid URL: {e}")))?;
        let authority = uri
            .authority()
            .map(|a| a.as_str().to_string())
            .ok_or_else(|| InlineError::Connect("URL has no host".into()))?;
        let mut request = build_request(&uri, &authority, &out)?;
        // A pooled connection may have been closed by the server just as we
        // send; the request then comes back unsent and goes on a fresh one.
        if let Some(mut conn) = self.checkout(&authority) {
            match drive_send(&mut conn.driver, conn.send.try_send_request(request)).await {
                Ok(response) => return Ok(self.response(authority, conn, response)),
                Err(mut err) => match err.take_message() {
                    Some(unsent) => request = unsent,
                    None => return Err(InlineError::Connect(error_chain(err.error()))),
                },
            }
        }
        let mut conn = connect(&uri, out.connect_timeout).await?;
        let response = drive_send(&mut conn.driver, conn.send.send_request(request))
            .await
            .map_err(|e| InlineError::Connect(error_chain(&e)))?;
        Ok(self.response(authority, conn, response))
    }

    fn response(
        &self,
        authority: String,
        conn: Conn,
        response: hyper::Response<Incoming>,
    ) -> InlineResponse<'_> {
        let (parts, body) = response.into_parts();
        InlineResponse {
            pool: self,
            authority,
            status: parts.status,
            headers: parts.headers,
            body,
            conn,
            ended: false,
        }
    }

    /// The idle connections. A panic elsewhere while this lock was held is
    /// recovered from: the lists stay whole, and a connection left in a bad state
    /// is dropped by the checks of `checkout` and `put`.
    fn idle(&self) -> MutexGuard<'_, HashMap<String, Vec<Conn>>> {
        self.idle.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The newest idle connection that is still open and ready.
    fn checkout(&self, authority: &str) -> Option<Conn> {
        loop {
            let mut conn = {
                let mut idle = self.idle();
                let list = idle.get_mut(authority)?;
                let conn = list.pop();
                if list.is_empty() {
                    idle.remove(authority);
                }
                conn?
            };
            if conn.idle_since.elapsed() > IDLE_LIMIT {
                continue;
            }
            conn.driver.poll_now();
            let mut cx = Context::from_waker(Waker::noop());
            if !conn.driver.finished()
                && matches!(conn.send.poll_ready(&mut cx), Poll::Ready(Ok(())))
            {
                return Some(conn);
            }
        }
    }

    fn put(&self, authority: String, mut conn: Conn) {
        conn.idle_since = Instant::now();
        let mut idle = self.idle();
        // Stale or closed connections go now rather than wait in CLOSE_WAIT.
        idle.retain(|_, list| {
            list.retain_mut(|c| {
                c.driver.poll_now();
                !c.driver.finished() && c.idle_since.elapsed() <= IDLE_LIMIT
            });
            !list.is_empty()
        });
        let list = idle.entry(authority).or_default();
        if list.len() >= IDLE_PER_HOST {
            list.remove(0);
        }
        list.push(conn);
    }
}

fn build_request(
    uri: &Uri,
    authority: &str,
    out: &Outgoing<'_>,
) -> Result<Request<RequestBody>, InlineError> {
    let path = uri.path_and_query().map_or("/", |p| p.as_str());
    let mut request = Request::post(path)
        .body(Full::new(out.body.clone()))
        .map_err(|e| InlineError::Connect(format!("invalid request: {e}")))?;
    let headers = request.headers_mut();
    // Errors never quote the header: a misplaced key could be in its name.
    for (n, (name, value)) in out.headers.iter().enumerate() {
        let invalid = || InlineError::Connect(format!("request header #{} is invalid", n + 1));
        let name = HeaderName::from_bytes(name.as_bytes()).map_err(|_| invalid())?;
        let value = HeaderValue::from_str(value).map_err(|_| invalid())?;
        headers.append(name, value);
    }
    // Defaults a provider's own headers may replace.
    let host = HeaderValue::from_str(authority)
        .map_err(|_| InlineError::Connect("the URL's host is not a valid Host header".into()))?;
    headers.entry(HOST).or_insert(host);
    headers
        .entry(CONTENT_TYPE)
        .or_insert(HeaderValue::from_static("application/json"));
    headers
        .entry(ACCEPT)
        .or_insert(HeaderValue::from_static("*/*"));
    Ok(request)
}

/// TCP keepalive, as reqwest sets it: a dead peer is noticed mid-stream.
const TCP_KEEPALIVE: Duration = Duration::from_secs(15);

/// Connects like reqwest: every resolved address, IPv6/IPv4 raced (happy
/// eyeballs), the timeout split across them and bounding the whole attempt.
async fn connect(uri: &Uri, timeout: Duration) -> Result<Conn, InlineError> {
    let mut connector = HttpConnector::new();
    connector.set_connect_timeout(Some(timeout));
    // Deltas are small writes the other way; requests must not wait for acks.
    connector.set_nodelay(true);
    connector.set_keepalive(Some(TCP_KEEPALIVE));
    let io = match tokio::time::timeout(timeout, connector.call(uri.clone())).await {
        Err(_) => return Err(InlineError::ConnectTimeout),
        Ok(Err(e)) if timed_out(&e) => return Err(InlineError::ConnectTimeout),
        Ok(Err(e)) => return Err(InlineError::Connect(error_chain(&e))),
        Ok(Ok(io)) => io,
    };
    let (send, conn) = http1::handshake(io)
        .await
        .map_err(|e| InlineError::Connect(error_chain(&e)))?;
    Ok(Conn {
        send,
        driver: Driver {
            conn: Some(Box::pin(conn)),
        },
        idle_since: Instant::now(),
    })
}

/// Whether an I/O timeout is somewhere in the error's chain.
fn timed_out(err: &(dyn std::error::Error + 'static)) -> bool {
    let mut cur = Some(err);
    while let Some(e) = cur {
        if e.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::TimedOut)
        {
            return true;
        }
        cur = e.source();
    }
    false
}

impl InlineResponse<'_> {
    pub fn status(&self) -> StatusCode {
        self.status
    }

    pub fn headers(&self) -> &HeaderMap {
        &self.headers
    }

    /// The next piece of the body; `None` at its end. Cancel-safe.
    pub async fn chunk(&mut self) -> Result<Option<Bytes>, hyper::Error> {
        loop {
            match drive(&mut self.conn.driver, self.body.frame()).await {
                None => {
                    self.ended = true;
                    return Ok(None);
                }
                Some(Err(e)) => return Err(e),
                Some(Ok(frame)) => {
                    if let Ok(data) = frame.into_data() {
                        return Ok(Some(data));
                    }
                }
            }
        }
    }

    /// Gives the connection back to the pool if the body was read to its end
    /// and the connection stays open; otherwise it is closed.
    pub fn release(mut self) {
        if !self.ended {
            return;
        }
        // Let the connection see the end and go idle (or notice a close).
        self.conn.driver.poll_now();
        if !self.conn.driver.finished() && !self.conn.send.is_closed() {
            self.pool.put(self.authority, self.conn);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A server's close that lands after the checkout poll but before the
    /// request is written: the request must come back unsent, not hang.
    #[tokio::test]
    async fn a_close_seen_after_checkout_returns_the_request_unsent() {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (close_tx, close_rx) = tokio::sync::oneshot::channel::<()>();
        tokio::spawn(async move {
            let (mut s, _) = listener.accept().await.unwrap();
            let (mut buf, mut got) = (vec![0u8; 4096], Vec::new());
            loop {
                let n = s.read(&mut buf).await.unwrap();
                got.extend_from_slice(&buf[..n]);
                if let Some(i) = got.windows(4).position(|w| w == b"\r\n\r\n")
                    && got.len() >= i + 6
                {
                    break;
                }
            }
            s.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok")
                .await
                .unwrap();
            let _ = close_rx.await;
        });
        let pool = InlinePool::default();
        let url = format!("http://{addr}/v1");
        let out = || Outgoing {
            url: &url,
            headers: &[],
            body: Bytes::from_static(b"{}"),
            connect_timeout: Duration::from_secs(2),
        };
        let mut r = pool.post(out()).await.unwrap();
        while r.chunk().await.unwrap().is_some() {}
        r.release();
        let authority = addr.to_string();
        let mut conn = pool.checkout(&authority).expect("pooled and alive");
        close_tx.send(()).unwrap();
        // The runtime's I/O driver registers the close.
        tokio::time::sleep(Duration::from_millis(100)).await;
        let req = build_request(&url.parse().unwrap(), &authority, &out()).unwrap();
        let sent = tokio::time::timeout(
            Duration::from_secs(3),
            drive(&mut conn.driver, conn.send.try_send_request(req)),
        )
        .await
        .expect("the request must not hang on a closed connection");
        assert!(conn.driver.finished());
        match sent {
            Ok(_) => panic!("a response from a closed connection"),
            Err(mut e) => assert!(e.take_message().is_some(), "handed back unsent"),
        }
    }

    #[tokio::test]
    async fn invalid_headers_are_not_quoted_and_urls_are_trimmed() {
        let server = seekclaw_testkit::ProviderServer::start().unwrap();
        let pool = InlinePool::default();
        let url = server.url("/chat/completions");
        let bad = [(
            "Authorization: Bearer sk-secret".to_string(),
            "x".to_string(),
        )];
        let out = Outgoing {
            url: &url,
            headers: &bad,
            body: Bytes::from_static(b"{}"),
            connect_timeout: Duration::from_secs(2),
        };
        let Err(InlineError::Connect(text)) = pool.post(out).await else {
            panic!("an invalid header name must fail the request");
        };
        assert_eq!(text, "request header #1 is invalid");
        // A URL with surrounding blanks is trimmed, as reqwest does.
        server.enqueue(seekclaw_testkit::Reply::plain("hi"));
        let padded = format!("  {url} ");
        let out = Outgoing {
            url: &padded,
            headers: &[],
            body: Bytes::from_static(b"{}"),
            connect_timeout: Duration::from_secs(2),
        };
        let response = pool.post(out).await.unwrap();
        assert_eq!(response.status(), StatusCode::OK);
    }

    #[test]
    fn only_plain_http_without_proxy_or_h2c_is_inline() {
        assert!(eligible("http://127.0.0.1:11434/v1/chat", None, false));
        assert!(eligible("HTTP://localhost/v1", Some("  "), false));
        assert!(!eligible("https://api.openai.com/v1", None, false));
        assert!(!eligible(
            "http://localhost/v1",
            Some("http://proxy:3128"),
            false
        ));
        assert!(!eligible("http://localhost/v1", None, true));
        assert!(!eligible("http:/", None, false));
        assert!(!eligible("http://user:pw@localhost:8080/v1", None, false));
        assert!(eligible("http://localhost:8080/v1?key=a@b", None, false));
    }
}
