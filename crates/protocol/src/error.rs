use schemars::JsonSchema;
use serde::Serialize;

/// Machine-readable error class in `details.code`. Old clients ignore it and show `data`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    InvalidJson,
    InvalidRequest,
    UnknownMethod,
    NotFound,
    Conflict,
    Busy,
    TooLarge,
    Forbidden,
    Provider,
    /// No configured model can serve the request (none enabled, none with
    /// vision for its images).
    NoModel,
    /// A turn reached its step limit (`agent.maxSteps`) unfinished.
    StepLimit,
    /// The store could not write (or read) what the request needed: a full
    /// disk, an I/O error. Nothing was acknowledged that was not stored.
    Storage,
    Timeout,
    Cancelled,
    Internal,
}

impl ErrorCode {
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidJson => "invalid_json",
            ErrorCode::InvalidRequest => "invalid_request",
            ErrorCode::UnknownMethod => "unknown_method",
            ErrorCode::NotFound => "not_found",
            ErrorCode::Conflict => "conflict",
            ErrorCode::Busy => "busy",
            ErrorCode::TooLarge => "too_large",
            ErrorCode::Forbidden => "forbidden",
            ErrorCode::Provider => "provider",
            ErrorCode::NoModel => "no_model",
            ErrorCode::StepLimit => "step_limit",
            ErrorCode::Storage => "storage",
            ErrorCode::Timeout => "timeout",
            ErrorCode::Cancelled => "cancelled",
            ErrorCode::Internal => "internal",
        }
    }
}

/// A failed request: the readable message becomes `data`, the code `details.code`.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{message}")]
pub struct MethodError {
    pub code: ErrorCode,
    pub message: String,
    /// The offending parameter, when one is to blame.
    pub param: Option<String>,
    /// Added to the envelope for turn-related failures.
    pub session_id: Option<String>,
}

impl MethodError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        MethodError {
            code,
            message: message.into(),
            param: None,
            session_id: None,
        }
    }

    pub fn invalid(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::InvalidRequest, message)
    }

    pub fn invalid_param(param: &str, message: impl Into<String>) -> Self {
        MethodError {
            param: Some(param.to_string()),
            ..Self::invalid(message)
        }
    }

    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::NotFound, message)
    }

    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::Internal, message)
    }

    pub fn with_session(mut self, session_id: Option<String>) -> Self {
        self.session_id = session_id;
        self
    }
}
