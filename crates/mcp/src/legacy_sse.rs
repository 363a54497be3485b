//! The legacy HTTP+SSE transport (MCP 2024-11-05), which rmcp 3 no longer ships:
//! a GET opens an event stream whose first `endpoint` event names the URL the
//! client POSTs its messages to; the answers arrive as `message` events on the
//! stream. Servers configured as `sse` that do not speak Streamable HTTP get this.

use std::pin::Pin;

use std::sync::Arc;

use futures::{Sink, Stream, StreamExt};
use reqwest::header::{ACCEPT, AUTHORIZATION, HeaderMap, HeaderValue};
use rmcp::RoleClient;
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::auth::AuthorizationManager;
use sse_stream::SseStream;
use tokio::sync::Mutex;

use crate::error::McpError;

pub type MessageSink =
    Pin<Box<dyn Sink<TxJsonRpcMessage<RoleClient>, Error = std::io::Error> + Send>>;
pub type MessageStream = Pin<Box<dyn Stream<Item = RxJsonRpcMessage<RoleClient>> + Send>>;

/// A stored OAuth login: asked for a (refreshed when due) token per request.
pub type Tokens = Arc<Mutex<AuthorizationManager>>;

/// `headers` plus the OAuth bearer of `tokens`, when there is a login.
async fn with_token(headers: &HeaderMap, tokens: Option<&Tokens>) -> std::io::Result<HeaderMap> {
    let mut headers = headers.clone();
    if let Some(tokens) = tokens {
        let token = tokens
            .lock()
            .await
            .get_access_token()
            .await
            .map_err(|e| std::io::Error::other(e.to_string()))?;
        let mut value = HeaderValue::from_str(&format!("Bearer {token}"))
            .map_err(|_| std::io::Error::other("the stored access token is not a valid header"))?;
        value.set_sensitive(true);
        headers.insert(AUTHORIZATION, value);
    }
    Ok(headers)
}

/// Opens the event stream and waits for the `endpoint` event.
pub async fn connect(
    client: reqwest::Client,
    name: &str,
    url: &str,
    headers: HeaderMap,
    tokens: Option<Tokens>,
) -> Result<(MessageSink, MessageStream), McpError> {
    let fail = |what: String| McpError::Protocol(format!("MCP server '{name}' (SSE): {what}"));
    let first_headers = with_token(&headers, tokens.as_ref())
        .await
        .map_err(|e| fail(format!("OAuth: {e}")))?;
    let response = client
        .get(url)
        .headers(first_headers)
        .header(ACCEPT, HeaderValue::from_static("text/event-stream"))
        .send()
        .await
        .map_err(|e| fail(format!("cannot open the event stream: {}", e.without_url())))?;
    if response.status() == reqwest::StatusCode::UNAUTHORIZED {
        return Err(McpError::NeedsLogin(crate::auth::login_message(
            name,
            crate::auth::AuthState::NeedsLogin,
        )));
    }
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
        (client, post_url, headers, tokens),
        |(client, post_url, headers, tokens), message: TxJsonRpcMessage<RoleClient>| async move {
            let sent = with_token(&headers, tokens.as_ref()).await?;
            let response = client
                .post(post_url.clone())
                .headers(sent)
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
            Ok((client, post_url, headers, tokens))
        },
    );
    Ok((Box::pin(sink), Box::pin(messages)))
}
