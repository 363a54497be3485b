//! The line every front end shows for a failover or a retry (another model,
//! maybe another price and data destination, or a wait), in the protocol's
//! shared wording: one reading of the agent's events for all of them.

use seekclaw_agent::AgentEvent;
use seekclaw_protocol::wording;

/// The failover or retry line of `ev`; `None` for other events.
pub fn model_notice(ev: &AgentEvent) -> Option<String> {
    match ev {
        AgentEvent::Failover {
            failed, error, to, ..
        } => Some(wording::failover_notice(failed, error, to)),
        AgentEvent::Retry {
            model,
            attempt,
            max_attempts,
            reason,
            delay_ms,
            ..
        } => Some(wording::retry_notice(
            model,
            *attempt,
            *max_attempts,
            reason,
            *delay_ms,
        )),
        _ => None,
    }
}
