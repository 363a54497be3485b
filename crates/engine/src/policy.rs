//! The user's permission rules and hooks, applied by the engine to every
//! turn whatever front end started it (the terminal UI, the desktop over
//! the daemon, `run`, `serve`, ACP, `mcp serve`, schedules, subagents):
//! read once per turn ([`Engine::turn_policy`]), with the workspace's trust
//! and its approved hook set; plus the hooks that fire outside turns
//! (`SessionEnd`, a manual `PreCompact`).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use seekclaw_agent::{TurnPolicy, TurnRuntime};
use seekclaw_config::{AgentMode, ApprovalPolicy};
use seekclaw_policy::{
    Explained, HookCommand, HookContext, HookEvent, Policy, Probe, Problem, Rule, Verdicts,
    read_run, run_hook,
};
use seekclaw_store::{EventItem, HookRecord};
use serde_json::Value;

use crate::engine::Engine;
use crate::error::EngineError;
use crate::launcher::TurnOverrides;
use crate::scope::Scope;

/// Rules and hooks as a turn in a workspace sees them (`hooks.list`,
/// `permissions list`, `doctor`).
#[derive(Debug, Clone)]
pub struct PolicyView {
    /// Every rule, strictest layer first; `active` false where it does not apply.
    pub rules: Vec<Rule>,
    /// Every hook, in layer order; `active` false where it does not run.
    pub hooks: Vec<HookCommand>,
    /// Entries that could not be used, by file and path.
    pub problems: Vec<Problem>,
    /// The workspace is a registered project.
    pub trusted: bool,
    /// The workspace's hook set (`None`: it has none).
    pub hooks_hash: Option<String>,
    /// That set was approved (or there is none).
    pub hooks_approved: bool,
}

/// Sessions that saw `SessionStart` in this process (their `SessionEnd` is
/// due), and those told their workspace's hooks are off.
#[derive(Default)]
pub struct HookSessions {
    open: Mutex<HashMap<String, OpenSession>>,
}

struct OpenSession {
    scope: Scope,
    notified: bool,
}

impl HookSessions {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, OpenSession>> {
        self.open.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Engine {
    /// Reads the policy a turn runs under (off the async workers).
    async fn load_policy(&self, workspace: Option<PathBuf>, cwd: PathBuf) -> Policy {
        let trusted = match &workspace {
            Some(root) => self.trusted(root).await,
            None => true,
        };
        let home = self.home.clone();
        tokio::task::spawn_blocking(move || {
            Policy::load(&seekclaw_policy::Scope {
                home: &home,
                workspace: workspace.as_deref(),
                cwd: &cwd,
                trusted,
            })
        })
        .await
        .unwrap_or_default()
    }

    /// Whether `root` is (inside) a registered project: the trust the
    /// terminal UI asks for and a daemon client gives with `project.upsert`.
    async fn trusted(&self, root: &Path) -> bool {
        let store = self.store.clone();
        let projects = tokio::task::spawn_blocking(move || store.list_projects()).await;
        match projects {
            Ok(Ok(list)) => list.iter().any(|p| root.starts_with(&p.path)),
            _ => false,
        }
    }

    /// The policy of a turn about to start on `session_id` (`fresh`: the
    /// session has no events yet); `None` when no rule or hook exists.
    pub(crate) async fn turn_policy(
        &self,
        runtime: &TurnRuntime,
        scope: &Scope,
        session_id: &str,
        fresh: bool,
        overrides: &TurnOverrides,
    ) -> Option<Arc<TurnPolicy>> {
        let policy = self
            .load_policy(scope.workspace.clone(), runtime.work_dir.clone())
            .await;
        if policy.rules.all().is_empty() && policy.hooks.all().is_empty() {
            return None;
        }
        let mut session_start = None;
        let mut notice = None;
        if !overrides.child {
            let mut open = self.hook_sessions.lock();
            let entry = open.entry(session_id.to_string()).or_insert_with(|| {
                session_start = Some(if fresh { "startup" } else { "resume" });
                OpenSession {
                    scope: scope.clone(),
                    notified: false,
                }
            });
            if policy.hooks_hash.is_some() && !(policy.trusted && policy.hooks_approved) {
                if !entry.notified {
                    notice = Some(hooks_off_notice(&policy));
                }
                entry.notified = true;
            }
        }
        let project_dir = scope
            .workspace
            .clone()
            .unwrap_or_else(|| runtime.work_dir.clone());
        let approval = overrides
            .approval_policy
            .unwrap_or(runtime.config.agent.approval_policy);
        Some(Arc::new(TurnPolicy {
            policy: Arc::new(policy),
            hooks: HookContext {
                session_id: session_id.to_string(),
                transcript_path: self.transcript_path(session_id),
                cwd: runtime.work_dir.clone(),
                project_dir,
                permission_mode: permission_mode(runtime.mode, approval).into(),
            },
            subagent: overrides.child.then(|| {
                overrides
                    .subagent_type
                    .clone()
                    .unwrap_or_else(|| "subagent".into())
            }),
            session_start,
            notice,
            home: self.home.clone(),
            workspace: scope.workspace.clone(),
        }))
    }

    fn transcript_path(&self, session_id: &str) -> PathBuf {
        self.home
            .root()
            .join("transcripts")
            .join(format!("{session_id}.jsonl"))
    }

    /// Rules and hooks as a turn in `workspace` would see them.
    pub async fn policy_view(&self, workspace: Option<&Path>) -> Result<PolicyView, EngineError> {
        let root = self.view_root(workspace).await?;
        let cwd = root.clone().unwrap_or_else(|| self.home.global_dir());
        let p = self.load_policy(root, cwd).await;
        Ok(PolicyView {
            rules: p.rules.all().to_vec(),
            hooks: p.hooks.all().to_vec(),
            problems: p.problems,
            trusted: p.trusted,
            hooks_hash: p.hooks_hash,
            hooks_approved: p.hooks_approved,
        })
    }

    /// The project root of a path a client named (`None`: global).
    async fn view_root(&self, workspace: Option<&Path>) -> Result<Option<PathBuf>, EngineError> {
        let Some(dir) = workspace else {
            return Ok(None);
        };
        let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
        let scope = Scope::local(&self.home, &cwd, Some(dir), false)?;
        Ok(scope.workspace)
    }

    /// `permissions check`: the decision for `probe` in `workspace`, and why.
    pub async fn permission_check(
        &self,
        workspace: Option<&Path>,
        probe: &Probe,
    ) -> Result<Explained, EngineError> {
        let root = self.view_root(workspace).await?;
        let cwd = root.clone().unwrap_or_else(|| self.home.global_dir());
        let p = self.load_policy(root.clone(), cwd.clone()).await;
        Ok(p.explain(probe, &cwd, root.as_deref()))
    }

    /// The user approved `workspace`'s hook set `hash` (as `policy_view`
    /// showed it); an error if the set changed since.
    pub async fn approve_hooks(&self, workspace: &Path, hash: &str) -> Result<(), EngineError> {
        let root = self
            .view_root(Some(workspace))
            .await?
            .ok_or_else(|| EngineError::invalid("hooks are approved for a workspace"))?;
        let view = self.policy_view(Some(&root)).await?;
        match view.hooks_hash.as_deref() {
            Some(h) if h == hash => {}
            Some(_) => {
                return Err(EngineError::conflict(
                    "the workspace's hooks changed since they were shown; look at them again",
                ));
            }
            None => {
                return Err(EngineError::invalid(
                    "the workspace has no hooks to approve",
                ));
            }
        }
        let (home, hash) = (self.home.clone(), hash.to_string());
        tokio::task::spawn_blocking(move || seekclaw_policy::approve(&home, &root, &hash))
            .await
            .map_err(|e| EngineError::internal(e.to_string()))?
            .map_err(|e| EngineError::internal(e.to_string()))
    }

    /// A front end is done with `session_id` (its user left): `SessionEnd`
    /// fires once if `SessionStart` fired in this process. `reason`:
    /// `prompt_input_exit`, `clear`, `logout` or `other`.
    pub async fn end_session(&self, scope: &Scope, session_id: &str, reason: &str) {
        let open = self.hook_sessions.lock().remove(session_id);
        if open.is_none() {
            return;
        }
        let fields = [("reason", Value::from(reason))];
        self.fire_idle(scope, session_id, HookEvent::SessionEnd, &[reason], &fields)
            .await;
    }

    /// Every session still open ends (`other`): the engine stops.
    pub(crate) async fn end_open_sessions(&self) {
        let open: Vec<(String, Scope)> = self
            .hook_sessions
            .lock()
            .drain()
            .map(|(id, s)| (id, s.scope))
            .collect();
        for (id, scope) in open {
            let fields = [("reason", Value::from("other"))];
            self.fire_idle(&scope, &id, HookEvent::SessionEnd, &["other"], &fields)
                .await;
        }
    }

    /// Runs `event`'s hooks for a session with no turn running; their runs
    /// are kept in its log (there is no stream to show them on).
    pub(crate) async fn fire_idle(
        &self,
        scope: &Scope,
        session_id: &str,
        event: HookEvent,
        subjects: &[&str],
        fields: &[(&str, Value)],
    ) -> Verdicts {
        let cwd = scope
            .workspace
            .clone()
            .unwrap_or_else(|| self.home.global_dir());
        let policy = self.load_policy(scope.workspace.clone(), cwd.clone()).await;
        let hooks = policy.hooks.matching(event, subjects);
        let mut all = Verdicts::default();
        if hooks.is_empty() {
            return all;
        }
        let cx = HookContext {
            session_id: session_id.to_string(),
            transcript_path: self.transcript_path(session_id),
            cwd: cwd.clone(),
            project_dir: cwd,
            permission_mode: "default".into(),
        };
        let mut input = cx.input(event);
        input.extend(fields.iter().map(|(k, v)| (k.to_string(), v.clone())));
        let input = Value::Object(input);
        let runs = futures::future::join_all(hooks.iter().map(|h| run_hook(h, &input, &cx))).await;
        for r in runs {
            let mut v = Verdicts::default();
            let reading = read_run(event, &r, &mut v);
            all.absorb(v);
            let item = EventItem::Hook(HookRecord {
                event: event.as_str().to_string(),
                command: r.command.clone(),
                source: r.layer.as_str().to_string(),
                call_id: None,
                tool: None,
                exit_code: r.exit_code,
                duration_ms: r.duration.as_secs_f64() * 1000.0,
                decision: reading.decision.to_string(),
                message: reading.message,
            });
            let (store, key, id) = (
                self.store.clone(),
                scope.key.clone(),
                session_id.to_string(),
            );
            let kept =
                tokio::task::spawn_blocking(move || store.append_event(&key, &id, None, &item))
                    .await;
            if !matches!(kept, Ok(Ok(_))) {
                tracing::warn!(session = session_id, "hook run not recorded");
            }
        }
        all
    }
}

/// What a session is told once when its workspace's hooks do not run.
fn hooks_off_notice(p: &Policy) -> String {
    let commands: Vec<&str> = p
        .hooks
        .all()
        .iter()
        .filter(|h| h.layer == seekclaw_policy::Layer::Workspace)
        .map(|h| h.command.as_str())
        .collect();
    let why = if !p.trusted {
        "this folder is not a trusted project (trust it by opening `seekclaw` here, or `project.upsert`)"
    } else {
        "this workspace's hook set is new or changed and was not approved (approve it in `seekclaw`, or with `seekclaw hooks approve`)"
    };
    format!(
        "The workspace's hooks are off: {why}. They would run: {}",
        commands.join("; ")
    )
}

/// Claude Code's `permission_mode` for the turn's mode and approval policy.
fn permission_mode(mode: AgentMode, approval: ApprovalPolicy) -> &'static str {
    match (mode, approval) {
        (AgentMode::Plan, _) => "plan",
        (_, ApprovalPolicy::Never) => "bypassPermissions",
        _ => "default",
    }
}
