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
use std::sync::Mutex;
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::client::conn::http1::{self, Connection, SendRequest};
use hyper::header::{ACCEPT, CONTENT_TYPE, HOST, HeaderMap, HeaderName, HeaderValue};
use hyper::{Request, StatusCode, Uri};
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;

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
    conn: Pin<Box<Connection<Io, RequestBody>>>,
    /// The connection future finished (closed, or failed: its error also
    /// reaches the pending response or body).
    finished: bool,
}

impl Driver {
    fn poll(&mut self, cx: &mut Context<'_>) {
        if !self.finished && self.conn.as_mut().poll(cx).is_ready() {
            self.finished = true;
        }
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
        let uri: Uri = out
            .url
            .parse()
            .map_err(|e| InlineError::Connect(format!("invalid URL: {e}")))?;
        let authority = uri
            .authority()
            .map(|a| a.as_str().to_string())
            .ok_or_else(|| InlineError::Connect("URL has no host".into()))?;
        let mut request = build_request(&uri, &authority, &out)?;
        // A pooled connection may have been closed by the server just as we
        // send; the request then comes back unsent and goes on a fresh one.
        if let Some(mut conn) = self.checkout(&authority) {
            match drive(&mut conn.driver, conn.send.try_send_request(request)).await {
                Ok(response) => return Ok(self.response(authority, conn, response)),
                Err(mut err) => match err.take_message() {
                    Some(unsent) => request = unsent,
                    None => return Err(InlineError::Connect(error_chain(err.error()))),
                },
            }
        }
        let mut conn = connect(&uri, out.connect_timeout).await?;
        let response = drive(&mut conn.driver, conn.send.send_request(request))
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

    /// The newest idle connection that is still open and ready.
    fn checkout(&self, authority: &str) -> Option<Conn> {
        loop {
            let mut conn = {
                let mut idle = self.idle.lock().ok()?;
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
            // One poll sees a close the server already sent.
            let mut cx = Context::from_waker(Waker::noop());
            conn.driver.poll(&mut cx);
            if !conn.driver.finished && matches!(conn.send.poll_ready(&mut cx), Poll::Ready(Ok(())))
            {
                return Some(conn);
            }
        }
    }

    fn put(&self, authority: String, mut conn: Conn) {
        conn.idle_since = Instant::now();
        let Ok(mut idle) = self.idle.lock() else {
            return;
        };
        idle.retain(|_, list| {
            list.retain(|c| c.idle_since.elapsed() <= IDLE_LIMIT);
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
    let invalid = |what: &str| InlineError::Connect(format!("invalid header {what}"));
    for (name, value) in out.headers {
        // Names only: a value may hold a key.
        let name = HeaderName::from_bytes(name.as_bytes()).map_err(|_| invalid(name))?;
        let value = HeaderValue::from_str(value).map_err(|_| invalid(name.as_str()))?;
        headers.append(name, value);
    }
    // Defaults a provider's own headers may replace.
    let host = HeaderValue::from_str(authority).map_err(|_| invalid("host"))?;
    headers.entry(HOST).or_insert(host);
    headers
        .entry(CONTENT_TYPE)
        .or_insert(HeaderValue::from_static("application/json"));
    headers
        .entry(ACCEPT)
        .or_insert(HeaderValue::from_static("*/*"));
    Ok(request)
}

async fn connect(uri: &Uri, timeout: Duration) -> Result<Conn, InlineError> {
    let host = uri.host().unwrap_or_default();
    // `[::1]` in a URL is `::1` to the resolver.
    let host = host
        .strip_prefix('[')
        .and_then(|h| h.strip_suffix(']'))
        .unwrap_or(host);
    let port = uri.port_u16().unwrap_or(80);
    let stream = match tokio::time::timeout(timeout, TcpStream::connect((host, port))).await {
        Err(_) => return Err(InlineError::ConnectTimeout),
        Ok(Err(e)) => return Err(InlineError::Connect(format!("tcp connect error: {e}"))),
        Ok(Ok(s)) => s,
    };
    // Deltas are small writes the other way; requests must not wait for acks.
    let _ = stream.set_nodelay(true);
    let (send, conn) = http1::handshake(TokioIo::new(stream))
        .await
        .map_err(|e| InlineError::Connect(error_chain(&e)))?;
    Ok(Conn {
        send,
        driver: Driver {
            conn: Box::pin(conn),
            finished: false,
        },
        idle_since: Instant::now(),
    })
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
        let mut cx = Context::from_waker(Waker::noop());
        self.conn.driver.poll(&mut cx);
        if !self.conn.driver.finished && !self.conn.send.is_closed() {
            self.pool.put(self.authority, self.conn);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
