//! Failover between providers and the shared circuit breaker.

use std::time::Duration;

use seekclaw_providers::{ProviderError, Providers};
use seekclaw_testkit::{ProviderServer, Reply};
use serde_json::json;

use crate::support::*;

fn failing(msg: &str) -> ProviderServer {
    let srv = server();
    srv.set_default(Reply::http_error(
        500,
        json!({"error": {"message": msg}}),
        None,
    ));
    srv
}

fn healthy(text: &str) -> ProviderServer {
    let srv = server();
    srv.set_default(Reply::plain(text));
    srv
}

#[tokio::test]
async fn a_second_provider_answers_without_any_routing() {
    let (a, b) = (failing("boom-a"), healthy("from b"));
    let cfg = config(vec![
        provider("a", "openai", &a, 0),
        provider("b", "openai", &b, 1),
    ]);
    assert!(cfg.routing.strategies.is_empty() && cfg.routing.fallback.is_empty());
    let mut rec = Recorder::default();
    let c = chat(&Providers::new(), &cfg, &mut rec)
        .await
        .expect("b rescues");
    assert_eq!((c.model_ref().as_str(), c.text.as_str()), ("b/m", "from b"));
    assert_eq!(rec.model_starts(), vec!["a/m", "b/m"]);
    // a: every configured attempt failed; b: one success.
    assert_eq!(completions(&a), 3);
    assert_eq!(completions(&b), 1);
    let attempts: Vec<(String, bool)> = rec
        .attempts()
        .iter()
        .map(|r| (r.provider.clone(), r.success))
        .collect();
    assert_eq!(
        attempts,
        vec![
            ("a".into(), false),
            ("a".into(), false),
            ("a".into(), false),
            ("b".into(), true)
        ]
    );
}

#[tokio::test]
async fn failover_disabled_reports_the_first_candidate_only() {
    let (a, b) = (failing("boom-a"), healthy("from b"));
    let mut cfg = config(vec![
        provider("a", "openai", &a, 0),
        provider("b", "openai", &b, 1),
    ]);
    cfg.routing.failover_enabled = false;
    let mut rec = Recorder::default();
    let err = expect_err(chat(&Providers::new(), &cfg, &mut rec).await);
    assert_eq!(err.to_string(), "a returned HTTP 500: boom-a");
    assert_eq!(completions(&b), 0);
    assert_eq!(rec.model_starts(), vec!["a/m"]);
}

#[tokio::test]
async fn all_failing_candidates_are_listed() {
    let (a, b) = (failing("boom-a"), failing("boom-b"));
    let cfg = config(vec![
        provider("a", "openai", &a, 0),
        provider("b", "openai", &b, 1),
    ]);
    let mut rec = Recorder::default();
    let err = expect_err(chat(&Providers::new(), &cfg, &mut rec).await);
    assert!(matches!(&err, ProviderError::AllFailed(list) if list.len() == 2));
    assert_eq!(
        err.to_string(),
        "All candidate models failed after automatic failover (2 tried):\n\
         - a/m: a returned HTTP 500: boom-a\n\
         - b/m: b returned HTTP 500: boom-b"
    );
    assert_eq!(rec.model_starts(), vec!["a/m", "b/m"]);
}

#[tokio::test]
async fn an_auth_error_on_the_first_candidate_surfaces_directly() {
    let a = server();
    a.set_default(Reply::http_error(
        401,
        json!({"error": {"message": "Incorrect API key provided"}}),
        None,
    ));
    let b = healthy("from b");
    let cfg = config(vec![
        provider("a", "openai", &a, 0),
        provider("b", "openai", &b, 1),
    ]);
    let mut rec = Recorder::default();
    let err = expect_err(chat(&Providers::new(), &cfg, &mut rec).await);
    assert_eq!(
        err.to_string(),
        "a returned HTTP 401: Incorrect API key provided"
    );
    assert_eq!(completions(&a), 1);
    assert_eq!(completions(&b), 0, "no failover on a non-retryable error");
    assert_eq!(rec.model_starts(), vec!["a/m"]);
}

/// threshold 2, cooldown 0.3 s, one attempt per model so counts are exact.
fn breaker_config(a: &ProviderServer, b: &ProviderServer) -> seekclaw_config::Config {
    let mut cfg = config(vec![
        provider("a", "openai", a, 0),
        provider("b", "openai", b, 1),
    ]);
    cfg.routing.retry.max_attempts = 1;
    cfg.routing.retry.circuit_break_threshold = 2;
    cfg.routing.retry.circuit_cooldown_seconds = 0.3;
    cfg
}

#[tokio::test]
async fn the_breaker_skips_an_open_model_then_probes_after_cooldown() {
    let (a, b) = (failing("boom-a"), healthy("from b"));
    let cfg = breaker_config(&a, &b);
    let providers = Providers::new();

    for round in 1..=3 {
        let mut rec = Recorder::default();
        let c = chat(&providers, &cfg, &mut rec).await.expect("b answers");
        assert_eq!(c.model_ref(), "b/m", "round {round}");
        if round == 3 {
            assert_eq!(rec.model_starts(), vec!["b/m"], "a is open: skipped");
            // Skipped, not silently replaced: the move to b is announced.
            assert_eq!(
                rec.failovers(),
                vec![(
                    "a/m".to_string(),
                    "circuit open after repeated failures".to_string()
                )]
            );
        } else {
            assert_eq!(rec.model_starts(), vec!["a/m", "b/m"], "round {round}");
        }
    }
    assert_eq!(completions(&a), 2, "the third request skipped a");
    assert_eq!(completions(&b), 3);

    // Cooldown over: one probe goes to a; it fails and re-opens the circuit.
    tokio::time::sleep(Duration::from_millis(400)).await;
    let mut rec = Recorder::default();
    chat(&providers, &cfg, &mut rec).await.expect("b answers");
    assert_eq!(rec.model_starts(), vec!["a/m", "b/m"]);
    assert_eq!(completions(&a), 3);
    let mut rec = Recorder::default();
    chat(&providers, &cfg, &mut rec).await.expect("b answers");
    assert_eq!(
        rec.model_starts(),
        vec!["b/m"],
        "the failed probe re-opened"
    );
    assert_eq!(completions(&a), 3);

    // a recovers: the next probe succeeds and closes the circuit for good.
    a.set_default(Reply::plain("a is back"));
    tokio::time::sleep(Duration::from_millis(400)).await;
    for _ in 0..2 {
        let mut rec = Recorder::default();
        let c = chat(&providers, &cfg, &mut rec).await.expect("a answers");
        assert_eq!(
            (c.model_ref().as_str(), c.text.as_str()),
            ("a/m", "a is back")
        );
    }
    assert_eq!(completions(&a), 5);
}

#[tokio::test]
async fn a_cancelled_probe_does_not_wedge_the_breaker() {
    let (a, b) = (failing("boom-a"), healthy("from b"));
    let cfg = breaker_config(&a, &b);
    let providers = Providers::new();
    for _ in 0..2 {
        chat(&providers, &cfg, &mut Recorder::default())
            .await
            .expect("b answers");
    }
    assert_eq!(completions(&a), 2);

    // The half-open probe to a hangs and the turn is cancelled meanwhile.
    a.set_default(Reply::plain("slow").stall_after(1));
    tokio::time::sleep(Duration::from_millis(400)).await;
    let cancel = tokio_util::sync::CancellationToken::new();
    let canceller = {
        let cancel = cancel.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(300)).await;
            cancel.cancel();
        })
    };
    let err = expect_err(chat_with(&providers, &cfg, &mut Recorder::default(), &cancel).await);
    assert_eq!(err, ProviderError::Cancelled);
    canceller.await.expect("canceller");
    assert_eq!(completions(&a), 3);

    // The next request may probe a again; it must not be skipped forever.
    a.set_default(Reply::plain("a is back"));
    let mut rec = Recorder::default();
    let c = chat(&providers, &cfg, &mut rec).await.expect("chat");
    assert_eq!(c.model_ref(), "a/m", "{:?}", rec.model_starts());
}
