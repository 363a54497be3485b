//! One agent turn: the model ⇄ tools loop over a session, with steering,
//! cancellation, compaction, output-cap continuation and a step limit. Every
//! user message, assistant step, tool result, steer, summary and terminal is
//! appended to the session's log as it happens.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use seekclaw_config::{AgentMode, Config, Home, ReasoningLevel, WorkspaceConfig};
use seekclaw_providers::Providers;
use seekclaw_providers::routing::{RouteInput, candidates};
use seekclaw_store::{
    EventItem, ImageAttachment, RuntimeNotice, Spend, StepUsage, Store, TerminalStatus,
    TurnTerminal, UsageRecord, UserMessage,
};
use seekclaw_tools::{EditTools, ImageLimits, Registry, ToolContext, ToolFilter, WriteLocks};
use tokio::sync::mpsc::UnboundedSender;
use tokio_util::sync::CancellationToken;

use crate::events::{AgentEvent, TurnFailure, TurnOutcome, WorkflowNode};
use crate::extras::{Resolved, TurnExtras};
use crate::opening::open_turn;
use crate::prompt;
use crate::steer::{Steer, SteerQueue};
use crate::transcript::Transcript;

/// An image attached to the user's message (base64 without a data-URL prefix).
#[derive(Debug, Clone, PartialEq)]
pub struct UserImage {
    /// Content hash; the blob's key in the store.
    pub id: String,
    /// The file name it came with.
    pub name: String,
    /// Its MIME type.
    pub media_type: String,
    /// The bytes, base64.
    pub data: String,
    /// Decoded size.
    pub size_bytes: u64,
}

/// What the user asked for.
#[derive(Debug, Clone)]
pub struct TurnInput {
    /// The store scope of the session (a workspace key or global).
    pub scope: String,
    /// The session the turn runs on.
    pub session_id: String,
    /// The user's message.
    pub message: String,
    /// Images attached to it.
    pub images: Vec<UserImage>,
    /// How hard the model thinks.
    pub reasoning: ReasoningLevel,
    /// Whether network tools (`web_fetch`, network in `bash`) are offered.
    pub network_enabled: bool,
    /// The conversation before the turn, when the caller read it after
    /// claiming the session; `None`: the turn reads it.
    pub history: Option<Vec<seekclaw_store::SessionEvent>>,
    /// Offer the `finish` control tool (OpenSeek front ends).
    pub finish_tool: bool,
    /// A front end's own closing tool, offered in place of `finish`.
    pub submit: Option<crate::submit::SubmitTool>,
    /// A front end's exact cap on model requests (`u32::MAX`: none; the
    /// window bounds the turn); `None` keeps `agent.maxSteps` plus room for
    /// verify-repair steps.
    pub step_limit: Option<u32>,
    /// The session's job table, whose background jobs outlive the turn;
    /// `None`: the turn has its own and everything in it ends with it.
    pub jobs: Option<std::sync::Arc<seekclaw_tools::Jobs>>,
    /// Who decides calls the approval policy asks about (the front end
    /// keeps a clone to answer); the default refuses them at once.
    pub approvals: crate::approval::Approvals,
    /// A front end's approval policy, over every other setting.
    pub approval_policy: Option<seekclaw_config::ApprovalPolicy>,
    /// Where file tools read and write text (`None`: the disk).
    pub files: Option<Arc<dyn seekclaw_tools::FileAccess>>,
    /// Starts child turns (`explore`, `review` are offered only with it).
    pub children: Option<Arc<dyn seekclaw_tools::ChildTurns>>,
    /// Checkpoints the workspace around changes (`None`: not at all).
    pub checkpoints: Option<Arc<dyn crate::checkpoints::TurnCheckpoints>>,
    /// Tools this turn may not use, besides the workspace's `disabledTools`
    /// (a child turn's write tools).
    pub disabled_tools: Vec<String>,
    /// The user's permission rules and hooks (`None`: none apply).
    pub policy: Option<Arc<crate::hooks::TurnPolicy>>,
    /// Reports the errors an edit introduced (the engine's language servers).
    pub diagnostics: Option<TurnDiagnostics>,
    /// Asked before each model request whether the budgets allow it
    /// (`None`: nothing is limited).
    pub budget: Option<Arc<dyn crate::spend::SpendGate>>,
}

/// What the edit tools report diagnostics through (a named type so that
/// [`TurnInput`] stays `Debug`).
#[derive(Clone)]
pub struct TurnDiagnostics(pub Arc<dyn seekclaw_tools::Diagnostics>);

impl std::fmt::Debug for TurnDiagnostics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TurnDiagnostics")
    }
}

/// Everything a turn runs with, captured at its start: later config, workspace
/// or mode changes do not affect a running turn.
pub struct TurnRuntime {
    /// The daemon's config as the turn started.
    pub config: Config,
    /// The workspace's own `.seekclaw/config.json`, if any.
    pub workspace: Option<WorkspaceConfig>,
    /// The project root; `None` for global sessions.
    pub workspace_root: Option<PathBuf>,
    /// Where tools work: the root, or `$SEEKCLAW_HOME/global`.
    pub work_dir: PathBuf,
    /// The SeekClaw home (prompt overrides, memory, skills).
    pub home: Home,
    /// The agent mode (plan, readonly, edit, auto) in effect.
    pub mode: AgentMode,
    /// The session store the turn logs to.
    pub store: Store,
    /// The shared provider pool and circuit breaker.
    pub providers: Arc<Providers>,
    /// The built-in tools (MCP tools are added from the extras).
    pub registry: Registry,
    /// Write locks shared with every other turn.
    pub locks: Arc<WriteLocks>,
    /// What load balancing orders candidates by (`routing.loadBalance`):
    /// empty unless the strategy needs it.
    pub balance: Balance,
    /// The model the user named for this turn (`provider/model`): it alone
    /// answers — a pinned model never fails over to another one.
    pub pinned_model: Option<String>,
}

/// Load-balancing inputs of a turn: the round-robin cursor of its strategy
/// and the usage statistics per model ref.
#[derive(Debug, Clone, Default)]
pub struct Balance {
    /// Where `roundRobin` starts in the candidate list.
    pub round_robin_cursor: i64,
    /// Calls and latency per `provider/model`, for `leastUsed` and `fastest`.
    pub stats: std::collections::HashMap<String, seekclaw_providers::routing::ModelStats>,
}

/// Lock owner id of a turn: `<sessionId>/<8 hex>`.
pub fn owner_id(session_id: &str) -> String {
    let random = uuid::Uuid::new_v4().simple().to_string();
    format!("{session_id}/{}", &random[..8])
}

/// Images as stored in the session log.
/// A drained (or left over) steer as its log entry.
pub(crate) fn steer_item(g: &Steer) -> EventItem {
    if g.kind == crate::steer::SteerKind::Notice {
        // A goal marker is logged as one whenever it arrives (idle or mid-turn).
        if let Some(marker) = crate::goal::GoalMarker::parse(&g.text) {
            return marker.item();
        }
        return EventItem::Runtime(seekclaw_store::RuntimeNotice {
            kind: "notice".into(),
            text: g.text.clone(),
        });
    }
    EventItem::Steer(UserMessage {
        text: g.text.clone(),
        images: attachments(&g.images),
    })
}

pub(crate) fn attachments(images: &[UserImage]) -> Vec<ImageAttachment> {
    images
        .iter()
        .map(|i| ImageAttachment {
            id: i.id.clone(),
            name: i.name.clone(),
            media_type: i.media_type.clone(),
            data: i.data.clone(),
            size_bytes: i.size_bytes,
        })
        .collect()
}

/// Appends one item to the turn's log, with what the turn spent since its
/// last such write (`None`: the item alone); a turn whose steps cannot be
/// written fails (it never goes on unrecorded).
pub(crate) async fn persist(
    store: &Store,
    scope: &str,
    id: &str,
    turn: &str,
    item: EventItem,
    spend: Option<Spend>,
) -> Result<u64, TurnFailure> {
    let (store, scope, id, turn) = (
        store.clone(),
        scope.to_string(),
        id.to_string(),
        turn.to_string(),
    );
    let appended = tokio::task::spawn_blocking(move || match spend {
        None => store.append_event(&scope, &id, Some(&turn), &item),
        Some(spend) => store
            .append_spending(
                &scope,
                &id,
                Some(&turn),
                std::slice::from_ref(&item),
                &spend,
            )?
            .first()
            .copied()
            .ok_or_else(|| {
                seekclaw_store::StoreError::Corrupt("append returned no sequence number".into())
            }),
    })
    .await;
    let failed = match appended {
        Ok(Ok(seq)) => return Ok(seq),
        Ok(Err(e)) => e.to_string(),
        Err(e) => e.to_string(),
    };
    tracing::error!(error = %failed, "cannot append to the session log");
    Err(TurnFailure::storage(format!(
        "Cannot write the session log: {failed}"
    )))
}

/// What every part of a running turn reads: its runtime, its resolved
/// extras, its input, and the handles that drive it.
pub(crate) struct TurnCtx<'t> {
    pub(crate) rt: &'t TurnRuntime,
    pub(crate) ext: &'t Resolved,
    pub(crate) input: &'t TurnInput,
    /// Lock owner id, also the owner of the turn's log entries.
    pub(crate) owner: &'t str,
    pub(crate) steer: &'t SteerQueue,
    pub(crate) events: &'t UnboundedSender<AgentEvent>,
    pub(crate) cancel: &'t CancellationToken,
    /// One tool context per turn: background jobs live across steps.
    pub(crate) tools: &'t ToolContext,
    /// The policy and rules read at the turn's start.
    pub(crate) approvals: &'t crate::approval::TurnApprovals,
    /// Set by a hook that said `continue: false`.
    pub(crate) stop: &'t std::sync::Mutex<Option<String>>,
}

impl TurnCtx<'_> {
    /// Where this turn's hook runs are announced and kept.
    pub(crate) fn sink(&self) -> crate::hooks::Sink<'_> {
        crate::hooks::Sink {
            events: self.events,
            store: &self.rt.store,
            scope: &self.input.scope,
            session_id: &self.input.session_id,
            owner: self.owner,
            cancel: Some(self.cancel),
        }
    }

    /// Why a hook stopped the turn, once one did.
    pub(crate) fn stop_requested(&self) -> Option<String> {
        self.stop
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    /// Sends an event (a front end that went away does not stop the turn).
    pub(crate) fn emit(&self, event: AgentEvent) {
        let _ = self.events.send(event);
    }

    /// Has the engine checkpoint what a step or the verify command may have
    /// changed, and streams what it reports.
    pub(crate) async fn checkpoint_after(
        &self,
        turn_seq: u64,
        cause: crate::checkpoints::CheckpointCause,
        touched: crate::checkpoints::Touched,
    ) {
        if let Some(cp) = &self.input.checkpoints
            && let Some(note) = cp.after_change(turn_seq, cause, touched).await
        {
            self.emit(AgentEvent::Checkpoint(note));
        }
    }

    /// Appends one item to the turn's log; returns its seq.
    pub(crate) async fn persist(&self, item: EventItem) -> Result<u64, TurnFailure> {
        let input = self.input;
        persist(
            &self.rt.store,
            &input.scope,
            &input.session_id,
            self.owner,
            item,
            None,
        )
        .await
    }

    /// Appends one item together with what the turn spent since its last
    /// such write (the step's attempts that produced it, a compaction's):
    /// the ledger and the session's totals then hold them even if the turn
    /// never reaches its end. Returns its seq.
    pub(crate) async fn persist_spending(
        &self,
        item: EventItem,
        counters: &mut Counters,
    ) -> Result<u64, TurnFailure> {
        let input = self.input;
        let spend = counters.take_spend();
        persist(
            &self.rt.store,
            &input.scope,
            &input.session_id,
            self.owner,
            item,
            Some(spend),
        )
        .await
    }

    /// Appends a runtime notice (continuation, repair) that the model reads as
    /// a user message; returns its seq.
    pub(crate) async fn notice(&self, kind: &str, text: &str) -> Result<u64, TurnFailure> {
        self.persist(EventItem::Runtime(RuntimeNotice {
            kind: kind.into(),
            text: text.into(),
        }))
        .await
    }
}

pub(crate) struct Counters {
    /// Models started so far in the turn (`llmRounds`).
    pub(crate) rounds: u64,
    /// The turn's highest step so far.
    pub(crate) steps: u64,
    /// Provider attempts not written yet: they go out with the next log
    /// entry written with the turn's spend (a step's answer, a summary, the
    /// closing write), in its transaction.
    pub(crate) unwritten: Vec<UsageRecord>,
    /// `rounds` and `steps` as last written.
    written: (u64, u64),
    /// What the latest step's provider calls used (its log entry carries it).
    pub(crate) step_usage: StepUsage,
    /// The turn's final answer (or what a cut-short step had said), written
    /// together with the terminal (one trip to the store between the end of
    /// the stream and `done`).
    pub(crate) final_answer: Option<EventItem>,
    /// The step a finished turn ended on (its `workflow done` event goes out
    /// after the closing write).
    pub(crate) done_at_step: Option<u32>,
}

impl Counters {
    pub(crate) fn new() -> Counters {
        Counters {
            rounds: 0,
            steps: 0,
            unwritten: Vec::new(),
            written: (0, 0),
            step_usage: StepUsage::default(),
            final_answer: None,
            done_at_step: None,
        }
    }

    /// What the turn spent since its last write (attempts, models started,
    /// steps taken), counted as written from here on.
    pub(crate) fn take_spend(&mut self) -> Spend {
        let count = |now: u64, then: u64| i64::try_from(now.saturating_sub(then)).unwrap_or(0);
        let spend = Spend {
            records: std::mem::take(&mut self.unwritten),
            llm_rounds: count(self.rounds, self.written.0),
            execution_steps: count(self.steps, self.written.1),
        };
        self.written = (self.rounds, self.steps);
        spend
    }
}

impl TurnRuntime {
    /// Routing as this turn sees it: its workspace and load-balancing inputs.
    pub fn route_input(&self) -> RouteInput<'_> {
        RouteInput {
            workspace: self.workspace.as_ref(),
            stats: self.balance.stats.clone(),
            round_robin_cursor: self.balance.round_robin_cursor,
            only: self.pinned_model.as_deref(),
            ..RouteInput::default()
        }
    }

    /// What a step offers; `apply_patch`: the step's model edits with
    /// `apply_patch` instead of `edit_file`/`multi_edit`.
    pub(crate) fn tool_filter(
        &self,
        input: &TurnInput,
        vision: bool,
        apply_patch: bool,
    ) -> ToolFilter {
        ToolFilter {
            read_only: matches!(self.mode, AgentMode::Plan | AgentMode::Readonly),
            network_enabled: input.network_enabled,
            vision,
            display: seekclaw_tools::display_reachable(),
            disabled: self
                .workspace
                .as_ref()
                .and_then(|w| w.disabled_tools.clone())
                .unwrap_or_default()
                .into_iter()
                .chain(input.disabled_tools.iter().cloned())
                .collect(),
            subagents: input.children.is_some(),
            edits: if apply_patch {
                EditTools::ApplyPatch
            } else {
                EditTools::EditFile
            },
        }
    }

    fn tool_context(
        &self,
        input: &TurnInput,
        owner: &str,
        cancel: &CancellationToken,
        first: Option<(u64, &str)>,
    ) -> ToolContext {
        let context_window = first.map_or(128_000, |(window, _)| window);
        let agent = &self.config.agent;
        // Per-result budget: 5 % of the window in characters, within [4000, maxToolOutputChars].
        let budget = ((context_window as f64 * 4.0 * 0.05) as u64)
            .clamp(4000, agent.max_tool_output_chars.max(4000));
        let mut ctx = ToolContext::new(
            self.work_dir.clone(),
            agent.allow_outside_workspace,
            owner.to_string(),
            self.locks.clone(),
            Duration::from_secs(agent.write_lock_timeout_seconds.max(1)),
            Duration::from_secs(agent.bash_timeout_seconds.clamp(1, 3600)),
            input.network_enabled,
            budget as usize,
            cancel.clone(),
        );
        ctx.sandbox = std::sync::Arc::new(crate::sandbox::policy(self, input.network_enabled));
        ctx.web_search = std::sync::Arc::new(agent.web_search.clone());
        // A workspace keeps its screenshots; a global turn uses the temp dir.
        ctx.cache_dir = self
            .workspace_root
            .as_ref()
            .map(|root| root.join(".seekclaw").join("cache"));
        ctx.image_limits = match first.map(|(_, kind)| kind) {
            Some(kind) if kind.eq_ignore_ascii_case("anthropic") => ImageLimits::ANTHROPIC,
            _ => ImageLimits::OPENAI,
        };
        ctx.files = input.files.clone();
        ctx.children = input.children.clone();
        ctx.diagnostics = input.diagnostics.as_ref().map(|d| d.0.clone());
        ctx
    }

    pub(crate) fn system_prompt(
        &self,
        input: &TurnInput,
        model_ref: &str,
        vision: bool,
        tools: &[String],
        extras: &TurnExtras,
    ) -> String {
        let personality = self
            .workspace
            .as_ref()
            .and_then(|w| w.personality.clone())
            .unwrap_or_else(|| self.config.agent.personality.clone());
        let sandbox = crate::sandbox::policy(self, input.network_enabled).describe();
        let prompt_input = prompt::PromptInput {
            mode: self.mode,
            personality: &personality,
            scope_global: self.workspace_root.is_none(),
            workspace_root: &self.work_dir,
            network_enabled: input.network_enabled,
            sandbox: &sandbox,
            auto_verify: self.config.agent.auto_verify,
            model_ref,
            vision,
            tool_names: tools,
            date: chrono::Local::now().date_naive(),
            os: std::env::consts::OS,
            skills: extras.skills_prompt.as_deref(),
            mcp_prompts: &extras.mcp_prompts,
            files: &extras.prompt_files,
        };
        prompt::system_prompt(&prompt_input)
    }
}

/// Runs one turn to its outcome. Events go to `events` as they happen; `extras`
/// (MCP tools and prompts, skills) is awaited once the first event is out.
pub async fn run_turn(
    rt: &TurnRuntime,
    mut input: TurnInput,
    owner: &str,
    steer: &SteerQueue,
    events: &UnboundedSender<AgentEvent>,
    cancel: &CancellationToken,
    extras: impl Future<Output = TurnExtras>,
) -> TurnOutcome {
    let _ = events.send(AgentEvent::Workflow {
        step: 0,
        node: WorkflowNode::Start,
        detail: String::new(),
    });
    // MCP tools and skills resolve while the store reads the history and
    // records the message: both stand between the request and the model.
    let extras = async {
        tokio::select! {
            biased;
            _ = cancel.cancelled() => TurnExtras::default(),
            extras = extras => extras,
        }
    };
    // A prompt a hook refuses is never recorded (nor sent).
    let context = match crate::turn_hooks::turn_start(rt, &input, owner, (events, cancel)).await {
        Ok(context) => context,
        Err(blocked) => {
            error_node(events, 0, &blocked.message);
            return TurnOutcome::Failed(blocked);
        }
    };
    let read = input.history.take();
    let (extras, (past, opening)) = tokio::join!(extras, open_turn(rt, &input, owner, read));
    let ext = Resolved::new(&rt.registry, extras);
    let mut counters = Counters::new();
    // One tool context per turn: background jobs live across steps and are all
    // killed when the turn ends, however it ends.
    // The model the turn most likely goes to sizes the output budget and images.
    let chain = candidates(&rt.config, &rt.route_input(), |_| false).ok();
    let first = chain.as_ref().and_then(|c| c.first()).map(|h| {
        (
            h.model(&rt.config).context_window,
            h.provider(&rt.config).kind.as_str(),
        )
    });
    let mut tools = rt.tool_context(&input, owner, &cancel.child_token(), first);
    if let Some(jobs) = &input.jobs {
        tools.jobs = jobs.clone();
    }
    tools.readable_files = ext.extras.readable_files.clone().into();
    let approvals = turn_approvals(rt, &input).await;
    let stop = std::sync::Mutex::new(None);
    let cx = TurnCtx {
        rt,
        ext: &ext,
        input: &input,
        owner,
        steer,
        events,
        cancel,
        tools: &tools,
        approvals: &approvals,
        stop: &stop,
    };
    let (mut transcript, outcome) = match past {
        Ok(past) => {
            let mut transcript = Transcript::open(&past, &input.message, &input.images, opening);
            let goal = crate::goal::StandingGoal::from_events(&past);
            drop(past);
            let outcome = match hook_context(&cx, &mut transcript, context).await {
                Ok(()) => crate::turn_loop::turn_loop(&cx, &mut transcript, &mut counters, goal)
                    .await
                    .unwrap_or_else(TurnOutcome::Failed),
                Err(failure) => TurnOutcome::Failed(failure),
            };
            (transcript, outcome)
        }
        Err(failure) => (Transcript::unopened(opening), TurnOutcome::Failed(failure)),
    };
    // Foreground commands end with the turn; background jobs outlive it
    // when the session keeps a job table (`input.jobs`).
    tools.cancel.cancel();
    tools.jobs.end_turn();
    finish(&cx, &mut transcript, outcome, &mut counters).await
}

/// What `SessionStart` and `UserPromptSubmit` hooks added, for the model
/// to read after the user's message (and kept in the log after it).
async fn hook_context(
    cx: &TurnCtx<'_>,
    transcript: &mut Transcript,
    context: Vec<String>,
) -> Result<(), TurnFailure> {
    if context.is_empty() {
        return Ok(());
    }
    transcript.settle().await?;
    let text = format!("[context from the user's hooks]\n{}", context.join("\n\n"));
    let seq = cx.notice("hook", &text).await?;
    transcript.push(crate::transcript::user_message(text, &[]), seq);
    Ok(())
}

/// The turn's approval policy (the session's, else the workspace's, else
/// the config's) and the calls the session already allows. An unreadable
/// session setting falls back to the inherited policy, never to none.
async fn turn_approvals(rt: &TurnRuntime, input: &TurnInput) -> crate::approval::TurnApprovals {
    let store = rt.store.clone();
    let (scope, id) = (input.scope.clone(), input.session_id.clone());
    let saved = crate::blocking::run_now(move || store.session_approvals(&scope, &id))
        .await
        .ok()
        .and_then(Result::ok)
        .unwrap_or_default();
    let policy = input.approval_policy.unwrap_or_else(|| {
        crate::approval::effective_policy(
            &rt.config,
            rt.workspace.as_ref(),
            saved.policy.as_deref(),
        )
    });
    crate::approval::TurnApprovals::new(
        policy,
        Duration::from_secs(rt.config.agent.approval_timeout_seconds.max(1)),
        input.approvals.clone(),
        saved.rules,
    )
}

/// Ends the turn: leftover guidance announced, the error node of a failure,
/// and the closing write (answer, leftover guidance, terminal, counters);
/// `done`'s workflow node goes out once that write committed.
async fn finish(
    cx: &TurnCtx<'_>,
    transcript: &mut Transcript,
    outcome: TurnOutcome,
    counters: &mut Counters,
) -> TurnOutcome {
    // The terminal goes after the opening, which also clears no mark before
    // it is set. A turn whose opening never committed is not in the log:
    // nothing of it is written at its end either.
    let opened = transcript.opened().await;
    let outcome = match &opened {
        Err(failure) if !matches!(outcome, TurnOutcome::Failed(_)) => {
            TurnOutcome::Failed(failure.clone())
        }
        _ => outcome,
    };
    // Guidance accepted but never drained (the turn was cancelled or failed
    // first) is still announced and kept in the log, before the terminal.
    let leftover = cx.steer.close();
    for g in &leftover {
        cx.emit(AgentEvent::Steer {
            text: g.text.clone(),
            kind: g.kind,
        });
    }
    // Every failure ends the flowchart with an error node (provider errors,
    // no model for the images, the step limit, a store failure), after any
    // guidance (a client opens a new bubble on `steer`).
    if let TurnOutcome::Failed(failure) = &outcome {
        error_node(cx.events, counters.steps, &failure.message);
    }
    let (status, text) = terminal_of(&outcome);
    let mut items: Vec<EventItem> = counters.final_answer.take().into_iter().collect();
    items.extend(leftover.iter().map(steer_item));
    items.push(EventItem::Terminal(TurnTerminal { status, text }));
    // Whatever the turn spent since its last write (the final step, a
    // cancelled or failed one, a compaction) is written with its end.
    let spend = counters.take_spend();
    if opened.is_err() {
        return outcome;
    }
    // The caller passes the last events on while the closing write runs.
    tokio::task::yield_now().await;
    let closed = crate::closing::close_turn(
        &cx.rt.store,
        &cx.input.scope,
        &cx.input.session_id,
        cx.owner,
        items,
        spend,
    )
    .await;
    if let Err(e) = closed {
        // Raw: each front end words it (`seekclaw_protocol::wording`).
        let error = e.to_string();
        error_node(cx.events, counters.steps, &error);
        return TurnOutcome::Unsaved {
            ended: Box::new(outcome),
            error,
        };
    }
    // Announced once the answer is in the log, so a client that reads the
    // session on this event finds it.
    if let Some(step) = counters.done_at_step {
        cx.emit(AgentEvent::Workflow {
            step,
            node: WorkflowNode::Done,
            detail: String::new(),
        });
    }
    outcome
}

/// The flowchart's closing error node, after step `steps`.
fn error_node(events: &UnboundedSender<AgentEvent>, steps: u64, detail: &str) {
    let _ = events.send(AgentEvent::Workflow {
        step: steps as u32,
        node: WorkflowNode::Error,
        detail: detail.to_string(),
    });
}

/// The terminal recording `outcome`.
fn terminal_of(outcome: &TurnOutcome) -> (TerminalStatus, String) {
    match outcome {
        TurnOutcome::Done(t) => (TerminalStatus::Finished, t.clone()),
        TurnOutcome::Cancelled(t) => (TerminalStatus::Aborted, t.clone()),
        TurnOutcome::Failed(f) => (TerminalStatus::Failed, f.message.clone()),
        TurnOutcome::Unsaved { ended, .. } => terminal_of(ended),
    }
}
