//! HTTP for providers: one pooled client per provider configuration, shared by the
//! whole daemon; connect, response-header and sliding stream-idle timeouts.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use seekclaw_config::Provider;
use tokio_util::sync::CancellationToken;

use crate::error::{ProviderError, error_detail};
use crate::inline_h1::{self, InlineError, InlinePool, InlineResponse, Outgoing};
use crate::reasoning::Target;
use crate::types::StreamEvent;
use crate::wire::{self, WireRequest};

/// The three waits of one request.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Timeouts {
    /// Until the connection is made.
    pub connect: Duration,
    /// Until the response headers arrive.
    pub header: Duration,
    /// Between two chunks of the body (keep-alive comments count).
    pub idle: Duration,
}

impl Timeouts {
    /// The waits for `provider` (`timeoutSeconds`); `deepseek_optimized` allows a longer idle gap.
    pub fn for_provider(provider: &Provider, deepseek_optimized: bool) -> Timeouts {
        let base = Duration::from_secs(provider.timeout_seconds.clamp(1, 3600));
        let idle = if deepseek_optimized {
            base.max(Duration::from_secs(300))
        } else {
            base
        };
        Timeouts {
            connect: base.min(Duration::from_secs(30)),
            header: base,
            idle,
        }
    }
}

/// Clients keyed by what changes their behaviour, so every turn reuses connections.
pub struct HttpPool {
    clients: Mutex<HashMap<String, reqwest::Client>>,
    /// Plain-HTTP/1.1 connections driven in the requesting task.
    inline: InlinePool,
}

impl Default for HttpPool {
    fn default() -> Self {
        Self::new()
    }
}

impl HttpPool {
    /// An empty pool (installs the process-wide rustls provider on first use).
    pub fn new() -> Self {
        // reqwest needs a process-wide rustls provider; a second install is a no-op.
        let _ = rustls::crypto::ring::default_provider().install_default();
        HttpPool {
            clients: Mutex::new(HashMap::new()),
            inline: InlinePool::default(),
        }
    }

    /// The client cache. A panic elsewhere while this lock was held is recovered
    /// from: a map of finished clients cannot be left half-changed.
    fn clients(&self) -> MutexGuard<'_, HashMap<String, reqwest::Client>> {
        self.clients.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The pooled client for `provider` with this connect timeout, built on first use.
    pub fn client(
        &self,
        provider: &Provider,
        connect: Duration,
    ) -> Result<reqwest::Client, ProviderError> {
        let key = format!(
            "{}|{}|{}|{}|{}",
            provider.id,
            provider.base_url,
            provider.proxy.as_deref().unwrap_or(""),
            connect.as_millis(),
            provider.http2_prior_knowledge
        );
        if let Some(c) = self.clients().get(&key) {
            return Ok(c.clone());
        }
        let mut builder = reqwest::Client::builder()
            .connect_timeout(connect)
            .pool_idle_timeout(Duration::from_secs(90))
            .pool_max_idle_per_host(64)
            .tcp_nodelay(true);
        if provider.http2_prior_knowledge {
            builder = builder.http2_prior_knowledge();
        }
        if let Some(proxy) = provider.proxy.as_deref().filter(|p| !p.trim().is_empty()) {
            let proxy = reqwest::Proxy::all(proxy).map_err(|e| {
                ProviderError::Config(format!(
                    "{}: invalid proxy: {}",
                    provider.id,
                    e.without_url()
                ))
            })?;
            builder = builder.proxy(proxy);
        } else {
            builder = builder.no_proxy();
        }
        let client = builder.build().map_err(|e| {
            ProviderError::Config(format!("{}: cannot build HTTP client: {e}", provider.id))
        })?;
        self.clients().insert(key, client.clone());
        Ok(client)
    }
}

fn transport_error(
    provider: &str,
    err: reqwest::Error,
    phase: &'static str,
    after: Duration,
) -> ProviderError {
    if err.is_timeout() {
        ProviderError::Timeout {
            provider: provider.into(),
            phase,
            after,
        }
    } else {
        ProviderError::Connect {
            provider: provider.into(),
            message: error_chain(&err.without_url()),
        }
    }
}

/// The error with its sources ("error sending request: connection refused").
pub(crate) fn error_chain(err: &dyn std::error::Error) -> String {
    let mut out = err.to_string();
    let mut source = err.source();
    while let Some(s) = source {
        out.push_str(": ");
        out.push_str(&s.to_string());
        source = s.source();
    }
    out
}

fn parse_retry_after(headers: &reqwest::header::HeaderMap) -> Option<Duration> {
    let raw = headers.get(reqwest::header::RETRY_AFTER)?.to_str().ok()?;
    raw.trim()
        .parse::<f64>()
        .ok()
        .filter(|s| s.is_finite() && *s >= 0.0)
        .map(|s| Duration::from_secs_f64(s.min(3600.0)))
}

async fn wait<T>(
    cancel: &CancellationToken,
    limit: Duration,
    fut: impl std::future::Future<Output = T>,
) -> Result<Option<T>, ProviderError> {
    tokio::select! {
        biased;
        _ = cancel.cancelled() => Err(ProviderError::Cancelled),
        r = tokio::time::timeout(limit, fut) => Ok(r.ok()),
    }
}

/// Sends one request and feeds every decoded event to `on_event` as soon as its
/// bytes arrive. Errors after the first event are the caller's to treat as final.
/// Error texts never carry the API key, even when the server echoes it.
pub async fn run_attempt(
    pool: &HttpPool,
    target: &Target<'_>,
    request: Encoded<'_>,
    timeouts: Timeouts,
    cancel: &CancellationToken,
    on_event: &mut (dyn FnMut(StreamEvent) + Send),
) -> Result<(), ProviderError> {
    attempt(pool, target, request, timeouts, cancel, on_event)
        .await
        .map_err(|e| e.without_secret(target.provider.api_key.as_deref()))
}

/// A request with its body encoded once for all its attempts.
#[derive(Clone, Copy)]
pub struct Encoded<'a> {
    /// The request's URL and headers.
    pub request: &'a WireRequest,
    /// Its encoded JSON body.
    pub body: &'a bytes::Bytes,
}

/// The JSON body of `request`, encoded once (retries resend the same bytes).
pub fn encode_body(provider: &str, request: &WireRequest) -> Result<bytes::Bytes, ProviderError> {
    request
        .encode()
        .map(bytes::Bytes::from)
        .map_err(|e| ProviderError::Config(format!("{provider}: cannot encode the request: {e}")))
}

/// Error bodies beyond this are cut (only their message is kept).
const ERROR_BODY_LIMIT: usize = 1 << 20;

/// A response from either HTTP path.
enum Response<'p> {
    Pooled(reqwest::Response),
    Inline(InlineResponse<'p>),
}

type BodyError = Box<dyn std::error::Error + Send + Sync>;

impl Response<'_> {
    fn status(&self) -> reqwest::StatusCode {
        match self {
            Response::Pooled(r) => r.status(),
            Response::Inline(r) => r.status(),
        }
    }

    fn headers(&self) -> &reqwest::header::HeaderMap {
        match self {
            Response::Pooled(r) => r.headers(),
            Response::Inline(r) => r.headers(),
        }
    }

    /// The next piece of the body, `None` at its end. Cancel-safe.
    async fn chunk(&mut self) -> Result<Option<bytes::Bytes>, BodyError> {
        match self {
            Response::Pooled(r) => r.chunk().await.map_err(Into::into),
            Response::Inline(r) => r.chunk().await.map_err(Into::into),
        }
    }

    /// The rest of the body, at most `limit` bytes of it.
    async fn read_to_end(&mut self, limit: usize) -> Result<Vec<u8>, BodyError> {
        let mut body = Vec::new();
        while let Some(chunk) = self.chunk().await? {
            let room = limit.saturating_sub(body.len());
            body.extend_from_slice(&chunk[..chunk.len().min(room)]);
        }
        Ok(body)
    }

    /// Done with the response: a fully read inline one gives its connection back
    /// to the pool (reqwest does that on its own).
    fn release(self) {
        if let Response::Inline(r) = self {
            r.release();
        }
    }
}

/// Sends the request and waits for the response headers; `None` when the
/// header timeout passed.
async fn send<'p>(
    pool: &'p HttpPool,
    target: &Target<'_>,
    Encoded { request, body }: Encoded<'_>,
    timeouts: Timeouts,
    cancel: &CancellationToken,
) -> Result<Option<Response<'p>>, ProviderError> {
    let provider = target.provider;
    let id = provider.id.as_str();
    if inline_h1::eligible(
        &request.url,
        provider.proxy.as_deref(),
        provider.http2_prior_knowledge,
    ) {
        let out = Outgoing {
            url: &request.url,
            headers: &request.headers,
            body: body.clone(),
            connect_timeout: timeouts.connect,
        };
        return match wait(cancel, timeouts.header, pool.inline.post(out)).await? {
            None => Ok(None),
            Some(Ok(r)) => Ok(Some(Response::Inline(r))),
            Some(Err(InlineError::ConnectTimeout)) => Err(ProviderError::Timeout {
                provider: id.into(),
                phase: "connect",
                after: timeouts.connect,
            }),
            Some(Err(InlineError::Connect(message))) => Err(ProviderError::Connect {
                provider: id.into(),
                message,
            }),
        };
    }
    let client = pool.client(provider, timeouts.connect)?;
    let mut builder = client
        .post(&request.url)
        .header(reqwest::header::CONTENT_TYPE, "application/json")
        .body(body.clone());
    for (name, value) in &request.headers {
        builder = builder.header(name.as_str(), value.as_str());
    }
    match wait(cancel, timeouts.header, builder.send()).await? {
        None => Ok(None),
        Some(Err(e)) => Err(transport_error(id, e, "connect", timeouts.connect)),
        Some(Ok(r)) => Ok(Some(Response::Pooled(r))),
    }
}

async fn attempt(
    pool: &HttpPool,
    target: &Target<'_>,
    encoded: Encoded<'_>,
    timeouts: Timeouts,
    cancel: &CancellationToken,
    on_event: &mut (dyn FnMut(StreamEvent) + Send),
) -> Result<(), ProviderError> {
    let provider = target.provider.id.as_str();
    let request = encoded.request;
    let mut response = match send(pool, target, encoded, timeouts, cancel).await? {
        None => {
            return Err(ProviderError::Timeout {
                provider: provider.into(),
                phase: "waiting for response headers",
                after: timeouts.header,
            });
        }
        Some(r) => r,
    };
    let status = response.status();
    if !status.is_success() {
        let retry_after = parse_retry_after(response.headers());
        let body = match wait(
            cancel,
            timeouts.idle,
            response.read_to_end(ERROR_BODY_LIMIT),
        )
        .await?
        {
            Some(Ok(b)) => b,
            _ => Vec::new(),
        };
        response.release();
        return Err(ProviderError::Http {
            provider: provider.into(),
            status: status.as_u16(),
            message: error_detail(&body),
            retry_after,
        });
    }
    if !request.stream {
        // Non-streamed answer (image turns): one JSON document, or SSE from a
        // gateway that streams anyway (parse_completion detects it).
        let mut body = Vec::new();
        loop {
            match wait(cancel, timeouts.idle, response.chunk()).await? {
                None => return Err(idle_timeout(provider, timeouts.idle)),
                Some(Ok(Some(bytes))) => body.extend_from_slice(&bytes),
                Some(Ok(None)) => break,
                Some(Err(e)) => return Err(broken(provider, &*e)),
            }
        }
        response.release();
        for ev in wire::parse_completion(target, &body)? {
            on_event(ev);
        }
        return Ok(());
    }
    let mut parser = wire::StreamParser::new(target)?;
    let mut events: Vec<StreamEvent> = Vec::new();
    // One cancellation waiter and one idle timer for the whole stream: arming a
    // fresh timer and waiter per chunk costs more than decoding the chunk. The
    // timer is pushed back lazily, only when it fires before the idle limit.
    let cancelled = cancel.cancelled();
    tokio::pin!(cancelled);
    let idle = tokio::time::sleep(timeouts.idle);
    tokio::pin!(idle);
    let mut last_chunk = tokio::time::Instant::now();
    let mut first_out = false;
    while !parser.is_done() {
        let next = tokio::select! {
            biased;
            _ = &mut cancelled => return Err(ProviderError::Cancelled),
            next = response.chunk() => next,
            _ = &mut idle => {
                let deadline = last_chunk + timeouts.idle;
                if deadline > tokio::time::Instant::now() {
                    idle.as_mut().reset(deadline);
                    continue;
                }
                return Err(idle_timeout(provider, timeouts.idle));
            }
        };
        last_chunk = tokio::time::Instant::now();
        let chunk = match next {
            Err(e) => return Err(broken(provider, &*e)),
            Ok(None) => break,
            Ok(Some(bytes)) => bytes,
        };
        parser.push(&chunk, &mut events)?;
        let produced = !events.is_empty();
        for ev in events.drain(..) {
            on_event(ev);
        }
        if produced && !first_out {
            // The first token goes out at once, not with the batch after it.
            first_out = true;
            tokio::task::yield_now().await;
        } else {
            // A body whose chunks are already buffered never returns Pending;
            // the turn must still yield now and then so its task can pass the
            // events on.
            tokio::task::consume_budget().await;
        }
    }
    parser.finish(&mut events)?;
    for ev in events.drain(..) {
        on_event(ev);
    }
    drain_after_end(&mut response, cancel).await;
    response.release();
    Ok(())
}

/// How long the body's own end may lag behind the provider's end marker.
const DRAIN_LIMIT: Duration = Duration::from_millis(250);

/// Reads what follows the end marker (normally just the body's terminating chunk)
/// so the keep-alive connection is idle in the pool when the answer returns; a body
/// dropped unread is drained late or closed, and the next turn opened a second
/// connection. A server that keeps the body open past the limit costs only its
/// connection.
async fn drain_after_end(response: &mut Response<'_>, cancel: &CancellationToken) {
    let _ = wait(cancel, DRAIN_LIMIT, async {
        while let Ok(Some(_)) = response.chunk().await {}
    })
    .await;
}

fn idle_timeout(provider: &str, after: Duration) -> ProviderError {
    ProviderError::Timeout {
        provider: provider.into(),
        phase: "stream idle",
        after,
    }
}

fn broken(provider: &str, err: &dyn std::error::Error) -> ProviderError {
    ProviderError::Stream {
        provider: provider.into(),
        message: format!("connection lost mid-response: {}", error_chain(err)),
        retryable: true,
    }
}

/// `GET {base}/models` (or `/v1/models` for Anthropic) as a health probe: online on
/// 2xx, 401 or 403. Returns (online, detail).
pub async fn probe(pool: &HttpPool, provider: &Provider, timeout: Duration) -> (bool, String) {
    let url = crate::models::models_url(provider);
    let client = match pool.client(provider, timeout.min(Duration::from_secs(10))) {
        Ok(c) => c,
        Err(e) => return (false, e.to_string()),
    };
    let mut req = client.get(&url);
    for (name, value) in crate::models::auth_headers(provider) {
        req = req.header(name, value);
    }
    match tokio::time::timeout(timeout, req.send()).await {
        Err(_) => (false, "timeout".into()),
        Ok(Err(e)) => (false, error_chain(&e.without_url())),
        Ok(Ok(resp)) => {
            let s = resp.status().as_u16();
            match s {
                200..=299 => (true, "ok".into()),
                401 | 403 => (true, format!("reachable, auth failed (HTTP {s})")),
                _ => (false, format!("HTTP {s}")),
            }
        }
    }
}

/// Fetches the ids of a provider's model list (front ends call
/// [`crate::models::list_models`]).
pub(crate) async fn fetch_models(
    pool: &HttpPool,
    provider: &Provider,
    url: &str,
    timeout: Duration,
) -> Result<Vec<String>, ProviderError> {
    let client = pool.client(provider, timeout.min(Duration::from_secs(10)))?;
    let mut req = client.get(url);
    for (name, value) in crate::models::auth_headers(provider) {
        req = req.header(name, value);
    }
    let resp = tokio::time::timeout(timeout, req.send())
        .await
        .map_err(|_| ProviderError::Timeout {
            provider: provider.id.clone(),
            phase: "model list",
            after: timeout,
        })?
        .map_err(|e| transport_error(&provider.id, e, "connect", timeout))?;
    let status = resp.status().as_u16();
    let body = tokio::time::timeout(timeout, resp.bytes())
        .await
        .map_err(|_| idle_timeout(&provider.id, timeout))?
        .map_err(|e| broken(&provider.id, &e))?;
    if !(200..300).contains(&status) {
        // The key comes out of what the server echoed before the excerpt is
        // cut, so no part of it is left either.
        let text = String::from_utf8_lossy(&body);
        let text = match provider.api_key.as_deref().map(str::trim) {
            Some(key) if key.len() >= 8 => text.replace(key, "<redacted>"),
            _ => text.into_owned(),
        };
        let detail: String = text.chars().take(240).collect();
        return Err(ProviderError::Config(format!(
            "Model list request failed for {} (HTTP {status}): {detail}",
            provider.id
        )));
    }
    crate::models::parse_model_list(&provider.id, &body)
}
