//! One agent turn: the model ⇄ tools loop over a session, with steering,
//! cancellation, compaction, output-cap continuation and a step limit. Every
//! user message, assistant step, tool result, steer, summary and terminal is
//! appended to the session's log as it happens.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use seekclaw_config::{AgentMode, Config, Home, ReasoningLevel, WorkspaceConfig};
use seekclaw_providers::routing::{RouteInput, candidates};
use seekclaw_providers::types::{ChatMessage, ChatRequest, FinishReason, ImageData, ToolSpec};
use seekclaw_providers::{ProviderError, Providers};
use seekclaw_store::{
    AssistantMessage, EventItem, ImageAttachment, RuntimeNotice, Store, TerminalStatus,
    ToolCall as StoredCall, ToolResult, TurnTerminal, UsageDelta, UsageRecord, UserMessage,
    ViewedImage as StoredView,
};
use seekclaw_tools::{Registry, ToolContext, ToolFilter, WriteLocks};
use tokio::sync::mpsc::UnboundedSender;
use tokio_util::sync::CancellationToken;

use crate::context;
use crate::events::{AgentEvent, FailureKind, TurnFailure, TurnOutcome, TurnStatus, WorkflowNode};
use crate::extras::{Resolved, TurnExtras};
use crate::history;
use crate::observer::StepObserver;
use crate::opening::{OpeningWrite, UNSETTLED_SEQ, open_turn};
use crate::prompt;
use crate::steer::{Steer, SteerQueue};
use crate::tool_calls::run_calls;

/// An image attached to the user's message (base64 without a data-URL prefix).
#[derive(Debug, Clone, PartialEq)]
pub struct UserImage {
    pub id: String,
    pub name: String,
    pub media_type: String,
    pub data: String,
    pub size_bytes: u64,
}

/// What the user asked for.
#[derive(Debug, Clone)]
pub struct TurnInput {
    pub scope: String,
    pub session_id: String,
    pub message: String,
    pub images: Vec<UserImage>,
    pub reasoning: ReasoningLevel,
    pub network_enabled: bool,
    /// The conversation before the turn, when the caller read it after
    /// claiming the session; `None`: the turn reads it.
    pub history: Option<Vec<seekclaw_store::SessionEvent>>,
}

/// Everything a turn runs with, captured at its start: later config, workspace
/// or mode changes do not affect a running turn.
pub struct TurnRuntime<'a> {
    pub config: Config,
    pub workspace: Option<WorkspaceConfig>,
    /// The project root; `None` for global sessions.
    pub workspace_root: Option<PathBuf>,
    /// Where tools work: the root, or `$SEEKCLAW_HOME/global`.
    pub work_dir: PathBuf,
    pub home: Home,
    pub mode: AgentMode,
    pub store: Store,
    pub providers: &'a Providers,
    pub registry: Registry,
    pub locks: Arc<WriteLocks>,
    /// What load balancing orders candidates by (`routing.loadBalance`):
    /// empty unless the strategy needs it.
    pub balance: Balance,
}

/// Load-balancing inputs of a turn: the round-robin cursor of its strategy
/// and the usage statistics per model ref.
#[derive(Debug, Clone, Default)]
pub struct Balance {
    pub round_robin_cursor: i64,
    pub stats: std::collections::HashMap<String, seekclaw_providers::routing::ModelStats>,
}

/// Lock owner id of a turn: `<sessionId>/<8 hex>`.
pub fn owner_id(session_id: &str) -> String {
    let random = uuid::Uuid::new_v4().simple().to_string();
    format!("{session_id}/{}", &random[..8])
}

/// Images as stored in the session log.
/// A drained (or left over) steer as its log entry.
fn steer_item(g: &Steer) -> EventItem {
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

/// Appends one item to the turn's log; a turn whose steps cannot be written
/// fails (it never goes on unrecorded).
pub(crate) async fn persist(
    store: &Store,
    scope: &str,
    id: &str,
    turn: &str,
    item: EventItem,
) -> Result<u64, TurnFailure> {
    let (store, scope, id, turn) = (
        store.clone(),
        scope.to_string(),
        id.to_string(),
        turn.to_string(),
    );
    let appended =
        tokio::task::spawn_blocking(move || store.append_event(&scope, &id, Some(&turn), &item))
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

/// Appends a runtime notice (continuation, repair) that the model reads as a
/// user message; returns its seq.
async fn notice(
    rt: &TurnRuntime<'_>,
    (scope, sid, owner): (&str, &str, &str),
    kind: &str,
    text: &str,
) -> Result<u64, TurnFailure> {
    let item = EventItem::Runtime(RuntimeNotice {
        kind: kind.into(),
        text: text.into(),
    });
    persist(&rt.store, scope, sid, owner, item).await
}

pub(crate) struct Counters {
    rounds: u64,
    steps: u64,
    delta: UsageDelta,
    pub(crate) records: Vec<UsageRecord>,
    /// The turn's final answer (or what a cut-short step had said), written
    /// together with the terminal (one trip to the store between the end of
    /// the stream and `done`).
    final_answer: Option<EventItem>,
    /// The step a finished turn ended on (its `workflow done` event goes out
    /// after the closing write).
    done_at_step: Option<u32>,
}

impl TurnRuntime<'_> {
    /// Routing as this turn sees it: its workspace and load-balancing inputs.
    pub(crate) fn route_input(&self) -> RouteInput<'_> {
        RouteInput {
            workspace: self.workspace.as_ref(),
            stats: self.balance.stats.clone(),
            round_robin_cursor: self.balance.round_robin_cursor,
            ..RouteInput::default()
        }
    }

    fn tool_filter(&self, input: &TurnInput, vision: bool) -> ToolFilter {
        ToolFilter {
            read_only: matches!(self.mode, AgentMode::Plan | AgentMode::Readonly),
            network_enabled: input.network_enabled,
            vision,
            disabled: self
                .workspace
                .as_ref()
                .and_then(|w| w.disabled_tools.clone())
                .unwrap_or_default(),
        }
    }

    fn tool_context(
        &self,
        input: &TurnInput,
        owner: &str,
        cancel: &CancellationToken,
        context_window: u64,
    ) -> ToolContext {
        let agent = &self.config.agent;
        // Per-result budget: 5 % of the window in characters, within [4000, maxToolOutputChars].
        let budget = ((context_window as f64 * 4.0 * 0.05) as u64)
            .clamp(4000, agent.max_tool_output_chars.max(4000));
        ToolContext::new(
            self.work_dir.clone(),
            agent.allow_outside_workspace,
            owner.to_string(),
            self.locks.clone(),
            Duration::from_secs(agent.write_lock_timeout_seconds.max(1)),
            Duration::from_secs(agent.bash_timeout_seconds.clamp(1, 3600)),
            input.network_enabled,
            budget as usize,
            cancel.clone(),
        )
    }

    fn system_prompt(
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
        let prompt_input = prompt::PromptInput {
            mode: self.mode,
            personality: &personality,
            scope_global: self.workspace_root.is_none(),
            workspace_root: &self.work_dir,
            network_enabled: input.network_enabled,
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
    rt: &TurnRuntime<'_>,
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
    let read = input.history.take();
    let (extras, (past, mut opening)) = tokio::join!(extras, open_turn(rt, &input, owner, read));
    let ext = Resolved::new(&rt.registry, extras);
    let (scope, sid) = (input.scope.clone(), input.session_id.clone());
    let mut counters = Counters {
        rounds: 0,
        steps: 0,
        delta: UsageDelta::default(),
        records: Vec::new(),
        final_answer: None,
        done_at_step: None,
    };
    // One tool context per turn: background jobs live across steps and are all
    // killed when the turn ends, however it ends.
    let window = candidates(&rt.config, &rt.route_input(), |_| false)
        .ok()
        .and_then(|c| c.first().map(|h| h.model(&rt.config).context_window))
        .unwrap_or(128_000);
    let mut tools = rt.tool_context(&input, owner, &cancel.child_token(), window);
    tools.readable_files = ext.extras.readable_files.clone().into();
    let outcome = match past {
        Ok(past) => turn_loop(
            rt,
            &ext,
            &input,
            (past, &mut opening),
            (owner, steer, events, cancel),
            &tools,
            &mut counters,
        )
        .await
        .unwrap_or_else(TurnOutcome::Failed),
        Err(failure) => TurnOutcome::Failed(failure),
    };
    // The terminal goes after the opening, which also clears no mark before
    // it is set. A turn whose opening never committed is not in the log:
    // nothing of it is written at its end either.
    let opened = opening.settle().await;
    let outcome = match &opened {
        Err(failure) if !matches!(outcome, TurnOutcome::Failed(_)) => {
            TurnOutcome::Failed(failure.clone())
        }
        _ => outcome,
    };
    tools.cancel.cancel();
    // Guidance accepted but never drained (the turn was cancelled or failed
    // first) is still announced and kept in the log, before the terminal.
    let leftover = steer.close();
    for g in &leftover {
        let _ = events.send(AgentEvent::Steer(g.text.clone()));
    }
    // Every failure ends the flowchart with an error node (provider errors,
    // no model for the images, the step limit, a store failure), after any
    // guidance (a client opens a new bubble on `steer`).
    if let TurnOutcome::Failed(failure) = &outcome {
        error_node(events, counters.steps, &failure.message);
    }
    let (status, text) = terminal_of(&outcome);
    counters.delta.llm_rounds = counters.rounds as i64;
    counters.delta.execution_steps = counters.steps as i64;
    let mut items: Vec<EventItem> = counters.final_answer.take().into_iter().collect();
    items.extend(leftover.iter().map(steer_item));
    items.push(EventItem::Terminal(TurnTerminal { status, text }));
    let records = std::mem::take(&mut counters.records);
    if opened.is_err() {
        return outcome;
    }
    // The caller passes the last events on while the closing write runs.
    tokio::task::yield_now().await;
    let closed = crate::closing::close_turn(
        &rt.store,
        &scope,
        &sid,
        owner,
        items,
        counters.delta,
        records,
    )
    .await;
    if let Err(e) = closed {
        let error = format!("The turn could not be saved: {e}");
        error_node(events, counters.steps, &error);
        return TurnOutcome::Unsaved {
            ended: Box::new(outcome),
            error,
        };
    }
    // Announced once the answer is in the log, so a client that reads the
    // session on this event finds it.
    if let Some(step) = counters.done_at_step {
        let _ = events.send(AgentEvent::Workflow {
            step,
            node: WorkflowNode::Done,
            detail: String::new(),
        });
    }
    outcome
}

/// Who drives the turn: lock owner, steering queue, event sink, cancellation.
type Drivers<'a> = (
    &'a str,
    &'a SteerQueue,
    &'a UnboundedSender<AgentEvent>,
    &'a CancellationToken,
);

async fn turn_loop(
    rt: &TurnRuntime<'_>,
    ext: &Resolved,
    input: &TurnInput,
    (past, opening): (Vec<seekclaw_store::SessionEvent>, &mut OpeningWrite),
    (owner, steer, events, cancel): Drivers<'_>,
    tools: &ToolContext,
    counters: &mut Counters,
) -> Result<TurnOutcome, TurnFailure> {
    let (scope, sid) = (input.scope.as_str(), input.session_id.as_str());
    // The conversation so far, then this turn's message (its images are sent now).
    let (past_seqs, mut history): (Vec<u64>, Vec<ChatMessage>) =
        history::conversation(&past).into_iter().unzip();
    let mut seqs: Vec<Option<u64>> = past_seqs.into_iter().map(Some).collect();
    history.push(ChatMessage::User {
        text: input.message.clone(),
        images: input
            .images
            .iter()
            .map(|i| ImageData {
                media_type: i.media_type.clone(),
                data_base64: i.data.clone(),
            })
            .collect(),
    });
    seqs.push(Some(UNSETTLED_SEQ));

    let agent = &rt.config.agent;
    let max_steps = agent.max_steps.max(1) + agent.max_repair_attempts.min(128);
    let needs_vision = !input.images.is_empty();
    // Becomes a vision route for the rest of the turn once guidance brings images.
    let mut route = RouteInput {
        needs_vision,
        ..rt.route_input()
    };
    let mut last_text = String::new();
    let mut mutated = false;
    let mut repairs = 0u32;
    let mut continuations = 0u32;
    let mut compacted = false;
    let mut step: u32 = 0;
    loop {
        if cancel.is_cancelled() {
            return Ok(TurnOutcome::Cancelled(last_text));
        }
        if step as u64 >= max_steps as u64 {
            return Err(TurnFailure::new(
                FailureKind::StepLimit,
                format!(
                    "Stopped after {max_steps} steps (agent.maxSteps); the task is not finished. Send a follow-up to continue."
                ),
            ));
        }
        step += 1;
        counters.steps = step as u64;
        // The images entering this step's request: the message's on step 1,
        // then those of guidance drained into it.
        let mut views: Vec<ViewedImage> = Vec::new();
        if step == 1 {
            views.extend(input.images.iter().map(viewed));
        }
        let guidance = steer.drain();
        if !guidance.is_empty() {
            opening.settle_into(&mut seqs).await?;
        }
        for g in guidance {
            if !g.images.is_empty() {
                route.needs_vision = true;
                views.extend(g.images.iter().map(viewed));
            }
            let _ = events.send(AgentEvent::Steer(g.text.clone()));
            let seq = persist(&rt.store, scope, sid, owner, steer_item(&g)).await?;
            history.push(ChatMessage::User {
                text: g.text,
                images: g
                    .images
                    .into_iter()
                    .map(|i| ImageData {
                        media_type: i.media_type,
                        data_base64: i.data,
                    })
                    .collect(),
            });
            seqs.push(Some(seq));
        }
        // The model the request will most likely go to sizes the context.
        let chain = candidates(&rt.config, &route, |_| false)
            .map_err(|e| TurnFailure::from_provider(&e))?;
        let first = chain[0];
        let model = first.model(&rt.config);
        let model_ref = first.model_ref(&rt.config);
        let vision = model.capabilities.vision;
        let filter = rt.tool_filter(input, vision);
        let offered = ext.registry.offered(&filter);
        let tool_names: Vec<String> = offered
            .iter()
            .map(|t| t.definition().name.clone())
            .collect();
        let system = rt.system_prompt(input, &model_ref, vision, &tool_names, &ext.extras);
        let budget = context::Budget {
            context_window: model.context_window,
            max_output: model.max_output,
            system_tokens: (system.chars().count() as u64).div_ceil(4),
        }
        .history_budget();
        let _ = events.send(AgentEvent::Status(TurnStatus::Thinking));
        let _ = events.send(AgentEvent::Workflow {
            step,
            node: WorkflowNode::Think {
                continuation: continuations > 0,
            },
            detail: String::new(),
        });
        let origin = context::repair_pairs_with_origin(&mut history);
        seqs = origin
            .iter()
            .map(|o| o.and_then(|i| seqs.get(i).copied().flatten()))
            .collect();
        if agent.enable_context_compaction
            && !compacted
            && let Some(plan) = context::plan_compaction(&history, budget)
        {
            compacted = true;
            opening.settle_into(&mut seqs).await?;
            crate::compaction::compact(
                rt,
                input,
                owner,
                events,
                cancel,
                step,
                &mut history,
                &mut seqs,
                plan,
                counters,
            )
            .await?;
        }
        let fitted = context::fit(&history, budget);
        for v in &views {
            let _ = events.send(AgentEvent::ImageView {
                image_id: v.id.clone(),
                name: v.name.clone(),
                media_type: v.media_type.clone(),
            });
        }
        let request = ChatRequest {
            system,
            messages: fitted.messages,
            tools: offered
                .iter()
                .map(|t| {
                    let d = t.definition();
                    ToolSpec {
                        name: d.name.clone(),
                        description: d.description.clone(),
                        parameters: d.parameters.clone(),
                    }
                })
                .collect(),
            max_output: None,
            temperature: rt
                .workspace
                .as_ref()
                .and_then(|w| w.temperature)
                .or_else(|| rt.config.active_profile().and_then(|p| p.temperature)),
            reasoning: input.reasoning,
            thinking_budget_tokens: agent.thinking_budget_tokens,
        };
        let mut observer = StepObserver {
            events,
            step,
            text: String::new(),
            thinking: String::new(),
            model_ref: None,
            records: Vec::new(),
            rounds: 0,
        };
        let result = rt
            .providers
            .chat(&rt.config, &route, &request, &mut observer, cancel)
            .await;
        // From here on the step writes to the log: after the opening.
        opening.settle_into(&mut seqs).await?;
        counters.rounds += observer.rounds;
        for r in &observer.records {
            let d = &mut counters.delta;
            add_count(&mut d.input_tokens, r.usage.total_input_tokens);
            add_count(&mut d.total_input_tokens, r.usage.total_input_tokens);
            add_count(&mut d.cached_input_tokens, r.usage.cached_input_tokens);
            add_count(&mut d.output_tokens, r.usage.output_tokens);
            add_count(&mut d.output_elapsed_ms, r.elapsed_ms as u64);
            counters.records.push(crate::usage_record(r, Some(sid)));
        }
        let completion = match result {
            Ok(c) => c,
            // Text streamed before a cancel or a failure is kept as the
            // assistant's answer, written with the terminal (one write: a
            // full disk then loses neither, or reports both unsaved).
            Err(ProviderError::Cancelled) => {
                counters.final_answer = observer.partial_answer();
                if !observer.text.is_empty() {
                    last_text = observer.text;
                }
                return Ok(TurnOutcome::Cancelled(last_text));
            }
            Err(e) => {
                counters.final_answer = observer.partial_answer();
                return Err(TurnFailure::from_provider(&e));
            }
        };
        let assistant = AssistantMessage {
            text: completion.text.clone(),
            thinking: completion
                .thinking
                .as_ref()
                .map(|t| t.text.clone())
                .filter(|t| !t.is_empty()),
            thinking_signature: completion
                .thinking
                .as_ref()
                .and_then(|t| t.signature.clone()),
            model_ref: Some(completion.model_ref()),
            tool_calls: completion
                .tool_calls
                .iter()
                .map(|c| StoredCall {
                    id: c.id.clone(),
                    name: c.name.clone(),
                    arguments_json: c.arguments.clone(),
                })
                .collect(),
            viewed_images: views
                .iter()
                .map(|v| StoredView {
                    id: v.id.clone(),
                    name: v.name.clone(),
                })
                .collect(),
            finish_reason: completion.finish.as_ref().map(|f| f.as_str().to_string()),
        };
        if !completion.text.trim().is_empty() {
            last_text = completion.text.clone();
        }
        let truncated = completion.finish == Some(FinishReason::Length)
            && continuations < agent.max_output_continuations;
        let answered = completion.tool_calls.is_empty()
            && !truncated
            && !(mutated && repairs < agent.max_repair_attempts);
        // A final answer (no steer waiting, and none can queue once closed)
        // is stored with the terminal instead of on its own.
        if answered && steer.close_if_empty() {
            counters.final_answer = Some(EventItem::Assistant(assistant));
            counters.done_at_step = Some(step);
            return Ok(TurnOutcome::Done(last_text));
        }
        let seq = persist(
            &rt.store,
            scope,
            sid,
            owner,
            EventItem::Assistant(assistant),
        )
        .await?;
        history.push(ChatMessage::Assistant {
            text: completion.text.clone(),
            thinking: completion.thinking.clone(),
            tool_calls: completion.tool_calls.clone(),
        });
        seqs.push(Some(seq));

        if !completion.tool_calls.is_empty() {
            let outputs = run_calls(
                &ext.registry,
                &filter,
                tools,
                &completion.tool_calls,
                step,
                events,
            )
            .await;
            for (call, out) in completion.tool_calls.iter().zip(outputs) {
                mutated |= out.mutated;
                let item = EventItem::ToolResult(ToolResult {
                    tool_call_id: call.id.clone(),
                    tool_name: call.name.clone(),
                    success: out.success,
                    output: out.content.clone(),
                    // A write that changed nothing has no diff (reference §3).
                    diff: out.diff.clone().filter(|d| !d.is_empty()),
                    file_path: out.file_path.clone(),
                });
                let seq = persist(&rt.store, scope, sid, owner, item).await?;
                history.push(ChatMessage::Tool {
                    call_id: call.id.clone(),
                    name: call.name.clone(),
                    content: out.content,
                    is_error: !out.success,
                    images: out
                        .images
                        .into_iter()
                        .map(|i| ImageData {
                            media_type: i.media_type,
                            data_base64: i.data_base64,
                        })
                        .collect(),
                });
                seqs.push(Some(seq));
            }
            continue;
        }
        if steer.has_pending() {
            continue;
        }
        if truncated {
            continuations += 1;
            let _ = events.send(AgentEvent::Status(TurnStatus::OutputTruncated));
            if completion.text.trim().is_empty() {
                let text = ">>> [output truncated] Your last answer hit the output limit before any text. Continue, more concisely.".to_string();
                let seq = notice(rt, (scope, sid, owner), "continuation", &text).await?;
                history.push(ChatMessage::User {
                    text,
                    images: Vec::new(),
                });
                seqs.push(Some(seq));
            }
            continue;
        }
        if mutated && repairs < agent.max_repair_attempts {
            mutated = false;
            if let Some((command, output)) =
                crate::verify::verify_turn(rt, events, cancel, step).await
            {
                repairs += 1;
                let text = crate::verify::repair_message(&command, &output);
                let _ = events.send(AgentEvent::Workflow {
                    step,
                    node: WorkflowNode::Repair,
                    detail: command,
                });
                let seq = notice(rt, (scope, sid, owner), "repair", &text).await?;
                history.push(ChatMessage::User {
                    text,
                    images: Vec::new(),
                });
                seqs.push(Some(seq));
                continue;
            }
            if cancel.is_cancelled() {
                return Ok(TurnOutcome::Cancelled(last_text));
            }
        }
        if !steer.close_if_empty() {
            continue;
        }
        counters.done_at_step = Some(step);
        return Ok(TurnOutcome::Done(last_text));
    }
}

/// The flowchart's closing error node, after step `steps`.
fn error_node(events: &UnboundedSender<AgentEvent>, steps: u64, detail: &str) {
    let _ = events.send(AgentEvent::Workflow {
        step: steps as u32,
        node: WorkflowNode::Error,
        detail: detail.to_string(),
    });
}

/// Adds a provider's count to a session counter; absurd counts from a server
/// saturate instead of wrapping.
fn add_count(counter: &mut i64, n: u64) {
    *counter = counter.saturating_add(i64::try_from(n).unwrap_or(i64::MAX));
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

/// An image entering a step's model request.
struct ViewedImage {
    id: String,
    name: String,
    media_type: String,
}

fn viewed(i: &UserImage) -> ViewedImage {
    ViewedImage {
        id: i.id.clone(),
        name: i.name.clone(),
        media_type: i.media_type.clone(),
    }
}
