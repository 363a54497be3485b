//! End-to-end tests over real sockets: a hand-written HTTP/1.1 client that keeps
//! chunk boundaries visible, plus hyper's HTTP/2 client for multiplexing.

use std::io::{Read, Write};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::*;

#[derive(Debug, PartialEq)]
enum End {
    /// Terminating chunk (or full Content-Length) received.
    Clean,
    /// The connection closed before the body was complete.
    Aborted,
    /// Nothing more arrived before the deadline; the connection is still open.
    Timeout,
}

#[derive(Debug)]
struct RawResponse {
    status: u16,
    headers: Vec<(String, String)>,
    /// Chunked-encoding chunks as they came (or the whole Content-Length body).
    chunks: Vec<Vec<u8>>,
    end: End,
}

impl RawResponse {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    fn body(&self) -> String {
        String::from_utf8(self.chunks.concat()).unwrap()
    }

    fn json(&self) -> Value {
        serde_json::from_str(&self.body()).unwrap()
    }

    /// SSE events that carry data (comments dropped).
    fn events(&self) -> Vec<String> {
        self.body()
            .split("\n\n")
            .filter(|e| !e.is_empty() && !e.starts_with(':'))
            .map(str::to_string)
            .collect()
    }

    fn data(&self) -> Vec<Value> {
        self.events()
            .iter()
            .filter_map(|e| e.lines().find_map(|l| l.strip_prefix("data: ")))
            .filter(|d| *d != "[DONE]")
            .map(|d| serde_json::from_str(d).unwrap())
            .collect()
    }
}

/// A raw HTTP/1.1 connection.
struct RawConn {
    stream: TcpStream,
    buf: Vec<u8>,
}

impl RawConn {
    async fn connect(server: &ProviderServer) -> RawConn {
        RawConn {
            stream: TcpStream::connect(server.addr()).await.unwrap(),
            buf: Vec::new(),
        }
    }

    async fn send(
        &mut self,
        method: &str,
        path: &str,
        body: Option<&Value>,
        extra: &[(&str, &str)],
    ) {
        let body = body.map(|b| b.to_string()).unwrap_or_default();
        let mut req = format!("{method} {path} HTTP/1.1\r\nhost: 127.0.0.1\r\n");
        for (k, v) in extra {
            req.push_str(&format!("{k}: {v}\r\n"));
        }
        if !body.is_empty() {
            req.push_str("content-type: application/json\r\n");
        }
        req.push_str(&format!("content-length: {}\r\n\r\n{body}", body.len()));
        self.stream.write_all(req.as_bytes()).await.unwrap();
    }

    async fn post(&mut self, path: &str, body: Value) -> RawResponse {
        self.send("POST", path, Some(&body), &[]).await;
        self.read_response(Duration::from_secs(10)).await
    }

    /// Reads more bytes; `None` on EOF, `Err(())` at the deadline.
    async fn fill(&mut self, deadline: Instant) -> Result<Option<()>, ()> {
        let mut tmp = [0u8; 4096];
        let left = deadline.saturating_duration_since(Instant::now());
        match tokio::time::timeout(left, self.stream.read(&mut tmp)).await {
            Err(_) => Err(()),
            Ok(Ok(0)) | Ok(Err(_)) => Ok(None),
            Ok(Ok(n)) => {
                self.buf.extend_from_slice(&tmp[..n]);
                Ok(Some(()))
            }
        }
    }

    /// Takes `n` bytes, or the reason they did not come.
    async fn take(&mut self, n: usize, deadline: Instant) -> Result<Vec<u8>, End> {
        while self.buf.len() < n {
            match self.fill(deadline).await {
                Err(()) => return Err(End::Timeout),
                Ok(None) => return Err(End::Aborted),
                Ok(Some(())) => {}
            }
        }
        Ok(self.buf.drain(..n).collect())
    }

    async fn line(&mut self, deadline: Instant) -> Result<String, End> {
        loop {
            if let Some(pos) = self.buf.windows(2).position(|w| w == b"\r\n") {
                let line: Vec<u8> = self.buf.drain(..pos + 2).collect();
                return Ok(String::from_utf8_lossy(&line[..pos]).into_owned());
            }
            match self.fill(deadline).await {
                Err(()) => return Err(End::Timeout),
                Ok(None) => return Err(End::Aborted),
                Ok(Some(())) => {}
            }
        }
    }

    async fn read_response(&mut self, within: Duration) -> RawResponse {
        let deadline = Instant::now() + within;
        let status_line = self.line(deadline).await.expect("status line");
        let status = status_line.split(' ').nth(1).unwrap().parse().unwrap();
        let mut headers = Vec::new();
        loop {
            let l = self.line(deadline).await.expect("header line");
            if l.is_empty() {
                break;
            }
            let (k, v) = l.split_once(':').unwrap();
            headers.push((k.trim().to_lowercase(), v.trim().to_string()));
        }
        let mut res = RawResponse {
            status,
            headers,
            chunks: Vec::new(),
            end: End::Clean,
        };
        if let Some(len) = res.header("content-length") {
            let len: usize = len.parse().unwrap();
            match self.take(len, deadline).await {
                Ok(b) => res.chunks.push(b),
                Err(e) => res.end = e,
            }
            return res;
        }
        assert_eq!(res.header("transfer-encoding"), Some("chunked"));
        loop {
            let size = match self.line(deadline).await {
                Ok(l) => usize::from_str_radix(l.trim(), 16).unwrap(),
                Err(e) => {
                    res.end = e;
                    return res;
                }
            };
            match self.take(size + 2, deadline).await {
                Ok(mut b) => {
                    b.truncate(size);
                    if size == 0 {
                        return res;
                    }
                    res.chunks.push(b);
                }
                Err(e) => {
                    res.end = e;
                    return res;
                }
            }
        }
    }
}

fn stream_req(model: &str) -> Value {
    json!({"model": model, "stream": true, "messages": [{"role": "user", "content": "hi"}]})
}

#[tokio::test]
async fn openai_text_stream_one_event_per_chunk() {
    let server = ProviderServer::start().unwrap();
    server.enqueue(Reply::new().text("Hello").text(" wörld").usage(10, 3, 2));
    let mut c = RawConn::connect(&server).await;
    let res = c
        .post("/v1/chat/completions", stream_req("deepseek-chat"))
        .await;
    assert_eq!(res.status, 200);
    assert_eq!(res.header("content-type"), Some("text/event-stream"));
    assert_eq!(res.end, End::Clean);
    for ch in &res.chunks {
        let text = std::str::from_utf8(ch).unwrap();
        assert!(
            text.ends_with("\n\n") && text.matches("data: ").count() == 1,
            "{text:?}"
        );
    }
    assert_eq!(res.chunks.last().unwrap(), b"data: [DONE]\n\n");
    let data = res.data();
    let text: String = data
        .iter()
        .filter_map(|d| d["choices"][0]["delta"]["content"].as_str())
        .collect();
    assert_eq!(text, "Hello wörld");
    assert_eq!(data[0]["model"], "deepseek-chat");
    assert_eq!(data[0]["id"], "chatcmpl-testkit-1");
    let finish: Vec<&Value> = data
        .iter()
        .map(|d| &d["choices"][0]["finish_reason"])
        .filter(|f| !f.is_null())
        .collect();
    assert_eq!(finish, vec!["stop"]);
    let usage = &data.last().unwrap()["usage"];
    assert_eq!(usage["prompt_tokens_details"]["cached_tokens"], 3);
}

#[tokio::test]
async fn a_text_flood_streams_its_copies_after_the_opening_chunk_and_is_counted() {
    let server = ProviderServer::start().unwrap();
    server.enqueue(Reply::new().text_flood("ab", 500).text("!"));
    let mut c = RawConn::connect(&server).await;
    let res = c.post("/v1/chat/completions", stream_req("m")).await;
    assert_eq!(res.end, End::Clean);
    let data = res.data();
    assert_eq!(data[0]["choices"][0]["delta"]["role"], "assistant");
    let text: String = data
        .iter()
        .filter_map(|d| d["choices"][0]["delta"]["content"].as_str())
        .collect();
    assert_eq!(text, format!("{}!", "ab".repeat(500)));
    let body = res.chunks.iter().map(Vec::len).sum::<usize>();
    assert_eq!(server.body_bytes_sent(), body as u64);
}

#[tokio::test]
async fn anthropic_tool_call_split_across_chunks() {
    let server = ProviderServer::start().unwrap();
    let args = r#"{"path":"src/lib.rs","content":"ünïcode"}"#;
    server.enqueue(
        Reply::new()
            .reasoning("plan")
            .tool_call("toolu_1", "write_file", args)
            .usage(50, 20, 7),
    );
    let mut c = RawConn::connect(&server).await;
    let res = c.post("/v1/messages", stream_req("claude-x")).await;
    assert_eq!(res.end, End::Clean);
    let events = res.events();
    assert_eq!(events.len(), res.chunks.len(), "one event per chunk");
    assert!(events[0].starts_with("event: message_start\n"));
    assert!(events.last().unwrap().starts_with("event: message_stop\n"));
    let data = res.data();
    let start = data
        .iter()
        .find(|d| d["content_block"]["type"] == "tool_use")
        .unwrap();
    assert_eq!(start["content_block"]["name"], "write_file");
    let pieces: Vec<&str> = data
        .iter()
        .filter(|d| d["delta"]["type"] == "input_json_delta")
        .map(|d| d["delta"]["partial_json"].as_str().unwrap())
        .collect();
    assert!(pieces.len() >= 3, "{pieces:?}");
    assert_eq!(pieces.concat(), args);
    assert!(data.iter().any(|d| d["delta"]["type"] == "signature_delta"));
    let md = data.iter().find(|d| d["type"] == "message_delta").unwrap();
    assert_eq!(md["delta"]["stop_reason"], "tool_use");
    assert_eq!(md["usage"]["output_tokens"], 7);
    assert_eq!(data[0]["message"]["usage"]["cache_read_input_tokens"], 20);
}

#[tokio::test]
async fn status_with_retry_after_then_keep_alive() {
    let server = ProviderServer::start().unwrap();
    let err = json!({"error": {"message": "slow down", "type": "rate_limit"}});
    server.enqueue(Reply::http_error(429, err.clone(), Some(3)));
    server.enqueue(Reply::http_error(
        502,
        json!("<html>bad gateway</html>"),
        None,
    ));
    let mut c = RawConn::connect(&server).await;
    let res = c.post("/chat/completions", stream_req("m")).await;
    assert_eq!(res.status, 429);
    assert_eq!(res.header("retry-after"), Some("3"));
    assert_eq!(res.json(), err);
    let res = c.post("/chat/completions", stream_req("m")).await;
    assert_eq!(res.status, 502);
    assert_eq!(res.body(), "<html>bad gateway</html>");
    assert!(
        res.header("content-type")
            .unwrap()
            .starts_with("text/plain")
    );
    let res = c.post("/chat/completions", stream_req("m")).await;
    assert_eq!(res.status, 200);
    assert_eq!(server.connections(), 1);
}

#[tokio::test]
async fn reset_after_aborts_the_body() {
    let server = ProviderServer::start().unwrap();
    server.enqueue(Reply::new().text("a").text("b").text("c").reset_after(2));
    let mut c = RawConn::connect(&server).await;
    let res = c.post("/v1/chat/completions", stream_req("m")).await;
    assert_eq!(res.status, 200);
    assert_eq!(res.end, End::Aborted);
    assert_eq!(res.chunks.len(), 2);
}

#[tokio::test]
async fn stall_keeps_connection_open_with_pings_until_drop() {
    let server = ProviderServer::start().unwrap();
    server.enqueue(
        Reply::plain("never finished")
            .stall_after(1)
            .keepalive_comments(Duration::from_millis(40)),
    );
    let mut c = RawConn::connect(&server).await;
    c.send("POST", "/v1/messages", Some(&stream_req("m")), &[])
        .await;
    let res = c.read_response(Duration::from_millis(400)).await;
    assert_eq!(res.end, End::Timeout);
    assert_eq!(res.events().len(), 1);
    let pings = res
        .chunks
        .iter()
        .filter(|c| c.as_slice() == b": ping\n\n")
        .count();
    assert!(pings >= 3, "{pings}");
    assert_eq!(server.open_connections(), 1);
    // Dropping the server closes the stalled connection.
    drop(server);
    let mut rest = Vec::new();
    let closed =
        tokio::time::timeout(Duration::from_secs(5), c.stream.read_to_end(&mut rest)).await;
    assert!(closed.is_ok(), "connection still open after drop");
}

#[tokio::test]
async fn keep_alive_counts_one_connection() {
    let server = ProviderServer::start().unwrap();
    let mut c = RawConn::connect(&server).await;
    for _ in 0..3 {
        let res = c.post("/v1/chat/completions", stream_req("m")).await;
        assert_eq!(res.end, End::Clean);
    }
    assert_eq!(server.connections(), 1);
    let mut c2 = RawConn::connect(&server).await;
    c2.post("/v1/messages", stream_req("m")).await;
    assert_eq!(server.connections(), 2);
    let conns: Vec<usize> = server.requests().iter().map(|r| r.connection).collect();
    assert_eq!(conns, vec![1, 1, 1, 2]);
}

#[tokio::test]
async fn requests_are_recorded_with_lowercase_headers() {
    let server = ProviderServer::start().unwrap();
    let mut c = RawConn::connect(&server).await;
    let body = stream_req("gpt");
    c.send(
        "POST",
        "/v1/chat/completions?x=1",
        Some(&body),
        &[("Authorization", "Bearer sk-test"), ("X-Custom", "v")],
    )
    .await;
    c.read_response(Duration::from_secs(5)).await;
    c.send("GET", "/v1/models", None, &[]).await;
    let models = c.read_response(Duration::from_secs(5)).await;
    assert_eq!(models.json()["data"][0]["id"], "testkit-model");
    c.send("POST", "/v1/v1/messages", Some(&body), &[]).await;
    let nf = c.read_response(Duration::from_secs(5)).await;
    assert_eq!(nf.status, 404);

    let reqs = server.requests();
    assert_eq!(reqs.len(), 3);
    let r = &reqs[0];
    assert_eq!(
        (r.method.as_str(), r.path.as_str()),
        ("POST", "/v1/chat/completions")
    );
    assert_eq!(r.query.as_deref(), Some("x=1"));
    assert_eq!(r.version, "HTTP/1.1");
    assert_eq!(r.body, body);
    assert!(r.is_stream());
    assert_eq!(r.header("authorization"), Some("Bearer sk-test"));
    assert!(r.headers.iter().any(|(k, v)| k == "x-custom" && v == "v"));
    assert_eq!(reqs[1].method, "GET");
    assert_eq!(reqs[1].body, Value::Null);
    assert_eq!(reqs[2].path, "/v1/v1/messages");
    assert_eq!(server.pending(), 0);
}

#[tokio::test]
async fn non_stream_json_for_both_wires() {
    let server = ProviderServer::start().unwrap();
    let script = Reply::new().reasoning("why").text("answer").usage(9, 1, 4);
    server.enqueue(script.clone());
    server.enqueue(script);
    let mut c = RawConn::connect(&server).await;
    let req = json!({"model": "m", "stream": false, "messages": []});
    let res = c.post("/chat/completions", req.clone()).await;
    assert_eq!(res.header("content-type"), Some("application/json"));
    assert!(res.header("content-length").is_some());
    let v = res.json();
    assert_eq!(v["object"], "chat.completion");
    assert_eq!(v["choices"][0]["message"]["content"], "answer");
    assert_eq!(v["choices"][0]["message"]["reasoning_content"], "why");
    assert_eq!(v["usage"]["prompt_tokens"], 9);
    let res = c.post("/v1/messages", req).await;
    let v = res.json();
    assert_eq!(v["type"], "message");
    assert_eq!(v["content"][1], json!({"type": "text", "text": "answer"}));
    assert_eq!(v["usage"]["input_tokens"], 8);
}

#[tokio::test]
async fn forced_modes_and_wire() {
    let server = ProviderServer::start().unwrap();
    // A gateway that streams although stream:false was asked.
    server.enqueue(Reply::plain("x").mode(BodyMode::Sse));
    server.enqueue(Reply::plain("y").wire(Wire::Anthropic).mode(BodyMode::Json));
    let mut c = RawConn::connect(&server).await;
    let res = c
        .post("/chat/completions", json!({"model": "m", "stream": false}))
        .await;
    assert_eq!(res.header("content-type"), Some("text/event-stream"));
    assert!(res.body().ends_with("data: [DONE]\n\n"));
    let res = c.post("/chat/completions", stream_req("m")).await;
    assert_eq!(res.json()["content"][0]["text"], "y");
}

#[tokio::test]
async fn queue_is_fifo_then_default() {
    let server = ProviderServer::start().unwrap();
    server.enqueue(Reply::plain("first"));
    server.enqueue(Reply::plain("second"));
    let mut c = RawConn::connect(&server).await;
    let req = json!({"model": "m"});
    let mut texts = Vec::new();
    for _ in 0..3 {
        let v = c.post("/chat/completions", req.clone()).await.json();
        texts.push(
            v["choices"][0]["message"]["content"]
                .as_str()
                .unwrap()
                .to_string(),
        );
    }
    server.set_default(Reply::plain("new default"));
    let v = c.post("/chat/completions", req).await.json();
    texts.push(
        v["choices"][0]["message"]["content"]
            .as_str()
            .unwrap()
            .to_string(),
    );
    assert_eq!(texts, ["first", "second", "ok", "new default"]);
}

#[tokio::test]
async fn split_utf8_cuts_characters_across_writes() {
    let server = ProviderServer::start().unwrap();
    server.enqueue(Reply::plain("héllo 世界").split_utf8());
    let mut c = RawConn::connect(&server).await;
    let res = c.post("/v1/messages", stream_req("m")).await;
    assert_eq!(res.end, End::Clean);
    assert!(res.chunks.iter().any(|ch| std::str::from_utf8(ch).is_err()));
    let text: String = res
        .data()
        .iter()
        .filter_map(|d| d["delta"]["text"].as_str())
        .collect();
    assert_eq!(text, "héllo 世界");
}

#[tokio::test]
async fn delays_and_keepalive_comments() {
    let server = ProviderServer::start().unwrap();
    server.enqueue(
        Reply::plain("slow")
            .header_delay(Duration::from_millis(150))
            .chunk_delay(Duration::from_millis(60))
            .keepalive_comments(Duration::from_millis(25))
            .header("x-request-id", "abc"),
    );
    let mut c = RawConn::connect(&server).await;
    let t0 = Instant::now();
    c.send("POST", "/chat/completions", Some(&stream_req("m")), &[])
        .await;
    let res = c.read_response(Duration::from_secs(10)).await;
    assert_eq!(res.end, End::Clean);
    assert_eq!(res.header("x-request-id"), Some("abc"));
    // role + text + finish + [DONE] = 4 events, each after 60 ms.
    assert_eq!(res.events().len(), 4);
    assert!(t0.elapsed() >= Duration::from_millis(150 + 4 * 60));
    let pings = res
        .chunks
        .iter()
        .filter(|c| c.starts_with(b": ping"))
        .count();
    assert!(pings >= 4, "{pings}");
}

#[tokio::test]
async fn http2_multiplexes_streams_on_one_connection() {
    use http_body_util::{BodyExt, Full};
    use hyper::Request;

    let server = ProviderServer::start().unwrap();
    let tcp = TcpStream::connect(server.addr()).await.unwrap();
    let (sender, conn) =
        hyper::client::conn::http2::handshake(TokioExecutor::new(), TokioIo::new(tcp))
            .await
            .unwrap();
    tokio::spawn(conn);
    let mut tasks = Vec::new();
    for i in 0..20 {
        let mut sender = sender.clone();
        let uri = format!("{}/v1/chat/completions", server.base_url());
        tasks.push(tokio::spawn(async move {
            let req = Request::post(uri)
                .body(Full::new(bytes::Bytes::from(
                    stream_req(&format!("m{i}")).to_string(),
                )))
                .unwrap();
            let res = sender.send_request(req).await.unwrap();
            let body = res.into_body().collect().await.unwrap().to_bytes();
            String::from_utf8(body.to_vec()).unwrap()
        }));
    }
    for t in tasks {
        assert!(t.await.unwrap().ends_with("data: [DONE]\n\n"));
    }
    assert_eq!(server.connections(), 1);
    let reqs = server.requests();
    assert_eq!(reqs.len(), 20);
    assert!(reqs.iter().all(|r| r.version == "HTTP/2.0"));
}

#[test]
fn usable_from_blocking_tests() {
    let server = ProviderServer::start().unwrap();
    server.enqueue(Reply::plain("sync"));
    let addr = server.addr();
    let client = std::thread::spawn(move || {
        let mut s = std::net::TcpStream::connect(addr).unwrap();
        let body = r#"{"model":"m"}"#;
        write!(
            s,
            "POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\nconnection: close\r\ncontent-length: {}\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        let mut out = String::new();
        s.read_to_string(&mut out).unwrap();
        out
    });
    let reqs = server.wait_requests(1, Duration::from_secs(10)).unwrap();
    assert_eq!(reqs[0].body["model"], "m");
    let out = client.join().unwrap();
    assert!(out.starts_with("HTTP/1.1 200"), "{out}");
    assert!(out.contains(r#""content":"sync""#), "{out}");
    assert!(server.wait_requests(2, Duration::from_millis(50)).is_err());
}

/// What a hyper-based client (reqwest's engine) sees on `reset_after`: an error
/// while reading the body, over HTTP/1.1 and HTTP/2 alike.
#[tokio::test]
async fn reset_after_is_a_body_error_for_hyper_clients() {
    use http_body_util::{BodyExt, Full};
    use hyper::Request;

    let server = ProviderServer::start().unwrap();
    server.set_default(Reply::plain("abcdef").reset_after(2));
    let uri = format!("{}/v1/messages", server.base_url());
    let body = || Full::new(bytes::Bytes::from(stream_req("m").to_string()));

    let tcp = TcpStream::connect(server.addr()).await.unwrap();
    let (mut h1, conn) = hyper::client::conn::http1::handshake(TokioIo::new(tcp))
        .await
        .unwrap();
    tokio::spawn(conn);
    let res = h1
        .send_request(Request::post(uri.as_str()).body(body()).unwrap())
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    assert!(res.into_body().collect().await.is_err());

    let tcp = TcpStream::connect(server.addr()).await.unwrap();
    let (mut h2, conn) =
        hyper::client::conn::http2::handshake(TokioExecutor::new(), TokioIo::new(tcp))
            .await
            .unwrap();
    tokio::spawn(conn);
    let res = h2
        .send_request(Request::post(uri.as_str()).body(body()).unwrap())
        .await
        .unwrap();
    assert!(res.into_body().collect().await.is_err());
}
