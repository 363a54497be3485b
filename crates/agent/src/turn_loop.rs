//! The model ⇄ tools loop of one turn, a step at a time: take the guidance
//! that arrived, build the request (the model it goes to, compaction,
//! fitting), sample the model, record the answer, run its tool calls, and
//! decide whether the turn goes on.

use seekclaw_providers::Completion;
use seekclaw_providers::ProviderError;
use seekclaw_providers::routing::{RouteInput, candidates};
use seekclaw_providers::types::{ChatMessage, ChatRequest, FinishReason, ToolGrammar, ToolSpec};
use seekclaw_store::{
    AssistantMessage, EventItem, ToolCall as StoredCall, ToolResult, ViewedImage as StoredView,
};
use seekclaw_tools::ToolFilter;

use crate::ceiling::{self, Level, Window};
use crate::checkpoints::{CheckpointCause, Touched};
use crate::context;
use crate::control::{self, Control};
use crate::events::{AgentEvent, FailureKind, TurnFailure, TurnOutcome, TurnStatus, WorkflowNode};
use crate::goal::{GoalMarker, StandingGoal};
use crate::observer::StepObserver;
use crate::tool_calls::run_calls;
use crate::transcript::{Transcript, user_message};
use crate::turn::{Counters, TurnCtx, UserImage, steer_item};

/// What the loop carries from one step to the next.
struct LoopState<'t> {
    step: u32,
    max_steps: u32,
    /// Becomes a vision route for the rest of the turn once guidance brings images.
    route: RouteInput<'t>,
    /// The last non-empty answer text (a cancelled turn ends with it).
    last_text: String,
    /// A tool changed the workspace since the last verification.
    mutated: bool,
    repairs: u32,
    continuations: u32,
    compacted: bool,
    /// The context window's accounting (reference §4.3).
    window: Window,
    /// Control tools, the standing goal and reminders.
    control: Control,
    /// Times a `Stop` hook made this turn go on.
    stop_continued: u32,
    /// A `Stop` hook's feedback entered the transcript this step: the turn
    /// goes on to the next request.
    stop_pending: bool,
}

/// A step's request, and the tool filter its calls are checked against.
struct Prepared {
    request: ChatRequest,
    filter: ToolFilter,
    /// The model the request most likely goes to (its prices size the
    /// spend check).
    model: seekclaw_config::Model,
}

/// An image entering a step's model request.
struct ViewedImage {
    id: String,
    name: String,
    media_type: String,
}

impl ViewedImage {
    fn of(i: &UserImage) -> ViewedImage {
        ViewedImage {
            id: i.id.clone(),
            name: i.name.clone(),
            media_type: i.media_type.clone(),
        }
    }
}

/// What the loop does after a step.
enum Next {
    Continue,
    End(TurnOutcome),
}

/// Runs the steps of a turn until it ends. `Err` is a failure (provider, step
/// limit, store, …); a cut-short step's partial answer is left in `counters`.
pub(crate) async fn turn_loop(
    cx: &TurnCtx<'_>,
    transcript: &mut Transcript,
    counters: &mut Counters,
    goal: StandingGoal,
) -> Result<TurnOutcome, TurnFailure> {
    let agent = &cx.rt.config.agent;
    let mut st = LoopState {
        step: 0,
        // A front end's limit is exact; `agent.maxSteps` gets room for repairs.
        max_steps: cx.input.step_limit.unwrap_or_else(|| {
            agent
                .max_steps
                .max(1)
                .saturating_add(agent.max_repair_attempts.min(128))
        }),
        route: RouteInput {
            needs_vision: !cx.input.images.is_empty(),
            ..cx.rt.route_input()
        },
        last_text: String::new(),
        mutated: false,
        repairs: 0,
        continuations: 0,
        compacted: false,
        window: Window::default(),
        control: Control::new(cx.input.finish_tool, cx.input.submit.clone(), goal),
        stop_continued: 0,
        stop_pending: false,
    };
    loop {
        if cx.cancel.is_cancelled() {
            return Ok(TurnOutcome::Cancelled(st.last_text));
        }
        if st.step >= st.max_steps {
            return Err(TurnFailure::new(
                FailureKind::StepLimit,
                format!(
                    "Stopped after {} steps (agent.maxSteps); the task is not finished. Send a follow-up to continue.",
                    st.max_steps
                ),
            ));
        }
        st.step += 1;
        counters.steps = u64::from(st.step);
        let views = take_guidance(cx, &mut st, transcript).await?;
        control::step_reminders(cx, &mut st.control, transcript, st.step).await?;
        let prepared = prepare(cx, &mut st, transcript, counters, &views).await?;
        // Stops before a request that would exceed a budget; what the turn
        // wrote so far stays (the next turn goes on from it).
        crate::spend::check(cx, &prepared.model, &prepared.request, counters).await?;
        let completion = match sample(cx, &mut st, prepared.request, transcript, counters).await? {
            Ok(completion) => completion,
            Err(ended) => return Ok(ended),
        };
        let finish = completion.finish.as_ref().map(|f| f.as_str().to_string());
        if let Next::End(outcome) =
            record(cx, &mut st, transcript, counters, &completion, &views).await?
        {
            return Ok(answered(cx, outcome, finish));
        }
        if let Next::End(outcome) = decide(
            cx,
            &mut st,
            transcript,
            counters,
            completion,
            &prepared.filter,
        )
        .await?
        {
            return Ok(answered(cx, outcome, finish));
        }
    }
}

/// Says why the model stopped the answer a turn ends on.
fn answered(cx: &TurnCtx<'_>, outcome: TurnOutcome, finish: Option<String>) -> TurnOutcome {
    if matches!(outcome, TurnOutcome::Done(_)) {
        cx.emit(AgentEvent::AnswerFinish {
            reason: finish.unwrap_or_default(),
        });
    }
    outcome
}

/// Drains the guidance that arrived into the transcript (and the log); returns
/// the images entering this step's request: the message's on step 1, then
/// those the guidance brings.
async fn take_guidance(
    cx: &TurnCtx<'_>,
    st: &mut LoopState<'_>,
    transcript: &mut Transcript,
) -> Result<Vec<ViewedImage>, TurnFailure> {
    let mut views: Vec<ViewedImage> = Vec::new();
    if st.step == 1 {
        views.extend(cx.input.images.iter().map(ViewedImage::of));
    }
    let guidance = cx.steer.drain();
    if !guidance.is_empty() {
        transcript.settle().await?;
    }
    // Blank guidance is dropped (reference §4.6).
    for g in guidance
        .into_iter()
        .filter(|g| !g.text.trim().is_empty() || !g.images.is_empty())
    {
        if !g.images.is_empty() {
            st.route.needs_vision = true;
            views.extend(g.images.iter().map(ViewedImage::of));
        }
        cx.emit(AgentEvent::Steer {
            text: g.text.clone(),
            kind: g.kind,
        });
        // A goal set while the turn runs arrives as a notice.
        if let Some(marker) = GoalMarker::parse(&g.text) {
            st.control.goal_arrived(&marker);
        }
        let seq = cx.persist(steer_item(&g)).await?;
        transcript.push(user_message(g.text, &g.images), seq);
    }
    Ok(views)
}

/// Records the turn's system prompt and tool list with its session (what a
/// session file's header carries, what the inspector's model view shows). A
/// read when it is the one already recorded; a failure costs only the
/// header, so the turn goes on.
async fn record_prompt(cx: &TurnCtx<'_>, system: &str, tools: &[ToolSpec]) {
    let store = cx.rt.store.clone();
    let (scope, id) = (cx.input.scope.clone(), cx.input.session_id.clone());
    let prompt = system.to_string();
    let instructions = &cx.ext.extras.prompt_files.instructions;
    let listed_files = serde_json::to_string(&instructions.files).unwrap_or_default();
    let notice = instructions.budget_notice();
    let listed: Vec<serde_json::Value> = tools
        .iter()
        .map(|t| {
            serde_json::json!({
                "name": t.name, "description": t.description, "parameters": *t.parameters,
            })
        })
        .collect();
    let tools = serde_json::Value::Array(listed).to_string();
    let recorded = crate::blocking::run_now(move || {
        // The budget's cut is said once a session: not when the context
        // recorded before this turn's was cut already.
        let said = notice.is_some()
            && store
                .turn_context(&scope, &id)
                .ok()
                .flatten()
                .and_then(|c| c.instructions)
                .is_some_and(|i| i.contains("\"truncated\":true"));
        let record = seekclaw_store::ContextRecord {
            prompt: &prompt,
            tools: Some(&tools),
            instructions: Some(&listed_files),
        };
        store
            .record_turn_context(&scope, &id, &record)
            .map(|()| notice.filter(|_| !said))
    })
    .await;
    if let Ok(Ok(Some(text))) = &recorded {
        cx.emit(AgentEvent::Reminder {
            kind: crate::events::ReminderKind::Instructions,
            text: text.clone(),
        });
    }
    if let Some(e) = match recorded {
        Ok(Ok(_)) => None,
        Ok(Err(e)) => Some(e.to_string()),
        Err(e) => Some(e.to_string()),
    } {
        tracing::warn!(error = %e, "cannot record the session's system prompt");
    }
}

/// The step's request: the model it most likely goes to sizes the context and
/// the prompt; the history is repaired, compacted once if it has outgrown the
/// window, and fitted.
async fn prepare(
    cx: &TurnCtx<'_>,
    st: &mut LoopState<'_>,
    transcript: &mut Transcript,
    counters: &mut Counters,
    views: &[ViewedImage],
) -> Result<Prepared, TurnFailure> {
    let rt = cx.rt;
    let chain =
        candidates(&rt.config, &st.route, |_| false).map_err(|e| TurnFailure::from_provider(&e))?;
    let first = chain[0];
    let model = first.model(&rt.config);
    let model_ref = first.model_ref(&rt.config);
    let vision = model.capabilities.vision;
    st.window.size = model.context_window;
    let filter = rt.tool_filter(cx.input, vision, model.uses_apply_patch());
    let offered = cx.ext.registry.offered(&filter);
    let tool_names: Vec<String> = offered
        .iter()
        .map(|t| t.definition().name.clone())
        .collect();
    let system = rt.system_prompt(cx.input, &model_ref, vision, &tool_names, &cx.ext.extras);
    let tools: Vec<ToolSpec> = offered
        .iter()
        .map(|t| {
            let d = t.definition();
            ToolSpec {
                name: d.name.clone(),
                description: d.description.clone(),
                parameters: d.parameters.clone(),
                freeform: d.freeform.as_ref().map(|f| ToolGrammar {
                    syntax: f.syntax.clone(),
                    definition: f.definition.clone(),
                }),
            }
        })
        .chain(st.control.specs())
        .collect();
    if st.step == 1 {
        record_prompt(cx, &system, &tools).await;
    }
    let budget = context::Budget {
        context_window: model.context_window,
        max_output: model.max_output,
        system_tokens: context::estimate_text(&system),
    }
    .history_budget();
    cx.emit(AgentEvent::Status(TurnStatus::Thinking));
    cx.emit(AgentEvent::Workflow {
        step: st.step,
        node: WorkflowNode::Think {
            continuation: st.continuations > 0,
        },
        detail: String::new(),
    });
    transcript.repair();
    if rt.config.agent.enable_context_compaction
        && !st.compacted
        && let Some(plan) = context::plan_compaction(transcript.messages(), budget)
    {
        st.compacted = true;
        transcript.settle().await?;
        crate::compaction::compact(cx, st.step, transcript, plan, counters).await?;
    }
    let fitted = context::fit(transcript.messages(), budget);
    for v in views {
        cx.emit(AgentEvent::ImageView {
            image_id: v.id.clone(),
            name: v.name.clone(),
            media_type: v.media_type.clone(),
        });
    }
    let request = ChatRequest {
        system,
        messages: fitted.messages,
        tools,
        max_output: None,
        temperature: rt
            .workspace
            .as_ref()
            .and_then(|w| w.temperature)
            .or_else(|| rt.config.active_profile().and_then(|p| p.temperature)),
        reasoning: cx.input.reasoning,
        thinking_budget_tokens: rt.config.agent.thinking_budget_tokens,
    };
    Ok(Prepared {
        request,
        filter,
        model: model.clone(),
    })
}

/// Asks the model, streaming its answer as events, and counts the usage.
/// `Ok(Err(outcome))`: the turn was cancelled mid-stream.
async fn sample(
    cx: &TurnCtx<'_>,
    st: &mut LoopState<'_>,
    request: ChatRequest,
    transcript: &mut Transcript,
    counters: &mut Counters,
) -> Result<Result<Completion, TurnOutcome>, TurnFailure> {
    let rt = cx.rt;
    let mut observer = StepObserver {
        events: cx.events,
        step: st.step,
        text: String::new(),
        thinking: String::new(),
        model_ref: None,
        records: Vec::new(),
        rounds: 0,
        max_attempts: rt.config.routing.retry.max_attempts.clamp(1, 10),
        retries: 0,
        failed: None,
    };
    let result = rt
        .providers
        .chat(&rt.config, &st.route, &request, &mut observer, cx.cancel)
        .await;
    // From here on the step writes to the log: after the opening.
    transcript.settle().await?;
    counters.rounds += observer.rounds;
    st.window.after_response(&observer.records);
    counters.step_usage = crate::step_usage(&observer.records);
    counters.unwritten.extend(
        observer
            .records
            .iter()
            .map(|r| crate::usage_record(r, Some(&cx.input.session_id))),
    );
    match result {
        Ok(c) => Ok(Ok(c)),
        // Text streamed before a cancel or a failure is kept as the
        // assistant's answer, written with the terminal (one write: a full
        // disk then loses neither, or reports both unsaved).
        Err(ProviderError::Cancelled) => {
            counters.final_answer = observer.partial_answer();
            if !observer.text.is_empty() {
                st.last_text = observer.text;
            }
            Ok(Err(TurnOutcome::Cancelled(std::mem::take(
                &mut st.last_text,
            ))))
        }
        Err(e) => {
            counters.final_answer = observer.partial_answer();
            Err(TurnFailure::from_provider(&e))
        }
    }
}

/// Records the step's answer. A final answer (no tool calls, nothing to
/// continue or verify, no guidance waiting) ends the turn: it is stored with
/// the terminal instead of on its own.
async fn record(
    cx: &TurnCtx<'_>,
    st: &mut LoopState<'_>,
    transcript: &mut Transcript,
    counters: &mut Counters,
    completion: &Completion,
    views: &[ViewedImage],
) -> Result<Next, TurnFailure> {
    let agent = &cx.rt.config.agent;
    let mut assistant = assistant_item(completion, views);
    assistant.usage = Some(counters.step_usage);
    if !completion.text.trim().is_empty() {
        st.last_text = completion.text.clone();
    }
    // Not final: tools to run, the goal check, a cut answer, a repair due.
    let goes_on = !completion.tool_calls.is_empty()
        || st.control.goal_check_due()
        || st.control.submit_pending()
        || truncated(st, agent, completion)
        || (st.mutated && st.repairs < agent.max_repair_attempts);
    // The user's `Stop` hooks may make an answer that would end the turn go on.
    let feedback = match !goes_on && !cx.steer.has_pending() {
        true => crate::turn_hooks::stop(cx, st.stop_continued, &completion.text).await,
        false => None,
    };
    let answered = !goes_on && feedback.is_none();
    // No steer can queue once the queue is closed.
    if answered && cx.steer.close_if_empty() {
        // Finishing in the soft band still checkpoints (the answer follows
        // the summary), so the next turn starts small (reference §4.5).
        if st.window.level() >= Level::Soft {
            ceiling::checkpoint(cx, st.step, transcript, counters).await?;
        }
        counters.final_answer = Some(EventItem::Assistant(assistant));
        counters.done_at_step = Some(st.step);
        return Ok(Next::End(TurnOutcome::Done(std::mem::take(
            &mut st.last_text,
        ))));
    }
    let seq = cx
        .persist_spending(EventItem::Assistant(assistant), counters)
        .await?;
    transcript.push(
        ChatMessage::Assistant {
            text: completion.text.clone(),
            thinking: completion.thinking.clone(),
            tool_calls: completion.tool_calls.clone(),
        },
        seq,
    );
    if let Some(feedback) = feedback {
        stop_feedback(cx, st, transcript, &feedback).await?;
    }
    Ok(Next::Continue)
}

/// A `Stop` hook's reason, as the guidance the model reads next.
async fn stop_feedback(
    cx: &TurnCtx<'_>,
    st: &mut LoopState<'_>,
    transcript: &mut Transcript,
    feedback: &str,
) -> Result<(), TurnFailure> {
    st.stop_continued += 1;
    st.stop_pending = true;
    let text = format!("[a Stop hook asks you to go on] {feedback}");
    let seq = cx.notice("hook", &text).await?;
    transcript.push(user_message(text, &[]), seq);
    Ok(())
}

/// Whether the answer hit the output cap and may be continued.
fn truncated(st: &LoopState<'_>, agent: &seekclaw_config::AgentSettings, c: &Completion) -> bool {
    c.finish == Some(FinishReason::Length) && st.continuations < agent.max_output_continuations
}

/// After a recorded step: run its tool calls, continue a truncated answer,
/// verify a changed workspace, or end once no guidance is waiting.
async fn decide(
    cx: &TurnCtx<'_>,
    st: &mut LoopState<'_>,
    transcript: &mut Transcript,
    counters: &mut Counters,
    completion: Completion,
    filter: &ToolFilter,
) -> Result<Next, TurnFailure> {
    let agent = &cx.rt.config.agent;
    if !completion.tool_calls.is_empty() {
        return run_batch(cx, st, transcript, counters, &completion.tool_calls, filter).await;
    }
    if std::mem::take(&mut st.stop_pending) {
        return Ok(Next::Continue);
    }
    if cx.steer.has_pending() {
        return Ok(Next::Continue);
    }
    if truncated(st, agent, &completion) {
        st.continuations += 1;
        cx.emit(AgentEvent::Status(TurnStatus::OutputTruncated));
        if completion.text.trim().is_empty() {
            let text = ">>> [output truncated] Your last answer hit the output limit before any text. Continue, more concisely.".to_string();
            let seq = cx.notice("continuation", &text).await?;
            transcript.push(user_message(text, &[]), seq);
        }
        return Ok(Next::Continue);
    }
    if st.mutated && st.repairs < agent.max_repair_attempts {
        st.mutated = false;
        let verdict =
            crate::verify::verify_turn(cx.rt, &cx.tools.sandbox, cx.events, cx.cancel, st.step)
                .await;
        if verdict.is_some() && cx.input.checkpoints.is_some() {
            let turn_seq = transcript.opened().await?;
            cx.checkpoint_after(turn_seq, CheckpointCause::Verify, Touched::Anything)
                .await;
        }
        if let Some((command, output)) = verdict.and_then(|v| v.failed) {
            st.repairs += 1;
            let text = crate::verify::repair_message(&command, &output);
            cx.emit(AgentEvent::Workflow {
                step: st.step,
                node: WorkflowNode::Repair,
                detail: command,
            });
            let seq = cx.notice("repair", &text).await?;
            transcript.push(user_message(text, &[]), seq);
            return Ok(Next::Continue);
        }
        if cx.cancel.is_cancelled() {
            return Ok(Next::End(TurnOutcome::Cancelled(std::mem::take(
                &mut st.last_text,
            ))));
        }
    }
    let answer = std::mem::take(&mut st.last_text);
    finish_with(cx, st, transcript, counters, (answer, false)).await
}

/// The model would finish with `answer` (from a closing call or in plain
/// text): guidance waiting wins (the turn goes on), then the once-per-turn
/// goal check, then a front end's closing tool still uncalled; otherwise the
/// turn is done.
async fn finish_with(
    cx: &TurnCtx<'_>,
    st: &mut LoopState<'_>,
    transcript: &mut Transcript,
    counters: &mut Counters,
    (answer, finishing_call): (String, bool),
) -> Result<Next, TurnFailure> {
    if cx.steer.has_pending() {
        st.last_text = answer;
        return Ok(Next::Continue);
    }
    if st.control.goal_check_due() {
        st.last_text = answer;
        control::goal_check(cx, &mut st.control, transcript).await?;
        return Ok(Next::Continue);
    }
    if !finishing_call && let Some(text) = st.control.submit_nudge() {
        st.last_text = answer;
        let seq = cx.notice("reminder", &text).await?;
        transcript.push(user_message(text, &[]), seq);
        return Ok(Next::Continue);
    }
    if !cx.steer.has_pending()
        && let Some(feedback) = crate::turn_hooks::stop(cx, st.stop_continued, &answer).await
    {
        st.last_text = answer;
        stop_feedback(cx, st, transcript, &feedback).await?;
        st.stop_pending = false;
        return Ok(Next::Continue);
    }
    if !cx.steer.close_if_empty() {
        st.last_text = answer;
        return Ok(Next::Continue);
    }
    // Finishing in the soft band still checkpoints, so the next turn starts
    // small (reference §4.5).
    if st.window.level() >= Level::Soft {
        ceiling::checkpoint(cx, st.step, transcript, counters).await?;
        if cx.cancel.is_cancelled() {
            return Ok(Next::End(TurnOutcome::Cancelled(answer)));
        }
    }
    counters.done_at_step = Some(st.step);
    Ok(Next::End(TurnOutcome::Done(answer)))
}

/// Runs a step's calls in order: ordinary tools through the registry,
/// control calls in the loop. At the hard ceiling only control calls run
/// (the rest are closed unrun) and the turn yields; past the soft ceiling it
/// yields after the batch; a `finish` call ends the turn with its answer.
async fn run_batch(
    cx: &TurnCtx<'_>,
    st: &mut LoopState<'_>,
    transcript: &mut Transcript,
    counters: &mut Counters,
    calls: &[seekclaw_providers::ToolCall],
    filter: &ToolFilter,
) -> Result<Next, TurnFailure> {
    // Past the hard ceiling, or once the running budget is spent, the rest
    // of the batch is closed unrun; control calls still run.
    let mut stopped = st.window.level() == Level::Hard;
    let max_result = cx.tools.max_output_chars as u64 / 4 + 1;
    let mut finished = None;
    let mut i = 0;
    while i < calls.len() {
        if st.control.is_control(&calls[i].name) {
            finished = control::run_control(cx, &mut st.control, transcript, &calls[i..]).await?;
            if finished.is_some() {
                break;
            }
            i += 1;
            continue;
        }
        let end = (i..calls.len())
            .find(|&j| st.control.is_control(&calls[j].name))
            .unwrap_or(calls.len());
        let segment = &calls[i..end];
        if stopped {
            ceiling::skip_close(cx, transcript, segment).await?;
        } else if st.window.fits(segment.len(), max_result) {
            run_tools(cx, st, transcript, segment, filter).await?;
        } else {
            // Near the ceiling: one call at a time, each within the budget.
            for (k, call) in segment.iter().enumerate() {
                if !st.window.fits(1, max_result) {
                    stopped = true;
                    ceiling::skip_close(cx, transcript, &segment[k..]).await?;
                    break;
                }
                run_tools(cx, st, transcript, std::slice::from_ref(call), filter).await?;
            }
        }
        i = end;
    }
    control::flush_markers(cx, &mut st.control, transcript).await?;
    if let Some(why) = cx.stop_requested() {
        return Ok(Next::End(TurnOutcome::Done(format!(
            "Stopped by one of the user's hooks: {why}"
        ))));
    }
    if let Some(answer) = finished {
        return finish_with(cx, st, transcript, counters, (answer, true)).await;
    }
    if stopped || st.window.level() >= Level::Soft {
        let ended = ceiling::yield_at_ceiling(cx, st.step, transcript, counters).await?;
        return Ok(Next::End(ended));
    }
    Ok(Next::Continue)
}

/// Runs the step's tool calls and records each result in order.
async fn run_tools(
    cx: &TurnCtx<'_>,
    st: &mut LoopState<'_>,
    transcript: &mut Transcript,
    calls: &[seekclaw_providers::ToolCall],
    filter: &ToolFilter,
) -> Result<(), TurnFailure> {
    let ask = crate::ask::AskCx {
        events: cx.events,
        ctx: cx.tools,
        store: &cx.rt.store,
        scope: &cx.input.scope,
        session_id: &cx.input.session_id,
        owner: cx.owner,
        policy: cx.input.policy.as_deref(),
        stop: cx.stop,
    };
    let turn_seq = match &cx.input.checkpoints {
        Some(_) => transcript.opened().await?,
        None => 0,
    };
    let checkpoints = cx.input.checkpoints.as_deref().map(|cp| (cp, turn_seq));
    let outputs = run_calls(
        &cx.ext.registry,
        filter,
        (cx.approvals, &ask),
        calls,
        st.step,
        (cx.events, checkpoints),
    )
    .await;
    let touched = crate::tool_calls::touched(&outputs);
    for (call, ran) in calls.iter().zip(outputs) {
        let out = ran.out;
        st.mutated |= out.mutated;
        st.window.add_result(&out.content);
        if call.name == "plan" && out.success {
            st.control.planned(out.status.clone());
        }
        let item = EventItem::ToolResult(ToolResult {
            tool_call_id: call.id.clone(),
            tool_name: call.name.clone(),
            success: out.success,
            output: out.content.clone(),
            // A write that changed nothing has no diff (reference §3).
            diff: out.diff.clone().filter(|d| !d.is_empty()),
            file_path: out.file_path.clone(),
            summary: Some(ran.summary),
            duration_ms: Some(ran.duration_ms.round() as u64),
            silent: ran.silent,
        });
        let seq = cx.persist(item).await?;
        let message = ChatMessage::Tool {
            call_id: call.id.clone(),
            name: call.name.clone(),
            content: out.content,
            is_error: !out.success,
            images: out
                .images
                .into_iter()
                .map(|i| seekclaw_providers::types::ImageData {
                    media_type: i.media_type,
                    data_base64: i.data_base64,
                })
                .collect(),
        };
        transcript.push(message, seq);
    }
    if let Some(touched) = touched {
        cx.checkpoint_after(turn_seq, CheckpointCause::Step, touched)
            .await;
    }
    Ok(())
}

/// The step's answer as its log entry.
fn assistant_item(completion: &Completion, views: &[ViewedImage]) -> AssistantMessage {
    AssistantMessage {
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
        usage: None,
    }
}
