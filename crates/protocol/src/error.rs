use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Machine-readable error class in `details.code`. Old clients ignore it and show `data`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// The line is not a JSON object (answered with id 0).
    InvalidJson,
    /// Bad params or request fields: a missing, mistyped or out-of-range value (`param` names it when one is to blame).
    InvalidRequest,
    /// No method has that name.
    UnknownMethod,
    /// The named item (session, provider, model, profile, project, task, …) does not exist.
    NotFound,
    /// The request clashes with the current state (e.g. removing the active profile, steering a turn that is already finishing).
    Conflict,
    /// The session is already running a turn: steer or cancel it instead.
    Busy,
    /// Over a limit: a request line's size, an image's size, the number of images.
    TooLarge,
    /// Not allowed: a peer that is not the daemon's user, a protected folder (the home directory, the SeekClaw home).
    Forbidden,
    /// The model provider failed (HTTP error, bad answer); `data` carries its text.
    Provider,
    /// No configured model can serve the request (none enabled, none with
    /// vision for its images).
    NoModel,
    /// A turn reached its step limit (`agent.maxSteps`) unfinished.
    StepLimit,
    /// The store could not write (or read) what the request needed: a full
    /// disk, an I/O error. Nothing was acknowledged that was not stored.
    Storage,
    /// A provider request timed out.
    Timeout,
    /// Reserved; not sent at present (a cancelled turn ends with the `cancelled` event).
    Cancelled,
    /// A daemon fault.
    Internal,
    /// `config.json` or `state.json` is not valid JSON: a write over it is
    /// refused (the file is left as it is), as are turns when no earlier
    /// version was read. `data` names the file, line and column.
    ConfigInvalid,
    /// A turn stopped before a model request that would exceed a spend
    /// budget (`budgets` in the config, or the session's own); `data` names
    /// the budget, what was spent and how to raise it. Nothing was lost.
    Budget,
}

impl ErrorCode {
    /// The wire name (snake_case).
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
            ErrorCode::ConfigInvalid => "config_invalid",
            ErrorCode::Budget => "budget",
        }
    }
}

/// A failed request: the readable message becomes `data`, the code `details.code`.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{message}")]
pub struct MethodError {
    /// The error class (`details.code`).
    pub code: ErrorCode,
    /// The readable message (`data`).
    pub message: String,
    /// The offending parameter, when one is to blame.
    pub param: Option<String>,
    /// Added to the envelope for turn-related failures.
    pub session_id: Option<String>,
}

impl MethodError {
    /// An error of class `code`.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        MethodError {
            code,
            message: message.into(),
            param: None,
            session_id: None,
        }
    }

    /// An `invalid_request` error.
    pub fn invalid(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::InvalidRequest, message)
    }

    /// An `invalid_request` error blaming parameter `param`.
    pub fn invalid_param(param: &str, message: impl Into<String>) -> Self {
        MethodError {
            param: Some(param.to_string()),
            ..Self::invalid(message)
        }
    }

    /// A `not_found` error.
    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::NotFound, message)
    }

    /// An `internal` error.
    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::Internal, message)
    }

    /// Sets the `sessionId` the error envelope carries.
    pub fn with_session(mut self, session_id: Option<String>) -> Self {
        self.session_id = session_id;
        self
    }
}
