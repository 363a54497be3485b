//! The engine's failures on serve's wire: the one mapping of
//! [`EngineError`] in this front end. Serve's events carry text only; a
//! busy session fails the submitted turn, anything else the agent's setup.

use seekclaw_engine::{EngineError, ErrorKind};

/// The `error` text of the event that reports `e`, with what to do here.
pub(crate) fn text(e: &EngineError) -> String {
    match e.kind {
        ErrorKind::Busy => format!(
            "{}; send a `steer` command to add guidance or `cancel` to stop it",
            e.message
        ),
        _ => e.message.clone(),
    }
}

/// Whether `e` fails the submitted turn (`turn_failed`) rather than the
/// agent's setup (`agent_setup_failed`): the session is busy, nothing is
/// wrong with the agent.
pub(crate) fn fails_the_turn(e: &EngineError) -> bool {
    matches!(e.kind, ErrorKind::Busy | ErrorKind::BusyElsewhere)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_busy_session_fails_the_turn_with_serve_s_hint() {
        let e = EngineError::busy_elsewhere("s1");
        assert!(fails_the_turn(&e));
        assert_eq!(
            text(&e),
            "Session s1 is running a turn in another seekclaw process; \
             wait for it to finish or cancel it there"
        );
        let e = EngineError::busy("s1");
        assert!(fails_the_turn(&e));
        assert!(text(&e).contains("`steer` command"), "{}", text(&e));
        assert!(!text(&e).contains("agent.steer"), "{}", text(&e));
    }

    #[test]
    fn other_failures_fail_the_setup_with_the_engine_text() {
        let e = EngineError::invalid_param("model", "Unknown model \"m9\".");
        assert!(!fails_the_turn(&e));
        assert_eq!(text(&e), "Unknown model \"m9\".");
    }
}
