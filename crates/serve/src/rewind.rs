//! The `rewind` command: the engine's rewind of this serve's session, its
//! outcome as `rewind_finished` or `rewind_failed` (with the conflicting
//! files listed, so the controller can decide to send it again with `force`).

use seekclaw_engine::{Engine, Scope};
use seekclaw_protocol::openseek::Rewind;

use crate::WireEvent;

/// Runs `request` on `session`; `busy`: work is in hand (a turn or a
/// compaction), so nothing is changed.
pub(crate) async fn run(
    _engine: &Engine,
    _scope: &Scope,
    session: Option<String>,
    request: Rewind,
    busy: bool,
) -> Vec<WireEvent> {
    let failed = |reason: &str, error: String| WireEvent::RewindFailed {
        sequence: request.seq,
        reason: reason.to_string(),
        error,
        conflicts: Vec::new(),
    };
    if busy {
        return vec![failed(
            "busy",
            "A turn is running; rewind when it has ended (or `cancel` it first)".into(),
        )];
    }
    if session.is_none() {
        return vec![failed(
            "not_found",
            "The session has no messages yet".into(),
        )];
    }
    vec![failed("failed", "rewind is not available yet".into())]
}
