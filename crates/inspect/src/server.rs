//! The HTTP server: routes, the JSON API and the live tail (SSE).

use std::convert::Infallible;
use std::path::PathBuf;
use std::time::Duration;

use axum::Router;
use axum::extract::{Path, Query, State};
use axum::http::{StatusCode, header};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use futures::Stream;
use serde::Deserialize;
use serde_json::Value;
use tokio::net::TcpListener;

use crate::data::{Data, PAGE};
use crate::security::{self, Guard};
use crate::{InspectError, assets};

/// How often the live tail looks for new events: one `max(seq)` lookup,
/// well inside the 200 ms an appended event may take to show (a batch
/// then reads the log).
const TAIL_POLL: Duration = Duration::from_millis(50);

/// How to start the server.
#[derive(Debug, Clone)]
pub struct Options {
    /// The SQLite store (`$SEEKCLAW_HOME/seekclaw.db`).
    pub db: PathBuf,
    /// Port on 127.0.0.1; 0 picks a free one.
    pub port: u16,
    /// A session to open first.
    pub session: Option<String>,
}

/// A bound server: its URL (with the token) is known before it serves.
pub struct Server {
    listener: TcpListener,
    app: Router,
    url: String,
}

impl Server {
    /// Opens the store read-only and binds 127.0.0.1 (never another address).
    pub async fn bind(opts: Options) -> Result<Server, InspectError> {
        let db = opts.db.clone();
        let data = blocking(move || Data::open(&db)).await?;
        let listener = TcpListener::bind(("127.0.0.1", opts.port)).await?;
        let port = listener.local_addr()?.port();
        let token = security::new_token();
        let mut url = format!("http://127.0.0.1:{port}/?token={token}");
        if let Some(id) = &opts.session {
            url.push_str("&session=");
            url.push_str(&percent_encode(id));
        }
        let guard = Guard { token, port };
        Ok(Server {
            listener,
            app: router(data, guard),
            url,
        })
    }

    /// The URL to open: loopback, the port, the token.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Serves until the process ends.
    pub async fn run(self) -> Result<(), InspectError> {
        axum::serve(self.listener, self.app).await?;
        Ok(())
    }
}

fn router(data: Data, guard: Guard) -> Router {
    Router::new()
        .route("/", get(index))
        .route("/app.js", get(app_js))
        .route("/app.css", get(app_css))
        .route("/api/sessions", get(sessions))
        .route("/api/search", get(search))
        .route("/api/sessions/{id}/events", get(events))
        .route("/api/sessions/{id}/model", get(model))
        .route("/api/sessions/{id}/usage", get(usage))
        .route("/api/sessions/{id}/tail", get(tail))
        .route("/api/sessions/{id}/checkpoints", get(checkpoints))
        .route("/api/sessions/{id}/checkpoints/{seq}", get(checkpoint_diff))
        .with_state(data)
        .layer(axum::middleware::from_fn_with_state(guard, security::guard))
}

/// Keeps ids safe inside the printed URL's query.
fn percent_encode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// Runs a store read off the async threads.
async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, InspectError> + Send + 'static,
) -> Result<T, InspectError> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| InspectError::Internal(e.to_string()))?
}

fn asset(content_type: &'static str, body: &'static str) -> Response {
    ([(header::CONTENT_TYPE, content_type)], body).into_response()
}

async fn index() -> Response {
    asset("text/html; charset=utf-8", assets::INDEX_HTML)
}

async fn app_js() -> Response {
    asset("text/javascript; charset=utf-8", assets::APP_JS)
}

async fn app_css() -> Response {
    asset("text/css; charset=utf-8", assets::APP_CSS)
}

/// A JSON answer already written as text.
struct Raw(String);

impl From<Value> for Raw {
    fn from(v: Value) -> Raw {
        Raw(v.to_string())
    }
}

fn json<T: Into<Raw>>(result: Result<T, InspectError>) -> Response {
    match result {
        Ok(v) => ([(header::CONTENT_TYPE, "application/json")], v.into().0).into_response(),
        Err(e) => {
            let status = match e {
                InspectError::NotFound(_) => StatusCode::NOT_FOUND,
                InspectError::Ambiguous(_) => StatusCode::CONFLICT,
                _ => StatusCode::INTERNAL_SERVER_ERROR,
            };
            (status, e.to_string()).into_response()
        }
    }
}

#[derive(Deserialize)]
struct ListQuery {
    #[serde(default)]
    archived: Option<String>,
    /// The first `limit` sessions only (the page's first screen).
    limit: Option<usize>,
}

async fn sessions(State(data): State<Data>, Query(q): Query<ListQuery>) -> Response {
    let archived = q.archived.is_some_and(|a| a == "1" || a == "true");
    json(blocking(move || data.sessions(archived, q.limit).map(serialized)).await)
}

/// Serializes an answer straight to text (no `Value` tree between).
fn serialized<T: serde::Serialize>(v: T) -> Raw {
    Raw(serde_json::to_string(&v).unwrap_or_else(|_| "null".into()))
}

#[derive(Deserialize)]
struct SearchQuery {
    #[serde(default)]
    q: String,
    limit: Option<usize>,
}

/// Hits this many at most unless the page asks for fewer.
const SEARCH_LIMIT: usize = 100;

async fn search(State(data): State<Data>, Query(q): Query<SearchQuery>) -> Response {
    let limit = q.limit.unwrap_or(SEARCH_LIMIT).clamp(1, SEARCH_LIMIT);
    json(blocking(move || data.search(&q.q, limit)).await)
}

#[derive(Deserialize)]
struct SessionQuery {
    scope: Option<String>,
    #[serde(default)]
    after: u64,
    limit: Option<usize>,
    #[serde(default)]
    seq: u64,
}

async fn events(
    State(data): State<Data>,
    Path(id): Path<String>,
    Query(q): Query<SessionQuery>,
) -> Response {
    let limit = q.limit.unwrap_or(PAGE).clamp(1, PAGE);
    json(
        blocking(move || {
            let scope = data.scope_of(&id, q.scope.as_deref())?;
            data.events(&scope, &id, q.after, limit).map(serialized)
        })
        .await,
    )
}

async fn model(
    State(data): State<Data>,
    Path(id): Path<String>,
    Query(q): Query<SessionQuery>,
) -> Response {
    json(
        blocking(move || {
            let scope = data.scope_of(&id, q.scope.as_deref())?;
            data.model_view(&scope, &id, q.seq)
        })
        .await,
    )
}

/// The session's usage ledger per turn (see [`Data::usage`]).
async fn usage(
    State(data): State<Data>,
    Path(id): Path<String>,
    Query(q): Query<SessionQuery>,
) -> Response {
    json(
        blocking(move || {
            let scope = data.scope_of(&id, q.scope.as_deref())?;
            data.usage(&scope, &id).map(serialized)
        })
        .await,
    )
}

/// The session's checkpoints (see [`Data::checkpoints`]).
async fn checkpoints(
    State(data): State<Data>,
    Path(id): Path<String>,
    Query(q): Query<SessionQuery>,
) -> Response {
    json(
        blocking(move || {
            data.scope_of(&id, q.scope.as_deref())?;
            data.checkpoints(&id).map(serialized)
        })
        .await,
    )
}

/// What the checkpoints at log seq `seq` changed, as unified diffs.
async fn checkpoint_diff(
    State(data): State<Data>,
    Path((id, seq)): Path<(String, u64)>,
    Query(q): Query<SessionQuery>,
) -> Response {
    json(
        blocking(move || {
            data.scope_of(&id, q.scope.as_deref())?;
            data.checkpoint_diff(&id, seq).map(serialized)
        })
        .await,
    )
}

/// Server-sent events: each new batch of the log's events as one `events`
/// message (the same shape as `/events`), polled with a cheap `max(seq)`.
/// Each message's id is its last event's seq: a browser that reconnects
/// sends it back (`Last-Event-ID`) and gets the rest from there, each once.
async fn tail(
    State(data): State<Data>,
    Path(id): Path<String>,
    Query(q): Query<SessionQuery>,
    headers: axum::http::HeaderMap,
) -> Response {
    let resumed = headers
        .get("last-event-id")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    let after = resumed.map_or(q.after, |r| r.max(q.after));
    let lookup = data.clone();
    let scope = match blocking(move || {
        lookup
            .scope_of(&id.clone(), q.scope.as_deref())
            .map(|s| (s, id))
    })
    .await
    {
        Ok(found) => found,
        Err(e) => return json::<Raw>(Err(e)),
    };
    Sse::new(tail_stream(data, scope.0, scope.1, after))
        .keep_alive(KeepAlive::default())
        .into_response()
}

fn tail_stream(
    data: Data,
    scope: String,
    id: String,
    after: u64,
) -> impl Stream<Item = Result<Event, Infallible>> {
    futures::stream::unfold(after, move |mut after| {
        let (data, scope, id) = (data.clone(), scope.clone(), id.clone());
        async move {
            loop {
                tokio::time::sleep(TAIL_POLL).await;
                let (d, s, i) = (data.clone(), scope.clone(), id.clone());
                let last = match blocking(move || d.last_seq(&s, &i)).await {
                    Ok(last) => last,
                    // The session is gone (deleted): end the stream.
                    Err(_) => return None,
                };
                if last <= after {
                    continue;
                }
                let (d, s, i) = (data.clone(), scope.clone(), id.clone());
                let page = blocking(move || d.events(&s, &i, after, PAGE)).await.ok()?;
                after = page.events.last().map_or(last, |e| e.seq);
                let event = Event::default()
                    .event("events")
                    .id(after.to_string())
                    .data(serialized(&page).0);
                return Some((Ok(event), after));
            }
        }
    })
}
