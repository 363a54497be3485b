//! Remote servers. `http` entries speak Streamable HTTP; `sse` entries try
//! Streamable HTTP first and fall back to the legacy HTTP+SSE transport, as the
//! official SDKs' auto-detecting clients do.

use std::collections::{BTreeMap, HashMap};
use std::time::Duration;

use reqwest::header::{AUTHORIZATION, HeaderMap, HeaderName, HeaderValue};
use rmcp::service::RunningService;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::auth::AuthClient;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{ClientHandler, RoleClient, ServiceExt};

use crate::auth::{AuthState, AuthStore, login_message};
use crate::error::McpError;
use crate::legacy_sse;

/// Connects and initializes a remote server. With a token store, a stored
/// OAuth login is used (rmcp's `AuthClient` adds the bearer, refreshes it
/// before expiry and once on a 401) and a 401 is reported as
/// [`McpError::NeedsLogin`], never retried as a broken server.
pub(crate) async fn serve<H: ClientHandler + Clone>(
    name: &str,
    url: &str,
    headers: &BTreeMap<String, String>,
    legacy_fallback: bool,
    handler: H,
    auth: Option<&AuthStore>,
) -> Result<RunningService<RoleClient, H>, McpError> {
    // reqwest needs a process-wide rustls provider; a second install is a no-op.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let client = reqwest::Client::builder()
        .connect_timeout(Duration::from_secs(10))
        .build()
        .map_err(|e| McpError::Spawn(format!("HTTP client: {e}")))?;
    let (bearer, custom) = header_map(name, headers)?;
    // A configured `Authorization` header means the user manages auth himself.
    let auth = auth.filter(|_| bearer.is_none());
    let oauth = match auth {
        Some(store) => crate::auth::stored_manager(store, name, url)
            .await?
            .map(|m| AuthClient::new(client.clone(), m)),
        None => None,
    };
    let mut config = StreamableHttpClientTransportConfig::with_uri(url).custom_headers(
        custom
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect::<HashMap<_, _>>(),
    );
    if let Some(token) = &bearer {
        config = config.auth_header(token.clone());
    }
    let streamable = match &oauth {
        Some(authed) => {
            let transport = StreamableHttpClientTransport::with_client(authed.clone(), config);
            handler.clone().serve(transport).await
        }
        None => {
            let transport = StreamableHttpClientTransport::with_client(client.clone(), config);
            handler.clone().serve(transport).await
        }
    };
    let first = match streamable {
        Ok(service) => return Ok(service),
        Err(e) => e.to_string(),
    };
    if let Some(store) = auth {
        needs_login(store, name, url).await?;
    }
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
    let tokens = oauth.map(|a| a.auth_manager.clone());
    let (sink, stream) = legacy_sse::connect(client, name, url, legacy_headers, tokens)
        .await
        .map_err(|second| match second {
            McpError::NeedsLogin(_) => second,
            second => McpError::Protocol(format!(
                "MCP server '{name}' failed to initialize over Streamable HTTP ({first}) and over legacy SSE ({second})"
            )),
        })?;
    handler.serve((sink, stream)).await.map_err(|e| {
        McpError::Protocol(format!(
            "MCP server '{name}' failed to initialize over legacy SSE: {e}"
        ))
    })
}

/// After a failed start: `Err(NeedsLogin)` when the server asks for
/// authorization and we hold no usable login (with one, the failure is the
/// transport's: a legacy SSE server gets its turn with our token).
async fn needs_login(store: &AuthStore, name: &str, url: &str) -> Result<(), McpError> {
    let state = store.state(url);
    if state == AuthState::Authorized {
        return Ok(());
    }
    if let Ok(Some(_)) = crate::auth::challenge(url).await {
        let state = match state {
            AuthState::LoginRequired => AuthState::LoginRequired,
            _ => AuthState::NeedsLogin,
        };
        return Err(McpError::NeedsLogin(login_message(name, state)));
    }
    Ok(())
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
