//! The exporting task: turns records into spans, metrics and log events,
//! and the SDK providers that batch and export them.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use opentelemetry::logs::{AnyValue, LogRecord as _, Logger as _, LoggerProvider as _, Severity};
use opentelemetry::metrics::MeterProvider as _;
use opentelemetry::trace::{
    Span as _, SpanKind, Status, TraceContextExt as _, Tracer as _, TracerProvider as _,
};
use opentelemetry::{Context, KeyValue};
use opentelemetry_otlp::{Protocol, WithExportConfig as _, WithHttpConfig as _};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::logs::{BatchLogProcessor, SdkLogger, SdkLoggerProvider};
use opentelemetry_sdk::metrics::{PeriodicReader, SdkMeterProvider};
use opentelemetry_sdk::trace::{BatchSpanProcessor, SdkTracer, SdkTracerProvider};
use seekclaw_config::TelemetrySettings;

use crate::metrics::{Instruments, kv};
use crate::observer::{ModelRequest, Record, TurnBegan};
use crate::queue::Queue;
use crate::{Shared, TelemetryError, http::RuntimeClient};

/// How long one export may take (then its batch is dropped).
const EXPORT_TIMEOUT: Duration = Duration::from_secs(5);
/// How often finished spans and log events are sent.
const BATCH_DELAY: Duration = Duration::from_secs(1);
/// Spans or log events waiting in the SDK's own queue.
const SDK_QUEUE: usize = 4096;
/// The longest each provider's shutdown waits at exit.
const SHUTDOWN_WAIT: Duration = Duration::from_secs(2);
/// How often the task drains the turns' records.
const DRAIN_EVERY: Duration = Duration::from_millis(250);

/// The SDK's three providers, exporting to one collector.
pub(crate) struct Providers {
    traces: SdkTracerProvider,
    metrics: SdkMeterProvider,
    logs: SdkLoggerProvider,
}

impl Providers {
    pub(crate) fn build(
        settings: &TelemetrySettings,
        endpoint: &str,
        client: RuntimeClient,
    ) -> Result<Providers, TelemetryError> {
        let base = endpoint.trim_end_matches('/');
        if let Some(problem) = settings.endpoint_problem() {
            return Err(TelemetryError::Config(problem));
        }
        let headers: HashMap<String, String> = settings.otlp.headers.clone().into_iter().collect();
        let failed =
            |e: opentelemetry_otlp::ExporterBuildError| TelemetryError::Exporter(e.to_string());
        let resource = Resource::builder()
            .with_service_name(settings.service_name().to_string())
            .with_attribute(KeyValue::new("service.version", env!("CARGO_PKG_VERSION")))
            .build();
        let spans = opentelemetry_otlp::SpanExporter::builder()
            .with_http()
            .with_http_client(client.clone())
            .with_protocol(Protocol::HttpBinary)
            .with_endpoint(format!("{base}/v1/traces"))
            .with_headers(headers.clone())
            .with_timeout(EXPORT_TIMEOUT)
            .build()
            .map_err(failed)?;
        let metrics = opentelemetry_otlp::MetricExporter::builder()
            .with_http()
            .with_http_client(client.clone())
            .with_protocol(Protocol::HttpBinary)
            .with_endpoint(format!("{base}/v1/metrics"))
            .with_headers(headers.clone())
            .with_timeout(EXPORT_TIMEOUT)
            .build()
            .map_err(failed)?;
        let logs = opentelemetry_otlp::LogExporter::builder()
            .with_http()
            .with_http_client(client)
            .with_protocol(Protocol::HttpBinary)
            .with_endpoint(format!("{base}/v1/logs"))
            .with_headers(headers)
            .with_timeout(EXPORT_TIMEOUT)
            .build()
            .map_err(failed)?;
        let span_batches = opentelemetry_sdk::trace::BatchConfigBuilder::default()
            .with_max_queue_size(SDK_QUEUE)
            .with_scheduled_delay(BATCH_DELAY)
            .build();
        let log_batches = opentelemetry_sdk::logs::BatchConfigBuilder::default()
            .with_max_queue_size(SDK_QUEUE)
            .with_scheduled_delay(BATCH_DELAY)
            .build();
        Ok(Providers {
            traces: SdkTracerProvider::builder()
                .with_resource(resource.clone())
                .with_span_processor(
                    BatchSpanProcessor::builder(spans)
                        .with_batch_config(span_batches)
                        .build(),
                )
                .build(),
            metrics: SdkMeterProvider::builder()
                .with_resource(resource.clone())
                .with_reader(
                    PeriodicReader::builder(metrics)
                        .with_interval(Duration::from_millis(settings.export_interval_ms()))
                        .build(),
                )
                .build(),
            logs: SdkLoggerProvider::builder()
                .with_resource(resource)
                .with_log_processor(
                    BatchLogProcessor::builder(logs)
                        .with_batch_config(log_batches)
                        .build(),
                )
                .build(),
        })
    }

    /// Exports what is pending and stops, on a thread of its own (the SDK
    /// blocks while it waits for the collector); `done` is answered after.
    fn shutdown(self, done: tokio::sync::oneshot::Sender<()>) {
        let spawned = std::thread::Builder::new()
            .name("seekclaw-telemetry-flush".into())
            .spawn(move || {
                let _ = self.traces.shutdown_with_timeout(SHUTDOWN_WAIT);
                let _ = self.logs.shutdown_with_timeout(SHUTDOWN_WAIT);
                let _ = self.metrics.shutdown_with_timeout(SHUTDOWN_WAIT);
                let _ = done.send(());
            });
        if let Err(e) = spawned {
            tracing::warn!(error = %e, "telemetry flush thread did not start");
        }
    }
}

/// A turn being traced.
struct Turn {
    cx: Context,
    started: SystemTime,
    session: String,
    origin: &'static str,
    project: String,
    model: Option<String>,
    tools: Vec<OpenTool>,
}

struct OpenTool {
    call_id: String,
    name: String,
    cx: Context,
}

impl Turn {
    /// Where a subagent's turn hangs: the subagent tool's call that started
    /// it (the latest open one), else the latest open call, else the turn.
    fn parent_for_child(&self) -> Context {
        let subagent = |t: &&OpenTool| seekclaw_tools::SUBAGENT_TOOLS.contains(&t.name.as_str());
        self.tools
            .iter()
            .rev()
            .find(subagent)
            .or(self.tools.last())
            .map_or_else(|| self.cx.clone(), |t| t.cx.clone())
    }

    /// Metric attributes every signal of the turn carries.
    fn base(&self, front_end: &'static str) -> Vec<KeyValue> {
        vec![
            kv("seekclaw.front_end", front_end),
            kv("seekclaw.project", self.project.clone()),
        ]
    }
}

struct State {
    front_end: &'static str,
    tracer: SdkTracer,
    logger: SdkLogger,
    instruments: Instruments,
    turns: HashMap<u64, Turn>,
    /// Session → its running turn (for subagents' parents).
    sessions: HashMap<String, u64>,
}

/// Drains records until shutdown.
pub(crate) async fn run(
    providers: Providers,
    front_end: &'static str,
    shared: Arc<Shared>,
    records: Arc<Queue>,
) {
    let meter = providers.metrics.meter("seekclaw");
    let mut state = State {
        front_end,
        tracer: providers.traces.tracer("seekclaw"),
        logger: providers.logs.logger("seekclaw"),
        instruments: Instruments::new(&meter, &shared),
        turns: HashMap::new(),
        sessions: HashMap::new(),
    };
    loop {
        records.wait(DRAIN_EVERY).await;
        for record in records.take() {
            if let Some(done) = state.record(record) {
                let open: Vec<u64> = state.turns.keys().copied().collect();
                for turn in open {
                    state.turn_end(turn, SystemTime::now(), "interrupted", None, None);
                }
                drop(state);
                providers.shutdown(done);
                return;
            }
        }
    }
}

impl State {
    /// Handles one record; the answer channel of a shutdown.
    fn record(&mut self, record: Record) -> Option<tokio::sync::oneshot::Sender<()>> {
        let state = self;
        match record {
            Record::TurnStart(began) => state.turn_start(*began),
            Record::Model(request) => state.model(*request),
            Record::ToolStart {
                turn,
                at,
                call_id,
                name,
                summary,
            } => state.tool_start(turn, at, call_id, name, summary),
            Record::ToolEnd {
                turn,
                at,
                call_id,
                name,
                success,
                duration,
                output,
            } => state.tool_end(turn, at, (call_id, name), success, duration, output),
            Record::TurnEnd {
                turn,
                at,
                status,
                error,
                answer,
            } => state.turn_end(turn, at, status, error, answer),
            Record::Shutdown(done) => return Some(done),
        }
        None
    }
}

impl State {
    fn turn_start(&mut self, b: TurnBegan) {
        let parent = b
            .parent_session
            .as_deref()
            .and_then(|p| self.sessions.get(p))
            .and_then(|t| self.turns.get(t))
            .map_or_else(Context::new, Turn::parent_for_child);
        let mut attrs = vec![
            kv("seekclaw.front_end", self.front_end),
            kv("seekclaw.project", b.project.clone()),
            kv("seekclaw.turn.origin", b.origin),
            kv("seekclaw.session.id", b.session.clone()),
            KeyValue::new("seekclaw.prompt.length", usize_i64(b.prompt_chars)),
        ];
        if let Some(path) = &b.workspace {
            attrs.push(kv("seekclaw.project.path", path.clone()));
        }
        if let Some(prompt) = &b.prompt {
            attrs.push(kv("seekclaw.prompt", prompt.clone()));
        }
        let span = self
            .tracer
            .span_builder("turn")
            .with_kind(SpanKind::Internal)
            .with_start_time(b.at)
            .with_attributes(attrs.clone())
            .start_with_context(&self.tracer, &parent);
        let cx = parent.with_span(span);
        self.event(&cx, "seekclaw.user_prompt", b.at, attrs);
        self.sessions.insert(b.session.clone(), b.turn);
        self.turns.insert(
            b.turn,
            Turn {
                cx,
                started: b.at,
                session: b.session,
                origin: b.origin,
                project: b.project,
                model: None,
                tools: Vec::new(),
            },
        );
    }

    fn model(&mut self, r: ModelRequest) {
        let Some(turn) = self.turns.get_mut(&r.turn) else {
            return;
        };
        turn.model = Some(r.model.clone());
        let mut base = turn.base(self.front_end);
        base.push(kv("gen_ai.request.model", r.model.clone()));
        let started = r.ended.checked_sub(r.elapsed).unwrap_or(r.ended);
        let mut attrs = base.clone();
        attrs.extend([
            kv("gen_ai.operation.name", "chat"),
            kv("gen_ai.system", r.provider.clone()),
            KeyValue::new("gen_ai.usage.input_tokens", u64_i64(r.input_tokens)),
            KeyValue::new("gen_ai.usage.output_tokens", u64_i64(r.output_tokens)),
            KeyValue::new(
                "gen_ai.usage.cache_read_input_tokens",
                u64_i64(r.cached_input_tokens),
            ),
            KeyValue::new("seekclaw.step", i64::from(r.step)),
            KeyValue::new("seekclaw.success", r.success),
            KeyValue::new("seekclaw.duration_ms", r.elapsed.as_secs_f64() * 1000.0),
        ]);
        if let Some(cost) = r.cost_usd {
            attrs.push(KeyValue::new("seekclaw.cost_usd", cost));
        }
        let mut span = self
            .tracer
            .span_builder("model_request")
            .with_kind(SpanKind::Client)
            .with_start_time(started)
            .with_attributes(attrs.clone())
            .start_with_context(&self.tracer, &turn.cx);
        if !r.success {
            span.set_status(Status::error("model request failed"));
        }
        span.end_with_timestamp(r.ended);
        let cx = turn.cx.clone();
        let i = &self.instruments;
        let mut outcome = base.clone();
        outcome.push(KeyValue::new("seekclaw.success", r.success));
        i.model_requests.add(1, &outcome);
        i.model_duration.record(r.elapsed.as_secs_f64(), &outcome);
        for (kind, n) in [
            ("input", r.input_tokens),
            ("output", r.output_tokens),
            ("cache_read", r.cached_input_tokens),
        ] {
            let mut a = base.clone();
            a.push(kv("gen_ai.token.type", kind));
            i.tokens.add(n, &a);
        }
        if let Some(cost) = r.cost_usd {
            i.cost.add(cost, &base);
        }
        let name = if r.success {
            "seekclaw.api_request"
        } else {
            let mut a = base.clone();
            a.push(kv("error.type", "model"));
            i.errors.add(1, &a);
            "seekclaw.api_error"
        };
        self.event(&cx, name, r.ended, attrs);
    }

    fn tool_start(
        &mut self,
        turn: u64,
        at: SystemTime,
        call_id: String,
        name: String,
        summary: Option<String>,
    ) {
        let Some(t) = self.turns.get_mut(&turn) else {
            return;
        };
        let mut attrs = t.base(self.front_end);
        attrs.extend([
            kv("gen_ai.operation.name", "execute_tool"),
            kv("gen_ai.tool.name", name.clone()),
            kv("gen_ai.tool.call.id", call_id.clone()),
        ]);
        if let Some(summary) = summary {
            attrs.push(kv("seekclaw.tool.summary", summary));
        }
        let span = self
            .tracer
            .span_builder("tool_call")
            .with_kind(SpanKind::Internal)
            .with_start_time(at)
            .with_attributes(attrs)
            .start_with_context(&self.tracer, &t.cx);
        let cx = t.cx.with_span(span);
        t.tools.push(OpenTool { call_id, name, cx });
    }

    fn tool_end(
        &mut self,
        turn: u64,
        at: SystemTime,
        (call_id, name): (String, String),
        success: bool,
        duration: Duration,
        output: Option<String>,
    ) {
        if !self
            .turns
            .get(&turn)
            .is_some_and(|t| t.tools.iter().any(|o| o.call_id == call_id))
        {
            // Its start was dropped: a span over its duration still.
            let started = at.checked_sub(duration).unwrap_or(at);
            self.tool_start(turn, started, call_id.clone(), name.clone(), None);
        }
        let Some(t) = self.turns.get_mut(&turn) else {
            return;
        };
        let Some(pos) = t.tools.iter().position(|o| o.call_id == call_id) else {
            return;
        };
        let open = t.tools.remove(pos);
        let mut base = t.base(self.front_end);
        base.push(kv("gen_ai.tool.name", name));
        let mut attrs = base.clone();
        attrs.extend([
            KeyValue::new("seekclaw.success", success),
            KeyValue::new("seekclaw.duration_ms", duration.as_secs_f64() * 1000.0),
            kv("gen_ai.tool.call.id", call_id),
        ]);
        if let Some(output) = output {
            attrs.push(kv("seekclaw.tool.output", output));
        }
        let span = open.cx.span();
        span.set_attributes(attrs.clone());
        if !success {
            span.set_status(Status::error("tool call failed"));
        }
        span.end_with_timestamp(at);
        let i = &self.instruments;
        let mut outcome = base.clone();
        outcome.push(KeyValue::new("seekclaw.success", success));
        i.tool_calls.add(1, &outcome);
        i.tool_duration.record(duration.as_secs_f64(), &base);
        if !success {
            base.push(kv("error.type", "tool"));
            i.errors.add(1, &base);
        }
        self.event(&open.cx, "seekclaw.tool_result", at, attrs);
    }

    fn turn_end(
        &mut self,
        turn: u64,
        at: SystemTime,
        status: &'static str,
        error: Option<&'static str>,
        answer: Option<String>,
    ) {
        let Some(mut t) = self.turns.remove(&turn) else {
            return;
        };
        if self.sessions.get(&t.session) == Some(&turn) {
            self.sessions.remove(&t.session);
        }
        for open in t.tools.drain(..) {
            let span = open.cx.span();
            span.set_status(Status::error("the turn ended first"));
            span.end_with_timestamp(at);
        }
        let wall = at.duration_since(t.started).unwrap_or_default();
        let mut base = t.base(self.front_end);
        base.extend([
            kv("seekclaw.turn.origin", t.origin),
            kv("seekclaw.turn.status", status),
            kv("gen_ai.request.model", t.model.clone().unwrap_or_default()),
        ]);
        let mut attrs = base.clone();
        attrs.push(KeyValue::new(
            "seekclaw.duration_ms",
            wall.as_secs_f64() * 1000.0,
        ));
        if let Some(kind) = error {
            attrs.push(kv("error.type", kind));
        }
        if let Some(answer) = answer {
            attrs.push(kv("seekclaw.answer", answer));
        }
        let span = t.cx.span();
        span.set_attributes(attrs.clone());
        if let Some(kind) = error {
            span.set_status(Status::error(kind));
        }
        span.end_with_timestamp(at);
        let i = &self.instruments;
        i.turns.add(1, &base);
        i.turn_duration.record(wall.as_secs_f64(), &base);
        if let Some(kind) = error {
            let mut a = t.base(self.front_end);
            a.push(kv("error.type", format!("turn.{kind}")));
            i.errors.add(1, &a);
        }
        self.event(&t.cx, "seekclaw.turn_end", at, attrs);
    }

    /// A log event tied to the span of `cx`.
    fn event(&self, cx: &Context, name: &'static str, at: SystemTime, attrs: Vec<KeyValue>) {
        let mut record = self.logger.create_log_record();
        record.set_event_name(name);
        record.set_timestamp(at);
        record.set_severity_number(Severity::Info);
        record.set_body(AnyValue::from(name));
        record.add_attributes(attrs.into_iter().map(|kv| (kv.key, any(kv.value))));
        let sc = cx.span().span_context().clone();
        record.set_trace_context(sc.trace_id(), sc.span_id(), Some(sc.trace_flags()));
        self.logger.emit(record);
    }
}

/// A span attribute's value as a log attribute's.
fn any(value: opentelemetry::Value) -> AnyValue {
    match value {
        opentelemetry::Value::Bool(b) => AnyValue::Boolean(b),
        opentelemetry::Value::I64(n) => AnyValue::Int(n),
        opentelemetry::Value::F64(f) => AnyValue::Double(f),
        other => AnyValue::String(other.as_str().into_owned().into()),
    }
}

fn u64_i64(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

fn usize_i64(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}
