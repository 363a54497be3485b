//! A minimal HTTP/1.1 client over a loopback `TcpStream` (one request per
//! connection, `Connection: close`): enough for the inspector's API, its SSE
//! tail and chromedriver, with nothing between the bench and the socket.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use anyhow::{Context, Result, bail};

/// A whole answer.
pub struct Answer {
    pub status: u16,
    pub body: Vec<u8>,
}

/// Sends one request; `body` goes with `Content-Type: application/json`.
pub fn request(
    port: u16,
    method: &str,
    path: &str,
    headers: &[String],
    body: Option<&str>,
) -> Result<Answer> {
    let s = open(port, method, path, headers, body)?;
    s.set_read_timeout(Some(Duration::from_secs(120)))?;
    let mut r = BufReader::new(s);
    let (status, chunked, length) = read_head(&mut r)?;
    let mut raw = Vec::new();
    if chunked {
        loop {
            let mut size = String::new();
            r.read_line(&mut size)?;
            let n = usize::from_str_radix(size.trim(), 16).context("chunk size")?;
            if n == 0 {
                break;
            }
            let mut chunk = vec![0; n + 2];
            r.read_exact(&mut chunk)?;
            raw.extend_from_slice(&chunk[..n]);
        }
    } else if let Some(n) = length {
        raw.resize(n, 0);
        r.read_exact(&mut raw)?;
    } else {
        r.read_to_end(&mut raw)?;
    }
    Ok(Answer { status, body: raw })
}

/// Sends a request and returns the stream after the answer's head (for a
/// stream of server-sent events).
pub fn stream(port: u16, path: &str, headers: &[String]) -> Result<BufReader<TcpStream>> {
    let s = open(port, "GET", path, headers, None)?;
    s.set_read_timeout(Some(Duration::from_secs(30)))?;
    let mut r = BufReader::new(s);
    let (status, _, _) = read_head(&mut r)?;
    if status != 200 {
        bail!("GET {path}: HTTP {status}");
    }
    Ok(r)
}

fn open(
    port: u16,
    method: &str,
    path: &str,
    headers: &[String],
    body: Option<&str>,
) -> Result<TcpStream> {
    let mut s = TcpStream::connect(("127.0.0.1", port)).context("connect")?;
    s.set_nodelay(true)?;
    let mut head =
        format!("{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n");
    for h in headers {
        head.push_str(h);
        head.push_str("\r\n");
    }
    let body = body.unwrap_or_default();
    if !body.is_empty() || method == "POST" {
        head.push_str(&format!(
            "Content-Type: application/json\r\nContent-Length: {}\r\n",
            body.len()
        ));
    }
    head.push_str("\r\n");
    head.push_str(body);
    s.write_all(head.as_bytes())?;
    Ok(s)
}

/// Status, chunked, content length.
fn read_head(r: &mut BufReader<TcpStream>) -> Result<(u16, bool, Option<usize>)> {
    let mut line = String::new();
    r.read_line(&mut line)?;
    let status: u16 = line
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .with_context(|| format!("bad status line {line:?}"))?;
    let (mut chunked, mut length) = (false, None);
    loop {
        let mut line = String::new();
        if r.read_line(&mut line)? == 0 {
            bail!("connection closed in the head");
        }
        let l = line.trim().to_ascii_lowercase();
        if l.is_empty() {
            return Ok((status, chunked, length));
        }
        chunked |= l == "transfer-encoding: chunked";
        if let Some(n) = l.strip_prefix("content-length:") {
            length = n.trim().parse().ok();
        }
    }
}
