//! Where the user's hooks fire inside a turn, and how what they said comes
//! back: every run is announced on the turn's stream (started, finished)
//! and kept in the session's log; the turn reads the verdicts. The engine
//! reads the policy ([`TurnPolicy`]); the policy crate runs the commands.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use futures::future::join_all;
use seekclaw_policy::{HookContext, HookEvent, Policy, Verdicts, read_run, run_hook};
use seekclaw_store::{EventItem, HookRecord, Store};
use serde_json::{Map, Value};
use tokio::sync::mpsc::UnboundedSender;

use crate::events::{AgentEvent, HookFinish, HookRun};

/// The user's policy for one turn, read by the engine at its start.
#[derive(Debug, Clone)]
pub struct TurnPolicy {
    /// Rules and hooks (trust already applied).
    pub policy: Arc<Policy>,
    /// Who and where hooks run for.
    pub hooks: HookContext,
    /// A subagent's turn (its type): `SubagentStart`/`SubagentStop` fire
    /// instead of the session's and the prompt's events.
    pub subagent: Option<String>,
    /// `SessionStart` is due at this turn's start (`startup` or `resume`).
    pub session_start: Option<&'static str>,
    /// Said once to the user at the turn's start (a workspace's hooks are off).
    pub notice: Option<String>,
    /// The SeekClaw home (where `allow_always` rules of a global turn go).
    pub home: seekclaw_config::Home,
    /// The workspace root, where `allow_always` rules go and redirections
    /// may write; `None` for a global turn.
    pub workspace: Option<PathBuf>,
    /// Brings the file at `transcript_path` up to date (before the hooks
    /// that read it: a prompt, a stop, a compaction).
    pub transcript: Option<Arc<dyn TranscriptWriter>>,
}

/// Writes a session's transcript (JSON lines) for hook scripts to read.
pub trait TranscriptWriter: Send + Sync + std::fmt::Debug {
    /// Writes it as the log holds it now; a failure only leaves it stale.
    fn write(&self) -> futures::future::BoxFuture<'_, ()>;
}

/// Where a turn's hook runs are announced and kept.
pub(crate) struct Sink<'a> {
    pub(crate) events: &'a UnboundedSender<AgentEvent>,
    pub(crate) store: &'a Store,
    pub(crate) scope: &'a str,
    pub(crate) session_id: &'a str,
    /// The turn's owner id (its log entries' owner).
    pub(crate) owner: &'a str,
    /// The turn's cancellation: its hooks stop with it (`None`: they run
    /// to their end, as a notification beside a wait does).
    pub(crate) cancel: Option<&'a tokio_util::sync::CancellationToken>,
}

/// The tool call an occurrence is about.
#[derive(Clone, Copy, Default)]
pub(crate) struct About<'a> {
    pub(crate) call_id: Option<&'a str>,
    pub(crate) tool: Option<&'a str>,
}

impl TurnPolicy {
    /// Whether `event` runs any hook (checked before building its input).
    pub(crate) fn wants(&self, event: HookEvent) -> bool {
        self.policy.hooks.has(event)
    }

    /// Runs the hooks of one occurrence of `event` (in parallel), announcing
    /// and recording each run; returns what they decided together.
    pub(crate) async fn fire(
        &self,
        sink: &Sink<'_>,
        event: HookEvent,
        subjects: &[&str],
        fields: Map<String, Value>,
        about: About<'_>,
    ) -> Verdicts {
        let hooks = self.policy.hooks.matching(event, subjects);
        if hooks.is_empty() {
            return Verdicts::default();
        }
        // Scripts read the transcript at these points; on every tool call
        // a rewrite of the whole log would cost more than the hook.
        if matches!(
            event,
            HookEvent::UserPromptSubmit
                | HookEvent::Stop
                | HookEvent::SubagentStop
                | HookEvent::PreCompact
                | HookEvent::SessionStart
        ) && let Some(t) = &self.transcript
        {
            t.write().await;
        }
        let mut input = self.hooks.input(event);
        input.extend(fields);
        let input = Value::Object(input);
        let runs = hooks.into_iter().map(|hook| {
            let input = &input;
            async move {
                let mut run = HookRun {
                    run_id: format!("hk_{}", &uuid::Uuid::new_v4().simple().to_string()[..12]),
                    event: event.as_str().to_string(),
                    command: hook.command.clone(),
                    source: hook.layer.as_str().to_string(),
                    call_id: about.call_id.map(str::to_string),
                    tool: about.tool.map(str::to_string),
                    finished: None,
                };
                let _ = sink.events.send(AgentEvent::HookStarted(run.clone()));
                let started = Instant::now();
                // A cancelled turn stops waiting: the hook's process group
                // is killed with its dropped run.
                let result = match sink.cancel {
                    Some(cancel) => tokio::select! {
                        r = run_hook(hook, input, &self.hooks) => Some(r),
                        _ = cancel.cancelled() => None,
                    },
                    None => Some(run_hook(hook, input, &self.hooks).await),
                };
                let mut verdicts = Verdicts::default();
                let (exit_code, reading) = match &result {
                    Some(r) => (r.exit_code, read_run(event, r, &mut verdicts)),
                    None => (
                        None,
                        seekclaw_policy::RunReading {
                            decision: "cancelled",
                            message: Some("stopped with the turn".into()),
                        },
                    ),
                };
                run.finished = Some(HookFinish {
                    exit_code,
                    duration_ms: started.elapsed().as_secs_f64() * 1000.0,
                    decision: reading.decision.to_string(),
                    message: reading.message,
                });
                record(sink, &run).await;
                let _ = sink.events.send(AgentEvent::HookFinished(run));
                verdicts
            }
        });
        let mut all = Verdicts::default();
        for v in join_all(runs).await {
            all.absorb(v);
        }
        all
    }
}

/// Keeps a finished run in the log; a run that cannot be kept costs only
/// its record (the turn goes on).
async fn record(sink: &Sink<'_>, run: &HookRun) {
    let Some(f) = &run.finished else { return };
    let item = EventItem::Hook(HookRecord {
        event: run.event.clone(),
        command: run.command.clone(),
        source: run.source.clone(),
        call_id: run.call_id.clone(),
        tool: run.tool.clone(),
        exit_code: f.exit_code,
        duration_ms: f.duration_ms,
        decision: f.decision.clone(),
        message: f.message.clone(),
    });
    let written = crate::turn::persist(
        sink.store,
        sink.scope,
        sink.session_id,
        sink.owner,
        item,
        None,
    )
    .await;
    if let Err(e) = written {
        tracing::warn!("hook run not recorded: {}", e.message);
    }
}

/// Fields of a string-keyed JSON object.
pub(crate) fn fields<const N: usize>(pairs: [(&str, Value); N]) -> Map<String, Value> {
    pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
}
