//! What a failed tool call tells the MCP client: the one mapping of the
//! engine's failures in `mcp serve`.

use seekclaw_engine::{EngineError, ErrorKind};

/// A tool call that did not work, for the caller to read (`isError`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolError(pub String);

/// The engine's failures as a tool result's text, with what to do about
/// them here: the one mapping of [`EngineError`] in this front end.
impl From<EngineError> for ToolError {
    fn from(e: EngineError) -> ToolError {
        ToolError(match (e.kind, e.session_id) {
            // In this process only another `run_task` call runs turns.
            (ErrorKind::Busy, Some(sid)) => format!(
                "Session {sid} is already running a task (another run_task call); \
                 wait for it to finish, or cancel that call"
            ),
            _ => e.message,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_busy_session_names_the_other_call() {
        let ToolError(text) = EngineError::busy("s1").into();
        assert_eq!(
            text,
            "Session s1 is already running a task (another run_task call); \
             wait for it to finish, or cancel that call"
        );
        let ToolError(text) = EngineError::busy_elsewhere("s1").into();
        assert_eq!(
            text,
            "Session s1 is running a turn in another seekclaw process; \
             wait for it to finish or cancel it there"
        );
    }

    #[test]
    fn other_failures_keep_the_engine_text() {
        let ToolError(text) = EngineError::not_found("Session x not found").into();
        assert_eq!(text, "Session x not found");
    }
}
