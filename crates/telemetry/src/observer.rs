//! A turn's observer: what the engine calls for each of the turn's events.
//! It only builds a small record (contents only with `includeContent`)
//! and queues it without waiting.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, SystemTime};

use seekclaw_agent::{AgentEvent, TurnOutcome};
use tokio::sync::oneshot;

use crate::queue::Queue;

use crate::Shared;

/// The most of one content string exported (with `includeContent`).
const CONTENT_CAP: usize = 8 * 1024;

/// What the engine knows when a turn starts.
#[derive(Debug, Clone, Copy)]
pub struct TurnStart<'a> {
    /// The turn's session.
    pub session: &'a str,
    /// The parent session of a subagent's turn.
    pub parent_session: Option<&'a str>,
    /// Who started it (`chat`, `schedule`, `goal`, `run`, `serve`, `subrun`).
    pub origin: &'static str,
    /// The session's workspace (`None`: a global session).
    pub workspace: Option<&'a str>,
    /// The user's message.
    pub prompt: &'a str,
}

/// A turn's events as the exporting task reads them.
#[derive(Debug)]
pub(crate) enum Record {
    TurnStart(Box<TurnBegan>),
    Model(Box<ModelRequest>),
    ToolStart {
        turn: u64,
        at: SystemTime,
        call_id: String,
        name: String,
        summary: Option<String>,
    },
    ToolEnd {
        turn: u64,
        at: SystemTime,
        call_id: String,
        name: String,
        success: bool,
        duration: Duration,
        output: Option<String>,
    },
    TurnEnd {
        turn: u64,
        at: SystemTime,
        status: &'static str,
        error: Option<&'static str>,
        answer: Option<String>,
    },
    /// Export what is pending and stop (answered once done).
    Shutdown(oneshot::Sender<()>),
}

#[derive(Debug)]
pub(crate) struct TurnBegan {
    pub(crate) turn: u64,
    pub(crate) at: SystemTime,
    pub(crate) session: String,
    pub(crate) parent_session: Option<String>,
    pub(crate) origin: &'static str,
    pub(crate) project: String,
    pub(crate) workspace: Option<String>,
    pub(crate) prompt: Option<String>,
    pub(crate) prompt_chars: usize,
}

#[derive(Debug)]
pub(crate) struct ModelRequest {
    pub(crate) turn: u64,
    pub(crate) ended: SystemTime,
    pub(crate) elapsed: Duration,
    pub(crate) step: u32,
    pub(crate) provider: String,
    pub(crate) model: String,
    pub(crate) input_tokens: u64,
    pub(crate) output_tokens: u64,
    pub(crate) cached_input_tokens: u64,
    pub(crate) success: bool,
    pub(crate) cost_usd: Option<f64>,
}

/// Feeds one turn's events to the exporter; does nothing when telemetry is
/// off. A turn dropped before its end is exported as `dropped`.
#[derive(Debug)]
pub struct TurnObserver {
    on: Option<On>,
}

#[derive(Debug)]
struct On {
    records: Arc<Queue>,
    shared: Arc<Shared>,
    turn: u64,
    step: u32,
    /// Subagents running: their usage reaches this turn's events too (the
    /// parent's cost), but their requests are their own turns' spans.
    subruns: u32,
    ended: bool,
}

impl TurnObserver {
    /// An observer that exports nothing.
    pub fn off() -> TurnObserver {
        TurnObserver { on: None }
    }

    pub(crate) fn new(
        records: Arc<Queue>,
        shared: Arc<Shared>,
        start: TurnStart<'_>,
    ) -> TurnObserver {
        let turn = shared.next_turn.fetch_add(1, Ordering::Relaxed);
        let content = shared.include_content;
        let on = On {
            records,
            shared,
            turn,
            step: 0,
            subruns: 0,
            ended: false,
        };
        on.send(Record::TurnStart(Box::new(TurnBegan {
            turn,
            at: SystemTime::now(),
            session: start.session.to_string(),
            parent_session: start.parent_session.map(str::to_string),
            origin: start.origin,
            project: crate::project_id(start.workspace),
            workspace: start.workspace.filter(|_| content).map(str::to_string),
            prompt: content.then(|| capped(start.prompt)),
            prompt_chars: start.prompt.chars().count(),
        })));
        TurnObserver { on: Some(on) }
    }

    /// One of the turn's events (most are of no interest and cost nothing).
    pub fn event(&mut self, ev: &AgentEvent) {
        let Some(on) = self.on.as_mut() else { return };
        let content = on.shared.include_content;
        let turn = on.turn;
        let record = match ev {
            AgentEvent::ModelStart { step, .. } => {
                on.step = *step;
                return;
            }
            AgentEvent::SubrunStarted(_) => {
                on.subruns += 1;
                return;
            }
            AgentEvent::SubrunFinished(_) => {
                on.subruns = on.subruns.saturating_sub(1);
                return;
            }
            AgentEvent::Usage { .. } if on.subruns > 0 => return,
            AgentEvent::Usage {
                provider,
                model,
                output_tokens,
                total_input_tokens,
                cached_input_tokens,
                elapsed_ms,
                success,
                cost_usd,
                ..
            } => Record::Model(Box::new(ModelRequest {
                turn,
                ended: SystemTime::now(),
                elapsed: Duration::from_secs_f64(elapsed_ms.max(0.0) / 1000.0),
                step: on.step,
                provider: provider.clone(),
                model: model.clone(),
                input_tokens: *total_input_tokens,
                output_tokens: *output_tokens,
                cached_input_tokens: *cached_input_tokens,
                success: *success,
                cost_usd: *cost_usd,
            })),
            AgentEvent::ToolStart {
                call_id,
                name,
                summary,
            } => Record::ToolStart {
                turn,
                at: SystemTime::now(),
                call_id: call_id.clone(),
                name: name.clone(),
                summary: content.then(|| capped(summary)),
            },
            AgentEvent::ToolDone {
                call_id,
                name,
                success,
                duration_ms,
                output,
                ..
            } => Record::ToolEnd {
                turn,
                at: SystemTime::now(),
                call_id: call_id.clone(),
                name: name.clone(),
                success: *success,
                duration: Duration::from_secs_f64(duration_ms.max(0.0) / 1000.0),
                output: content.then(|| capped(output)),
            },
            _ => return,
        };
        on.send(record);
    }

    /// How the turn ended.
    pub fn end(&mut self, outcome: &TurnOutcome) {
        let Some(on) = self.on.as_mut() else { return };
        if on.ended {
            return;
        }
        on.ended = true;
        let (status, error, answer) = ended(outcome);
        let answer = answer.filter(|_| on.shared.include_content).map(capped);
        on.send(Record::TurnEnd {
            turn: on.turn,
            at: SystemTime::now(),
            status,
            error,
            answer,
        });
    }
}

impl Drop for TurnObserver {
    fn drop(&mut self) {
        if let Some(on) = self.on.as_mut().filter(|on| !on.ended) {
            on.ended = true;
            on.send(Record::TurnEnd {
                turn: on.turn,
                at: SystemTime::now(),
                status: "dropped",
                error: None,
                answer: None,
            });
        }
    }
}

impl On {
    /// Queues without waiting: a full queue (a collector far behind) drops
    /// the record and counts it.
    fn send(&self, record: Record) {
        if !self.records.push(record) {
            self.shared.dropped.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// Status, failure kind and answer of an outcome.
fn ended(outcome: &TurnOutcome) -> (&'static str, Option<&'static str>, Option<&str>) {
    match outcome {
        TurnOutcome::Done(answer) => ("done", None, Some(answer)),
        TurnOutcome::Cancelled(answer) => ("cancelled", None, Some(answer)),
        TurnOutcome::Failed(f) => ("failed", Some(f.kind.as_str()), None),
        TurnOutcome::Unsaved { .. } => ("failed", Some("storage"), None),
    }
}

/// A content string cut to [`CONTENT_CAP`] bytes on a char boundary.
fn capped(s: &str) -> String {
    if s.len() <= CONTENT_CAP {
        return s.to_string();
    }
    let mut end = CONTENT_CAP;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &s[..end])
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU64;

    fn shared(include_content: bool) -> Arc<Shared> {
        Arc::new(Shared {
            dropped: AtomicU64::new(0),
            include_content,
            next_turn: AtomicU64::new(1),
        })
    }

    fn start() -> TurnStart<'static> {
        TurnStart {
            session: "s1",
            parent_session: None,
            origin: "chat",
            workspace: Some("/home/me/proj"),
            prompt: "secret prompt",
        }
    }

    fn tool_done() -> AgentEvent {
        AgentEvent::ToolDone {
            call_id: "c1".into(),
            name: "read_file".into(),
            success: true,
            duration_ms: 3.0,
            summary: "read".into(),
            output: "file text".into(),
        }
    }

    #[test]
    fn a_full_queue_drops_and_counts_without_waiting() {
        let queue = Arc::new(Queue::new(1));
        let shared = shared(false);
        let mut observer = TurnObserver::new(queue.clone(), shared.clone(), start());
        observer.event(&tool_done());
        observer.event(&tool_done());
        observer.end(&TurnOutcome::Done("ok".into()));
        assert_eq!(shared.dropped.load(Ordering::Relaxed), 3);
        let Some(Record::TurnStart(began)) = queue.take().into_iter().next() else {
            panic!("the start is queued first");
        };
        assert!(began.prompt.is_none() && began.workspace.is_none());
        assert_eq!(began.prompt_chars, "secret prompt".len());
    }

    #[test]
    fn content_only_with_include_content_and_a_dropped_turn_still_ends() {
        let queue = Arc::new(Queue::new(16));
        let mut observer = TurnObserver::new(queue.clone(), shared(true), start());
        observer.event(&tool_done());
        drop(observer);
        let got = queue.take();
        assert!(
            matches!(&got[0], Record::TurnStart(b) if b.prompt.as_deref() == Some("secret prompt"))
        );
        assert!(matches!(&got[1], Record::ToolEnd { output: Some(o), .. } if o == "file text"));
        assert!(matches!(
            &got[2],
            Record::TurnEnd {
                status: "dropped",
                ..
            }
        ));
    }

    #[test]
    fn capped_cuts_on_a_char_boundary() {
        let long = "é".repeat(CONTENT_CAP);
        let cut = capped(&long);
        assert!(cut.len() <= CONTENT_CAP + "…".len());
        assert!(cut.ends_with('…'));
    }
}
