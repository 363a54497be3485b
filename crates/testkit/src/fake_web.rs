//! A local HTTP/1.1 server with canned pages, for tools that reach the web
//! (`web_search`'s engines, `web_fetch`): tests never touch the internet.
//! Each route answers requests whose target (path and query) contains its
//! pattern; the first matching route wins; anything else is a 404. Every
//! request is recorded with its headers and body.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use anyhow::{Context, Result};

/// A canned answer.
#[derive(Debug, Clone)]
pub struct WebReply {
    /// HTTP status code.
    pub status: u16,
    /// `Content-Type`.
    pub content_type: String,
    /// The body.
    pub body: String,
    /// Extra headers (a `Location` for a redirect).
    pub headers: Vec<(String, String)>,
}

impl WebReply {
    /// `200 OK` with `text/html`.
    pub fn html(body: impl Into<String>) -> WebReply {
        WebReply::with(200, "text/html; charset=utf-8", body)
    }

    /// `200 OK` with `application/json`.
    pub fn json(body: &serde_json::Value) -> WebReply {
        WebReply::with(200, "application/json", body.to_string())
    }

    /// Any status, type and body.
    pub fn with(status: u16, content_type: &str, body: impl Into<String>) -> WebReply {
        WebReply {
            status,
            content_type: content_type.to_string(),
            body: body.into(),
            headers: Vec::new(),
        }
    }
}

/// One request as the server read it.
#[derive(Debug, Clone)]
pub struct WebRequest {
    /// `GET`, `POST`, …
    pub method: String,
    /// Path and query, as sent.
    pub target: String,
    /// Header lines, names lower-cased.
    pub headers: Vec<(String, String)>,
    /// The body, as text.
    pub body: String,
}

#[derive(Default)]
struct Shared {
    routes: Mutex<Vec<(String, WebReply)>>,
    requests: Mutex<Vec<WebRequest>>,
}

/// The running server; dropping it stops accepting.
pub struct FakeWeb {
    addr: SocketAddr,
    shared: Arc<Shared>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl FakeWeb {
    /// Binds 127.0.0.1 on an ephemeral port.
    pub fn start() -> Result<FakeWeb> {
        let listener = TcpListener::bind("127.0.0.1:0").context("bind 127.0.0.1:0")?;
        listener.set_nonblocking(true)?;
        let addr = listener.local_addr()?;
        let shared = Arc::new(Shared::default());
        let stop = Arc::new(AtomicBool::new(false));
        let (s, st) = (shared.clone(), stop.clone());
        let thread = std::thread::Builder::new()
            .name(format!("fake-web-{}", addr.port()))
            .spawn(move || accept_loop(listener, s, st))
            .context("spawn the fake web thread")?;
        Ok(FakeWeb {
            addr,
            shared,
            stop,
            thread: Some(thread),
        })
    }

    /// `http://127.0.0.1:PORT`.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Answers requests whose target contains `pattern` with `reply`
    /// (added after the existing routes).
    pub fn route(&self, pattern: &str, reply: WebReply) {
        if let Ok(mut routes) = self.shared.routes.lock() {
            routes.push((pattern.to_string(), reply));
        }
    }

    /// Every request so far.
    pub fn requests(&self) -> Vec<WebRequest> {
        self.shared
            .requests
            .lock()
            .map(|r| r.clone())
            .unwrap_or_default()
    }
}

impl Drop for FakeWeb {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn accept_loop(listener: TcpListener, shared: Arc<Shared>, stop: Arc<AtomicBool>) {
    while !stop.load(Ordering::SeqCst) {
        match listener.accept() {
            Ok((stream, _)) => {
                let shared = shared.clone();
                std::thread::spawn(move || {
                    let _ = serve(stream, &shared);
                });
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                std::thread::sleep(Duration::from_millis(5));
            }
            Err(_) => return,
        }
    }
}

/// Requests on one connection until the client closes it (keep-alive).
fn serve(stream: TcpStream, shared: &Shared) -> Result<()> {
    stream.set_nonblocking(false)?;
    stream.set_read_timeout(Some(Duration::from_secs(30)))?;
    let mut writer = stream.try_clone()?;
    let mut reader = BufReader::new(stream);
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 {
            return Ok(());
        }
        let mut parts = line.split_whitespace();
        let method = parts.next().unwrap_or_default().to_string();
        let target = parts.next().unwrap_or("/").to_string();
        let mut headers = Vec::new();
        loop {
            let mut h = String::new();
            if reader.read_line(&mut h)? == 0 || h.trim().is_empty() {
                break;
            }
            if let Some((k, v)) = h.split_once(':') {
                headers.push((k.trim().to_ascii_lowercase(), v.trim().to_string()));
            }
        }
        let length = headers
            .iter()
            .find(|(k, _)| k == "content-length")
            .and_then(|(_, v)| v.parse::<usize>().ok())
            .unwrap_or(0);
        let mut body = vec![0; length];
        reader.read_exact(&mut body)?;
        let reply = shared
            .routes
            .lock()
            .ok()
            .and_then(|routes| {
                routes
                    .iter()
                    .find(|(p, _)| target.contains(p.as_str()))
                    .map(|(_, r)| r.clone())
            })
            .unwrap_or_else(|| WebReply::with(404, "text/plain", "not found"));
        if let Ok(mut requests) = shared.requests.lock() {
            requests.push(WebRequest {
                method,
                target,
                headers,
                body: String::from_utf8_lossy(&body).into_owned(),
            });
        }
        let mut head = format!(
            "HTTP/1.1 {} X\r\nContent-Type: {}\r\nContent-Length: {}\r\n",
            reply.status,
            reply.content_type,
            reply.body.len()
        );
        for (k, v) in &reply.headers {
            head.push_str(&format!("{k}: {v}\r\n"));
        }
        head.push_str("\r\n");
        writer.write_all(head.as_bytes())?;
        writer.write_all(reply.body.as_bytes())?;
        writer.flush()?;
    }
}

/// Result pages shaped like the engines' own (the markup `web_search` reads),
/// for `(title, url, snippet)` results. Padded with the clutter real pages
/// carry (scripts, styles, navigation) to `pad_to` bytes when asked.
pub mod pages {
    fn esc(s: &str) -> String {
        s.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
            .replace('"', "&quot;")
    }

    fn padded(mut page: String, pad_to: usize) -> String {
        let mut i = 0;
        while page.len() < pad_to {
            page.push_str(&format!(
                "<div class=\"footer-nav\"><script>var x{i}={{a:{i},b:\"{}\"}};</script><style>.c{i}{{color:red}}</style><a href=\"/settings?{i}\">Settings {i}</a><span>Privacy · Terms · Advertising · About</span></div>\n",
                "z".repeat(40)
            ));
            i += 1;
        }
        page.push_str("</body></html>");
        page
    }

    /// Google's full results page (`div.g` blocks, `div.VwiC3b` snippets).
    pub fn google(hits: &[(&str, &str, &str)], pad_to: usize) -> String {
        let mut page = String::from(
            "<!DOCTYPE html><html><head><title>q - Google Search</title><style>.g{margin:0}</style></head><body><div id=\"search\">",
        );
        for (t, u, s) in hits {
            page.push_str(&format!(
                "<div class=\"MjjYud\"><div class=\"g\"><div><a href=\"{}\" data-ved=\"x\"><br><h3 class=\"LC20lb\">{}</h3><cite>{}</cite></a></div><div class=\"VwiC3b yXK7lf\"><span>{}</span></div></div></div>",
                esc(u),
                esc(t),
                esc(u),
                esc(s)
            ));
        }
        page.push_str("</div>");
        padded(page, pad_to)
    }

    /// Bing's results page (`li.b_algo`, `h2 > a`, `div.b_caption p`).
    pub fn bing(hits: &[(&str, &str, &str)], pad_to: usize) -> String {
        let mut page = String::from(
            "<!DOCTYPE html><html><head><title>q - Search</title></head><body><ol id=\"b_results\">",
        );
        for (t, u, s) in hits {
            page.push_str(&format!(
                "<li class=\"b_algo\"><div class=\"b_tpcn\"><a class=\"tilk\" href=\"{0}\">site</a></div><h2><a href=\"{0}\" h=\"ID=SERP\">{1}</a></h2><div class=\"b_caption\"><p class=\"b_lineclamp2\">{2}</p></div></li>",
                esc(u),
                esc(t),
                esc(s)
            ));
        }
        page.push_str("</ol>");
        padded(page, pad_to)
    }

    /// Baidu's results page (`div.result`, `h3 > a`, `.c-abstract`).
    pub fn baidu(hits: &[(&str, &str, &str)], pad_to: usize) -> String {
        let mut page = String::from(
            "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>q_百度搜索</title></head><body><div id=\"content_left\">",
        );
        for (t, u, s) in hits {
            page.push_str(&format!(
                "<div class=\"result c-container\"><h3 class=\"t\"><a href=\"{}\" target=\"_blank\">{}</a></h3><div class=\"c-abstract\">{}</div></div>",
                esc(u),
                esc(t),
                esc(s)
            ));
        }
        page.push_str("</div>");
        padded(page, pad_to)
    }

    /// Google's cookie-consent wall.
    pub fn google_consent() -> String {
        "<!DOCTYPE html><html><head><title>Before you continue to Google</title></head><body><form action=\"https://consent.google.com/save\" method=\"POST\"><button>Accept all</button></form></body></html>".to_string()
    }

    /// A SearXNG `format=json` answer.
    pub fn searxng(hits: &[(&str, &str, &str)]) -> serde_json::Value {
        let results: Vec<serde_json::Value> = hits
            .iter()
            .map(|(t, u, s)| serde_json::json!({"title": t, "url": u, "content": s, "engine": "fake"}))
            .collect();
        serde_json::json!({"query": "q", "number_of_results": results.len(), "results": results})
    }
}
