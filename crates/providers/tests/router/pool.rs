//! Connection reuse: many concurrent streams share a few h2c connections, and
//! sequential HTTP/1.1 requests share one keep-alive connection.

use std::sync::Arc;
use std::time::Duration;

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

// Single-threaded on purpose: hyper puts a finished HTTP/1.1 connection back into
// the pool from a task of its own, which on a multi-threaded runtime can lose the
// race against a request issued the very next instant (a second connection opens).
#[tokio::test]
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
