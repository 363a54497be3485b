//! Provider failures. Texts name the provider and quote its message; they never
//! contain an API key (keys live only in request headers, which are never printed).

use std::time::Duration;

/// Why a provider request failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ProviderError {
    /// The provider answered with a non-success status.
    #[error("{provider} returned HTTP {status}: {message}")]
    Http {
        /// Provider id.
        provider: String,
        /// The HTTP status code.
        status: u16,
        /// The provider's error message.
        message: String,
        /// The `Retry-After` the provider asked for, if any.
        retry_after: Option<Duration>,
    },
    /// No connection could be made (DNS, refused, TLS, reset before headers).
    #[error("{provider} connection failed: {message}")]
    Connect {
        /// Provider id.
        provider: String,
        /// What went wrong.
        message: String,
    },
    /// Connect, response-header or stream-idle timeout.
    #[error("{provider} timed out ({phase} after {}s)", .after.as_secs_f64())]
    Timeout {
        /// Provider id.
        provider: String,
        /// Which wait ran out (`connect`, `stream idle`, ...).
        phase: &'static str,
        /// How long it waited.
        after: Duration,
    },
    /// The stream broke or reported an error event after it started.
    #[error("{provider} stream failed: {message}")]
    Stream {
        /// Provider id.
        provider: String,
        /// What went wrong.
        message: String,
        /// Whether another attempt may succeed.
        retryable: bool,
    },
    /// A response that does not follow the wire format.
    #[error("{provider} sent an invalid response: {message}")]
    InvalidResponse {
        /// Provider id.
        provider: String,
        /// What was wrong with it.
        message: String,
    },
    /// Configuration that cannot work (unknown kind, no models, bad URL).
    #[error("{0}")]
    Config(String),
    /// The caller cancelled the request.
    #[error("cancelled")]
    Cancelled,
    /// Every failover candidate failed.
    #[error("{}", format_all_failed(.0))]
    AllFailed(Vec<(String, ProviderError)>),
}

fn format_all_failed(tried: &[(String, ProviderError)]) -> String {
    let mut out = format!(
        "All candidate models failed after automatic failover ({} tried):",
        tried.len()
    );
    for (model, err) in tried {
        out.push_str(&format!("\n- {model}: {err}"));
    }
    out
}

impl ProviderError {
    /// A few words on what went wrong, for a progress line ("retrying 2/3
    /// after HTTP 500"); the full text is the `Display`.
    pub fn brief(&self) -> String {
        match self {
            ProviderError::Http { status, .. } => format!("HTTP {status}"),
            ProviderError::Connect { .. } => "a connection failure".into(),
            ProviderError::Timeout { phase, .. } => format!("a {phase} timeout"),
            ProviderError::Stream { .. } => "a broken stream".into(),
            ProviderError::InvalidResponse { .. } => "an invalid response".into(),
            ProviderError::Config(_) => "a configuration problem".into(),
            ProviderError::Cancelled => "cancellation".into(),
            ProviderError::AllFailed(_) => "failures of every candidate".into(),
        }
    }

    /// Worth another attempt on the same model: 408/409/429/5xx (and Anthropic's
    /// 529), connection errors, timeouts and broken streams.
    pub fn is_retryable(&self) -> bool {
        match self {
            ProviderError::Http { status, .. } => {
                matches!(status, 408 | 409 | 429) || *status >= 500
            }
            ProviderError::Connect { .. } | ProviderError::Timeout { .. } => true,
            ProviderError::Stream { retryable, .. } => *retryable,
            ProviderError::InvalidResponse { .. }
            | ProviderError::Config(_)
            | ProviderError::Cancelled
            | ProviderError::AllFailed(_) => false,
        }
    }

    /// Replaces `secret` (the provider's API key) wherever the provider's own text
    /// was quoted: some servers echo the credential they rejected. Keys shorter
    /// than 8 characters (`"ollama"`, placeholders) are not secret and stay.
    pub fn without_secret(self, secret: Option<&str>) -> ProviderError {
        let Some(secret) = secret.map(str::trim).filter(|k| k.len() >= 8) else {
            return self;
        };
        let clean = |m: String| {
            if m.contains(secret) {
                m.replace(secret, "<redacted>")
            } else {
                m
            }
        };
        match self {
            ProviderError::Http {
                provider,
                status,
                message,
                retry_after,
            } => ProviderError::Http {
                provider,
                status,
                message: clean(message),
                retry_after,
            },
            ProviderError::Connect { provider, message } => ProviderError::Connect {
                provider,
                message: clean(message),
            },
            ProviderError::Stream {
                provider,
                message,
                retryable,
            } => ProviderError::Stream {
                provider,
                message: clean(message),
                retryable,
            },
            ProviderError::InvalidResponse { provider, message } => {
                ProviderError::InvalidResponse {
                    provider,
                    message: clean(message),
                }
            }
            ProviderError::Config(m) => ProviderError::Config(clean(m)),
            other => other,
        }
    }

    /// The server's requested wait, if any.
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            ProviderError::Http { retry_after, .. } => *retry_after,
            _ => None,
        }
    }
}

/// Pulls a readable message out of an error body: `error.message`, a string
/// `error`, or `message`; else up to 400 characters of the raw text.
pub fn error_detail(body: &[u8]) -> String {
    if let Ok(v) = serde_json::from_slice::<serde_json::Value>(body) {
        let candidates = [
            v.pointer("/error/message"),
            v.get("error").filter(|e| e.is_string()),
            v.get("message"),
        ];
        if let Some(msg) = candidates.into_iter().flatten().find_map(|m| m.as_str()) {
            return msg.to_string();
        }
    }
    let text = String::from_utf8_lossy(body);
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return "(empty response body)".to_string();
    }
    trimmed.chars().take(400).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_and_retryability() {
        let e = ProviderError::Http {
            provider: "openai".into(),
            status: 401,
            message: "Invalid API key supplied".into(),
            retry_after: None,
        };
        assert_eq!(
            e.to_string(),
            "openai returned HTTP 401: Invalid API key supplied"
        );
        assert!(!e.is_retryable());
        for s in [408, 409, 429, 500, 503, 529] {
            let e = ProviderError::Http {
                provider: "p".into(),
                status: s,
                message: String::new(),
                retry_after: None,
            };
            assert!(e.is_retryable(), "{s}");
        }
        let all = ProviderError::AllFailed(vec![
            ("a/x".into(), ProviderError::Config("boom".into())),
            ("b/y".into(), ProviderError::Cancelled),
        ]);
        assert_eq!(
            all.to_string(),
            "All candidate models failed after automatic failover (2 tried):\n- a/x: boom\n- b/y: cancelled"
        );
    }

    #[test]
    fn without_secret_redacts_echoed_keys() {
        let e = ProviderError::Http {
            provider: "p".into(),
            status: 401,
            message: "bad key sk-abcdef123 (sk-abcdef123)".into(),
            retry_after: None,
        };
        assert_eq!(
            e.clone().without_secret(Some(" sk-abcdef123 ")).to_string(),
            "p returned HTTP 401: bad key <redacted> (<redacted>)"
        );
        assert_eq!(e.clone().without_secret(None), e);
        let short = ProviderError::Config("model ollama not found".into());
        assert_eq!(short.clone().without_secret(Some("ollama")), short);
    }

    #[test]
    fn error_detail_extracts_messages() {
        assert_eq!(
            error_detail(br#"{"error":{"message":"bad key"}}"#),
            "bad key"
        );
        assert_eq!(error_detail(br#"{"error":"nope"}"#), "nope");
        assert_eq!(error_detail(br#"{"message":"m"}"#), "m");
        assert_eq!(error_detail(b"  plain text "), "plain text");
        assert_eq!(error_detail(&[b'x'; 1000]).len(), 400);
        assert_eq!(error_detail(b""), "(empty response body)");
    }
}
