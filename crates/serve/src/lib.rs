//! `seekclaw serve`: the engine over stdin/stdout (reference §2), a front
//! end beside the daemon (it never imports it). JSONL
//! commands come in, JSONL events go out; one consumer schedules them: one
//! turn at a time, prompts queue FIFO, steers reach the running turn, stdin
//! EOF (or a line that is not JSON) finishes the work in hand, then returns.
//! The session lives in the shared store, so the daemon lists it and other
//! front ends can continue it.

#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used))]
#![warn(missing_docs)]

mod command;
mod error;
mod goal;
mod idle;
mod mapper;
mod rewind;
mod wire;

use std::collections::VecDeque;
use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;

use seekclaw_agent::{Approvals, Compacted, Decision, Steer, SteerKind, SteerQueue, TurnOutcome};
use seekclaw_protocol::openseek::ApprovalDecision;
use seekclaw_store::EventItem;
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWrite};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

pub use command::{Command, Submission};
use goal::Goal;
pub use mapper::TurnMapper;
use seekclaw_engine::Scope;
use seekclaw_engine::{Engine, SessionTarget, TurnControls, TurnOrigin, TurnRequest};
use seekclaw_engine::{EngineError, TurnHandle, TurnOverrides};
pub use wire::{WireEvent, WireLine};

/// What `seekclaw serve` was asked.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    /// The process's working directory (the default workspace).
    pub cwd: PathBuf,
    /// Project directory; its project root is the scope.
    pub workspace: Option<PathBuf>,
    /// Run in the global scope.
    pub global: bool,
    /// Continue this session.
    pub session: Option<String>,
    /// Continue the scope's latest session.
    pub continue_latest: bool,
    /// Model, mode and step limit over the config's.
    pub overrides: TurnOverrides,
}

/// Why `serve` could not run at all.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct ServeError(pub String);

/// Work waiting for the engine to be idle, in wire order.
enum Work {
    Prompt(Submission),
    Compact,
    /// A goal command sent while other work waited: it keeps its place.
    Goal(Option<String>, bool),
}

/// What the engine is doing.
enum Active<'e> {
    Turn {
        handle: Box<TurnHandle>,
        mapper: TurnMapper,
    },
    Compact {
        job: Pin<Box<dyn Future<Output = Result<Compacted, EngineError>> + Send + 'e>>,
        cancel: CancellationToken,
    },
}

/// What stdin delivered.
enum Input {
    Command(Result<Command, String>),
    /// Not JSON: reading stops after this.
    Broken(String),
}

/// Writes events in order on its own task (a slow reader of stdout never
/// stalls the engine's bookkeeping); [`Events::close`] waits for the drain so
/// the last event is never lost.
struct Events {
    tx: mpsc::UnboundedSender<Vec<u8>>,
    writer: tokio::task::JoinHandle<()>,
}

impl Events {
    fn new<W: AsyncWrite + Unpin + Send + 'static>(out: W) -> Events {
        let (tx, writer) = seekclaw_engine::spawn_line_writer(out);
        Events { tx, writer }
    }

    fn emit(&self, ev: &WireEvent) {
        let _ = self.tx.send(ev.to_line());
    }

    async fn close(self) {
        drop(self.tx);
        let _ = self.writer.await;
    }
}

/// Shows what the engine's session policy did by itself as this serve's
/// wire events.
struct Announced {
    tx: mpsc::UnboundedSender<Vec<u8>>,
}

impl seekclaw_engine::Announce for Announced {
    fn announce(&self, what: &seekclaw_engine::Announcement) {
        use seekclaw_engine::Announcement as A;
        let ev = match what {
            A::NoticeLogged { text, .. } => WireEvent::BackgroundNotice {
                content: text.clone(),
            },
            A::GoalContinues { remaining, .. } => WireEvent::GoalContinue {
                remaining: *remaining,
            },
            A::GoalBudgetExhausted { turns, .. } => {
                WireEvent::GoalBudgetExhausted { turns: *turns }
            }
            // Outside a turn: a job's end, a rewind's own checkpoint.
            A::Checkpoint { note, .. } => rewind::checkpoint_event(note),
        };
        let _ = self.tx.send(ev.to_line());
    }
}

/// The scheduler's state between events.
struct Serve<'e> {
    engine: &'e Engine,
    scope: Scope,
    overrides: TurnOverrides,
    session: Option<String>,
    /// The id announced for the session the first turn will make.
    new_id: Option<String>,
    pending: VecDeque<Work>,
    /// Steers for the next turn (sent while a prompt waits), with their
    /// submission ids.
    next_steer: SteerQueue,
    next_steer_ids: VecDeque<Option<String>>,
    goal: Goal,
    events: &'e Events,
    /// Log writes that wait for the work in hand to end (see [`idle`]).
    deferred: Vec<idle::Boundary>,
    /// The controller answers approval requests (`approval` commands).
    approvals: Approvals,
}

/// Runs the protocol until stdin ends and the work in hand is done, or
/// `stop` fires (a signal): then queued work is dropped and the running turn
/// cancelled, and it returns once that turn has ended.
pub async fn serve<R, W>(
    engine: &Engine,
    opts: ServeOptions,
    input: R,
    output: W,
    stop: CancellationToken,
) -> Result<(), ServeError>
where
    R: AsyncBufRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let events = Events::new(output);
    let started = start(engine, &opts).await;
    let (scope, session) = match started {
        Ok(s) => s,
        Err(e) => {
            let error = error::text(&e);
            events.emit(&WireEvent::AgentSetupFailed {
                error: error.clone(),
            });
            events.close().await;
            return Err(ServeError(error));
        }
    };
    // The first event says where this serve works. A new session's id is
    // chosen now and the session made by its first turn (or idle write), so
    // a serve that runs nothing leaves no empty session.
    let new_id = session.is_none().then(seekclaw_engine::new_session_id);
    events.emit(&WireEvent::SessionStarted {
        session: session
            .clone()
            .or_else(|| new_id.clone())
            .unwrap_or_default(),
        session_root: engine.home.root().display().to_string(),
        workspace_root: scope.workspace_string(),
    });
    let mut serve = Serve {
        engine,
        scope,
        overrides: TurnOverrides {
            own_goal_turns: true,
            start_dir: Some(
                opts.workspace
                    .as_deref()
                    .map(|w| seekclaw_config::normalize_path(w, &opts.cwd))
                    .unwrap_or_else(|| opts.cwd.clone()),
            ),
            ..opts.overrides
        },
        session,
        new_id,
        pending: VecDeque::new(),
        next_steer: SteerQueue::new(),
        next_steer_ids: VecDeque::new(),
        goal: Goal::default(),
        events: &events,
        deferred: Vec::new(),
        approvals: Approvals::attended(),
    };
    let mut commands = read_commands(input);
    // The engine delivers background-job notices and decides goal
    // continuations; this serve shows them.
    let announced = engine.announcers.listen(std::sync::Arc::new(Announced {
        tx: events.tx.clone(),
    }));
    serve.run(&mut commands, &stop).await;
    // The controller is gone: the session's `SessionEnd` hooks run (once;
    // `Engine::close` would too, this says when).
    if let Some(id) = serve.session.as_deref() {
        engine.end_session(&serve.scope, id, "other").await;
    }
    // Its sender must go before the output can close.
    drop(announced);
    events.close().await;
    Ok(())
}

/// The scope and the session to continue (`--session`, `--continue`).
async fn start(
    engine: &Engine,
    opts: &ServeOptions,
) -> Result<(Scope, Option<String>), EngineError> {
    engine.check_overrides(&opts.overrides)?;
    let scope = engine.scope_of(
        opts.workspace.as_deref(),
        opts.global,
        &opts.cwd,
        seekclaw_protocol::wording::IMPLICIT_WORKSPACE,
    )?;
    let session = match (&opts.session, opts.continue_latest) {
        (Some(id), _) => Some(engine.session(&scope, Some(id.clone()), None).await?.id),
        (None, true) => Some(engine.latest(&scope).await?),
        (None, false) => None,
    };
    Ok((scope, session))
}

/// Reads stdin on its own task: a command per line, blank lines skipped.
fn read_commands<R: AsyncBufRead + Unpin + Send + 'static>(input: R) -> mpsc::Receiver<Input> {
    let (tx, rx) = mpsc::channel(64);
    tokio::spawn(async move {
        let mut lines = input.lines();
        loop {
            let item = match lines.next_line().await {
                Ok(None) => return,
                Ok(Some(line)) if line.trim().is_empty() => continue,
                Ok(Some(line)) => match serde_json::from_str(&line) {
                    Ok(value) => Input::Command(command::parse(value)),
                    Err(e) => Input::Broken(format!("command stream: {e}")),
                },
                Err(e) => Input::Broken(format!("command stream: {e}")),
            };
            let last = matches!(item, Input::Broken(_));
            if tx.send(item).await.is_err() || last {
                return;
            }
        }
    });
    rx
}

/// One thing the active work reported.
enum Progress {
    Event(seekclaw_agent::AgentEvent),
    TurnEnded(TurnOutcome),
    Compacted(Result<Compacted, EngineError>),
}

async fn progress(active: &mut Active<'_>) -> Progress {
    match active {
        Active::Turn { handle, .. } => match handle.next_event().await {
            Some(ev) => Progress::Event(ev),
            None => Progress::TurnEnded(handle.take_outcome().unwrap_or_else(|| {
                TurnOutcome::Failed(seekclaw_agent::TurnFailure::new(
                    seekclaw_agent::FailureKind::Internal,
                    "the turn ended without an outcome",
                ))
            })),
        },
        Active::Compact { job, .. } => Progress::Compacted(job.as_mut().await),
    }
}

impl<'e> Serve<'e> {
    async fn run(&mut self, commands: &mut mpsc::Receiver<Input>, stop: &CancellationToken) {
        let mut active: Option<Active<'e>> = None;
        let mut reading = true;
        let mut stopping = false;
        loop {
            if active.is_none() {
                active = self.next_work(reading).await;
                if active.is_none() && !reading {
                    return;
                }
            }
            tokio::select! {
                _ = stop.cancelled(), if !stopping => {
                    stopping = true;
                    reading = false;
                    self.pending.clear();
                    self.goal.disarm(self.engine, self.session.as_deref());
                    match &active {
                        Some(Active::Turn { handle, .. }) => handle.cancel(),
                        Some(Active::Compact { cancel, .. }) => cancel.cancel(),
                        None => {}
                    }
                }
                input = commands.recv(), if reading => match input {
                    Some(Input::Command(Ok(cmd))) => self.command(cmd, &mut active).await,
                    Some(Input::Command(Err(error))) => {
                        self.events.emit(&WireEvent::CommandError { error });
                    }
                    Some(Input::Broken(error)) => {
                        self.events.emit(&WireEvent::CommandError { error });
                        reading = false;
                        self.approvals.close("the controller's input ended");
                    }
                    None => {
                        reading = false;
                        self.approvals.close("the controller's input ended");
                    }
                },
                step = async {
                    match active.as_mut() {
                        Some(a) => progress(a).await,
                        None => std::future::pending().await,
                    }
                } => self.progressed(step, &mut active),
            }
            if active.is_none() && !self.deferred.is_empty() {
                self.flush_deferred().await;
            }
        }
    }

    /// Starts the next queued work, or a goal continuation; `None` when idle.
    /// After stdin ended (`reading` false) no goal continuation starts: the
    /// work in hand finishes and `serve` exits.
    async fn next_work(&mut self, reading: bool) -> Option<Active<'e>> {
        loop {
            let work = match self.pending.pop_front() {
                Some(w) => w,
                None => {
                    if !reading {
                        return None;
                    }
                    let prompt = self
                        .goal
                        .continuation(self.engine, &self.scope, self.session.as_deref())
                        .await?;
                    let active = self.start_turn(prompt).await;
                    if active.is_some() {
                        return active;
                    }
                    continue;
                }
            };
            let active = match work {
                Work::Prompt(sub) => self.start_turn(sub).await,
                Work::Compact => {
                    // A compaction is no turn toward the goal.
                    self.goal.hold();
                    self.start_compaction().await
                }
                Work::Goal(text, auto) => {
                    self.write_idle(idle::Boundary::Goal(text, auto)).await;
                    None
                }
            };
            if active.is_some() {
                return active;
            }
        }
    }

    async fn start_turn(&mut self, sub: Submission) -> Option<Active<'e>> {
        let steer = std::mem::take(&mut self.next_steer);
        let mut steer_ids = std::mem::take(&mut self.next_steer_ids);
        let session = match &self.session {
            Some(id) => SessionTarget::Id(id.clone()),
            None => SessionTarget::New {
                id: self.new_id.clone(),
            },
        };
        let request = TurnRequest {
            scope: self.scope.clone(),
            session,
            message: sub.text,
            images: sub.images,
            reasoning: None,
            overrides: self.overrides.clone(),
            controls: TurnControls {
                cancel: CancellationToken::new(),
                steer: steer.clone(),
                approvals: self.approvals.clone(),
            },
            origin: TurnOrigin::new("serve"),
        };
        match self.engine.start_turn(request).await {
            Ok(handle) => {
                self.session = Some(handle.session().id.clone());
                let mut mapper = TurnMapper::new(sub.submission_id);
                for id in steer_ids.drain(..) {
                    mapper.steer_queued(id);
                }
                Some(Active::Turn {
                    handle: Box::new(handle),
                    mapper,
                })
            }
            Err(e) => {
                let error = error::text(&e);
                let submission_id = sub.submission_id;
                self.events.emit(&if error::fails_the_turn(&e) {
                    WireEvent::TurnFailed {
                        error,
                        submission_id,
                    }
                } else {
                    WireEvent::AgentSetupFailed { error }
                });
                // Steers waiting for this turn have no turn to reach.
                for g in steer.close() {
                    self.events.emit(&WireEvent::SteerDropped {
                        content: g.text,
                        submission_id: steer_ids.pop_front().flatten(),
                    });
                }
                None
            }
        }
    }

    async fn start_compaction(&mut self) -> Option<Active<'e>> {
        let Some(sid) = self.session.clone() else {
            self.events.emit(&WireEvent::CompactionFailed {
                error: "The session has nothing to compact yet".into(),
            });
            return None;
        };
        let cancel = CancellationToken::new();
        let (engine, scope, overrides, token) = (
            self.engine,
            self.scope.clone(),
            self.overrides.clone(),
            cancel.clone(),
        );
        let tx = self.events.tx.clone();
        let on_start = move |from_sequence, to_sequence| {
            let started = WireEvent::CompactionStarted {
                from_sequence,
                to_sequence,
            };
            let _ = tx.send(started.to_line());
        };
        let job = Box::pin(async move {
            engine
                .compact_session(&scope, &sid, &overrides, &token, on_start)
                .await
        });
        Some(Active::Compact { job, cancel })
    }

    async fn command(&mut self, cmd: Command, active: &mut Option<Active<'e>>) {
        match cmd {
            Command::Prompt(sub) => self.pending.push_back(Work::Prompt(sub)),
            Command::Compact => self.pending.push_back(Work::Compact),
            Command::Steer(sub, kind) => self.steer(sub, kind, active).await,
            Command::Cancel => {
                self.goal.disarm(self.engine, self.session.as_deref());
                match active {
                    Some(Active::Turn { handle, .. }) => handle.cancel(),
                    Some(Active::Compact { cancel, .. }) => cancel.cancel(),
                    None => {
                        let next = self
                            .pending
                            .iter()
                            .position(|w| matches!(w, Work::Prompt(_)));
                        if let Some(i) = next {
                            self.pending.remove(i);
                        }
                    }
                }
            }
            Command::GoalSet { text, auto } => {
                if text.trim().is_empty() {
                    self.events.emit(&WireEvent::CommandError {
                        error: "goal text must not be blank".into(),
                    });
                    return;
                }
                self.goal_marker(Some(text), auto, active).await;
            }
            Command::GoalClear => self.goal_marker(None, false, active).await,
            Command::Rewind(request) => {
                // Queued work keeps its wire order: a rewind behind it is
                // refused as during a turn, never run ahead of it.
                let busy = active.is_some() || !self.pending.is_empty();
                let session = self.session.clone();
                for ev in rewind::run(self.engine, &self.scope, session, request, busy).await {
                    self.events.emit(&ev);
                }
            }
            Command::Approval { id, decision } => {
                let decision = match decision {
                    ApprovalDecision::AllowOnce => Decision::AllowOnce,
                    ApprovalDecision::AllowSession => Decision::AllowSession,
                    ApprovalDecision::AllowAlways => Decision::AllowAlways,
                    ApprovalDecision::Reject => Decision::Reject(None),
                };
                if let Err(e) = self.approvals.answer(&id, decision) {
                    self.events.emit(&WireEvent::CommandError {
                        error: e.to_string(),
                    });
                }
            }
        }
    }

    async fn steer(&mut self, sub: Submission, kind: SteerKind, active: &mut Option<Active<'e>>) {
        let guidance = Steer {
            text: sub.text.clone(),
            images: sub.images.clone(),
            kind,
        };
        if let Some(Active::Turn { handle, mapper, .. }) = active
            && handle.steer(guidance.clone()).is_ok()
        {
            mapper.steer_queued(sub.submission_id);
            return;
        }
        let prompt_waits = self.pending.iter().any(|w| matches!(w, Work::Prompt(_)));
        if prompt_waits {
            let _ = self.next_steer.push(guidance);
            self.next_steer_ids.push_back(sub.submission_id);
            return;
        }
        if kind == SteerKind::Command {
            // Shell context goes into the log: now when idle, else when the
            // work in hand ends.
            self.write_or_defer(idle::Boundary::Command(sub), active.is_some())
                .await;
            return;
        }
        self.events.emit(&WireEvent::SteerDropped {
            content: sub.text,
            submission_id: sub.submission_id,
        });
    }

    /// A background job ended on its own: the running turn reads the notice
    /// at its next step; an idle session gets it in its log, and the front
    /// end a `background_notice`.
    /// Appends to the idle session, creating it first if there is none.
    async fn append(&mut self, item: EventItem) -> Result<u64, EngineError> {
        let id = match &self.session {
            Some(id) => id.clone(),
            None => {
                let header = self
                    .engine
                    .session(&self.scope, None, self.new_id.clone())
                    .await?;
                self.session = Some(header.id.clone());
                header.id
            }
        };
        self.engine.append_idle(&self.scope.key, &id, item).await
    }

    async fn goal_marker(
        &mut self,
        text: Option<String>,
        auto: bool,
        active: &mut Option<Active<'e>>,
    ) {
        // Behind queued work the goal keeps its wire-order place.
        if !self.pending.is_empty() {
            self.pending.push_back(Work::Goal(text, auto));
            return;
        }
        let marker = goal::marker(text.as_deref());
        // During a turn the marker rides the steer queue as a notice, so it
        // lands at a step boundary; idle, it is written at once.
        if let Some(Active::Turn { handle, .. }) = active {
            let notice = Steer {
                text: marker.text(),
                images: Vec::new(),
                kind: SteerKind::Notice,
            };
            if handle.steer(notice).is_ok() {
                self.goal
                    .set(text.as_deref(), auto, self.engine, self.session.as_deref());
                self.events.emit(&WireEvent::GoalUpdated { goal: text });
                return;
            }
        }
        self.write_or_defer(idle::Boundary::Goal(text, auto), active.is_some())
            .await;
    }

    fn progressed(&mut self, step: Progress, active: &mut Option<Active<'e>>) {
        let mut out = Vec::new();
        match step {
            Progress::Event(ev) => {
                if let seekclaw_agent::AgentEvent::GoalStatus(status) = &ev {
                    self.goal
                        .reported(status, self.engine, self.session.as_deref());
                }
                if let Some(Active::Turn { mapper, .. }) = active {
                    mapper.map(ev, &mut out);
                }
            }
            Progress::TurnEnded(outcome) => {
                if let Some(Active::Turn { mut mapper, .. }) = active.take() {
                    let clean = matches!(outcome, TurnOutcome::Done(_));
                    mapper.finish(outcome, &mut out);
                    self.goal
                        .turn_ended(clean, self.engine, self.session.as_deref());
                }
            }
            Progress::Compacted(result) => {
                *active = None;
                out.push(match result {
                    Ok(c) => WireEvent::CompactionFinished {
                        from_sequence: c.from_seq,
                        to_sequence: c.to_seq,
                        summary: c.summary,
                    },
                    Err(e) => WireEvent::CompactionFailed {
                        error: error::text(&e),
                    },
                });
            }
        }
        for ev in &out {
            self.events.emit(ev);
        }
    }
}
