//! Whether a server asks for authorization: an unauthenticated `initialize`
//! POST, as any MCP client's first request; a 401 carries the
//! `WWW-Authenticate` challenge discovery starts from.

use std::time::Duration;

use reqwest::StatusCode;
use reqwest::header::{ACCEPT, CONTENT_TYPE, WWW_AUTHENTICATE};

/// `Ok(Some(challenge))` when the server answers 401 (an empty challenge if
/// it sent no `WWW-Authenticate`), `Ok(None)` when it answers anything else.
pub async fn challenge(url: &str) -> Result<Option<String>, String> {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let client = reqwest::Client::builder()
        .connect_timeout(Duration::from_secs(10))
        .timeout(Duration::from_secs(30))
        .build()
        .map_err(|e| format!("HTTP client: {e}"))?;
    let body = serde_json::json!({
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "seekclaw", "version": env!("CARGO_PKG_VERSION")}
        }
    });
    let response = client
        .post(url)
        .header(ACCEPT, "application/json, text/event-stream")
        .header(CONTENT_TYPE, "application/json")
        .json(&body)
        .send()
        .await
        .map_err(|e| format!("cannot reach the server: {}", e.without_url()))?;
    if response.status() == StatusCode::UNAUTHORIZED {
        return Ok(Some(challenge_of(&response)));
    }
    // A legacy HTTP+SSE server guards its event stream (GET) instead; only
    // the status line is read, the stream is dropped.
    let stream = client
        .get(url)
        .header(ACCEPT, "text/event-stream")
        .send()
        .await
        .map_err(|e| format!("cannot reach the server: {}", e.without_url()))?;
    Ok((stream.status() == StatusCode::UNAUTHORIZED).then(|| challenge_of(&stream)))
}

fn challenge_of(response: &reqwest::Response) -> String {
    response
        .headers()
        .get(WWW_AUTHENTICATE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string()
}
