//! Starting a turn and driving it: [`Engine::start_turn`] and [`TurnHandle`].

use std::future::{Future, poll_fn};
use std::pin::{Pin, pin};
use std::sync::Arc;
use std::task::{Context, Poll};

use crate::error::EngineError;
use futures::future::{MaybeDone, maybe_done};
use seekclaw_agent::{
    AgentEvent, FailureKind, Steer, TurnFailure, TurnInput, TurnOutcome, UserImage, owner_id,
    run_turn,
};
use seekclaw_config::ReasoningLevel;
use seekclaw_store::SessionHeader;
use seekclaw_tools::WriteLocks;
use tokio::sync::mpsc::{self, UnboundedReceiver};

use crate::bus::{Stream, TurnBus, Watched};
use crate::engine::Engine;
use crate::jobs::SessionJobs;
use crate::scope::Scope;
use crate::target::{SessionTarget, TurnControls};
use crate::turns::TurnGuard;

/// What a front end asks of the engine: a message for a session of a scope.
pub struct TurnRequest {
    /// Where the session lives.
    pub scope: Scope,
    /// Which session (found, made or resumed by the engine).
    pub session: SessionTarget,
    /// The user's message.
    pub message: String,
    /// Images sent with it.
    pub images: Vec<UserImage>,
    /// The reasoning level to run at and store with the session; `None`
    /// keeps the session's own (the config's for a new one).
    pub reasoning: Option<ReasoningLevel>,
    /// What this front end sets over the config (and the session's own
    /// model) for this turn.
    pub overrides: TurnOverrides,
    /// Cancel, steer and approvals: the front end keeps a clone.
    pub controls: TurnControls,
    /// Who starts it (for the turn bus).
    pub origin: TurnOrigin,
}

/// Who started a turn, as its session's watchers see it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TurnOrigin {
    /// `chat`, `schedule`, `goal`, `run` or `serve`.
    pub kind: &'static str,
    /// The reader that streams the turn itself: its own watchers on the bus
    /// are skipped (a client's connection).
    pub reader: Option<u64>,
}

impl TurnOrigin {
    /// A turn nobody reads live but the watchers (and the log).
    pub fn new(kind: &'static str) -> TurnOrigin {
        TurnOrigin { kind, reader: None }
    }

    /// A turn `reader` streams itself.
    pub fn read_by(kind: &'static str, reader: u64) -> TurnOrigin {
        TurnOrigin {
            kind,
            reader: Some(reader),
        }
    }
}

/// A front end's settings for one turn, over the config's (`seekclaw run
/// --model … --mode … --max-steps …`, `serve`).
#[derive(Debug, Clone, Default)]
pub struct TurnOverrides {
    /// Model requests per turn, exactly (0: none); `Some(u32::MAX)` is
    /// unbounded (the context window bounds the turn). `None` keeps
    /// `agent.maxSteps` (plus room for verify-repair steps).
    pub max_steps: Option<u32>,
    /// `provider/model` or a bare model id, preferred over the profile's and
    /// the workspace's.
    pub model: Option<String>,
    /// The agent mode, over the workspace's and the config's.
    pub mode: Option<seekclaw_config::AgentMode>,
    /// Offer the `finish` control tool (OpenSeek front ends; the desktop's
    /// turns answer in plain text).
    pub finish_tool: bool,
    /// A front end's own closing tool in place of `finish` (`seekclaw
    /// review`'s `submit_review`): the turn ends with its accepted call.
    pub submit: Option<seekclaw_agent::SubmitTool>,
    /// The approval policy, over the session's, the workspace's and the
    /// config's (`seekclaw serve --approval`).
    pub approval_policy: Option<seekclaw_config::ApprovalPolicy>,
    /// MCP servers of this front end's session that join the configured
    /// ones (an ACP client's `mcpServers`).
    pub extra_mcp: Vec<seekclaw_mcp::ServerSpec>,
    /// Where file tools read and write text (`None`: the disk); an ACP
    /// editor that offers `fs/*` holds the buffers.
    pub files: Option<Arc<dyn seekclaw_tools::FileAccess>>,
    /// The turn is a subagent's (a child turn): it starts no children.
    pub child: bool,
    /// Tools this turn may not use, besides the workspace's `disabledTools`.
    pub disabled_tools: Vec<String>,
    /// The front end starts an `auto` goal's continuation turns itself,
    /// asking [`Engine::next_goal_turn`] (`serve`, which streams them to its
    /// controller); otherwise the engine runs them.
    pub own_goal_turns: bool,
    /// The reasoning level when the request names none (`--reasoning`):
    /// run at and stored with the session like the request's own.
    pub reasoning: Option<seekclaw_config::ReasoningLevel>,
    /// A child turn's kind (`explore`, `review`): its hooks are the
    /// subagent's (`SubagentStart`, `SubagentStop`).
    pub subagent_type: Option<String>,
    /// The directory the front end was started from, inside the workspace
    /// (the terminal UI's or `run`'s working directory, the path a chat
    /// named): instruction files are read from the root down to it.
    pub start_dir: Option<std::path::PathBuf>,
    /// The session budget this front end sets (`--max-cost`, a scheduled
    /// run's), under the session's own.
    pub budget: Option<crate::budget::FrontEndBudget>,
}

impl TurnOverrides {
    pub(crate) fn apply_to_config(&self, config: &mut seekclaw_config::Config) {
        if let Some(reference) = &self.model {
            let provider = reference
                .split_once('/')
                .filter(|(p, _)| config.provider(p).is_some());
            let profile = config.active_profile_mut();
            match provider {
                Some((p, m)) => {
                    profile.provider = Some(p.to_string());
                    profile.model = Some(m.to_string());
                }
                None => profile.model = Some(reference.clone()),
            }
        }
    }

    pub(crate) fn apply_to_runtime(&self, runtime: &mut seekclaw_agent::TurnRuntime) {
        if let Some(mode) = self.mode {
            runtime.mode = mode;
        }
        // The front end's model wins over the workspace's.
        if let (Some(_), Some(ws)) = (&self.model, runtime.workspace.as_mut()) {
            ws.model = None;
            ws.provider = None;
        }
    }

    /// The model the user named, as `provider/model`: it alone answers the
    /// turn. A name that matches no configured model is an error listing
    /// those there are (never silently another model).
    pub(crate) fn pinned_model(
        &self,
        config: &seekclaw_config::Config,
    ) -> Result<Option<String>, EngineError> {
        let Some(reference) = self.model.as_deref() else {
            return Ok(None);
        };
        crate::preflight::pin(config, reference).map(Some)
    }
}

/// The turn future: owns its runtime, input, queues and tokens.
type TurnFuture = Pin<Box<dyn Future<Output = TurnOutcome> + Send>>;

/// A started turn. It runs only while its owner reads it ([`next_event`],
/// [`outcome`]), in the owner's task: a reader that stops holds the turn
/// still instead of letting its events pile up.
///
/// Memory is bounded however slow the reader is: the turn is polled only when
/// its event queue is empty, so the queue holds at most what one poll of the
/// turn produces (the deltas of the stream chunks already received, capped by
/// tokio's cooperative budget).
///
/// Dropping the handle drops the turn: its write locks are released and its
/// session is free again, on every path.
///
/// [`next_event`]: TurnHandle::next_event
/// [`outcome`]: TurnHandle::outcome
pub struct TurnHandle {
    session: SessionHeader,
    owner: String,
    controls: TurnControls,
    events: UnboundedReceiver<AgentEvent>,
    // Field order is drop order: the turn ends before its locks are released
    // and its session is unclaimed.
    turn: Option<TurnFuture>,
    outcome: Option<TurnOutcome>,
    /// Where its events are published, and as whose.
    stream: StreamTurn,
    /// The seq of the item last taken (its `turn_start` at first).
    seq: u64,
    /// What the turn's events export (OpenTelemetry), when on.
    telemetry: seekclaw_telemetry::TurnObserver,
    /// After the turn (which holds the table) and before the session is
    /// unclaimed (no other turn can take the table meanwhile).
    _jobs: JobsRelease,
    _locks: LockRelease,
    _claim: TurnGuard,
    /// Last: the session policy runs once the session is free.
    after: AfterTurn,
}

/// The engine's session policy at a turn's end (the goal's continuation),
/// run when the handle is dropped, after its claim on the session.
struct AfterTurn {
    engine: std::sync::Weak<crate::engine::Services>,
    scope: Option<Scope>,
    session_id: String,
    own_goal_turns: bool,
    ended: Option<crate::goals::EndKind>,
}

impl Drop for AfterTurn {
    fn drop(&mut self) {
        let (Some(ended), Some(scope)) = (self.ended, &self.scope) else {
            return;
        };
        if let Some(services) = self.engine.upgrade() {
            Engine::from_services(services).goal_turn_ended(
                scope,
                &self.session_id,
                ended,
                self.own_goal_turns,
            );
        }
    }
}

/// Releases a turn's write locks however the turn ends.
struct LockRelease {
    locks: Arc<WriteLocks>,
    owner: String,
}

impl Drop for LockRelease {
    fn drop(&mut self) {
        self.locks.release_all(&self.owner);
    }
}

/// Forgets the session's job table when the turn leaves it empty.
struct JobsRelease {
    jobs: Arc<SessionJobs>,
    session_id: String,
}

impl Drop for JobsRelease {
    fn drop(&mut self) {
        self.jobs.release(&self.session_id);
    }
}

impl Engine {
    /// Starts a turn: captures the runtime (config, workspace, mode, load
    /// balancing, the session's own model), resolves MCP tools and skills
    /// while the session is found and claimed, and returns the handle to
    /// drive it. An error means no turn was started (nothing was written for
    /// it, and no session was made).
    pub async fn start_turn(&self, mut request: TurnRequest) -> Result<TurnHandle, EngineError> {
        crate::preflight::message(&request.message, &request.images)?;
        // An unreadable config.json with nothing read before: no turn on defaults.
        self.config.usable_for_turns()?;
        if request.overrides.model.is_none() {
            request.overrides.model = self.own_model(&request.scope, &request.session).await?;
        }
        let mut config = self.config.load();
        let pinned = request.overrides.pinned_model(&config)?;
        request.overrides.apply_to_config(&mut config);
        let mut runtime = crate::runtime::build_runtime(self, config, &request.scope)?;
        request.overrides.apply_to_runtime(&mut runtime);
        runtime.pinned_model = pinned;
        // Whatever fails before a model is asked fails here, before the
        // session is found or made: a failed start leaves no empty session.
        crate::preflight::route(&runtime, !request.images.is_empty())?;
        runtime.balance = crate::balance::for_turn(&self.config, &self.store, &runtime).await;
        let extras = crate::extensions::turn_extras(self.clone(), &runtime, &request.overrides);
        let mut extras = Box::pin(maybe_done(extras));
        let controls = request.controls;
        let claiming = self.claim_target(
            &request.scope,
            request.session,
            request.reasoning.or(request.overrides.reasoning),
            &controls,
        );
        // The user's policy is read while the session is claimed: neither
        // waits for the other before the turn starts.
        let policy = self.load_policy(request.scope.workspace.clone(), runtime.work_dir.clone());
        let (claim, policy) = tokio::join!(driving(claiming, extras.as_mut()), policy);
        let claim = claim?;
        let session = claim.session;
        let origin = request.origin;
        let telemetry = self.observe_turn(seekclaw_telemetry::TurnStart {
            session: &session.id,
            parent_session: session.parent_id.as_deref(),
            origin: origin.kind,
            workspace: session.workspace.as_deref(),
            prompt: &request.message,
        });
        let owner = owner_id(&session.id);
        let start = Watched::TurnStart {
            message: request.message.clone(),
            origin: origin.kind,
        };
        let (stream, seq) = self
            .bus
            .turn_start(&session.id, origin.reader, &owner, start);
        let stream = StreamTurn::new(self.bus.clone(), stream, origin.reader);
        let (tx, events) = mpsc::unbounded_channel();
        let children =
            crate::subrun::for_turn(self, &request.scope, &session.id, &request.overrides, &tx);
        let checkpoints =
            self.turn_checkpoints(&runtime, &request.scope, &session.id, &request.overrides);
        let fresh = session.llm_rounds == 0 && claim.past.as_ref().is_none_or(Vec::is_empty);
        let policy = self.turn_policy(
            (&runtime, policy),
            &request.scope,
            &session.id,
            fresh,
            &request.overrides,
        );
        let input = TurnInput {
            scope: request.scope.key.clone(),
            session_id: session.id.clone(),
            message: request.message,
            images: request.images,
            reasoning: claim.reasoning,
            network_enabled: session.network_enabled,
            history: claim.past,
            finish_tool: request.overrides.finish_tool,
            submit: request.overrides.submit.clone(),
            step_limit: request.overrides.max_steps,
            jobs: Some(self.jobs.of(&session.id)),
            approvals: controls.approvals.clone(),
            approval_policy: request.overrides.approval_policy,
            files: request.overrides.files.clone(),
            children,
            checkpoints,
            disabled_tools: request.overrides.disabled_tools,
            policy: Some(policy),
            // Only where `lsp` names a server: without one, reads and edits
            // pay nothing (no config look-up per call).
            diagnostics: runtime
                .workspace_root
                .clone()
                .filter(|_| !runtime.config.lsp.entries().is_empty())
                .map(|root| seekclaw_agent::TurnDiagnostics(self.lsp.for_workspace(root))),
            budget: Some(std::sync::Arc::new(crate::budget::BudgetGate {
                store: self.store.clone(),
                budgets: runtime.config.budgets.clone(),
                subject: crate::budget::BudgetSubject {
                    scope: Some(request.scope.key.clone()),
                    session: Some(session.id.clone()),
                    front_end: request.overrides.budget.clone(),
                },
                warned: self.budget_warnings.clone(),
            })),
        };
        let after = AfterTurn {
            engine: self.downgrade(),
            scope: Some(request.scope.clone()),
            session_id: session.id.clone(),
            own_goal_turns: request.overrides.own_goal_turns,
            ended: None,
        };
        let (cancel, steer, turn_owner) = (
            controls.cancel.clone(),
            controls.steer.clone(),
            owner.clone(),
        );
        let turn: TurnFuture = Box::pin(async move {
            let extras = async {
                extras.as_mut().await;
                extras.as_mut().take_output().unwrap_or_default()
            };
            run_turn(&runtime, input, &turn_owner, &steer, &tx, &cancel, extras).await
        });
        let jobs_release = JobsRelease {
            jobs: self.jobs.clone(),
            session_id: session.id.clone(),
        };
        Ok(TurnHandle {
            session,
            owner: owner.clone(),
            controls,
            events,
            turn: Some(turn),
            outcome: None,
            stream,
            seq,
            telemetry,
            _jobs: jobs_release,
            _locks: LockRelease {
                locks: self.locks.clone(),
                owner,
            },
            _claim: claim.guard,
            after,
        })
    }
}

impl TurnHandle {
    /// The session the turn runs on.
    pub fn session(&self) -> &SessionHeader {
        &self.session
    }

    /// The turn's write-lock owner id (also the owner of its log entries).
    pub fn owner(&self) -> &str {
        &self.owner
    }

    /// Asks the turn to stop; it ends `cancelled` with what it had said.
    pub fn cancel(&self) {
        self.controls.cancel.cancel();
    }

    /// The turn's controls (cancel, steer, approvals), to keep beside it.
    pub fn controls(&self) -> &TurnControls {
        &self.controls
    }

    /// Queues guidance for the turn's next step.
    pub fn steer(&self, guidance: Steer) -> Result<(), seekclaw_agent::TurnFinishing> {
        self.controls.steer.push(guidance)
    }

    /// The next event, running the turn until it produces one; `None` once
    /// the turn has ended and every event was taken.
    pub async fn next_event(&mut self) -> Option<AgentEvent> {
        let ev = poll_fn(|cx| self.poll_event(cx)).await;
        self.published(ev)
    }

    /// An event the turn has already produced, without running it.
    pub fn ready_event(&mut self) -> Option<AgentEvent> {
        let ev = self.events.try_recv().ok()?;
        self.published(Some(ev))
    }

    /// The seq of the event last taken (of its `turn_start` before any,
    /// of its `turn_end` once [`TurnHandle::next_event`] returned `None`):
    /// the front end writes it with the event.
    pub fn seq(&self) -> u64 {
        self.seq
    }

    /// Hands a taken event (or, once all are taken, the end) to the bus.
    fn published(&mut self, ev: Option<AgentEvent>) -> Option<AgentEvent> {
        match &ev {
            Some(ev) => {
                self.seq = self.stream.event(ev);
                self.telemetry.event(ev);
            }
            None => {
                if let Some(outcome) = &self.outcome
                    && let Some(seq) = self.stream.end(outcome)
                {
                    self.telemetry.end(outcome);
                    self.seq = seq;
                }
            }
        }
        ev
    }

    fn poll_event(&mut self, cx: &mut Context<'_>) -> Poll<Option<AgentEvent>> {
        if let Poll::Ready(Some(ev)) = self.events.poll_recv(cx) {
            return Poll::Ready(Some(ev));
        }
        // The queue is empty: only now may the turn run on.
        let Some(turn) = self.turn.as_mut() else {
            return Poll::Ready(None);
        };
        match turn.as_mut().poll(cx) {
            Poll::Ready(outcome) => {
                self.after.ended = Some(crate::goals::EndKind::of(&outcome));
                self.outcome = Some(outcome);
                self.turn = None;
                Poll::Ready(self.events.try_recv().ok())
            }
            Poll::Pending => match self.events.try_recv() {
                Ok(ev) => Poll::Ready(Some(ev)),
                Err(_) => Poll::Pending,
            },
        }
    }

    /// How the turn ended, once [`TurnHandle::next_event`] has returned
    /// `None` (the session is freed when the handle is dropped).
    pub fn take_outcome(&mut self) -> Option<TurnOutcome> {
        self.outcome.take()
    }

    /// Runs the turn to its end (events not yet taken are dropped: the
    /// session log has them) and returns how it ended, its terminal stored.
    /// The session is free and the turn's locks released when this returns.
    pub async fn outcome(mut self) -> TurnOutcome {
        while self.next_event().await.is_some() {}
        self.outcome.take().unwrap_or_else(|| {
            TurnOutcome::Failed(TurnFailure::new(
                FailureKind::Internal,
                "the turn ended without an outcome",
            ))
        })
    }
}

/// A turn's place on the bus: its events are published as its reader's,
/// and its end once (a turn dropped before its end still leaves the
/// stream's running count).
struct StreamTurn {
    bus: Arc<TurnBus>,
    stream: Arc<Stream>,
    from: Option<u64>,
    ended: bool,
}

impl StreamTurn {
    fn new(bus: Arc<TurnBus>, stream: Arc<Stream>, from: Option<u64>) -> StreamTurn {
        StreamTurn {
            bus,
            stream,
            from,
            ended: false,
        }
    }

    fn event(&self, ev: &AgentEvent) -> u64 {
        self.bus
            .publish(&self.stream, self.from, Watched::Event(ev.clone()))
    }

    /// Publishes the end, the first time; its seq.
    fn end(&mut self, outcome: &TurnOutcome) -> Option<u64> {
        if self.ended {
            return None;
        }
        self.ended = true;
        let end = Watched::TurnEnd(outcome.clone());
        Some(self.bus.turn_end(&self.stream, self.from, end))
    }
}

impl Drop for StreamTurn {
    fn drop(&mut self) {
        if !self.ended {
            self.bus.turn_dropped(&self.stream);
        }
    }
}

/// Awaits `main` while also driving `side`, which keeps its output once done.
async fn driving<T, F: Future>(
    main: impl Future<Output = T>,
    mut side: Pin<&mut MaybeDone<F>>,
) -> T {
    let mut main = pin!(main);
    poll_fn(|cx| {
        let _ = side.as_mut().poll(cx);
        main.as_mut().poll(cx)
    })
    .await
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;
    use crate::turns::{ActiveTurn, Turns};

    fn header(id: &str) -> SessionHeader {
        serde_json::from_value(serde_json::json!({
            "id": id, "archived": false, "reasoningLevel": "medium", "networkEnabled": true,
            "llmRounds": 0, "executionSteps": 0, "inputTokens": 0, "totalInputTokens": 0,
            "cachedInputTokens": 0, "outputTokens": 0, "outputElapsedMs": 0,
            "createdAt": "t", "updatedAt": "t",
        }))
        .unwrap()
    }

    /// A handle over a turn that emits `total` deltas, one per poll, counting them.
    fn handle(turns: &Turns, total: usize, sent: Arc<AtomicUsize>) -> TurnHandle {
        let (tx, events) = mpsc::unbounded_channel();
        let turn: TurnFuture = Box::pin(async move {
            for i in 0..total {
                let _ = tx.send(AgentEvent::Delta(format!("{i} ")));
                sent.fetch_add(1, Ordering::SeqCst);
                tokio::task::yield_now().await;
            }
            TurnOutcome::Done("end".into())
        });
        let controls = TurnControls::default();
        let guard = turns
            .start(ActiveTurn {
                session_id: "s".into(),
                cancel: controls.cancel.clone(),
                steer: controls.steer.clone(),
                approvals: controls.approvals.clone(),
            })
            .unwrap();
        TurnHandle {
            session: header("s"),
            owner: "s/1".into(),
            controls,
            events,
            turn: Some(turn),
            outcome: None,
            stream: {
                let bus = Arc::new(TurnBus::default());
                let (stream, _) = bus.turn_start(
                    "s",
                    None,
                    "s/1",
                    Watched::Event(AgentEvent::Delta(String::new())),
                );
                StreamTurn::new(bus, stream, None)
            },
            seq: 0,
            telemetry: seekclaw_telemetry::TurnObserver::off(),
            _jobs: JobsRelease {
                jobs: Arc::new(SessionJobs::new(Arc::new(|_| {}))),
                session_id: "s".into(),
            },
            _locks: LockRelease {
                locks: Arc::new(WriteLocks::new()),
                owner: "s/1".into(),
            },
            _claim: guard,
            after: AfterTurn {
                engine: std::sync::Weak::new(),
                scope: None,
                session_id: "s".into(),
                own_goal_turns: false,
                ended: None,
            },
        }
    }

    #[test]
    fn a_dropped_turn_leaves_no_empty_job_table_behind() {
        let jobs = Arc::new(SessionJobs::new(Arc::new(|_| {})));
        let table = jobs.of("S1");
        let release = JobsRelease {
            jobs: jobs.clone(),
            session_id: "s1".into(),
        };
        // Field order of a handle: the turn (holding the table) goes first.
        drop(table);
        drop(release);
        assert!(!jobs.holds("S1"));
    }

    #[tokio::test]
    async fn a_reader_that_stops_holds_the_turn_still() {
        let turns = Turns::default();
        let sent = Arc::new(AtomicUsize::new(0));
        let mut turn = handle(&turns, 1000, sent.clone());
        assert!(turn.next_event().await.is_some());
        // The reader stops: however long it waits, the turn does not run on.
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        assert_eq!(sent.load(Ordering::SeqCst), 1);
        assert!(turn.ready_event().is_none());
        let mut read = 1;
        while turn.next_event().await.is_some() {
            read += 1;
        }
        assert_eq!(read, 1000);
        assert_eq!(turns.count(), 1, "claimed until the outcome is taken");
        assert!(matches!(turn.outcome().await, TurnOutcome::Done(t) if t == "end"));
        assert_eq!(turns.count(), 0, "the session is free once the turn ended");
    }

    #[tokio::test]
    async fn dropping_the_handle_frees_the_session() {
        let turns = Turns::default();
        let mut turn = handle(&turns, 10, Arc::new(AtomicUsize::new(0)));
        assert!(turn.next_event().await.is_some());
        drop(turn);
        assert_eq!(turns.count(), 0);
    }
}
