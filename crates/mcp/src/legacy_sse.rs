//! The legacy HTTP+SSE transport (MCP 2024-11-05), which rmcp 3 no longer ships:
//! a GET opens an event stream whose first `endpoint` event names the URL the
//! client POSTs its messages to; the answers arrive as `message` events on the
//! stream. Servers configured as `sse` that do not speak Streamable HTTP get this.

use std::pin::Pin;

use futures::{Sink, Stream, StreamExt};
use reqwest::header::{ACCEPT, HeaderMap, HeaderValue};
use rmcp::RoleClient;
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use sse_stream::SseStream;

use crate::error::McpError;

pub type MessageSink =
    Pin<Box<dyn Sink<TxJsonRpcMessage<RoleClient>, Error = std::io::Error> + Send>>;
pub type MessageStream = Pin<Box<dyn Stream<Item = RxJsonRpcMessage<RoleClient>> + Send>>;

/// Opens the event stream and waits for the `endpoint` event.
pub async fn connect(
    client: reqwest::Client,
    name: &str,
    url: &str,
    headers: HeaderMap,
) -> Result<(MessageSink, MessageStream), McpError> {
    let fail = |what: String| McpError::Protocol(format!("MCP server '{name}' (SSE): {what}"));
    let response = client
        .get(url)
        .headers(headers.clone())
        .header(ACCEPT, HeaderValue::from_static("text/event-stream"))
        .send()
        .await
        .map_err(|e| fail(format!("cannot open the event stream: {}", e.without_url())))?;
    if !response.status().is_success() {
        return Err(fail(format!(
            "the event stream answered HTTP {}",
            response.status().as_u16()
        )));
    }
    let mut events = SseStream::from_bytes_stream(response.bytes_stream());
    let endpoint = loop {
        match events.next().await {
            Some(Ok(sse)) if sse.event.as_deref() == Some("endpoint") => {
                break sse.data.unwrap_or_default();
            }
            Some(Ok(_)) => continue,
            Some(Err(e)) => return Err(fail(format!("broken event stream: {e}"))),
            None => {
                return Err(fail(
                    "the event stream ended before naming an endpoint".into(),
                ));
            }
        }
    };
    let post_url = reqwest::Url::parse(url)
        .and_then(|base| base.join(endpoint.trim()))
        .map_err(|e| fail(format!("invalid endpoint '{}': {e}", endpoint.trim())))?;
    let messages = events.filter_map(|event| {
        let message = match event {
            Ok(sse) if matches!(sse.event.as_deref(), None | Some("message")) => sse
                .data
                .and_then(|data| serde_json::from_str::<RxJsonRpcMessage<RoleClient>>(&data).ok()),
            _ => None,
        };
        futures::future::ready(message)
    });
    let sink = futures::sink::unfold(
        (client, post_url, headers),
        |(client, post_url, headers), message: TxJsonRpcMessage<RoleClient>| async move {
            let response = client
                .post(post_url.clone())
                .headers(headers.clone())
                .json(&message)
                .send()
                .await
                .map_err(|e| std::io::Error::other(e.without_url()))?;
            if !response.status().is_success() {
                return Err(std::io::Error::other(format!(
                    "message endpoint answered HTTP {}",
                    response.status().as_u16()
                )));
            }
            Ok((client, post_url, headers))
        },
    );
    Ok((Box::pin(sink), Box::pin(messages)))
}
