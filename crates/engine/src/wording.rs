//! The few sentences every front end shows the same way (the daemon's
//! envelopes, `serve`'s events, `run`'s output): worded once here, at the
//! engine's edge, never in the agent, which holds data only.

use seekclaw_agent::AgentEvent;

/// The line a front end shows for a failover or a retry, in English
/// ("tk/m1 failed: … — answered by other/m2", "retrying 2/3 after HTTP
/// 500"); `None` for other events.
pub fn model_notice(ev: &AgentEvent) -> Option<String> {
    match ev {
        AgentEvent::Failover {
            failed, error, to, ..
        } => Some(format!("{failed} failed: {error} — answered by {to}")),
        AgentEvent::Retry {
            model,
            attempt,
            max_attempts,
            reason,
            delay_ms,
            ..
        } => Some(format!(
            "{model}: retrying {attempt}/{max_attempts} after {reason} (in {:.1} s)",
            *delay_ms as f64 / 1000.0
        )),
        _ => None,
    }
}

/// What every front end says of a turn whose end could not be saved.
pub fn unsaved_message(error: &str) -> String {
    format!("The turn could not be saved: {error}")
}
