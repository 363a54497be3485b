//! An OTLP/HTTP collector inside the test: keeps every request body it
//! gets and decodes them with the official protobuf messages.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use opentelemetry_proto::tonic::collector::logs::v1::ExportLogsServiceRequest;
use opentelemetry_proto::tonic::collector::metrics::v1::ExportMetricsServiceRequest;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::{AnyValue, KeyValue, any_value};
use opentelemetry_proto::tonic::metrics::v1::{Metric, metric};
use opentelemetry_proto::tonic::trace::v1::Span;
use prost::Message;

type Bodies = Arc<Mutex<Vec<(String, Vec<u8>)>>>;

/// A collector on loopback, for the life of the test process.
pub struct Collector {
    addr: SocketAddr,
    bodies: Bodies,
}

impl Collector {
    pub fn start() -> Collector {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let addr = listener.local_addr().unwrap();
        let bodies = Bodies::default();
        let kept = bodies.clone();
        std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            rt.block_on(async move {
                let listener = tokio::net::TcpListener::from_std(listener).unwrap();
                loop {
                    let Ok((stream, _)) = listener.accept().await else {
                        continue;
                    };
                    let kept = kept.clone();
                    tokio::spawn(async move {
                        let service =
                            service_fn(move |req: hyper::Request<hyper::body::Incoming>| {
                                let kept = kept.clone();
                                async move {
                                    let path = req.uri().path().to_string();
                                    let body = req.into_body().collect().await?.to_bytes();
                                    kept.lock().unwrap().push((path, body.to_vec()));
                                    let mut ok = hyper::Response::new(Full::new(Bytes::new()));
                                    ok.headers_mut().insert(
                                        "content-type",
                                        hyper::header::HeaderValue::from_static(
                                            "application/x-protobuf",
                                        ),
                                    );
                                    Ok::<_, hyper::Error>(ok)
                                }
                            });
                        let _ = hyper::server::conn::http1::Builder::new()
                            .serve_connection(TokioIo::new(stream), service)
                            .await;
                    });
                }
            });
        });
        Collector { addr, bodies }
    }

    pub fn endpoint(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The raw bodies posted to `path` (`/v1/traces`, …).
    pub fn raw(&self, path: &str) -> Vec<Vec<u8>> {
        self.bodies
            .lock()
            .unwrap()
            .iter()
            .filter(|(p, _)| p == path)
            .map(|(_, b)| b.clone())
            .collect()
    }

    /// Every body, of every signal.
    pub fn all_raw(&self) -> Vec<u8> {
        self.bodies
            .lock()
            .unwrap()
            .iter()
            .flat_map(|(_, b)| b.clone())
            .collect()
    }

    /// Waits (bounded) until `path` got a body.
    pub fn wait_for(&self, path: &str) {
        let deadline = Instant::now() + Duration::from_secs(30);
        while self.raw(path).is_empty() {
            assert!(Instant::now() < deadline, "nothing was posted to {path}");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    pub fn spans(&self) -> Vec<Span> {
        self.raw("/v1/traces")
            .iter()
            .flat_map(|b| {
                ExportTraceServiceRequest::decode(&b[..])
                    .unwrap()
                    .resource_spans
            })
            .flat_map(|r| r.scope_spans)
            .flat_map(|s| s.spans)
            .collect()
    }

    pub fn metrics(&self) -> Vec<Metric> {
        self.raw("/v1/metrics")
            .iter()
            .flat_map(|b| {
                ExportMetricsServiceRequest::decode(&b[..])
                    .unwrap()
                    .resource_metrics
            })
            .flat_map(|r| r.scope_metrics)
            .flat_map(|s| s.metrics)
            .collect()
    }

    /// Log events' names with their attributes.
    pub fn events(&self) -> Vec<(String, HashMap<String, String>)> {
        self.raw("/v1/logs")
            .iter()
            .flat_map(|b| {
                ExportLogsServiceRequest::decode(&b[..])
                    .unwrap()
                    .resource_logs
            })
            .flat_map(|r| r.scope_logs)
            .flat_map(|s| s.log_records)
            .map(|l| (l.event_name.clone(), attrs(&l.attributes)))
            .collect()
    }
}

/// Attributes as strings.
pub fn attrs(kvs: &[KeyValue]) -> HashMap<String, String> {
    kvs.iter()
        .map(|kv| {
            (
                kv.key.clone(),
                kv.value.as_ref().map(text).unwrap_or_default(),
            )
        })
        .collect()
}

fn text(v: &AnyValue) -> String {
    match &v.value {
        Some(any_value::Value::StringValue(s)) => s.clone(),
        Some(any_value::Value::IntValue(n)) => n.to_string(),
        Some(any_value::Value::DoubleValue(f)) => f.to_string(),
        Some(any_value::Value::BoolValue(b)) => b.to_string(),
        _ => String::new(),
    }
}

/// The attribute sets of a metric's data points.
pub fn points(metric: &Metric) -> Vec<HashMap<String, String>> {
    match &metric.data {
        Some(metric::Data::Sum(s)) => s.data_points.iter().map(|p| attrs(&p.attributes)).collect(),
        Some(metric::Data::Histogram(h)) => {
            h.data_points.iter().map(|p| attrs(&p.attributes)).collect()
        }
        Some(metric::Data::Gauge(g)) => {
            g.data_points.iter().map(|p| attrs(&p.attributes)).collect()
        }
        _ => Vec::new(),
    }
}
