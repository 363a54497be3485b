//! Subagents: child turns started from inside a tool call (`explore`,
//! `review`). The engine hands each turn a [`Children`] handle over a *weak*
//! reference to its services (no `Arc` cycle: a turn never keeps the engine
//! alive). Each child runs as an ordinary turn of its own session (named
//! after its parent, `<parent>-sr-N`, and linked to it by `parent_id`), with
//! a read-only tool set, a step budget and a deadline, on its own task: a
//! child that panics is a failed tool result, never a failed parent.

use std::sync::{Arc, Weak};
use std::time::Duration;

use crate::error::EngineError;
use seekclaw_agent::{AgentEvent, Approvals, Subrun, TurnOutcome, Unattended};
use seekclaw_store::NewSession;
use seekclaw_tools::{
    ChildError, ChildFuture, ChildReport, ChildRequest, ChildStatus, ChildTurns, GoalFuture,
    Registry,
};
use tokio::sync::mpsc::UnboundedSender;
use tokio_util::sync::CancellationToken;

use crate::engine::{Engine, Services};
use crate::launcher::{TurnOrigin, TurnOverrides, TurnRequest};
use crate::scope::Scope;
use crate::target::{SessionTarget, TurnControls};

/// The one mutating tool a child keeps: its commands are gated by an
/// approval policy nobody answers, so only plain reads run.
const CHILD_SHELL: &str = "bash";
/// Tools that change nothing a child may still not use: job output, the
/// parent's plan, screen capture. (The subagent tools are withheld from
/// every child turn by the tool filter.)
const CHILD_ALSO_DENIED: &[&str] = &["bash_output", "plan", "capture_screen"];

/// The tools a child may not use: every mutating one but the shell (so a
/// new write tool is denied without being named here), and the others above.
fn child_denied(tools: &Registry) -> Vec<String> {
    tools
        .all()
        .map(|t| t.definition())
        .filter(|d| d.flags.mutating && d.name != CHILD_SHELL)
        .map(|d| d.name.clone())
        .chain(CHILD_ALSO_DENIED.iter().map(|t| (*t).to_string()))
        .collect()
}

/// Why a child's shell command did not run (what the child's model reads).
const READ_ONLY_SHELL: &str = "a subagent's shell is read-only: only plain reads run \
(ls, cat, grep, find, wc, git status/diff/log/show …), without redirection or substitution";

/// One parent turn's way to start child turns.
pub(crate) struct Children {
    services: Weak<Services>,
    scope: Scope,
    parent: String,
    /// The model the parent's front end pinned, if any: children use it too.
    model: Option<String>,
    /// The folder the parent turn was started from: children read the same
    /// instruction files.
    start_dir: Option<std::path::PathBuf>,
    /// The parent turn's events: subrun brackets, progress and the
    /// children's usage (rolled up into the parent's) go there.
    events: UnboundedSender<AgentEvent>,
    /// Child ids are handed out one at a time (two concurrent children must
    /// not both take the same ordinal).
    naming: tokio::sync::Mutex<()>,
}

impl std::fmt::Debug for Children {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Children")
            .field("parent", &self.parent)
            .finish_non_exhaustive()
    }
}

impl Children {
    pub(crate) fn new(
        engine: &Engine,
        scope: &Scope,
        parent: &str,
        (model, start_dir): (Option<String>, Option<std::path::PathBuf>),
        events: UnboundedSender<AgentEvent>,
    ) -> Children {
        Children {
            services: engine.downgrade(),
            scope: scope.clone(),
            parent: parent.to_string(),
            model,
            start_dir,
            events,
            naming: tokio::sync::Mutex::new(()),
        }
    }

    fn engine(&self) -> Result<Engine, ChildError> {
        self.services
            .upgrade()
            .map(Engine::from_services)
            .ok_or_else(|| ChildError::NotStarted("the engine is shutting down".into()))
    }

    /// Creates the child's session: `<parent>-sr-N`, N one past the
    /// parent's children in the store (a resumed parent never reuses an id),
    /// titled by what it was sent to do (its message is the instructions).
    async fn create_session(&self, engine: &Engine, title: String) -> Result<String, ChildError> {
        let _one_at_a_time = self.naming.lock().await;
        let (store, scope, parent) = (
            engine.store.clone(),
            self.scope.clone(),
            self.parent.clone(),
        );
        let made = tokio::task::spawn_blocking(move || {
            let taken = store.child_sessions(&scope.key, &parent)?.len();
            let parent_header = store.session(&scope.key, &parent)?;
            let new = NewSession {
                scope: scope.key.clone(),
                id: format!("{parent}-sr-{}", taken + 1),
                workspace: scope.workspace_string(),
                title: Some(title),
                reasoning_level: parent_header
                    .as_ref()
                    .map_or_else(|| "medium".into(), |h| h.reasoning_level.clone()),
                network_enabled: parent_header.is_some_and(|h| h.network_enabled),
            };
            store.create_child_session(&new, &parent)
        })
        .await
        .map_err(|e| ChildError::NotStarted(e.to_string()))?
        .map_err(|e| ChildError::NotStarted(e.to_string()))?;
        Ok(made.id)
    }
}

impl ChildTurns for Children {
    fn run(&self, request: ChildRequest, cancel: CancellationToken) -> ChildFuture<'_> {
        Box::pin(async move {
            let engine = self.engine()?;
            let title = format!("{}: {}", request.kind.as_str(), request.label);
            let id = self.create_session(&engine, title).await?;
            let config = engine.config.load();
            let limits = Limits {
                max_steps: config.agent.subagent_max_steps.max(1),
                deadline: Duration::from_secs(config.agent.subagent_timeout_seconds.max(1)),
            };
            let mut subrun = Subrun {
                id: id.clone(),
                kind: request.kind.as_str().into(),
                label: request.label.clone(),
                status: "running".into(),
                steps: 0,
                input_tokens: 0,
                output_tokens: 0,
            };
            let _ = self.events.send(AgentEvent::SubrunStarted(subrun.clone()));
            let turn = TurnRequest {
                scope: self.scope.clone(),
                session: SessionTarget::Id(id.clone()),
                message: request.message,
                images: Vec::new(),
                reasoning: None,
                overrides: TurnOverrides {
                    subagent_type: Some(request.kind.as_str().to_string()),
                    start_dir: self.start_dir.clone(),
                    ..child_overrides(
                        self.model.clone(),
                        limits.max_steps,
                        child_denied(&engine.tools),
                    )
                },
                controls: TurnControls {
                    cancel: cancel.child_token(),
                    ..TurnControls::new(Approvals::unattended(Unattended::Reject(
                        READ_ONLY_SHELL.into(),
                    )))
                },
                origin: TurnOrigin::new("subrun"),
            };
            let events = self.events.clone();
            let progress = subrun.clone();
            // Its own task: children of one batch run in parallel, and a
            // child that panics takes only its task down.
            let mut task = AbortOnDrop(tokio::spawn(drive(engine, turn, limits, events, progress)));
            let ended = joined(task.join().await, &subrun);
            let tokens = ended.run.tokens();
            let steps = ended.run.steps;
            subrun = Subrun {
                status: ended.status.as_str().into(),
                ..ended.run
            };
            let _ = self.events.send(AgentEvent::SubrunFinished(subrun));
            Ok(ChildReport {
                session_id: id,
                status: ended.status,
                text: ended.text,
                steps,
                tokens,
            })
        })
    }

    fn standing_goal(&self) -> GoalFuture<'_> {
        Box::pin(async move {
            let engine = self.engine().ok()?;
            let (store, key, id) = (
                engine.store.clone(),
                self.scope.key.clone(),
                self.parent.clone(),
            );
            let events = tokio::task::spawn_blocking(move || store.events(&key, &id))
                .await
                .ok()?
                .ok()?;
            seekclaw_agent::StandingGoal::from_events(&events).text
        })
    }
}

/// A child's budget.
#[derive(Debug, Clone, Copy)]
struct Limits {
    max_steps: u32,
    deadline: Duration,
}

/// How a child's turn ended, as its parent reports it.
struct Ended {
    status: ChildStatus,
    text: String,
    /// Its steps and tokens at the end.
    run: Subrun,
}

impl Ended {
    fn failed(subrun: &Subrun, why: String) -> Ended {
        Ended {
            status: ChildStatus::Failed,
            text: why,
            run: subrun.clone(),
        }
    }
}

/// A child's overrides: its own tools read-only (the shell only for plain
/// reads, through an approval policy nobody can answer), its step budget.
fn child_overrides(model: Option<String>, max_steps: u32, denied: Vec<String>) -> TurnOverrides {
    TurnOverrides {
        max_steps: Some(max_steps),
        model,
        // Edit, so `bash` is offered; every write tool is denied below and
        // shell commands that are not plain reads ask, which nobody answers.
        mode: Some(seekclaw_config::AgentMode::Edit),
        approval_policy: Some(seekclaw_config::ApprovalPolicy::OnRequest),
        child: true,
        disabled_tools: denied,
        ..TurnOverrides::default()
    }
}

/// Runs a child turn to its end within its deadline, passing its progress
/// and usage to the parent's events.
async fn drive(
    engine: Engine,
    turn: TurnRequest,
    limits: Limits,
    parent: UnboundedSender<AgentEvent>,
    mut subrun: Subrun,
) -> Result<Ended, EngineError> {
    let mut handle = engine.start_turn(turn).await?;
    let deadline = tokio::time::sleep(limits.deadline);
    tokio::pin!(deadline);
    let mut timed_out = false;
    loop {
        let ev = tokio::select! {
            ev = handle.next_event() => ev,
            () = &mut deadline, if !timed_out => {
                // Cancelled, so it still writes its end to its log.
                timed_out = true;
                handle.cancel();
                continue;
            }
        };
        let Some(ev) = ev else { break };
        match ev {
            AgentEvent::ModelStart { step, .. } => {
                subrun.steps = u64::from(step);
                let _ = parent.send(AgentEvent::SubrunProgress(subrun.clone()));
            }
            usage @ AgentEvent::Usage { .. } => {
                if let AgentEvent::Usage {
                    total_input_tokens,
                    output_tokens,
                    ..
                } = &usage
                {
                    subrun.input_tokens = subrun.input_tokens.saturating_add(*total_input_tokens);
                    subrun.output_tokens = subrun.output_tokens.saturating_add(*output_tokens);
                }
                // The child's usage is the parent turn's usage too.
                let _ = parent.send(usage);
                let _ = parent.send(AgentEvent::SubrunProgress(subrun.clone()));
            }
            // The subagent's hook runs are the parent turn's to show.
            hook @ (AgentEvent::HookStarted(_) | AgentEvent::HookFinished(_)) => {
                let _ = parent.send(hook);
            }
            _ => {}
        }
    }
    let outcome = handle.take_outcome();
    let (status, text) = match outcome {
        _ if timed_out => (
            ChildStatus::Failed,
            format!(
                "it ran past its deadline of {} s (agent.subagentTimeoutSeconds) and was stopped",
                limits.deadline.as_secs()
            ),
        ),
        Some(TurnOutcome::Done(answer)) => (ChildStatus::Done, answer),
        Some(TurnOutcome::Cancelled(_)) => (ChildStatus::Cancelled, String::new()),
        Some(TurnOutcome::Failed(f)) => (ChildStatus::Failed, f.message),
        Some(TurnOutcome::Unsaved { error, .. }) => (ChildStatus::Failed, error),
        None => (ChildStatus::Failed, "it ended without an outcome".into()),
    };
    Ok(Ended {
        status,
        text,
        run: subrun,
    })
}

/// How a child's task ended, as its report: a child that could not start,
/// panicked or was aborted is a failed child (never a failed parent).
fn joined(
    result: Result<Result<Ended, EngineError>, tokio::task::JoinError>,
    subrun: &Subrun,
) -> Ended {
    match result {
        Ok(Ok(ended)) => ended,
        Ok(Err(e)) => Ended::failed(subrun, format!("it could not start: {}", e.message)),
        Err(e) if e.is_panic() => Ended::failed(subrun, "it crashed".into()),
        Err(e) => Ended::failed(subrun, format!("its task ended: {e}")),
    }
}

/// A spawned child that is aborted when its parent's call goes away (the
/// parent's turn was dropped): no child outlives its parent.
struct AbortOnDrop(tokio::task::JoinHandle<Result<Ended, EngineError>>);

impl AbortOnDrop {
    async fn join(&mut self) -> Result<Result<Ended, EngineError>, tokio::task::JoinError> {
        (&mut self.0).await
    }
}

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// The handle a top-level turn is given; `None` for a child (no recursion).
pub(crate) fn for_turn(
    engine: &Engine,
    scope: &Scope,
    session: &str,
    overrides: &TurnOverrides,
    events: &UnboundedSender<AgentEvent>,
) -> Option<Arc<dyn ChildTurns>> {
    if overrides.child {
        return None;
    }
    Some(Arc::new(Children::new(
        engine,
        scope,
        session,
        (overrides.model.clone(), overrides.start_dir.clone()),
        events.clone(),
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn subrun() -> Subrun {
        Subrun {
            id: "p-sr-1".into(),
            kind: "explore".into(),
            label: "q".into(),
            status: "running".into(),
            steps: 2,
            input_tokens: 10,
            output_tokens: 1,
        }
    }

    #[tokio::test]
    async fn a_child_that_panics_is_a_failed_report() {
        let mut task = AbortOnDrop(tokio::spawn(async {
            if subrun().steps > 0 {
                panic!("child exploded");
            }
            Ok(Ended::failed(&subrun(), String::new()))
        }));
        let ended = joined(task.join().await, &subrun());
        assert_eq!(ended.status, ChildStatus::Failed);
        assert_eq!(ended.text, "it crashed");
        assert_eq!((ended.run.steps, ended.run.tokens()), (2, 11));
    }

    #[tokio::test]
    async fn a_dropped_parent_call_aborts_its_child() {
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        let task = AbortOnDrop(tokio::spawn(async move {
            // Holds `tx` until aborted: the receiver then sees it dropped.
            let _tx = tx;
            std::future::pending::<()>().await;
            Ok(Ended::failed(&subrun(), String::new()))
        }));
        drop(task);
        assert!(rx.await.is_err(), "the child's task was aborted");
    }

    #[test]
    fn a_child_cannot_write_or_recurse() {
        let tools = seekclaw_tools::builtin_registry();
        let o = child_overrides(Some("tk/m1".into()), 7, child_denied(&tools));
        assert!(o.child);
        assert_eq!(o.max_steps, Some(7));
        assert_eq!(
            o.approval_policy,
            Some(seekclaw_config::ApprovalPolicy::OnRequest)
        );
        for t in [
            "write_file",
            "edit_file",
            "multi_edit",
            "remove",
            "bash_stop",
            "bash_output",
            "plan",
        ] {
            assert!(o.disabled_tools.iter().any(|d| d == t), "{t}");
        }
        assert!(
            !o.disabled_tools
                .iter()
                .any(|d| d == "bash" || d == "read_file")
        );
        // Every mutating tool but the shell, whatever its name.
        for t in tools.all().map(|t| t.definition()) {
            if t.flags.mutating && t.name != "bash" {
                assert!(o.disabled_tools.contains(&t.name), "{}", t.name);
            }
        }
    }
}
