//! MCP OAuth: servers that answer 401 with `WWW-Authenticate` are logged in to
//! through the MCP authorization flow (rmcp's `auth`), their tokens kept in the
//! home's token store and refreshed by rmcp's `AuthClient` before expiry and on
//! a 401. A refused refresh leaves the server in `login_required`.

mod flow;
mod probe;
mod store;

use rmcp::transport::auth::{AuthorizationManager, OAuthClientConfig};

pub use flow::{LOGIN_WAIT, LoginTarget, PendingLogin, begin_login, open_browser};
pub use probe::challenge;
pub use store::{AuthState, AuthStore, FileCredentialStore, TokenFile};

use crate::error::McpError;

/// What the user reads when `server` has no usable login.
pub fn login_message(server: &str, state: AuthState) -> String {
    match state {
        AuthState::LoginRequired => format!(
            "MCP server '{server}': the login expired and could not be refreshed; log in again: run `seekclaw mcp login {server}`"
        ),
        _ => format!("MCP server '{server}' needs a login: run `seekclaw mcp login {server}`"),
    }
}

/// rmcp's manager over the stored login of `url`, or `None` without one.
/// Discovery runs again (the authorization server may have moved); tokens
/// minted by another issuer are dropped by rmcp.
pub(crate) async fn stored_manager(
    store: &AuthStore,
    server: &str,
    url: &str,
) -> Result<Option<AuthorizationManager>, McpError> {
    let Some(file) = store.load(url) else {
        return Ok(None);
    };
    if file.login_required {
        return Err(McpError::NeedsLogin(login_message(
            server,
            AuthState::LoginRequired,
        )));
    }
    let fail = |e: rmcp::transport::auth::AuthError| {
        McpError::Protocol(format!("MCP server '{server}': OAuth: {e}"))
    };
    let mut manager = AuthorizationManager::new(url).await.map_err(fail)?;
    manager.set_credential_store(store.credential_store(url, server));
    if !manager.initialize_from_store().await.map_err(fail)? {
        return Ok(None);
    }
    if let (Some(secret), Some(creds)) = (file.client_secret, file.credentials) {
        // Refresh authenticates as the configured confidential client.
        let config = OAuthClientConfig::new(creds.client_id, "http://127.0.0.1/callback")
            .with_client_secret(secret);
        manager.configure_client(config).map_err(fail)?;
    }
    Ok(Some(manager))
}
