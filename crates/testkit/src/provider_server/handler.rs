//! One HTTP request: record it, route it, answer with the next scripted reply.

use std::convert::Infallible;
use std::io;
use std::sync::Arc;

use bytes::Bytes;
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::header::{CACHE_CONTROL, CONTENT_TYPE, HeaderName, HeaderValue, RETRY_AFTER};
use hyper::{Method, Request, Response, StatusCode};
use serde_json::{Value, json};
use tokio::sync::mpsc;

use super::body::{ChannelBody, Chunks, Plan, produce};
use super::reply::{BodyMode, Reply, ResponseIds, StatusReply, Wire};
use super::{Recorded, Shared};

pub(crate) type ResBody = BoxBody<Bytes, io::Error>;

/// The model id reported when a request names none.
const DEFAULT_MODEL: &str = "testkit-model";

enum Route {
    Completion(Wire),
    Models,
    NotFound,
}

fn route(method: &Method, path: &str) -> Route {
    match (method, path) {
        (&Method::POST, "/chat/completions" | "/v1/chat/completions") => {
            Route::Completion(Wire::OpenAi)
        }
        (&Method::POST, "/v1/messages") => Route::Completion(Wire::Anthropic),
        (&Method::GET, "/models" | "/v1/models") => Route::Models,
        _ => Route::NotFound,
    }
}

pub(crate) async fn handle(
    req: Request<Incoming>,
    shared: Arc<Shared>,
    connection: usize,
) -> Result<Response<ResBody>, Infallible> {
    let (parts, body) = req.into_parts();
    // Reading the whole request body first keeps HTTP/1.1 keep-alive usable.
    let raw = match body.collect().await {
        Ok(b) => b.to_bytes(),
        Err(e) => {
            return Ok(plain(
                StatusCode::BAD_REQUEST,
                format!("testkit: body: {e}"),
            ));
        }
    };
    let json_body: Value = serde_json::from_slice(&raw).unwrap_or(Value::Null);
    let path = parts.uri.path().to_string();
    let recorded = Recorded {
        index: 0,
        connection,
        method: parts.method.to_string(),
        path: path.clone(),
        query: parts.uri.query().map(str::to_string),
        version: format!("{:?}", parts.version),
        headers: parts
            .headers
            .iter()
            .map(|(k, v)| {
                let value = String::from_utf8_lossy(v.as_bytes()).into_owned();
                (k.as_str().to_string(), value)
            })
            .collect(),
        body: json_body.clone(),
        raw_body: String::from_utf8_lossy(&raw).into_owned(),
    };
    shared.record(recorded);

    let wire = match route(&parts.method, &path) {
        Route::Completion(w) => w,
        Route::Models => return Ok(json_response(StatusCode::OK, &models_body(&shared))),
        Route::NotFound => {
            let msg = format!("testkit: no route for {} {path}", parts.method);
            let body = json!({"error": {"type": "not_found_error", "message": msg}});
            return Ok(json_response(StatusCode::NOT_FOUND, &body));
        }
    };
    let (reply, serial) = shared.next_reply(&String::from_utf8_lossy(&raw));
    if let Some(n) = reply.after_requests {
        shared
            .until_requests(n, std::time::Duration::from_secs(10))
            .await;
    }
    if !reply.header_delay.is_zero() {
        tokio::time::sleep(reply.header_delay).await;
    }
    Ok(answer(&reply, wire, &json_body, (serial, &shared)))
}

fn answer(
    reply: &Reply,
    route_wire: Wire,
    request: &Value,
    (serial, shared): (usize, &Arc<Shared>),
) -> Response<ResBody> {
    if let Some(status) = &reply.status {
        return with_headers(status_response(status), reply);
    }
    let wire = reply.wire.unwrap_or(route_wire);
    let model = request["model"].as_str().unwrap_or(DEFAULT_MODEL);
    let ids = ResponseIds {
        id: match wire {
            Wire::OpenAi => format!("chatcmpl-testkit-{serial}"),
            Wire::Anthropic => format!("msg_testkit_{serial}"),
        },
        model: model.to_string(),
    };
    let sse = match reply.mode {
        BodyMode::Sse => true,
        BodyMode::Json => false,
        BodyMode::Auto => request["stream"] == Value::Bool(true),
    };
    let plan = Plan::of(reply);
    let (chunks, content_type): (Chunks, _) = if sse {
        let events = match wire {
            Wire::OpenAi => super::openai::sse_events(reply, &ids),
            Wire::Anthropic => super::anthropic::sse_events(reply, &ids),
        };
        let events: Vec<Bytes> = events.into_iter().map(Bytes::from).collect();
        let chunks = match (&reply.flood, wire) {
            (Some((text, times)), Wire::OpenAi) => {
                let unit = Bytes::from(super::openai::text_event(&ids, text));
                Chunks::flooded(events, 1, unit, *times)
            }
            _ => events.into(),
        };
        (chunks, "text/event-stream")
    } else {
        let value = match wire {
            Wire::OpenAi => super::openai::completion(reply, &ids),
            Wire::Anthropic => super::anthropic::message(reply, &ids),
        };
        let bytes = Bytes::from(value.to_string());
        if plan.is_plain() {
            let mut res = json_bytes(StatusCode::OK, bytes);
            with_headers_mut(&mut res, reply);
            return res;
        }
        // Faults need chunk boundaries: the object goes out as two halves.
        let mid = bytes.len() / 2;
        (
            vec![bytes.slice(..mid), bytes.slice(mid..)].into(),
            "application/json",
        )
    };
    let (tx, rx) = mpsc::channel(1);
    tokio::spawn(produce(tx, chunks, plan));
    let mut res = Response::new(ChannelBody::new(rx, shared.clone()).boxed());
    res.headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
    if sse {
        res.headers_mut()
            .insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    }
    with_headers_mut(&mut res, reply);
    res
}

fn status_response(status: &StatusReply) -> Response<ResBody> {
    let Ok(code) = StatusCode::from_u16(status.code) else {
        let msg = format!("testkit: invalid status code {}", status.code);
        return plain(StatusCode::INTERNAL_SERVER_ERROR, msg);
    };
    let mut res = match &status.body {
        Value::String(text) => plain(code, text.clone()),
        other => json_response(code, other),
    };
    if let Some(secs) = status.retry_after {
        res.headers_mut()
            .insert(RETRY_AFTER, HeaderValue::from(secs));
    }
    res
}

fn with_headers(mut res: Response<ResBody>, reply: &Reply) -> Response<ResBody> {
    with_headers_mut(&mut res, reply);
    res
}

/// Adds the reply's extra headers; an invalid one turns the answer into a 500 that says so.
fn with_headers_mut(res: &mut Response<ResBody>, reply: &Reply) {
    for (name, value) in &reply.headers {
        let parsed = (
            HeaderName::from_bytes(name.as_bytes()),
            HeaderValue::from_str(value),
        );
        match parsed {
            (Ok(n), Ok(v)) => {
                res.headers_mut().append(n, v);
            }
            _ => {
                let msg = format!("testkit: invalid reply header {name}: {value}");
                *res = plain(StatusCode::INTERNAL_SERVER_ERROR, msg);
                return;
            }
        }
    }
}

fn models_body(shared: &Shared) -> Value {
    let data: Vec<Value> = shared
        .models()
        .into_iter()
        .map(|id| {
            json!({"id": id, "object": "model", "type": "model", "display_name": id, "owned_by": "testkit"})
        })
        .collect();
    json!({"object": "list", "data": data, "has_more": false})
}

fn json_response(code: StatusCode, body: &Value) -> Response<ResBody> {
    json_bytes(code, Bytes::from(body.to_string()))
}

fn json_bytes(code: StatusCode, bytes: Bytes) -> Response<ResBody> {
    let mut res = Response::new(full(bytes));
    *res.status_mut() = code;
    res.headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    res
}

fn plain(code: StatusCode, text: String) -> Response<ResBody> {
    let mut res = Response::new(full(Bytes::from(text)));
    *res.status_mut() = code;
    res.headers_mut().insert(
        CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    res
}

fn full(bytes: Bytes) -> ResBody {
    Full::new(bytes).map_err(|never| match never {}).boxed()
}
