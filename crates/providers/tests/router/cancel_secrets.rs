//! Cancellation, and the API key staying out of every error text and debug dump.

use std::time::{Duration, Instant};

use seekclaw_providers::Target;
use seekclaw_providers::{ProviderError, Providers, StreamEvent, build_request};
use seekclaw_testkit::Reply;
use serde_json::json;
use tokio_util::sync::CancellationToken;

use crate::support::*;

#[tokio::test]
async fn cancel_mid_stream_returns_promptly() {
    let srv = server();
    // Role chunk and "first", then silence (the 120 s idle timeout is far away).
    srv.enqueue(Reply::plain("first").stall_after(2));
    let cfg = config(vec![provider("a", "openai", &srv, 0)]);
    let cancel = CancellationToken::new();
    let mut rec = Recorder {
        cancel_on_event: Some(cancel.clone()),
        ..Recorder::default()
    };
    let started = Instant::now();
    let err = expect_err(chat_with(&Providers::new(), &cfg, &mut rec, &cancel).await);
    assert_eq!(err, ProviderError::Cancelled);
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(rec.events(), vec![StreamEvent::TextDelta("first".into())]);
    assert_eq!(completions(&srv), 1, "a cancelled turn is not retried");
}

#[tokio::test]
async fn cancel_while_waiting_for_a_slow_chunk() {
    let srv = server();
    srv.enqueue(Reply::plain("late").chunk_delay(Duration::from_secs(30)));
    let cfg = config(vec![provider("a", "openai", &srv, 0)]);
    let cancel = CancellationToken::new();
    let trigger = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        trigger.cancel();
    });
    let started = Instant::now();
    let err =
        expect_err(chat_with(&Providers::new(), &cfg, &mut Recorder::default(), &cancel).await);
    assert_eq!(err, ProviderError::Cancelled);
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn cancel_during_a_retry_wait() {
    let srv = server();
    srv.enqueue(Reply::http_error(503, json!({"error": "busy"}), Some(30)));
    let cfg = config(vec![provider("a", "openai", &srv, 0)]);
    let cancel = CancellationToken::new();
    let trigger = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        trigger.cancel();
    });
    let started = Instant::now();
    let mut rec = Recorder::default();
    let err = expect_err(chat_with(&Providers::new(), &cfg, &mut rec, &cancel).await);
    assert_eq!(err, ProviderError::Cancelled);
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!(rec.retries().len(), 1);
    assert_eq!(completions(&srv), 1);
}

fn assert_no_key(what: &str, text: &str, key: &str) {
    assert!(!text.contains(key), "{what} leaks the key: {text}");
    // Nor a recognisable part of it.
    assert!(
        !text.contains("SECRET"),
        "{what} leaks part of the key: {text}"
    );
}

#[tokio::test]
async fn error_texts_never_contain_the_api_key() {
    let key = api_key("a");
    for (status, kind) in [(401, "openai"), (500, "openai"), (401, "anthropic")] {
        let srv = server();
        // Some gateways echo the credential they rejected.
        srv.set_default(Reply::http_error(
            status,
            json!({"error": {"message": format!("Invalid API key: {key} (Bearer {key})")}}),
            None,
        ));
        let mut cfg = config(vec![provider("a", kind, &srv, 0)]);
        cfg.routing.retry.max_attempts = 1;
        let mut rec = Recorder::default();
        let err = expect_err(chat(&Providers::new(), &cfg, &mut rec).await);
        assert!(matches!(err, ProviderError::Http { .. }), "{err:?}");
        // The server did get it: the test is not vacuous.
        let got = srv.requests();
        let sent = got[0]
            .header("authorization")
            .or(got[0].header("x-api-key"))
            .expect("auth header");
        assert!(sent.contains(&key));
        for text in [
            err.to_string(),
            format!("{err:?}"),
            format!("{:?}", rec.seen),
        ] {
            assert_no_key(&format!("HTTP {status} ({kind})"), &text, &key);
        }
        assert!(err.to_string().contains("Invalid API key"), "{err}");
    }
}

#[tokio::test]
async fn connect_failures_never_contain_the_api_key() {
    let key = api_key("a");
    let mut p = provider("a", "openai", &server(), 0);
    p.base_url = closed_port_url();
    let mut cfg = config(vec![p]);
    cfg.routing.retry.max_attempts = 2;
    let mut rec = Recorder::default();
    let err = expect_err(chat(&Providers::new(), &cfg, &mut rec).await);
    assert!(matches!(err, ProviderError::Connect { .. }), "{err:?}");
    assert_eq!(rec.retries().len(), 1, "connection errors are retried");
    for text in [
        err.to_string(),
        format!("{err:?}"),
        format!("{:?}", rec.seen),
    ] {
        assert_no_key("connect failure", &text, &key);
    }
}

#[test]
fn wire_request_debug_hides_the_key() {
    let srv = server();
    for kind in ["openai", "anthropic"] {
        let p = provider("a", kind, &srv, 0);
        let t = Target::new(&p, &p.models[0]);
        let wire = build_request(&t, &request("hi")).expect("build");
        let key = api_key("a");
        let shown = format!("{wire:?} {wire:#?}");
        assert_no_key(kind, &shown, &key);
        assert!(shown.contains("<redacted>"), "{shown}");
        let auth = wire
            .header("authorization")
            .or(wire.header("x-api-key"))
            .expect("auth header");
        assert!(auth.contains(&key));
    }
}
