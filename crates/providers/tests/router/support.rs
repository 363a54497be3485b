//! Shared pieces of the router tests: config builders, a recording observer and
//! a `chat` driver with a hard deadline so a hang fails instead of blocking CI.

use std::time::Duration;

use seekclaw_config::{Capabilities, Config, Model, Provider, ReasoningLevel, Retry};
use seekclaw_providers::routing::RouteInput;
use seekclaw_providers::usage::AttemptRecord;
use seekclaw_providers::{
    ChatMessage, ChatRequest, Completion, Observer, ProviderError, Providers, StreamEvent,
};
use seekclaw_testkit::ProviderServer;
use tokio_util::sync::CancellationToken;

/// Far above anything a passing test needs, even on a loaded 2-core box.
pub const DEADLINE: Duration = Duration::from_secs(60);

/// The key of provider `id`; tests look for it in places it must never appear.
pub fn api_key(id: &str) -> String {
    format!("sk-test-SECRET-{id}-7f3a9c")
}

pub fn server() -> ProviderServer {
    ProviderServer::start().expect("start the provider server")
}

/// Prices: 2 $/MTok input, 0.5 cached, 8 output.
pub fn model(id: &str) -> Model {
    Model {
        id: id.into(),
        input_price_per_mtok: 2.0,
        output_price_per_mtok: 8.0,
        cached_input_price_per_mtok: Some(0.5),
        capabilities: Capabilities {
            thinking: true,
            ..Capabilities::default()
        },
        ..Model::default()
    }
}

/// Provider `id` with one model `m` talking to `server`.
pub fn provider(id: &str, kind: &str, server: &ProviderServer, priority: i32) -> Provider {
    Provider {
        id: id.into(),
        kind: kind.into(),
        base_url: server.base_url(),
        api_key: Some(api_key(id)),
        priority,
        models: vec![model("m")],
        ..Provider::default()
    }
}

/// Retries with a tiny base delay so tests don't sleep unless a server says so.
pub fn config(providers: Vec<Provider>) -> Config {
    let mut c = Config {
        providers,
        ..Config::default()
    };
    c.routing.retry = Retry {
        max_attempts: 3,
        base_delay_seconds: 0.01,
        max_delay_seconds: 0.05,
        ..Retry::default()
    };
    c
}

pub fn request(text: &str) -> ChatRequest {
    ChatRequest {
        system: "You are terse.".into(),
        messages: vec![ChatMessage::User {
            text: text.into(),
            images: Vec::new(),
        }],
        reasoning: ReasoningLevel::High,
        thinking_budget_tokens: 4096,
        ..ChatRequest::default()
    }
}

/// Everything the router told the observer, in order.
#[derive(Debug, Clone, PartialEq)]
pub enum Seen {
    ModelStart(String),
    Event(StreamEvent),
    Attempt(AttemptRecord),
    Retry {
        model_ref: String,
        error: ProviderError,
        delay: Duration,
    },
    /// A candidate given up on (or skipped): its ref and why.
    Failover(String, String),
}

#[derive(Default)]
pub struct Recorder {
    pub seen: Vec<Seen>,
    /// Cancelled on the first event, when set.
    pub cancel_on_event: Option<CancellationToken>,
}

impl Recorder {
    pub fn model_starts(&self) -> Vec<String> {
        self.seen
            .iter()
            .filter_map(|s| match s {
                Seen::ModelStart(m) => Some(m.clone()),
                _ => None,
            })
            .collect()
    }

    pub fn events(&self) -> Vec<StreamEvent> {
        self.seen
            .iter()
            .filter_map(|s| match s {
                Seen::Event(e) => Some(e.clone()),
                _ => None,
            })
            .collect()
    }

    pub fn attempts(&self) -> Vec<AttemptRecord> {
        self.seen
            .iter()
            .filter_map(|s| match s {
                Seen::Attempt(a) => Some(a.clone()),
                _ => None,
            })
            .collect()
    }

    /// The candidates given up on, with why.
    pub fn failovers(&self) -> Vec<(String, String)> {
        self.seen
            .iter()
            .filter_map(|s| match s {
                Seen::Failover(m, why) => Some((m.clone(), why.clone())),
                _ => None,
            })
            .collect()
    }

    pub fn retries(&self) -> Vec<(String, ProviderError, Duration)> {
        self.seen
            .iter()
            .filter_map(|s| match s {
                Seen::Retry {
                    model_ref,
                    error,
                    delay,
                } => Some((model_ref.clone(), error.clone(), *delay)),
                _ => None,
            })
            .collect()
    }
}

impl Observer for Recorder {
    fn model_start(&mut self, provider: &str, model: &str) {
        self.seen
            .push(Seen::ModelStart(format!("{provider}/{model}")));
    }

    fn event(&mut self, event: &StreamEvent) {
        self.seen.push(Seen::Event(event.clone()));
        if let Some(token) = &self.cancel_on_event {
            token.cancel();
        }
    }

    fn attempt(&mut self, record: &AttemptRecord) {
        self.seen.push(Seen::Attempt(record.clone()));
    }

    fn failover(&mut self, model_ref: &str, error: &ProviderError) {
        self.seen
            .push(Seen::Failover(model_ref.into(), error.to_string()));
    }

    fn retry(&mut self, model_ref: &str, error: &ProviderError, delay: Duration) {
        self.seen.push(Seen::Retry {
            model_ref: model_ref.into(),
            error: error.clone(),
            delay,
        });
    }
}

/// One chat with default routing and a fresh cancel token.
pub async fn chat(
    providers: &Providers,
    config: &Config,
    rec: &mut Recorder,
) -> Result<Completion, ProviderError> {
    chat_with(providers, config, rec, &CancellationToken::new()).await
}

pub async fn chat_with(
    providers: &Providers,
    config: &Config,
    rec: &mut Recorder,
    cancel: &CancellationToken,
) -> Result<Completion, ProviderError> {
    let route = RouteInput::default();
    let req = request("hello");
    tokio::time::timeout(DEADLINE, providers.chat(config, &route, &req, rec, cancel))
        .await
        .expect("chat finished within the deadline")
}

/// The error of a chat that must fail.
pub fn expect_err(r: Result<Completion, ProviderError>) -> ProviderError {
    match r {
        Ok(c) => panic!("expected an error, got {c:?}"),
        Err(e) => e,
    }
}

/// Completion requests a server received (model-list probes excluded).
pub fn completions(server: &ProviderServer) -> usize {
    server
        .requests()
        .iter()
        .filter(|r| r.method == "POST")
        .count()
}

/// A tcp port nothing listens on (bound, then released).
pub fn closed_port_url() -> String {
    let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = l.local_addr().expect("addr").port();
    drop(l);
    format!("http://127.0.0.1:{port}")
}
