//! `telemetry`: OpenTelemetry export (metrics, traces and log events over
//! OTLP HTTP/protobuf). Off unless `telemetry.otlp.endpoint` is set. What
//! people typed and what tools returned stays out of the export unless
//! `includeContent` says otherwise; API keys never leave.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The service name resources carry when `serviceName` is not set.
pub const DEFAULT_SERVICE_NAME: &str = "seekclaw";
/// How often metrics are exported unless `exportIntervalMs` says otherwise.
pub const DEFAULT_EXPORT_INTERVAL_MS: u64 = 60_000;

/// `telemetry`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct TelemetrySettings {
    /// Where to export; no endpoint: no telemetry at all.
    #[serde(skip_serializing_if = "OtlpSettings::is_empty")]
    pub otlp: OtlpSettings,
    /// Export prompts, answers, tool summaries and outputs, and the
    /// workspace path (default false: counts, names and durations only).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub include_content: bool,
    /// `service.name` of the exported resource (default `seekclaw`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub service_name: Option<String>,
    /// How often metrics are exported, in milliseconds (default 60000);
    /// whatever is pending is exported when the process exits anyway.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub export_interval_ms: Option<u64>,
    /// Unknown keys, kept so a newer config round-trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `telemetry.otlp`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct OtlpSettings {
    /// The collector's OTLP/HTTP base URL (`http://localhost:4318`); the
    /// signals go to `/v1/traces`, `/v1/metrics` and `/v1/logs` under it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub endpoint: Option<String>,
    /// Headers sent with every export (a collector's auth token).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub headers: BTreeMap<String, String>,
    /// Unknown keys, kept so a newer config round-trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl OtlpSettings {
    /// Nothing set (left out of a written file).
    pub fn is_empty(&self) -> bool {
        *self == OtlpSettings::default()
    }
}

impl TelemetrySettings {
    /// Nothing set (left out of a written file).
    pub fn is_empty(&self) -> bool {
        *self == TelemetrySettings::default()
    }

    /// The endpoint when telemetry is on (set and not blank).
    pub fn endpoint(&self) -> Option<&str> {
        self.otlp
            .endpoint
            .as_deref()
            .map(str::trim)
            .filter(|e| !e.is_empty())
    }

    /// Why the endpoint cannot be exported to: it must be an `http://` or
    /// `https://` URL. `None` when it can (or none is set).
    pub fn endpoint_problem(&self) -> Option<String> {
        let base = self.endpoint()?.trim_end_matches('/');
        (!(base.starts_with("http://") || base.starts_with("https://")))
            .then(|| format!("endpoint `{base}` is not an http:// or https:// URL"))
    }

    /// The endpoint as it may be shown: without a `user:password@` part.
    pub fn endpoint_shown(&self) -> Option<String> {
        let endpoint = self.endpoint()?;
        let Some((scheme, rest)) = endpoint.split_once("://") else {
            return Some(endpoint.to_string());
        };
        let host_end = rest.find('/').unwrap_or(rest.len());
        Some(match rest[..host_end].rsplit_once('@') {
            Some((_, host)) => format!("{scheme}://…@{host}{}", &rest[host_end..]),
            None => endpoint.to_string(),
        })
    }

    /// `service.name` in effect.
    pub fn service_name(&self) -> &str {
        self.service_name
            .as_deref()
            .filter(|s| !s.trim().is_empty())
            .unwrap_or(DEFAULT_SERVICE_NAME)
    }

    /// The metrics export interval in effect (at least 100 ms).
    pub fn export_interval_ms(&self) -> u64 {
        self.export_interval_ms
            .unwrap_or(DEFAULT_EXPORT_INTERVAL_MS)
            .max(100)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn off_by_default_and_round_trips() {
        let t = TelemetrySettings::default();
        assert!(t.endpoint().is_none());
        assert_eq!(t.service_name(), "seekclaw");
        let json = serde_json::json!({
            "otlp": {"endpoint": " http://127.0.0.1:4318 ", "headers": {"x-token": "t"}},
            "includeContent": true,
            "serviceName": "agent",
            "future": 1
        });
        let t: TelemetrySettings = serde_json::from_value(json.clone()).unwrap();
        assert_eq!(t.endpoint(), Some("http://127.0.0.1:4318"));
        assert!(t.include_content);
        assert_eq!(t.service_name(), "agent");
        assert_eq!(serde_json::to_value(&t).unwrap(), json);
    }

    #[test]
    fn a_blank_endpoint_is_off() {
        let t: TelemetrySettings =
            serde_json::from_value(serde_json::json!({"otlp": {"endpoint": "  "}})).unwrap();
        assert!(t.endpoint().is_none());
    }
}
