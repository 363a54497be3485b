//! Remote servers. `http` entries speak Streamable HTTP; `sse` entries try
//! Streamable HTTP first and fall back to the legacy HTTP+SSE transport, as the
//! official SDKs' auto-detecting clients do.

use std::collections::{BTreeMap, HashMap};
use std::time::Duration;

use reqwest::header::{AUTHORIZATION, HeaderMap, HeaderName, HeaderValue};
use rmcp::service::RunningService;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{ClientHandler, RoleClient, ServiceExt};

use crate::error::McpError;
use crate::legacy_sse;

/// Connects and initializes a remote server.
pub(crate) async fn serve<H: ClientHandler + Clone>(
    name: &str,
    url: &str,
    headers: &BTreeMap<String, String>,
    legacy_fallback: bool,
    handler: H,
) -> Result<RunningService<RoleClient, H>, McpError> {
    // reqwest needs a process-wide rustls provider; a second install is a no-op.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let client = reqwest::Client::builder()
        .connect_timeout(Duration::from_secs(10))
        .build()
        .map_err(|e| McpError::Spawn(format!("HTTP client: {e}")))?;
    let (bearer, custom) = header_map(name, headers)?;
    let mut config = StreamableHttpClientTransportConfig::with_uri(url).custom_headers(
        custom
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect::<HashMap<_, _>>(),
    );
    if let Some(token) = &bearer {
        config = config.auth_header(token.clone());
    }
    let transport = StreamableHttpClientTransport::with_client(client.clone(), config);
    let streamable = handler.clone().serve(transport).await;
    let first = match streamable {
        Ok(service) => return Ok(service),
        Err(e) => e.to_string(),
    };
    if !legacy_fallback {
        return Err(McpError::Protocol(format!(
            "MCP server '{name}' failed to initialize: {first}"
        )));
    }
    let mut legacy_headers = custom;
    if let Some(token) = bearer
        && let Ok(mut value) = HeaderValue::from_str(&format!("Bearer {token}"))
    {
        value.set_sensitive(true);
        legacy_headers.insert(AUTHORIZATION, value);
    }
    let (sink, stream) = legacy_sse::connect(client, name, url, legacy_headers)
        .await
        .map_err(|second| {
            McpError::Protocol(format!(
                "MCP server '{name}' failed to initialize over Streamable HTTP ({first}) and over legacy SSE ({second})"
            ))
        })?;
    handler.serve((sink, stream)).await.map_err(|e| {
        McpError::Protocol(format!(
            "MCP server '{name}' failed to initialize over legacy SSE: {e}"
        ))
    })
}

/// The configured headers: a bearer `Authorization` apart (rmcp sends it itself),
/// the rest as sensitive header values. Errors name the header, never its value.
fn header_map(
    name: &str,
    headers: &BTreeMap<String, String>,
) -> Result<(Option<String>, HeaderMap), McpError> {
    let mut bearer = None;
    let mut map = HeaderMap::new();
    for (key, value) in headers {
        let token = value
            .strip_prefix("Bearer ")
            .filter(|_| key.eq_ignore_ascii_case("authorization"));
        if let Some(token) = token {
            bearer = Some(token.trim().to_string());
            continue;
        }
        let invalid =
            || McpError::Spawn(format!("MCP server '{name}': invalid HTTP header '{key}'"));
        let header = HeaderName::from_bytes(key.trim().as_bytes()).map_err(|_| invalid())?;
        let mut value = HeaderValue::from_str(value.trim()).map_err(|_| invalid())?;
        value.set_sensitive(true);
        map.insert(header, value);
    }
    Ok((bearer, map))
}
