//! OpenTelemetry export (`telemetry.otlp.endpoint`): a collector in the test
//! decodes what the real binary sends with the official OTLP protobuf
//! messages. Spans nest turn → model request / tool call, a subagent's turn
//! under its parent's tool call; metrics carry model, tool, front end and
//! project; nothing typed or returned leaves without `includeContent`, and
//! the API key never does; a collector that is down fails no turn.

mod collector;

use std::path::{Path, PathBuf};
use std::process::Command;

use seekclaw_testkit::{ProviderServer, Reply};
use serde_json::{Value, json};

use crate::support::bin;
use collector::{Collector, attrs, points};

const PROMPT: &str = "find the zebra-secret-prompt please";
const API_KEY: &str = "sk-never-exported-4711";
const CHILD_ANSWER: &str = "zeta-child-answer at z.rs:4";
const ANSWER: &str = "final-answer-okapi";

/// A home whose config exports to `endpoint` (and a workspace to run in).
fn setup(server: &ProviderServer, tmp: &Path, telemetry: Value) -> (PathBuf, PathBuf) {
    let home = tmp.join("home");
    std::fs::create_dir_all(&home).unwrap();
    let config = json!({
        "routing": {"retry": {"baseDelaySeconds": 0.01, "maxDelaySeconds": 0.05}},
        "providers": [{"id": "tk", "kind": "openai", "baseUrl": server.base_url(),
            "apiKey": API_KEY, "models": [{"id": "m1",
                "inputPricePerMTok": 2.0, "outputPricePerMTok": 8.0}]}],
        "telemetry": telemetry
    });
    std::fs::write(home.join("config.json"), config.to_string()).unwrap();
    let ws = tmp.join("proj");
    std::fs::create_dir_all(ws.join("src")).unwrap();
    std::fs::write(ws.join("package.json"), "{\"name\": \"proj\"}\n").unwrap();
    (home, ws)
}

/// A turn that calls `explore` (a subagent with one model request) and answers.
fn script(server: &ProviderServer) {
    server.enqueue(
        Reply::new()
            .tool_call("call_1", "explore", r#"{"query":"zeta-q"}"#)
            .usage(50, 0, 5)
            .finish("tool_calls"),
    );
    server.enqueue(
        Reply::plain(CHILD_ANSWER)
            .usage(70, 0, 7)
            .when_body_contains("zeta-q"),
    );
    server.enqueue(Reply::plain(ANSWER).usage(90, 0, 9));
}

fn run(home: &Path, ws: &Path) -> String {
    let out = Command::new(bin())
        .args(["run", PROMPT])
        .env("SEEKCLAW_HOME", home)
        .current_dir(ws)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).to_string()
}

fn contains(haystack: &[u8], needle: &str) -> bool {
    haystack
        .windows(needle.len())
        .any(|w| w == needle.as_bytes())
}

#[test]
fn run_exports_nested_spans_attributed_metrics_and_no_content() {
    let server = ProviderServer::start().unwrap();
    script(&server);
    let otlp = Collector::start();
    let tmp = tempfile::tempdir().unwrap();
    let (home, ws) = setup(
        &server,
        tmp.path(),
        json!({"otlp": {"endpoint": otlp.endpoint()}}),
    );
    let stdout = run(&home, &ws);
    assert!(stdout.contains(ANSWER), "{stdout}");
    // Flushed at exit: every signal is there once the process is gone.
    for path in ["/v1/traces", "/v1/metrics", "/v1/logs"] {
        otlp.wait_for(path);
    }
    let spans = otlp.spans();
    let named = |name: &str| spans.iter().filter(|s| s.name == name).collect::<Vec<_>>();
    let turns = named("turn");
    assert_eq!(turns.len(), 2, "{spans:#?}");
    let root = turns.iter().find(|t| t.parent_span_id.is_empty()).unwrap();
    let child = turns.iter().find(|t| !t.parent_span_id.is_empty()).unwrap();
    let tool = named("tool_call")
        .into_iter()
        .find(|s| attrs(&s.attributes)["gen_ai.tool.name"] == "explore")
        .unwrap();
    assert_eq!(
        tool.parent_span_id, root.span_id,
        "tool call under the turn"
    );
    assert_eq!(
        child.parent_span_id, tool.span_id,
        "subagent under the tool call"
    );
    assert_eq!(child.trace_id, root.trace_id);
    let requests = named("model_request");
    assert_eq!(requests.len(), 3, "{requests:#?}");
    let under = |t: &&&opentelemetry_proto::tonic::trace::v1::Span, parent: &[u8]| {
        t.parent_span_id == parent
    };
    assert_eq!(
        requests.iter().filter(|r| under(r, &root.span_id)).count(),
        2
    );
    assert_eq!(
        requests.iter().filter(|r| under(r, &child.span_id)).count(),
        1
    );
    let first = attrs(&requests[0].attributes);
    assert_eq!(first["gen_ai.request.model"], "m1");
    assert!(first.contains_key("gen_ai.usage.input_tokens"));
    assert!(first.contains_key("seekclaw.cost_usd"));
    let root_attrs = attrs(&root.attributes);
    assert_eq!(root_attrs["seekclaw.front_end"], "run");
    assert_eq!(root_attrs["seekclaw.turn.status"], "done");
    let project = root_attrs["seekclaw.project"].clone();
    assert_eq!(project.len(), 12, "a hash of the workspace, not its path");

    let metrics = otlp.metrics();
    let metric = |name: &str| {
        let found: Vec<_> = metrics.iter().filter(|m| m.name == name).collect();
        assert!(!found.is_empty(), "no {name} in {metrics:#?}");
        found.iter().flat_map(|m| points(m)).collect::<Vec<_>>()
    };
    let tokens = metric("seekclaw.token.usage");
    assert!(tokens.iter().any(|p| p["gen_ai.request.model"] == "m1"
        && p["gen_ai.token.type"] == "output"
        && p["seekclaw.front_end"] == "run"
        && p["seekclaw.project"] == project));
    assert!(
        metric("seekclaw.cost.usage")
            .iter()
            .any(|p| p["gen_ai.request.model"] == "m1")
    );
    assert!(
        metric("seekclaw.tool.call.count")
            .iter()
            .any(|p| p["gen_ai.tool.name"] == "explore")
    );
    assert!(
        metric("seekclaw.tool.call.duration")
            .iter()
            .any(|p| p["gen_ai.tool.name"] == "explore")
    );
    assert!(
        metric("gen_ai.client.operation.duration")
            .iter()
            .any(|p| p["gen_ai.request.model"] == "m1")
    );
    assert!(
        metric("seekclaw.turn.count")
            .iter()
            .any(|p| p["seekclaw.turn.status"] == "done")
    );
    metric("seekclaw.turn.duration");
    metric("seekclaw.telemetry.dropped");
    let events = otlp.events();
    for name in [
        "seekclaw.user_prompt",
        "seekclaw.api_request",
        "seekclaw.tool_result",
        "seekclaw.turn_end",
    ] {
        assert!(events.iter().any(|(n, _)| n == name), "no {name} event");
    }

    // Nothing typed, returned or secret in any byte sent.
    let raw = otlp.all_raw();
    for secret in [
        "zebra-secret-prompt",
        API_KEY,
        "zeta-child-answer",
        ANSWER,
        "zeta-q",
    ] {
        assert!(!contains(&raw, secret), "{secret} was exported");
    }
    assert!(
        !contains(&raw, ws.to_str().unwrap()),
        "the workspace path was exported"
    );
}

#[test]
fn include_content_exports_prompt_answer_and_tool_output_never_the_key() {
    let server = ProviderServer::start().unwrap();
    script(&server);
    let otlp = Collector::start();
    let tmp = tempfile::tempdir().unwrap();
    let telemetry = json!({"otlp": {"endpoint": otlp.endpoint()}, "includeContent": true});
    let (home, ws) = setup(&server, tmp.path(), telemetry);
    run(&home, &ws);
    otlp.wait_for("/v1/traces");
    let traces: Vec<u8> = otlp.raw("/v1/traces").concat();
    for content in ["zebra-secret-prompt", ANSWER, "zeta-child-answer", "zeta-q"] {
        assert!(contains(&traces, content), "{content} is missing");
    }
    assert!(contains(&traces, ws.to_str().unwrap()));
    assert!(!contains(&otlp.all_raw(), API_KEY));
}

#[test]
fn a_collector_that_is_down_fails_no_turn() {
    // A closed port (refused at once) and a black hole (accepts the
    // connection, never answers).
    let closed = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap()
    };
    let hole = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    for addr in [closed, hole.local_addr().unwrap()] {
        let server = ProviderServer::start().unwrap();
        script(&server);
        let tmp = tempfile::tempdir().unwrap();
        let telemetry = json!({"otlp": {"endpoint": format!("http://{addr}")}});
        let (home, ws) = setup(&server, tmp.path(), telemetry);
        let stdout = run(&home, &ws);
        assert!(stdout.contains(ANSWER), "{addr}: {stdout}");
    }
}

/// Through the daemon: a chat's turn is exported as the daemon's (front
/// end `daemon`, origin `chat`), and what is pending is flushed when the
/// daemon stops.
#[test]
fn daemon_chat_turns_are_exported_and_flushed_at_shutdown() {
    let server = ProviderServer::start().unwrap();
    server.enqueue(
        Reply::new()
            .tool_call("call_1", "list_dir", r#"{"path":"."}"#)
            .usage(40, 0, 4),
    );
    server.enqueue(Reply::plain(ANSWER).usage(60, 0, 6));
    let otlp = Collector::start();
    let tmp = tempfile::tempdir().unwrap();
    let config = json!({
        "providers": [{"id": "tk", "kind": "openai", "baseUrl": server.base_url(),
            "apiKey": API_KEY, "models": [{"id": "m1"}]}],
        "telemetry": {"otlp": {"endpoint": otlp.endpoint()}}
    });
    let opts = seekclaw_testkit::StartOptions {
        config: Some(config),
        ..Default::default()
    };
    let mut d =
        seekclaw_testkit::DaemonProcess::spawn(bin(), &tmp.path().join("home"), &opts).unwrap();
    let mut c = d.connect().unwrap();
    let all = crate::support::turns::chat(&mut c, json!({"message": PROMPT, "global": true}));
    assert!(all.iter().any(|e| e["event"] == "done"), "{all:#?}");
    drop(c);
    d.signal(15).unwrap();
    assert!(
        d.wait_exit(std::time::Duration::from_secs(30))
            .unwrap()
            .success()
    );
    // Metrics are exported once a minute by default: these came with the
    // flush at shutdown.
    otlp.wait_for("/v1/metrics");
    otlp.wait_for("/v1/traces");
    let spans = otlp.spans();
    let turn = spans.iter().find(|s| s.name == "turn").unwrap();
    let a = attrs(&turn.attributes);
    assert_eq!(
        (
            a["seekclaw.front_end"].as_str(),
            a["seekclaw.turn.origin"].as_str()
        ),
        ("daemon", "chat")
    );
    assert_eq!(a["seekclaw.project"], "global");
    let tool = spans.iter().find(|s| s.name == "tool_call").unwrap();
    assert_eq!(tool.parent_span_id, turn.span_id);
    assert!(otlp.metrics().iter().any(|m| {
        m.name == "seekclaw.turn.count"
            && points(m)
                .iter()
                .any(|p| p["seekclaw.front_end"] == "daemon")
    }));
    let raw = otlp.all_raw();
    assert!(!contains(&raw, "zebra-secret-prompt") && !contains(&raw, API_KEY));
}

/// A model attempt that fails (retried, then answered) is its own
/// `model_request` span with an error status, an `api_error` event and an
/// error count by model.
#[test]
fn a_failed_model_attempt_is_an_error_span_event_and_metric() {
    let server = ProviderServer::start().unwrap();
    server.enqueue(Reply::http_error(
        500,
        json!({"error": {"message": "boom"}}),
        None,
    ));
    server.enqueue(Reply::plain(ANSWER).usage(10, 0, 2));
    let otlp = Collector::start();
    let tmp = tempfile::tempdir().unwrap();
    let (home, ws) = setup(
        &server,
        tmp.path(),
        json!({"otlp": {"endpoint": otlp.endpoint()}}),
    );
    assert!(run(&home, &ws).contains(ANSWER));
    otlp.wait_for("/v1/metrics");
    otlp.wait_for("/v1/logs");
    let spans = otlp.spans();
    let requests: Vec<_> = spans.iter().filter(|s| s.name == "model_request").collect();
    assert_eq!(requests.len(), 2, "{requests:#?}");
    let error = opentelemetry_proto::tonic::trace::v1::status::StatusCode::Error as i32;
    assert_eq!(
        requests
            .iter()
            .filter(|s| s.status.as_ref().is_some_and(|st| st.code == error))
            .count(),
        1
    );
    assert!(
        otlp.events()
            .iter()
            .any(|(n, a)| n == "seekclaw.api_error" && a["gen_ai.request.model"] == "m1")
    );
    let errors: Vec<_> = otlp
        .metrics()
        .into_iter()
        .filter(|m| m.name == "seekclaw.error.count")
        .flat_map(|m| points(&m))
        .collect();
    assert!(
        errors
            .iter()
            .any(|p| p["error.type"] == "model" && p["gen_ai.request.model"] == "m1"),
        "{errors:?}"
    );
}
