//! `web_fetch`: GET a page and return it as readable text.

use std::time::Duration;

use schemars::JsonSchema;
use serde::Deserialize;

use super::html::html_to_text;
use super::{definition, impl_tool};
use crate::args::lenient_u64;
use crate::budget;
use crate::error::ToolError;
use crate::tool::{ToolContext, ToolDefinition, ToolFlags, ToolOutput};

const DEFAULT_MAX_CHARS: u64 = 10_000;
const TIMEOUT: Duration = Duration::from_secs(30);
/// Bytes read from a response at most; the rest of a huge page is not read.
const MAX_BODY_BYTES: usize = 5 * 1024 * 1024;
/// How much of an error page is shown.
const ERROR_BODY_CHARS: usize = 2000;

const DESCRIPTION: &str = "Fetch a web page (HTTP GET) and return its readable text: scripts, \
styles and tags removed, entities decoded. `https://` is added when the URL has no scheme. \
`max_chars` (500-50000, default 10000) bounds the text returned.";

const FLAGS: ToolFlags = ToolFlags {
    mutating: false,
    network: true,
    vision: false,
    display: false,
    parallel_safe: true,
};

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct WebFetchArgs {
    /// The URL to fetch.
    url: String,
    /// Maximum characters of page text to return, 500-50000. Default 10000.
    #[serde(default, deserialize_with = "lenient_u64")]
    max_chars: Option<u64>,
}

pub struct WebFetchTool {
    def: ToolDefinition,
}

impl WebFetchTool {
    pub fn new() -> Self {
        WebFetchTool {
            def: definition::<WebFetchArgs>("web_fetch", DESCRIPTION, FLAGS, "Fetching web page"),
        }
    }

    async fn run(&self, args: WebFetchArgs, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        if !ctx.network_enabled {
            return Err(ToolError::failed(
                "Network access is off for this session, so web_fetch cannot run.",
            ));
        }
        let url = normalize_url(&args.url)?;
        let max_chars = args
            .max_chars
            .unwrap_or(DEFAULT_MAX_CHARS)
            .clamp(500, 50_000) as usize;
        tokio::select! {
            result = fetch(url, max_chars.min(ctx.max_output_chars.max(500))) => result,
            _ = ctx.cancel.cancelled() => Err(ToolError::failed("Cancelled while fetching the page.")),
        }
    }
}

impl_tool!(WebFetchTool, WebFetchArgs);

/// Adds `https://` when there is no scheme; only http and https are fetched.
fn normalize_url(raw: &str) -> Result<reqwest::Url, ToolError> {
    let raw = raw.trim();
    let with_scheme = if raw.contains("://") {
        raw.to_string()
    } else {
        format!("https://{raw}")
    };
    let url = reqwest::Url::parse(&with_scheme)
        .map_err(|e| ToolError::failed(format!("Invalid URL '{raw}': {e}")))?;
    match url.scheme() {
        "http" | "https" => Ok(url),
        other => Err(ToolError::failed(format!(
            "Unsupported URL scheme '{other}': web_fetch fetches http and https only."
        ))),
    }
}

fn error_chain(err: &dyn std::error::Error) -> String {
    let mut text = err.to_string();
    let mut source = err.source();
    while let Some(inner) = source {
        let inner_text = inner.to_string();
        if !text.contains(&inner_text) {
            text.push_str(": ");
            text.push_str(&inner_text);
        }
        source = inner.source();
    }
    text
}

async fn fetch(url: reqwest::Url, max_chars: usize) -> Result<ToolOutput, ToolError> {
    // reqwest is built without a default TLS provider; the first install wins.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let client = reqwest::Client::builder()
        .timeout(TIMEOUT)
        .user_agent(concat!(
            "SeekClaw/",
            env!("CARGO_PKG_VERSION"),
            " (web_fetch)"
        ))
        .build()
        .map_err(|e| {
            ToolError::failed(format!("Cannot build the HTTP client: {}", error_chain(&e)))
        })?;
    let failed = |e: reqwest::Error| {
        ToolError::failed(format!("Fetching {url} failed: {}", error_chain(&e)))
    };
    let mut response = client
        .get(url.clone())
        .header(
            reqwest::header::ACCEPT,
            "text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.5",
        )
        .send()
        .await
        .map_err(failed)?;
    let status = response.status();
    let final_url = response.url().to_string();
    let content_type = response
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_ascii_lowercase();
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(failed)? {
        body.extend_from_slice(&chunk);
        if body.len() >= MAX_BODY_BYTES {
            body.truncate(MAX_BODY_BYTES);
            break;
        }
    }
    let raw = String::from_utf8_lossy(&body);
    let looks_html = content_type.contains("html")
        || (content_type.is_empty()
            && raw.trim_start().get(..15).is_some_and(|s| {
                s.to_ascii_lowercase().starts_with("<!doctype html")
                    || s.to_ascii_lowercase().starts_with("<html")
            }));
    let textual = looks_html
        || content_type.is_empty()
        || content_type.starts_with("text/")
        || ["json", "xml", "javascript", "yaml", "toml", "csv"]
            .iter()
            .any(|t| content_type.contains(t));
    if !textual {
        return Err(ToolError::failed(format!(
            "{final_url} returned {content_type} content ({} bytes), which web_fetch cannot show as text.",
            body.len()
        )));
    }
    let (title, text) = if looks_html {
        let page = html_to_text(&raw);
        (page.title, page.text)
    } else {
        (None, raw.trim().to_string())
    };
    if !status.is_success() {
        let excerpt = budget::truncate(&text, ERROR_BODY_CHARS, "page");
        return Err(ToolError::failed(format!(
            "HTTP {status} from {final_url}\n\n{excerpt}"
        )));
    }
    let mut content = format!("URL: {final_url}\n");
    if let Some(title) = &title {
        content.push_str(&format!("Title: {title}\n"));
    }
    content.push('\n');
    let room = max_chars.saturating_sub(content.chars().count()).max(200);
    let text_chars = text.chars().count();
    content.push_str(&budget::truncate(&text, room, "page"));
    Ok(ToolOutput::ok(
        content,
        format!("Fetched {final_url} ({text_chars} chars)"),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builtin::testing::ws;
    use crate::tool::Tool;
    use serde_json::json;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    /// A one-route HTTP/1.1 server: `/` is a page, `/big` a long page, anything else 404.
    async fn serve() -> String {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move {
            loop {
                let Ok((mut socket, _)) = listener.accept().await else {
                    return;
                };
                tokio::spawn(async move {
                    let mut buf = vec![0u8; 4096];
                    let n = socket.read(&mut buf).await.unwrap_or(0);
                    let request = String::from_utf8_lossy(&buf[..n]).to_string();
                    let path = request.split_whitespace().nth(1).unwrap_or("/").to_string();
                    let (status, ctype, body) = match path.as_str() {
                        "/" => (
                            "200 OK",
                            "text/html; charset=utf-8",
                            "<html><head><title>Local &amp; Test</title><script>alert(1)</script></head>\
                             <body><h1>Welcome</h1><p>Hello&nbsp;from <b>the</b> server.</p></body></html>"
                                .to_string(),
                        ),
                        "/big" => ("200 OK", "text/html", format!("<p>{}</p>", "word ".repeat(5000))),
                        "/data.json" => ("200 OK", "application/json", "{\"a\": 1}".to_string()),
                        "/img" => ("200 OK", "image/png", "\u{89}PNG".to_string()),
                        _ => ("404 Not Found", "text/html", "<h1>Nothing here</h1>".to_string()),
                    };
                    let response = format!(
                        "HTTP/1.1 {status}\r\nContent-Type: {ctype}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                        body.len()
                    );
                    let _ = socket.write_all(response.as_bytes()).await;
                    let _ = socket.shutdown().await;
                });
            }
        });
        format!("http://{addr}")
    }

    #[tokio::test]
    async fn fetches_a_page_as_text() {
        let w = ws();
        let base = serve().await;
        let out = w
            .call(&WebFetchTool::new(), json!({"url": format!("{base}/")}))
            .await;
        assert!(out.success, "{}", out.content);
        assert_eq!(
            out.content,
            format!("URL: {base}/\nTitle: Local & Test\n\nWelcome\n\nHello from the server.")
        );
        assert!(out.summary.starts_with(&format!("Fetched {base}/")));

        let out = w
            .call(
                &WebFetchTool::new(),
                json!({"url": format!("{base}/data.json")}),
            )
            .await;
        assert!(out.content.ends_with("\n\n{\"a\": 1}"));
    }

    #[tokio::test]
    async fn max_chars_errors_and_network_switch() {
        let w = ws();
        let base = serve().await;
        let out = w
            .call(
                &WebFetchTool::new(),
                json!({"url": format!("{base}/big"), "max_chars": 100}),
            )
            .await;
        assert!(out.success);
        assert!(
            out.content.chars().count() <= 520,
            "{}",
            out.content.chars().count()
        );
        assert!(out.content.contains("[page truncated: "));

        let out = w
            .call(
                &WebFetchTool::new(),
                json!({"url": format!("{base}/missing")}),
            )
            .await;
        assert!(!out.success);
        assert_eq!(
            out.content,
            format!("HTTP 404 Not Found from {base}/missing\n\nNothing here")
        );
        let out = w
            .call(&WebFetchTool::new(), json!({"url": format!("{base}/img")}))
            .await;
        assert!(out.content.contains("returned image/png content"));
        let out = w
            .call(&WebFetchTool::new(), json!({"url": "ftp://example.com/x"}))
            .await;
        assert!(out.content.starts_with("Unsupported URL scheme 'ftp'"));

        let mut offline = w.ctx.clone();
        offline.network_enabled = false;
        let out = WebFetchTool::new()
            .execute(json!({"url": format!("{base}/")}), &offline)
            .await;
        assert!(!out.success && out.content.starts_with("Network access is off"));
    }

    #[test]
    fn https_is_added_without_a_scheme() {
        assert_eq!(
            normalize_url("example.com/a?b=1").unwrap().as_str(),
            "https://example.com/a?b=1"
        );
        assert_eq!(
            normalize_url(" http://x.org ").unwrap().as_str(),
            "http://x.org/"
        );
        assert!(normalize_url("http://").is_err());
    }
}
