//! The few sentences both wires carry the same way (the daemon's envelopes
//! and `serve`'s events): a failover, a retry, a turn whose end could not be
//! saved. Worded once here, at the protocol edge; the engine and the agent
//! hold data only.

/// "tk/m1 failed: … — answered by other/m2".
pub fn failover_notice(failed: &str, error: &str, to: &str) -> String {
    format!("{failed} failed: {error} — answered by {to}")
}

/// "tk/m1: retrying 2/3 after HTTP 500 (in 0.5 s)".
pub fn retry_notice(
    model: &str,
    attempt: u32,
    max_attempts: u32,
    reason: &str,
    delay_ms: u64,
) -> String {
    format!(
        "{model}: retrying {attempt}/{max_attempts} after {reason} (in {:.1} s)",
        delay_ms as f64 / 1000.0
    )
}

/// What every front end says of a turn whose end could not be saved.
pub fn unsaved_message(error: &str) -> String {
    format!("The turn could not be saved: {error}")
}
