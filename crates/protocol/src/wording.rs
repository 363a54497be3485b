//! The few sentences both wires carry the same way (the daemon's envelopes
//! and `serve`'s events): a failover, a retry, a turn whose end could not be
//! saved. Worded once here, at the protocol edge; the engine and the agent
//! hold data only.

/// "tk/m1 failed: … — answered by tk/m2", and "… — answered by other/m2
/// (another provider)" when the request went to another provider (another
/// vendor may mean another price and another destination for the prompt).
pub fn failover_notice(failed: &str, error: &str, to: &str) -> String {
    if crosses_provider(failed, to) {
        format!("{failed} failed: {error} — answered by {to} (another provider)")
    } else {
        format!("{failed} failed: {error} — answered by {to}")
    }
}

/// Whether a failover from `failed` to `to` (both `provider/model`) changes provider.
pub fn crosses_provider(failed: &str, to: &str) -> bool {
    let provider = |r: &str| r.split_once('/').map_or(r, |(p, _)| p).to_ascii_lowercase();
    provider(failed) != provider(to)
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

/// What a command that takes `--workspace`/`--global` (`run`, fleets,
/// `serve`) says when the directory it was started in is too broad to be
/// the workspace.
pub const IMPLICIT_WORKSPACE: &str =
    "Run seekclaw in a project directory, name one with `--workspace DIR`, or use `--global`.";

/// What the next turn reads of a background job the process stopped
/// unfinished (it exited: `seekclaw run`'s end, a daemon or `serve` stopping).
pub fn job_stopped_at_exit(job_id: &str, command: &str) -> String {
    format!(
        "background job {job_id} was stopped unfinished: the seekclaw process that ran it exited (command: {command})"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failover_to_another_provider_says_so() {
        assert_eq!(
            failover_notice("tk/m1", "HTTP 500", "tk/m2"),
            "tk/m1 failed: HTTP 500 — answered by tk/m2"
        );
        assert_eq!(
            failover_notice("local/m1", "refused", "cloud/c1"),
            "local/m1 failed: refused — answered by cloud/c1 (another provider)"
        );
        assert!(!crosses_provider("TK/m1", "tk/m2"));
    }
}
