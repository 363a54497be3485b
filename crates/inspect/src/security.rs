//! The guard in front of every route: the `Host` check (DNS rebinding), the
//! token (in the URL once, then an HttpOnly SameSite=Strict cookie), and the
//! headers every answer carries.

use axum::extract::{Request, State};
use axum::http::header::{self, HeaderMap, HeaderValue};
use axum::http::{StatusCode, Uri};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

/// The page's policy: its own script and style only, no inline code, no
/// network beyond this origin.
pub const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; \
                       img-src 'self' data:; connect-src 'self'; base-uri 'none'; \
                       form-action 'none'; frame-ancestors 'none'";

const COOKIE: &str = "seekclaw_inspect";

/// What the guard checks against.
#[derive(Clone, Debug)]
pub struct Guard {
    pub token: String,
    pub port: u16,
}

/// A fresh random token (two v4 UUIDs: 244 random bits).
pub fn new_token() -> String {
    format!(
        "{}{}",
        uuid::Uuid::new_v4().simple(),
        uuid::Uuid::new_v4().simple()
    )
}

/// Compares without stopping at the first difference (no timing oracle).
fn same(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

fn host_ok(headers: &HeaderMap, port: u16) -> bool {
    let Some(host) = headers.get(header::HOST).and_then(|h| h.to_str().ok()) else {
        return false;
    };
    host == format!("127.0.0.1:{port}") || host == format!("localhost:{port}")
}

fn query_token(uri: &Uri) -> Option<&str> {
    uri.query()?
        .split('&')
        .find_map(|pair| pair.strip_prefix("token="))
}

fn cookie_token(headers: &HeaderMap) -> Option<&str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .find_map(|c| c.trim().strip_prefix(COOKIE)?.strip_prefix('='))
}

fn forbidden(why: &'static str) -> Response {
    (StatusCode::FORBIDDEN, why).into_response()
}

/// The middleware: 403 unless the host and the token check out; the
/// security headers on every answer, the 403s included.
pub async fn guard(State(g): State<Guard>, req: Request, next: Next) -> Response {
    let mut resp = if !host_ok(req.headers(), g.port) {
        forbidden("forbidden: bad Host header\n")
    } else {
        let by_cookie = cookie_token(req.headers()).is_some_and(|t| same(t, &g.token));
        let by_query = query_token(req.uri()).is_some_and(|t| same(t, &g.token));
        if by_cookie || by_query {
            let mut resp = next.run(req).await;
            if by_query && !by_cookie {
                let cookie = format!("{COOKIE}={}; HttpOnly; SameSite=Strict; Path=/", g.token);
                if let Ok(v) = HeaderValue::from_str(&cookie) {
                    resp.headers_mut().insert(header::SET_COOKIE, v);
                }
            }
            resp
        } else {
            forbidden("forbidden: open the URL seekclaw inspect printed\n")
        }
    };
    let h = resp.headers_mut();
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CSP),
    );
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    resp
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_must_be_loopback_with_the_port() {
        let mut h = HeaderMap::new();
        assert!(!host_ok(&h, 8080));
        for (host, ok) in [
            ("127.0.0.1:8080", true),
            ("localhost:8080", true),
            ("127.0.0.1:8081", false),
            ("evil.example:8080", false),
            ("127.0.0.1", false),
        ] {
            h.insert(header::HOST, HeaderValue::from_static(host));
            assert_eq!(host_ok(&h, 8080), ok, "{host}");
        }
    }

    #[test]
    fn tokens_from_query_and_cookie() {
        let uri: Uri = "/api/x?a=1&token=abc".parse().unwrap();
        assert_eq!(query_token(&uri), Some("abc"));
        let mut h = HeaderMap::new();
        h.insert(
            header::COOKIE,
            HeaderValue::from_static("other=1; seekclaw_inspect=xyz"),
        );
        assert_eq!(cookie_token(&h), Some("xyz"));
        assert!(same("abc", "abc") && !same("abc", "abd") && !same("abc", "ab"));
        assert_eq!(new_token().len(), 64);
    }
}
