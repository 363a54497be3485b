//! The relay baseline: the same SSE stream read straight from the testkit
//! server, from writing the request to the body's last byte. HTTP/1.1 with a
//! hand-written client on a blocking socket (the cheapest reader possible) and
//! h2c with hyper's client on one connection (the transport the daemon uses
//! with `http2PriorKnowledge`). Both keep their connection across runs, as the
//! daemon's pool does.

use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::client::conn::http2::SendRequest;
use hyper_util::rt::{TokioExecutor, TokioIo};

/// One streamed response read to its end.
pub struct Fetched {
    pub elapsed: Duration,
    /// Request → first body byte.
    pub head: Duration,
    pub body: Vec<u8>,
}

/// A kept-alive HTTP/1.1 connection.
pub struct H1Direct {
    writer: TcpStream,
    reader: BufReader<TcpStream>,
    host: String,
}

impl H1Direct {
    pub fn connect(addr: SocketAddr) -> Result<H1Direct> {
        let stream = TcpStream::connect(addr).with_context(|| format!("connect {addr}"))?;
        stream.set_nodelay(true)?;
        stream.set_read_timeout(Some(Duration::from_secs(60)))?;
        Ok(H1Direct {
            writer: stream.try_clone()?,
            reader: BufReader::with_capacity(64 * 1024, stream),
            host: addr.to_string(),
        })
    }

    /// POSTs `body` to `path` and reads the response body to its last byte.
    pub fn post(&mut self, path: &str, body: &[u8]) -> Result<Fetched> {
        let mut req = format!(
            "POST {path} HTTP/1.1\r\nhost: {}\r\ncontent-type: application/json\r\naccept: text/event-stream\r\ncontent-length: {}\r\n\r\n",
            self.host,
            body.len()
        )
        .into_bytes();
        req.extend_from_slice(body);
        let start = Instant::now();
        self.writer.write_all(&req)?;
        let (body, first_byte) = read_response(&mut self.reader)?;
        Ok(Fetched {
            elapsed: start.elapsed(),
            head: first_byte.unwrap_or_else(Instant::now) - start,
            body,
        })
    }
}

/// Reads one HTTP/1.1 response (status 200 required) and returns its body,
/// chunked or with a Content-Length, and when its first byte arrived.
fn read_response(reader: &mut impl BufRead) -> Result<(Vec<u8>, Option<Instant>)> {
    let mut line = Vec::new();
    read_crlf_line(reader, &mut line)?;
    let status = String::from_utf8_lossy(&line).into_owned();
    if status.split_whitespace().nth(1) != Some("200") {
        bail!("direct request failed: {}", status.trim_end());
    }
    let mut chunked = false;
    let mut length = None;
    loop {
        read_crlf_line(reader, &mut line)?;
        let header = String::from_utf8_lossy(&line).to_ascii_lowercase();
        let header = header.trim_end();
        if header.is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':') {
            match name.trim() {
                "transfer-encoding" => chunked = value.contains("chunked"),
                "content-length" => length = value.trim().parse::<usize>().ok(),
                _ => {}
            }
        }
    }
    let mut body = Vec::new();
    let mut first_byte = None;
    if chunked {
        loop {
            read_crlf_line(reader, &mut line)?;
            first_byte.get_or_insert_with(Instant::now);
            let text = String::from_utf8_lossy(&line);
            let size_text = text.trim_end().split(';').next().unwrap_or_default();
            let size = usize::from_str_radix(size_text.trim(), 16)
                .with_context(|| format!("bad chunk size line {text:?}"))?;
            if size == 0 {
                // Trailers (none expected) up to the blank line end the body.
                loop {
                    read_crlf_line(reader, &mut line)?;
                    if line.trim_ascii().is_empty() {
                        return Ok((body, first_byte));
                    }
                }
            }
            let at = body.len();
            body.resize(at + size, 0);
            reader.read_exact(body.get_mut(at..).context("chunk range")?)?;
            read_crlf_line(reader, &mut line)?;
        }
    }
    let length = length.context("response has neither chunked encoding nor a length")?;
    body.resize(length, 0);
    reader.read_exact(&mut body)?;
    Ok((body, Some(Instant::now())))
}

fn read_crlf_line(reader: &mut impl BufRead, line: &mut Vec<u8>) -> Result<()> {
    line.clear();
    if reader.read_until(b'\n', line)? == 0 {
        bail!("connection closed mid-response");
    }
    Ok(())
}

/// One h2c connection (prior knowledge) driven by hyper on a current-thread
/// runtime owned by this client.
pub struct H2Direct {
    rt: tokio::runtime::Runtime,
    sender: SendRequest<Full<Bytes>>,
    base_url: String,
}

impl H2Direct {
    pub fn connect(addr: SocketAddr) -> Result<H2Direct> {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .context("build the h2 client runtime")?;
        let sender = rt.block_on(async {
            let stream = tokio::net::TcpStream::connect(addr).await?;
            stream.set_nodelay(true)?;
            let (sender, conn) =
                hyper::client::conn::http2::handshake(TokioExecutor::new(), TokioIo::new(stream))
                    .await?;
            // The connection task runs whenever this runtime is driven (inside `post`).
            tokio::spawn(conn);
            anyhow::Ok(sender)
        })?;
        Ok(H2Direct {
            rt,
            sender,
            base_url: format!("http://{addr}"),
        })
    }

    /// POSTs `body` to `path` and reads the response body to its end.
    pub fn post(&mut self, path: &str, body: &[u8]) -> Result<Fetched> {
        let req = hyper::Request::post(format!("{}{path}", self.base_url))
            .header("content-type", "application/json")
            .header("accept", "text/event-stream")
            .body(Full::new(Bytes::copy_from_slice(body)))?;
        let sender = &mut self.sender;
        self.rt.block_on(async move {
            let start = Instant::now();
            sender.ready().await?;
            let res = sender.send_request(req).await?;
            if res.status() != hyper::StatusCode::OK {
                bail!("direct h2 request failed: {}", res.status());
            }
            let mut incoming = res.into_body();
            let mut out = Vec::new();
            let mut first_byte = None;
            while let Some(frame) = incoming.frame().await {
                if let Some(data) = frame?.data_ref() {
                    first_byte.get_or_insert_with(Instant::now);
                    out.extend_from_slice(data);
                }
            }
            Ok(Fetched {
                elapsed: start.elapsed(),
                head: first_byte.unwrap_or_else(Instant::now) - start,
                body: out,
            })
        })
    }
}

/// SSE `data:` events in a body (the `[DONE]` marker included).
pub fn sse_events(body: &[u8]) -> usize {
    body.split(|b| *b == b'\n')
        .filter(|l| l.starts_with(b"data:"))
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    use seekclaw_testkit::{ProviderServer, Reply};

    /// A minimal completion request (the testkit ignores the messages;
    /// `stream: true` asks for SSE).
    fn completion_body() -> Vec<u8> {
        br#"{"model":"m1","stream":true,"messages":[{"role":"user","content":"relay"}]}"#.to_vec()
    }

    fn reply(n: usize) -> Reply {
        (0..n).fold(Reply::new(), |r, i| r.text(format!("t{i} ")))
    }

    #[test]
    fn chunked_and_sized_bodies_are_read_to_the_end() {
        let chunked = b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n3\r\nabc\r\n2;x=1\r\nde\r\n0\r\n\r\nNEXT";
        let mut r = BufReader::new(&chunked[..]);
        let (body, first_byte) = read_response(&mut r).unwrap();
        assert_eq!(body, b"abcde");
        assert!(first_byte.is_some());
        let mut rest = String::new();
        r.read_to_string(&mut rest).unwrap();
        assert_eq!(rest, "NEXT", "nothing past the body was consumed");
        let sized = b"HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nwxyz";
        assert_eq!(
            read_response(&mut BufReader::new(&sized[..])).unwrap().0,
            b"wxyz"
        );
        let failed = b"HTTP/1.1 503 Busy\r\ncontent-length: 0\r\n\r\n";
        assert!(read_response(&mut BufReader::new(&failed[..])).is_err());
    }

    #[test]
    fn both_clients_read_the_testkit_stream_whole() {
        let server = ProviderServer::start().unwrap();
        server.set_default(reply(50));
        let expected = reply(50)
            .render_sse(seekclaw_testkit::Wire::OpenAi, "m1")
            .len();
        let mut h1 = H1Direct::connect(server.addr()).unwrap();
        let mut h2 = H2Direct::connect(server.addr()).unwrap();
        for _ in 0..2 {
            let a = h1.post("/chat/completions", &completion_body()).unwrap();
            assert_eq!(sse_events(&a.body), expected);
            assert!(a.body.ends_with(b"data: [DONE]\n\n"));
            let b = h2.post("/chat/completions", &completion_body()).unwrap();
            assert_eq!(sse_events(&b.body), expected);
            assert!(b.elapsed > Duration::ZERO);
        }
        assert_eq!(server.connections(), 2, "each client kept its connection");
        let versions: Vec<String> = server.requests().into_iter().map(|r| r.version).collect();
        assert_eq!(versions, ["HTTP/1.1", "HTTP/2.0", "HTTP/1.1", "HTTP/2.0"]);
    }
}
