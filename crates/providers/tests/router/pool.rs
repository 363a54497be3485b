//! Connection reuse: many concurrent streams share a few h2c connections, and
//! plain HTTP/1.1 requests (whose connection the requesting task drives) share
//! keep-alive connections, including after HTTP errors, and replace the ones a
//! server closed.

use std::sync::Arc;
use std::time::Duration;

use seekclaw_config::Provider;
use seekclaw_providers::Providers;
use seekclaw_testkit::Reply;

use crate::support::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_hundred_concurrent_h2c_streams_share_few_connections() {
    let srv = server();
    // Paced so that the streams are all in flight together.
    srv.set_default(
        Reply::new()
            .text("one ")
            .text("two ")
            .text("three")
            .chunk_delay(Duration::from_millis(50)),
    );
    let mut p = provider("a", "openai", &srv, 0);
    p.http2_prior_knowledge = true;
    let cfg = Arc::new(config(vec![p]));
    let providers = Arc::new(Providers::new());
    let mut tasks = tokio::task::JoinSet::new();
    for _ in 0..200 {
        let (cfg, providers) = (cfg.clone(), providers.clone());
        tasks.spawn(async move {
            let mut rec = Recorder::default();
            let r = chat(&providers, &cfg, &mut rec).await;
            (r, rec.retries().len())
        });
    }
    let mut ok = 0;
    while let Some(joined) = tasks.join_next().await {
        let (result, retries) = joined.expect("task");
        let c = result.expect("chat");
        assert_eq!(c.text, "one two three");
        assert_eq!(retries, 0);
        ok += 1;
    }
    assert_eq!(ok, 200);
    let reqs = srv.requests();
    assert_eq!(reqs.len(), 200);
    assert!(reqs.iter().all(|r| r.version == "HTTP/2.0"));
    let conns = srv.connections();
    assert!((1..=32).contains(&conns), "{conns} connections");
}

// Multi-threaded: the connection is back in the pool before `chat` returns, so
// the very next request reuses it on whichever worker it runs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sequential_http1_requests_reuse_one_connection() {
    let srv = server();
    let cfg = config(vec![provider("a", "openai", &srv, 0)]);
    let providers = Providers::new();
    for i in 0..10 {
        srv.enqueue(Reply::plain(format!("answer {i}")));
        let c = chat(&providers, &cfg, &mut Recorder::default())
            .await
            .expect("chat");
        assert_eq!(c.text, format!("answer {i}"));
    }
    let reqs = srv.requests();
    assert_eq!(reqs.len(), 10);
    assert!(reqs.iter().all(|r| r.version == "HTTP/1.1"));
    let conns: Vec<usize> = reqs.iter().map(|r| r.connection).collect();
    assert_eq!(srv.connections(), 1, "keep-alive reuse: {conns:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_http_error_keeps_the_http1_connection() {
    let srv = server();
    let mut cfg = config(vec![provider("a", "openai", &srv, 0)]);
    cfg.routing.retry.max_attempts = 1;
    let providers = Providers::new();
    srv.enqueue(Reply::http_error(
        400,
        serde_json::json!({"error": {"message": "bad request body"}}),
        None,
    ));
    let err = expect_err(chat(&providers, &cfg, &mut Recorder::default()).await);
    assert!(err.to_string().contains("bad request body"), "{err}");
    srv.enqueue(Reply::plain("fine"));
    let c = chat(&providers, &cfg, &mut Recorder::default())
        .await
        .expect("chat");
    assert_eq!(c.text, "fine");
    assert_eq!(srv.connections(), 1, "the error body was read to its end");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_http1_streams_open_connections_that_later_turns_reuse() {
    let srv = server();
    srv.set_default(
        Reply::new()
            .text("a ")
            .text("b")
            .chunk_delay(Duration::from_millis(40)),
    );
    let cfg = Arc::new(config(vec![provider("a", "openai", &srv, 0)]));
    let providers = Arc::new(Providers::new());
    for round in 0..2 {
        let mut tasks = tokio::task::JoinSet::new();
        for _ in 0..8 {
            let (cfg, providers) = (cfg.clone(), providers.clone());
            tasks.spawn(async move { chat(&providers, &cfg, &mut Recorder::default()).await });
        }
        while let Some(joined) = tasks.join_next().await {
            assert_eq!(joined.expect("task").expect("chat").text, "a b");
        }
        // HTTP/1.1 carries one exchange per connection at a time.
        assert_eq!(srv.connections(), 8, "after round {round}");
    }
    assert_eq!(srv.requests().len(), 16);
}

/// A bare HTTP/1.1 server that answers every request with a complete SSE reply
/// and then closes the connection without saying so (no `Connection: close`),
/// as servers do when their keep-alive timeout passes.
fn closing_server(listener: std::net::TcpListener) -> std::thread::JoinHandle<usize> {
    use std::io::{BufRead, BufReader, Read, Write};
    std::thread::spawn(move || {
        let mut served = 0;
        for stream in listener.incoming() {
            let Ok(stream) = stream else { break };
            let mut reader = BufReader::new(stream);
            let mut length = 0;
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 {
                    break;
                }
                let lower = line.to_ascii_lowercase();
                if let Some(v) = lower.strip_prefix("content-length:") {
                    length = v.trim().parse().unwrap_or(0);
                }
                if line == "\r\n" {
                    break;
                }
            }
            let mut body = vec![0; length];
            if reader.read_exact(&mut body).is_err() {
                continue;
            }
            let sse = concat!(
                "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"still here\"}}]}\n\n",
                "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n",
                "data: [DONE]\n\n"
            );
            let head = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-length: {}\r\n\r\n",
                sse.len()
            );
            let mut stream = reader.into_inner();
            let _ = stream.write_all(head.as_bytes());
            let _ = stream.write_all(sse.as_bytes());
            served += 1;
            if served == 3 {
                break;
            }
            // Close only once the client has put the connection back in its pool.
            std::thread::sleep(std::time::Duration::from_millis(30));
        }
        served
    })
}

// Over an IPv6 literal (`http://[::1]:port`) as well, which the resolver must
// get without its brackets.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_keep_alive_connection_the_server_closed_is_replaced() {
    let listener = std::net::TcpListener::bind("[::1]:0").expect("bind [::1] (IPv6 loopback)");
    let port = listener.local_addr().expect("addr").port();
    let served = closing_server(listener);
    let mut p = Provider {
        id: "a".into(),
        kind: "openai".into(),
        base_url: format!("http://[::1]:{port}/v1"),
        api_key: Some(api_key("a")),
        models: vec![model("m")],
        ..Provider::default()
    };
    p.timeout_seconds = 10;
    let mut cfg = config(vec![p]);
    // Any failure must surface: no retry may hide a dead pooled connection.
    cfg.routing.retry.max_attempts = 1;
    let providers = Providers::new();
    for _ in 0..3 {
        let c = chat(&providers, &cfg, &mut Recorder::default())
            .await
            .expect("chat over a fresh connection");
        assert_eq!(c.text, "still here");
        // Long enough for the close to arrive, as after an idle timeout.
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(served.join().expect("server thread"), 3);
}
