//! Whole answers through the real stack: the Completion and the Observer's view.

use seekclaw_providers::{FinishReason, Providers, StreamEvent, Thinking, TokenUsage, ToolCall};
use seekclaw_testkit::Reply;

use crate::support::*;

/// The argument pieces the testkit sends for `args` cut every `n` characters.
fn pieces(args: &str, n: usize) -> Vec<StreamEvent> {
    let chars: Vec<char> = args.chars().collect();
    chars
        .chunks(n)
        .map(|c| StreamEvent::ToolCallArgsDelta {
            index: 0,
            delta: c.iter().collect(),
        })
        .collect()
}

const ARGS: &str = r#"{"path":"src/main.rs","limit":20}"#;

fn tool_call() -> ToolCall {
    ToolCall {
        id: "call_1".into(),
        name: "read_file".into(),
        arguments: ARGS.into(),
    }
}

#[tokio::test]
async fn openai_stream_assembles_the_completion_in_order() {
    let srv = server();
    srv.enqueue(
        Reply::new()
            .reasoning("Let me ")
            .reasoning("look.")
            .text("Hel")
            .text("lo")
            .tool_call("call_1", "read_file", ARGS)
            .args_chunk_chars(5)
            .usage(1000, 400, 50),
    );
    let cfg = config(vec![provider("a", "openai", &srv, 0)]);
    let providers = Providers::new();
    let mut rec = Recorder::default();
    let c = chat(&providers, &cfg, &mut rec).await.expect("chat");

    assert_eq!(c.model_ref(), "a/m");
    assert_eq!(c.text, "Hello");
    assert_eq!(
        c.thinking,
        Some(Thinking {
            text: "Let me look.".into(),
            signature: None
        })
    );
    assert_eq!(c.tool_calls, vec![tool_call()]);
    assert_eq!(c.finish, Some(FinishReason::ToolCalls));
    let usage = TokenUsage {
        total_input_tokens: 1000,
        cached_input_tokens: 400,
        cache_creation_input_tokens: 0,
        output_tokens: 50,
        reasoning_tokens: 0,
    };
    assert_eq!(c.usage, usage);

    let mut expected = vec![
        StreamEvent::ReasoningDelta("Let me ".into()),
        StreamEvent::ReasoningDelta("look.".into()),
        StreamEvent::TextDelta("Hel".into()),
        StreamEvent::TextDelta("lo".into()),
        StreamEvent::ToolCallStart {
            index: 0,
            id: "call_1".into(),
            name: "read_file".into(),
        },
    ];
    expected.extend(pieces(ARGS, 5));
    expected.extend([
        StreamEvent::ToolCallComplete {
            index: 0,
            call: tool_call(),
        },
        StreamEvent::Usage(usage),
        StreamEvent::Finish(FinishReason::ToolCalls),
    ]);
    assert_eq!(rec.events(), expected);

    // model_start first, every event, then exactly one attempt record last.
    assert_eq!(rec.seen.first(), Some(&Seen::ModelStart("a/m".into())));
    let attempts = rec.attempts();
    assert_eq!(attempts.len(), 1);
    assert!(matches!(rec.seen.last(), Some(Seen::Attempt(_))));
    assert_eq!(rec.seen.len(), expected.len() + 2);
    let a = &attempts[0];
    assert!(a.success);
    assert_eq!((a.provider.as_str(), a.model.as_str()), ("a", "m"));
    assert_eq!(a.usage, usage);
    // 600 uncached × 2 + 400 cached × 0.5 + 50 out × 8, per million.
    assert!((a.cost - 0.0018).abs() < 1e-12, "cost {}", a.cost);
    assert!(a.elapsed_ms > 0.0);
    assert!(rec.retries().is_empty());

    let reqs = srv.requests();
    assert_eq!(reqs.len(), 1);
    let r = &reqs[0];
    assert_eq!(r.path, "/chat/completions");
    assert_eq!(
        r.header("authorization"),
        Some(format!("Bearer {}", api_key("a")).as_str())
    );
    assert!(r.is_stream());
    assert_eq!(r.body["model"], "m");
    assert_eq!(r.body["stream_options"]["include_usage"], true);
}

#[tokio::test]
async fn anthropic_stream_keeps_the_signed_thinking() {
    let srv = server();
    srv.enqueue(
        Reply::new()
            .reasoning("think ")
            .reasoning("hard")
            .text("Answer")
            .tool_call("call_1", "read_file", ARGS)
            .args_chunk_chars(7)
            .usage(1000, 300, 40),
    );
    let cfg = config(vec![provider("claude", "anthropic", &srv, 0)]);
    let providers = Providers::new();
    let mut rec = Recorder::default();
    let c = chat(&providers, &cfg, &mut rec).await.expect("chat");

    assert_eq!(c.model_ref(), "claude/m");
    assert_eq!(c.text, "Answer");
    assert_eq!(
        c.thinking,
        Some(Thinking {
            text: "think hard".into(),
            signature: Some("testkit-sig-0".into())
        })
    );
    assert_eq!(c.tool_calls, vec![tool_call()]);
    assert_eq!(c.finish, Some(FinishReason::ToolCalls));
    // Anthropic counts cache reads apart; the neutral total includes them.
    let usage = TokenUsage {
        total_input_tokens: 1000,
        cached_input_tokens: 300,
        cache_creation_input_tokens: 0,
        output_tokens: 40,
        reasoning_tokens: 0,
    };
    assert_eq!(c.usage, usage);

    let mut expected = vec![
        StreamEvent::ReasoningDelta("think ".into()),
        StreamEvent::ReasoningDelta("hard".into()),
        StreamEvent::ReasoningSignature("testkit-sig-0".into()),
        StreamEvent::TextDelta("Answer".into()),
        StreamEvent::ToolCallStart {
            index: 0,
            id: "call_1".into(),
            name: "read_file".into(),
        },
    ];
    expected.extend(pieces(ARGS, 7));
    expected.extend([
        StreamEvent::ToolCallComplete {
            index: 0,
            call: tool_call(),
        },
        StreamEvent::Usage(usage),
        StreamEvent::Finish(FinishReason::ToolCalls),
    ]);
    assert_eq!(rec.events(), expected);
    assert_eq!(rec.model_starts(), vec!["claude/m"]);
    let attempts = rec.attempts();
    assert_eq!(attempts.len(), 1);
    assert!(attempts[0].success);
    // 700 × 2 + 300 × 0.5 + 40 × 8, per million.
    assert!((attempts[0].cost - 0.00187).abs() < 1e-12);

    let reqs = srv.requests();
    assert_eq!(reqs.len(), 1);
    assert_eq!(reqs[0].path, "/v1/messages");
    assert_eq!(
        reqs[0].header("x-api-key"),
        Some(api_key("claude").as_str())
    );
    assert!(reqs[0].header("anthropic-version").is_some());
    assert_eq!(reqs[0].body["thinking"]["type"], "enabled");
}

#[tokio::test]
async fn plain_http_requests_carry_host_defaults_and_the_providers_own_headers() {
    let srv = server();
    srv.enqueue(Reply::plain("ok"));
    let mut p = provider("a", "openai", &srv, 0);
    p.headers = Some(std::collections::BTreeMap::from([
        ("Accept".to_string(), "text/event-stream".to_string()),
        ("X-Trace".to_string(), "t-1".to_string()),
    ]));
    let cfg = config(vec![p]);
    let c = chat(&Providers::new(), &cfg, &mut Recorder::default())
        .await
        .expect("chat");
    assert_eq!(c.text, "ok");
    let r = &srv.requests()[0];
    assert_eq!(r.version, "HTTP/1.1");
    assert_eq!(r.header("host"), Some(srv.addr().to_string().as_str()));
    assert_eq!(r.header("content-type"), Some("application/json"));
    assert_eq!(r.header("x-trace"), Some("t-1"));
    let accepts: Vec<&str> = r
        .headers
        .iter()
        .filter(|(k, _)| k == "accept")
        .map(|(_, v)| v.as_str())
        .collect();
    assert_eq!(
        accepts,
        ["text/event-stream"],
        "the provider's header replaces the default"
    );
}

/// Sleeps on the first text delta so the rest of the stream piles up in the
/// socket, and counts the text deltas.
struct SlowStart {
    texts: std::sync::Arc<std::sync::atomic::AtomicUsize>,
}

impl seekclaw_providers::Observer for SlowStart {
    fn event(&mut self, event: &StreamEvent) {
        if let StreamEvent::TextDelta(_) = event {
            let seen = self.texts.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            if seen == 0 {
                std::thread::sleep(std::time::Duration::from_millis(300));
            }
        }
    }
}

/// A stream whose bytes are all buffered already must still give its task
/// back now and then, or whoever relays its events (the same task) sends
/// nothing until the stream ends; and its first token must not wait for the
/// batch after it.
#[tokio::test]
async fn a_buffered_stream_hands_on_its_first_token_and_still_yields() {
    const DELTAS: usize = 2000;
    let srv = server();
    let mut reply = Reply::new();
    for i in 0..DELTAS {
        reply = reply.text(format!("t{i} "));
    }
    srv.enqueue(reply);
    let cfg = config(vec![provider("a", "openai", &srv, 0)]);
    let providers = Providers::new();
    let texts = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let mut obs = SlowStart {
        texts: texts.clone(),
    };
    let req = request("hello");
    let cancel = tokio_util::sync::CancellationToken::new();
    let route = seekclaw_providers::routing::RouteInput::default();
    let chat = providers.chat(&cfg, &route, &req, &mut obs, &cancel);
    tokio::pin!(chat);
    // Pending returns once the stream is underway, and how many text deltas
    // had been seen at the first of them.
    let mut yields = 0;
    let mut seen_at_first_yield = None;
    let completion = tokio::time::timeout(
        DEADLINE,
        std::future::poll_fn(|cx| match chat.as_mut().poll(cx) {
            std::task::Poll::Pending => {
                let seen = texts.load(std::sync::atomic::Ordering::SeqCst);
                if seen > 0 {
                    yields += 1;
                    seen_at_first_yield.get_or_insert(seen);
                }
                std::task::Poll::Pending
            }
            ready => ready,
        }),
    )
    .await
    .expect("chat finished within the deadline")
    .expect("chat");
    assert_eq!(completion.text.split_whitespace().count(), DELTAS);
    // The first token is handed on by itself, not with the batch after it.
    assert_eq!(seen_at_first_yield, Some(1));
    // About one yield per 128 buffered events (~18 here); without them, ~6.
    assert!(
        yields >= DELTAS / 200,
        "{yields} yields for {DELTAS} deltas"
    );
}
