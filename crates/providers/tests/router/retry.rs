//! Retries before the first event, never after it; stream-idle and header timeouts.

use std::time::{Duration, Instant};

use seekclaw_providers::{ProviderError, Providers, StreamEvent};
use seekclaw_testkit::Reply;
use serde_json::json;

use crate::support::*;

fn err_body(msg: &str) -> serde_json::Value {
    json!({"error": {"message": msg, "type": "test_error"}})
}

#[tokio::test]
async fn a_500_is_retried_once_then_succeeds() {
    let srv = server();
    srv.enqueue(Reply::http_error(500, err_body("upstream hiccup"), None));
    srv.enqueue(Reply::plain("recovered"));
    let cfg = config(vec![provider("a", "openai", &srv, 0)]);
    let mut rec = Recorder::default();
    let c = chat(&Providers::new(), &cfg, &mut rec).await.expect("chat");
    assert_eq!(c.text, "recovered");
    assert_eq!(completions(&srv), 2);
    let retries = rec.retries();
    assert_eq!(retries.len(), 1, "{:?}", rec.seen);
    assert_eq!(retries[0].0, "a/m");
    assert!(
        matches!(&retries[0].1, ProviderError::Http { status: 500, message, .. } if message == "upstream hiccup")
    );
    // Jittered base delay: 0.01 s × [0.75, 1.25].
    assert!(
        retries[0].2 <= Duration::from_millis(13),
        "{:?}",
        retries[0].2
    );
    let attempts = rec.attempts();
    assert_eq!(
        attempts.iter().map(|a| a.success).collect::<Vec<_>>(),
        vec![false, true]
    );
    assert_eq!(
        rec.model_starts(),
        vec!["a/m"],
        "a retry is not a new model"
    );
}

#[tokio::test]
async fn a_429_with_retry_after_waits_what_the_server_asks() {
    let srv = server();
    srv.enqueue(Reply::http_error(429, err_body("slow down"), Some(1)));
    srv.enqueue(Reply::plain("after the wait"));
    let cfg = config(vec![provider("a", "openai", &srv, 0)]);
    let mut rec = Recorder::default();
    let started = Instant::now();
    let c = chat(&Providers::new(), &cfg, &mut rec).await.expect("chat");
    let elapsed = started.elapsed();
    assert_eq!(c.text, "after the wait");
    assert_eq!(completions(&srv), 2);
    // The configured backoff is 10 ms; only Retry-After explains a second.
    assert!(elapsed >= Duration::from_millis(950), "{elapsed:?}");
    let retries = rec.retries();
    assert_eq!(retries.len(), 1);
    assert_eq!(retries[0].2, Duration::from_secs(1));
    assert!(matches!(
        retries[0].1,
        ProviderError::Http {
            status: 429,
            retry_after: Some(d),
            ..
        } if d == Duration::from_secs(1)
    ));
}

#[tokio::test]
async fn client_errors_are_not_retried() {
    for (status, msg) in [(400, "messages: field required"), (401, "Invalid API key")] {
        let srv = server();
        srv.enqueue(Reply::http_error(status, err_body(msg), None));
        // A retry would get this and succeed: the test would notice.
        srv.set_default(Reply::plain("should not be asked"));
        let cfg = config(vec![provider("a", "openai", &srv, 0)]);
        let mut rec = Recorder::default();
        let err = expect_err(chat(&Providers::new(), &cfg, &mut rec).await);
        assert_eq!(err.to_string(), format!("a returned HTTP {status}: {msg}"));
        assert!(!err.is_retryable());
        assert_eq!(completions(&srv), 1, "HTTP {status}");
        assert!(rec.retries().is_empty());
        assert_eq!(rec.attempts().len(), 1);
    }
}

#[tokio::test]
async fn no_retry_after_the_first_event() {
    let srv = server();
    // Chunk 1 is the role-only chunk (no event); chunks 2 and 3 carry "a" and "b".
    srv.enqueue(
        Reply::new()
            .text("a")
            .text("b")
            .text("c")
            .finish("stop")
            .reset_after(3),
    );
    srv.set_default(Reply::plain("a spliced second answer"));
    let other = server();
    let cfg = config(vec![
        provider("a", "openai", &srv, 0),
        provider("b", "openai", &other, 1),
    ]);
    let mut rec = Recorder::default();
    let err = expect_err(chat(&Providers::new(), &cfg, &mut rec).await);
    assert!(
        matches!(&err, ProviderError::Stream { provider, .. } if provider == "a"),
        "{err:?}"
    );
    assert_eq!(completions(&srv), 1, "no retry");
    assert_eq!(completions(&other), 0, "no failover");
    assert_eq!(
        rec.events(),
        vec![
            StreamEvent::TextDelta("a".into()),
            StreamEvent::TextDelta("b".into())
        ]
    );
    assert!(rec.retries().is_empty());
    assert_eq!(rec.model_starts(), vec!["a/m"]);
}

fn slow_provider(srv: &seekclaw_testkit::ProviderServer) -> seekclaw_config::Provider {
    seekclaw_config::Provider {
        timeout_seconds: 1,
        ..provider("a", "openai", srv, 0)
    }
}

#[tokio::test]
async fn a_stalled_stream_times_out_as_stream_idle() {
    let srv = server();
    srv.set_default(Reply::plain("never completes").stall_after(1));
    let mut cfg = config(vec![slow_provider(&srv)]);
    cfg.routing.retry.max_attempts = 1;
    let mut rec = Recorder::default();
    let started = Instant::now();
    let err = expect_err(chat(&Providers::new(), &cfg, &mut rec).await);
    assert!(
        matches!(
            err,
            ProviderError::Timeout {
                phase: "stream idle",
                after,
                ..
            } if after == Duration::from_secs(1)
        ),
        "{err:?}"
    );
    assert!(err.to_string().contains("stream idle"), "{err}");
    assert!(started.elapsed() >= Duration::from_millis(950));
    assert!(rec.events().is_empty());
}

#[tokio::test]
async fn a_stall_before_any_event_is_retried() {
    let srv = server();
    srv.enqueue(Reply::plain("lost").stall_after(1));
    srv.enqueue(Reply::plain("second try"));
    let cfg = config(vec![slow_provider(&srv)]);
    let mut rec = Recorder::default();
    let c = chat(&Providers::new(), &cfg, &mut rec).await.expect("chat");
    assert_eq!(c.text, "second try");
    assert_eq!(completions(&srv), 2);
    let retries = rec.retries();
    assert_eq!(retries.len(), 1);
    assert!(matches!(
        retries[0].1,
        ProviderError::Timeout {
            phase: "stream idle",
            ..
        }
    ));
}

#[tokio::test]
async fn keepalive_comments_reset_the_idle_timer() {
    // Every chunk waits 1.5 s, longer than the 1 s idle timeout, but a comment
    // arrives every 200 ms meanwhile.
    let srv = server();
    srv.enqueue(
        Reply::plain("patience")
            .chunk_delay(Duration::from_millis(1500))
            .keepalive_comments(Duration::from_millis(200)),
    );
    let mut cfg = config(vec![slow_provider(&srv)]);
    cfg.routing.retry.max_attempts = 1;
    let mut rec = Recorder::default();
    let c = chat(&Providers::new(), &cfg, &mut rec)
        .await
        .expect("comments keep the stream alive");
    assert_eq!(c.text, "patience");
}

#[tokio::test]
async fn the_same_pause_without_comments_times_out() {
    let srv = server();
    srv.enqueue(Reply::plain("patience").chunk_delay(Duration::from_millis(1500)));
    let mut cfg = config(vec![slow_provider(&srv)]);
    cfg.routing.retry.max_attempts = 1;
    let mut rec = Recorder::default();
    let err = expect_err(chat(&Providers::new(), &cfg, &mut rec).await);
    assert!(
        matches!(
            err,
            ProviderError::Timeout {
                phase: "stream idle",
                ..
            }
        ),
        "{err:?}"
    );
}

#[tokio::test]
async fn slow_response_headers_time_out() {
    let srv = server();
    srv.set_default(Reply::plain("late").header_delay(Duration::from_secs(5)));
    let mut cfg = config(vec![slow_provider(&srv)]);
    cfg.routing.retry.max_attempts = 1;
    let mut rec = Recorder::default();
    let err = expect_err(chat(&Providers::new(), &cfg, &mut rec).await);
    assert!(
        matches!(
            err,
            ProviderError::Timeout {
                phase: "waiting for response headers",
                ..
            }
        ),
        "{err:?}"
    );
    assert!(err.is_retryable());
}
