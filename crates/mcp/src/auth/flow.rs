//! The login: the MCP authorization flow on rmcp's `AuthorizationSession`
//! (protected-resource and authorization-server metadata discovery, dynamic
//! client registration or a configured client, authorization code with PKCE),
//! with the browser and the loopback redirect listener around it.

use std::time::Duration;

use rmcp::transport::auth::{AuthorizationManager, AuthorizationRequest, AuthorizationSession};
use seekclaw_config::McpOAuth;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use super::store::AuthStore;
use crate::error::McpError;

/// How long a started login waits for the browser to come back.
pub const LOGIN_WAIT: Duration = Duration::from_secs(300);
/// The redirect path of the loopback listener.
const CALLBACK_PATH: &str = "/callback";

/// What to log in to.
#[derive(Debug, Clone)]
pub struct LoginTarget {
    /// The configured server name (for messages).
    pub server: String,
    /// Its URL.
    pub url: String,
    /// `mcp.servers.X.oauth`.
    pub oauth: McpOAuth,
}

/// A login waiting for the browser: show or open `auth_url`, then [`finish`](Self::finish).
pub struct PendingLogin {
    /// The authorization URL the user's browser must visit.
    pub auth_url: String,
    session: AuthorizationSession,
    listener: TcpListener,
    state: String,
    target: LoginTarget,
}

/// Asks the server, discovers its authorization server, registers (or uses
/// the configured client) and prepares the authorization URL with PKCE.
pub async fn begin_login(store: &AuthStore, target: LoginTarget) -> Result<PendingLogin, McpError> {
    let name = target.server.clone();
    let fail = |what: String| McpError::Auth(format!("MCP server '{name}': {what}"));
    let challenge = super::probe::challenge(&target.url)
        .await
        .map_err(&fail)?
        .ok_or_else(|| {
            fail("the server did not ask for authorization (no 401); no login is needed".into())
        })?;
    let port = target.oauth.redirect_port.unwrap_or(0);
    let listener = TcpListener::bind(("127.0.0.1", port)).await.map_err(|e| {
        fail(format!(
            "cannot listen on 127.0.0.1:{port} for the redirect: {e}"
        ))
    })?;
    let local = listener
        .local_addr()
        .map_err(|e| fail(format!("loopback listener: {e}")))?;
    let redirect_uri = format!("http://127.0.0.1:{}{CALLBACK_PATH}", local.port());

    let _ = rustls::crypto::ring::default_provider().install_default();
    let mut manager = AuthorizationManager::new(target.url.as_str())
        .await
        .map_err(|e| fail(format!("OAuth setup: {e}")))?;
    let resolution = manager
        .resolve_metadata_from_challenge(Some(&challenge))
        .await
        .map_err(|e| fail(format!("authorization server discovery failed: {e}")))?;
    manager.set_metadata(resolution.metadata);
    let creds = store.credential_store(&target.url, &target.server);
    manager.set_credential_store(creds.clone());

    let mut request = AuthorizationRequest::new(redirect_uri).with_client_name("seekclaw");
    if let Some(scopes) = target.oauth.scopes.as_ref().filter(|s| !s.is_empty()) {
        request = request.with_scopes(scopes.iter().cloned());
    }
    if let Some(id) = target.oauth.client_id.as_deref().filter(|s| !s.is_empty()) {
        request = request.with_preregistered_client(id);
        if let Some(secret) = target.oauth.client_secret.as_deref() {
            request = request.with_client_secret(secret);
        }
    }
    let session = AuthorizationSession::new(manager, request)
        .await
        .map_err(|(_, e)| fail(format!("authorization failed: {e}")))?;
    let auth_url = session.get_authorization_url().to_string();
    let state = reqwest::Url::parse(&auth_url)
        .ok()
        .and_then(|u| {
            u.query_pairs()
                .find(|(k, _)| k == "state")
                .map(|(_, v)| v.into_owned())
        })
        .ok_or_else(|| fail("the authorization URL carries no state".into()))?;
    Ok(PendingLogin {
        auth_url,
        session,
        listener,
        state,
        target,
    })
}

impl PendingLogin {
    /// The redirect listener's port.
    pub fn port(&self) -> Option<u16> {
        self.listener.local_addr().ok().map(|a| a.port())
    }

    /// Waits (up to `limit`) for the browser's redirect with the right `state`,
    /// exchanges the code (PKCE verifier included) and stores the tokens.
    pub async fn finish(self, store: &AuthStore, limit: Duration) -> Result<(), McpError> {
        let name = self.target.server.clone();
        let fail = |what: String| McpError::Auth(format!("MCP server '{name}': {what}"));
        let callback = tokio::time::timeout(limit, self.callback())
            .await
            .map_err(|_| {
                fail(format!(
                    "no answer from the browser within {}s; run the login again",
                    limit.as_secs()
                ))
            })??;
        let code = match callback {
            Callback::Code(code) => code,
            Callback::Denied(why) => return Err(fail(format!("authorization refused: {why}"))),
        };
        // A configured secret is kept beside the tokens: refresh needs it again.
        let creds = store.credential_store(&self.target.url, &self.target.server);
        if let Some(secret) = self.target.oauth.client_secret.clone() {
            creds
                .set_client_secret(Some(secret))
                .map_err(|e| fail(e.to_string()))?;
        }
        self.session
            .handle_callback(&code, &self.state)
            .await
            .map_err(|e| fail(format!("the token exchange failed: {e}")))?;
        Ok(())
    }

    /// Serves the loopback listener until a redirect with our `state` arrives.
    /// Anything else (a wrong state, another path) is answered and ignored.
    async fn callback(&self) -> Result<Callback, McpError> {
        loop {
            let (stream, _) = self
                .listener
                .accept()
                .await
                .map_err(|e| McpError::Auth(format!("loopback listener: {e}")))?;
            if let Some(done) = self.answer(stream).await {
                return Ok(done);
            }
        }
    }

    async fn answer(&self, mut stream: TcpStream) -> Option<Callback> {
        let target = read_request_target(&mut stream).await?;
        let url = reqwest::Url::parse(&format!("http://127.0.0.1{target}")).ok()?;
        if url.path() != CALLBACK_PATH {
            respond(&mut stream, 404, "Not found.").await;
            return None;
        }
        let param = |key: &str| {
            url.query_pairs()
                .find(|(k, _)| k == key)
                .map(|(_, v)| v.into_owned())
        };
        if param("state").as_deref() != Some(self.state.as_str()) {
            respond(
                &mut stream,
                400,
                "This login link does not match the login in progress (state mismatch).",
            )
            .await;
            return None;
        }
        if let Some(error) = param("error") {
            let why = param("error_description").unwrap_or(error);
            respond(&mut stream, 400, &format!("Login refused: {why}")).await;
            return Some(Callback::Denied(why));
        }
        let code = param("code")?;
        let message = format!(
            "seekclaw is logged in to the MCP server '{}'. You can close this tab.",
            self.target.server
        );
        respond(&mut stream, 200, &message).await;
        Some(Callback::Code(code))
    }
}

enum Callback {
    Code(String),
    Denied(String),
}

/// The request target of an HTTP/1 request line (bounded read).
async fn read_request_target(stream: &mut TcpStream) -> Option<String> {
    let mut buf = Vec::with_capacity(1024);
    let mut chunk = [0u8; 1024];
    while !buf.windows(4).any(|w| w == b"\r\n\r\n") && buf.len() < 16 * 1024 {
        let n = tokio::time::timeout(Duration::from_secs(10), stream.read(&mut chunk))
            .await
            .ok()?
            .ok()?;
        if n == 0 {
            break;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    let text = String::from_utf8_lossy(&buf);
    let mut parts = text.lines().next()?.split_whitespace();
    let (method, target) = (parts.next()?, parts.next()?);
    (method == "GET" && target.starts_with('/')).then(|| target.to_string())
}

async fn respond(stream: &mut TcpStream, status: u16, text: &str) {
    let reason = match status {
        200 => "OK",
        404 => "Not Found",
        _ => "Bad Request",
    };
    let body = format!(
        "<!doctype html><meta charset=utf-8><title>seekclaw</title><p>{}</p>",
        html_escape(text)
    );
    let response = format!(
        "HTTP/1.1 {status} {reason}\r\ncontent-type: text/html; charset=utf-8\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = stream.write_all(response.as_bytes()).await;
    let _ = stream.shutdown().await;
}

fn html_escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// Opens `url` in the user's browser: `$BROWSER` (a command; `%s` is replaced
/// by the URL, else the URL is appended), else `open` on macOS, else `xdg-open`.
/// The caller prints the URL as well, for a user on another machine.
pub fn open_browser(url: &str) -> Result<(), String> {
    let browser = std::env::var("BROWSER")
        .ok()
        .filter(|b| !b.trim().is_empty());
    let (program, args) = match browser {
        Some(b) => {
            // $BROWSER may list alternatives separated by ':'; the first is used.
            let first = b.split(':').next().unwrap_or_default().to_string();
            let mut words = first.split_whitespace().map(str::to_string);
            let program = words.next().unwrap_or_default();
            let mut args: Vec<String> = words.collect();
            if args.iter().any(|a| a.contains("%s")) {
                args = args.into_iter().map(|a| a.replace("%s", url)).collect();
            } else {
                args.push(url.to_string());
            }
            (program, args)
        }
        None if cfg!(target_os = "macos") => ("open".to_string(), vec![url.to_string()]),
        None => ("xdg-open".to_string(), vec![url.to_string()]),
    };
    let mut child = tokio::process::Command::new(&program)
        .args(&args)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot start `{program}`: {e}"))?;
    // Reaped in the background; the browser's own exit status means nothing here.
    tokio::spawn(async move {
        let _ = child.wait().await;
    });
    Ok(())
}
