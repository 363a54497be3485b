//! `run_task`: one engine turn per call, its events as progress
//! notifications, its end as the result. The turn is driven on a task of the
//! server's own (not the request's), so a server that stops waits for it to
//! end and record its end.

use std::time::{Duration, Instant};

use rmcp::model::{ProgressNotificationParam, ProgressToken};
use rmcp::service::{Peer, RequestContext, RoleServer};
use seekclaw_agent::{AgentEvent, Approvals, FailureKind, TurnFailure, TurnOutcome, Unattended};
use seekclaw_engine::{SessionTarget, TurnControls, TurnOrigin, TurnRequest};
use tokio::sync::mpsc;

use crate::tools::{RunTaskArgs, RunTaskResult, TaskStatus};
use crate::{Server, ToolError};

/// Why a call that needs approval is refused: nobody answers over MCP.
const NOBODY_TO_ASK: &str = "`seekclaw mcp serve` cannot ask a person to approve this call \
     (start it with `--approval never` to run such calls, or use `seekclaw chat`)";

/// The longest tail of the answer a progress message quotes.
const ANSWER_TAIL: usize = 80;
/// Answer progress is sent at most this often (the answer itself comes
/// whole in the result).
const ANSWER_EVERY: Duration = Duration::from_millis(200);

/// What the turn's driver reports.
enum Update {
    Event(AgentEvent),
    End(TurnOutcome),
}

/// Runs the task to its end (or its cancellation) and says how it ended.
pub async fn run(
    server: &Server,
    args: RunTaskArgs,
    rc: RequestContext<RoleServer>,
) -> Result<RunTaskResult, ToolError> {
    if args.prompt.trim().is_empty() {
        return Err(ToolError("prompt is empty: say what to do".into()));
    }
    let scope = crate::sessions::workspace_scope(&server.engine, &args.workspace)?;
    if let Some(root) = &scope.workspace {
        seekclaw_engine::refuse_implicit(root, "Name a project directory.")?;
    }
    let session = match args.session_id {
        Some(id) if id.trim().is_empty() => {
            return Err(ToolError("sessionId must not be empty".into()));
        }
        Some(id) => SessionTarget::Id(id),
        None => SessionTarget::New { id: None },
    };
    let mut overrides = server.overrides.clone();
    if let Some(mode) = args.mode {
        overrides.mode = Some(mode.agent_mode());
    }
    let controls = TurnControls::new(Approvals::unattended(Unattended::Reject(
        NOBODY_TO_ASK.into(),
    )));
    let cancel = controls.cancel.clone();
    let request = TurnRequest {
        scope,
        session,
        message: args.prompt,
        images: Vec::new(),
        reasoning: None,
        overrides,
        controls,
        origin: TurnOrigin::new("mcp"),
    };
    let mut handle = server.engine.start_turn(request).await?;
    let session_id = handle.session().id.clone();
    let (tx, mut rx) = mpsc::unbounded_channel();
    server.tracker.spawn(async move {
        while let Some(ev) = handle.next_event().await {
            let _ = tx.send(Update::Event(ev));
        }
        let outcome = handle.take_outcome();
        // The session is free before the caller hears of the end.
        drop(handle);
        let _ = tx.send(Update::End(outcome.unwrap_or_else(|| {
            TurnOutcome::Failed(TurnFailure::new(
                FailureKind::Internal,
                "the turn ended without an outcome",
            ))
        })));
    });
    let mut progress = Progress::new(rc.peer.clone(), rc.meta.get_progress_token());
    let mut cancelled = false;
    let outcome = loop {
        tokio::select! {
            update = rx.recv() => match update {
                Some(Update::Event(ev)) => {
                    if !cancelled {
                        progress.event(&ev).await;
                    }
                }
                Some(Update::End(outcome)) => break outcome,
                None => break TurnOutcome::Failed(TurnFailure::new(
                    FailureKind::Internal,
                    "the turn's driver stopped without an outcome",
                )),
            },
            // The client's `notifications/cancelled`, the end of its input
            // or a signal: the turn ends `cancelled` and records it.
            _ = rc.ct.cancelled(), if !cancelled => {
                cancelled = true;
                cancel.cancel();
            }
            _ = server.closing.cancelled(), if !cancelled => {
                cancelled = true;
                cancel.cancel();
            }
        }
    };
    Ok(result(session_id, outcome))
}

fn result(session_id: String, outcome: TurnOutcome) -> RunTaskResult {
    let (status, answer, error) = match outcome {
        TurnOutcome::Done(answer) => (TaskStatus::Done, answer, None),
        TurnOutcome::Cancelled(partial) => (
            TaskStatus::Cancelled,
            partial,
            Some("the turn was cancelled".to_string()),
        ),
        TurnOutcome::Failed(f) => (TaskStatus::Failed, String::new(), Some(f.message)),
        TurnOutcome::Unsaved { ended, error } => {
            let mut r = result(session_id.clone(), *ended);
            r.status = TaskStatus::Failed;
            r.error = Some(seekclaw_protocol::wording::unsaved_message(&error));
            return r;
        }
    };
    RunTaskResult {
        session_id,
        status,
        answer,
        error,
    }
}

/// Progress notifications for one call: sent only when the client asked
/// for them (a `progressToken`), numbered 1, 2, 3….
struct Progress {
    peer: Peer<RoleServer>,
    token: Option<ProgressToken>,
    sent: u32,
    /// The assistant text of the current step so far.
    answer: String,
    answer_sent: Option<Instant>,
}

impl Progress {
    fn new(peer: Peer<RoleServer>, token: Option<ProgressToken>) -> Progress {
        Progress {
            peer,
            token,
            sent: 0,
            answer: String::new(),
            answer_sent: None,
        }
    }

    async fn event(&mut self, ev: &AgentEvent) {
        if self.token.is_none() {
            return;
        }
        if let Some(message) = self.describe(ev) {
            self.send(message).await;
        }
    }

    /// The status line an event makes, if any.
    fn describe(&mut self, ev: &AgentEvent) -> Option<String> {
        match ev {
            AgentEvent::ModelStart {
                provider,
                model,
                step,
            } => {
                self.answer.clear();
                self.answer_sent = None;
                Some(format!("step {step}: asking {provider}/{model}"))
            }
            AgentEvent::Failover {
                failed, error, to, ..
            } => Some(seekclaw_protocol::wording::failover_notice(
                failed, error, to,
            )),
            AgentEvent::Retry {
                model,
                attempt,
                max_attempts,
                reason,
                delay_ms,
                ..
            } => Some(seekclaw_protocol::wording::retry_notice(
                model,
                *attempt,
                *max_attempts,
                reason,
                *delay_ms,
            )),
            AgentEvent::ToolStart { name, summary, .. } => Some(format!("{name}: {summary}")),
            AgentEvent::ToolDone {
                name,
                success,
                summary,
                ..
            } => Some(format!(
                "{name} {}: {summary}",
                if *success { "done" } else { "failed" }
            )),
            AgentEvent::FileDiff { path, .. } => Some(format!("changed {path}")),
            AgentEvent::AutoCompaction(seekclaw_agent::AutoCompaction::Started { .. }) => {
                Some("summarizing the session's history".into())
            }
            AgentEvent::Delta(text) => {
                self.answer.push_str(text);
                let due = self.answer_sent.is_none_or(|t| t.elapsed() >= ANSWER_EVERY);
                if !due {
                    return None;
                }
                self.answer_sent = Some(Instant::now());
                Some(format!("answering: {}", tail(&self.answer)))
            }
            _ => None,
        }
    }

    async fn send(&mut self, message: String) {
        let Some(token) = self.token.clone() else {
            return;
        };
        self.sent += 1;
        let mut param = ProgressNotificationParam::new(token, f64::from(self.sent));
        param.message = Some(message);
        // A client that went away stops nothing: the turn ends on its own
        // or by cancellation.
        let _ = self.peer.notify_progress(param).await;
    }
}

/// The last line of `text`, its last [`ANSWER_TAIL`] characters.
fn tail(text: &str) -> String {
    let line = text.trim_end().rsplit('\n').next().unwrap_or("");
    let count = line.chars().count();
    if count <= ANSWER_TAIL {
        return line.to_string();
    }
    let cut: String = line.chars().skip(count - ANSWER_TAIL).collect();
    format!("…{cut}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tail_is_the_last_line_cut_short() {
        assert_eq!(tail("one\ntwo  \n"), "two");
        assert_eq!(tail(""), "");
        let long = "x".repeat(100);
        let t = tail(&long);
        assert!(t.starts_with('…'));
        assert_eq!(t.chars().count(), ANSWER_TAIL + 1);
    }

    #[test]
    fn outcomes_map_to_statuses() {
        let r = result("s".into(), TurnOutcome::Done("ok".into()));
        assert_eq!(
            (r.status, r.answer.as_str(), r.error),
            (TaskStatus::Done, "ok", None)
        );
        let r = result("s".into(), TurnOutcome::Cancelled("par".into()));
        assert_eq!(
            (r.status, r.answer.as_str()),
            (TaskStatus::Cancelled, "par")
        );
        let f = TurnFailure::new(FailureKind::Internal, "boom");
        let r = result("s".into(), TurnOutcome::Failed(f));
        assert_eq!(
            (r.status, r.error.as_deref()),
            (TaskStatus::Failed, Some("boom"))
        );
        let r = result(
            "s".into(),
            TurnOutcome::Unsaved {
                ended: Box::new(TurnOutcome::Done("a".into())),
                error: "disk full".into(),
            },
        );
        assert_eq!(r.status, TaskStatus::Failed);
        assert!(r.error.unwrap().contains("disk full"));
    }
}
