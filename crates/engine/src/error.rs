//! The engine's failures as the wire reads them: one mapping each, used by
//! every front end.

use seekclaw_agent::FailureKind;
use seekclaw_protocol::{ErrorCode, MethodError};
use seekclaw_store::StoreError;

/// Maps a store failure to the wire: missing rows are `not_found`, clashes
/// `conflict`, a database or file that could not be written `storage`.
pub fn store_error(err: StoreError) -> MethodError {
    match err {
        StoreError::NotFound(msg) => MethodError::not_found(msg),
        StoreError::Conflict(msg) => MethodError::new(ErrorCode::Conflict, msg),
        other @ (StoreError::Sqlite(_) | StoreError::Io { .. }) => {
            tracing::error!(error = %other, "store error");
            MethodError::new(ErrorCode::Storage, format!("Database error: {other}"))
        }
        other => {
            tracing::error!(error = %other, "store error");
            MethodError::internal(format!("Database error: {other}"))
        }
    }
}

/// The `details.code` of a failed turn.
pub fn failure_code(kind: FailureKind) -> ErrorCode {
    match kind {
        FailureKind::Provider => ErrorCode::Provider,
        FailureKind::NoModel => ErrorCode::NoModel,
        FailureKind::Timeout => ErrorCode::Timeout,
        FailureKind::StepLimit => ErrorCode::StepLimit,
        FailureKind::Storage => ErrorCode::Storage,
        FailureKind::Internal => ErrorCode::Internal,
    }
}
