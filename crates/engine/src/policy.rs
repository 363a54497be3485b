//! The user's permission rules and hooks, applied by the engine to every
//! turn whatever front end started it (the terminal UI, the desktop over
//! the daemon, `run`, `serve`, ACP, `mcp serve`, schedules, subagents):
//! read once per turn ([`Engine::turn_policy`]), with the workspace's trust
//! and its approved hook set; plus the hooks that fire outside turns
//! (`SessionEnd`, a manual `PreCompact`).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use futures::StreamExt;
use seekclaw_agent::{TranscriptWriter, TurnPolicy, TurnRuntime};
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

/// `SessionEnd` hooks run side by side at shutdown, at most this many.
const SESSION_ENDS_AT_ONCE: usize = 8;
/// How long shutdown waits for the `SessionEnd` hooks of open sessions.
const SESSION_ENDS_DEADLINE: std::time::Duration = std::time::Duration::from_secs(10);

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

impl PolicyCache {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<PolicyKey, Cached>> {
        self.entries.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl HookSessions {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, OpenSession>> {
        self.open.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Policies read, by where they were read for, with the state of every
/// file they came from: a turn reuses one while none of its files changed
/// (rules are compiled once, not per turn).
#[derive(Default)]
pub struct PolicyCache {
    entries: Mutex<HashMap<PolicyKey, Cached>>,
}

type PolicyKey = (Option<PathBuf>, PathBuf, bool);

/// A policy and the state of its files when it was read.
type Cached = (Vec<Stamp>, Arc<Policy>);

/// A file's identity and version (`None`: it does not exist).
type Stamp = Option<(std::time::SystemTime, u64, u64)>;

fn stamps(files: &[PathBuf]) -> Vec<Stamp> {
    use std::os::unix::fs::MetadataExt;
    files
        .iter()
        .map(|f| {
            std::fs::metadata(f).ok().map(|m| {
                (
                    m.modified().unwrap_or(std::time::UNIX_EPOCH),
                    m.len(),
                    m.ino(),
                )
            })
        })
        .collect()
}

impl Engine {
    /// Reads the policy a turn runs under (off the async workers), or the
    /// one read before when none of its files changed.
    pub(crate) async fn load_policy(
        &self,
        workspace: Option<PathBuf>,
        cwd: PathBuf,
    ) -> Arc<Policy> {
        let (home, services) = (self.home.clone(), self.clone());
        // One trip off the async workers: trust (the store) and the files.
        tokio::task::spawn_blocking(move || {
            let trusted = workspace
                .as_deref()
                .is_none_or(|root| trusted(&services.store, root));
            let scope = seekclaw_policy::Scope {
                home: &home,
                workspace: workspace.as_deref(),
                cwd: &cwd,
                trusted,
            };
            let now = stamps(&seekclaw_policy::source_files(&scope));
            let key = (workspace.clone(), cwd.clone(), trusted);
            let cache = &services.policies;
            if let Some((then, p)) = cache.lock().get(&key)
                && *then == now
            {
                return p.clone();
            }
            let p = Arc::new(Policy::load(&scope));
            cache.lock().insert(key, (now, p.clone()));
            p
        })
        .await
        .unwrap_or_default()
    }

    /// The policy of a turn about to start on `session_id` (`fresh`: the
    /// session has no events yet). Built even when no rule or hook exists:
    /// it is where an "always allow" answer saves its first rule.
    pub(crate) fn turn_policy(
        &self,
        (runtime, policy): (&TurnRuntime, Arc<Policy>),
        scope: &Scope,
        session_id: &str,
        fresh: bool,
        overrides: &TurnOverrides,
    ) -> Arc<TurnPolicy> {
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
        Arc::new(TurnPolicy {
            policy,
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
            transcript: Some(Arc::new(SessionTranscript {
                store: self.store.clone(),
                scope_key: scope.key.clone(),
                session_id: session_id.to_string(),
                path: self.transcript_path(session_id),
            })),
        })
    }

    fn transcript_path(&self, session_id: &str) -> PathBuf {
        self.home
            .root()
            .join("transcripts")
            .join(format!("{session_id}.jsonl"))
    }

    /// What a deleted session leaves besides its log goes with it: its
    /// checkpoints (a store that cannot be cleaned now is only logged: a
    /// later prune frees it) and its hook files.
    pub async fn forget_session(&self, session_id: &str) {
        if let Err(e) = self.forget_checkpoints(session_id).await {
            tracing::warn!(session = session_id, error = %e.message, "cannot delete the session's checkpoints");
        }
        self.forget_hook_files(session_id).await;
    }

    /// A factory reset: every session's checkpoints and hook files.
    pub async fn forget_everything(&self) -> Result<(), EngineError> {
        self.forget_all_checkpoints().await?;
        self.forget_all_hook_files().await;
        Ok(())
    }

    /// A deleted session's hook transcript (a copy of its log) goes with it,
    /// and its `SessionEnd` is no longer due.
    async fn forget_hook_files(&self, session_id: &str) {
        self.close_session(session_id);
        let path = self.transcript_path(session_id);
        let _ = tokio::task::spawn_blocking(move || std::fs::remove_file(path)).await;
    }

    /// A factory reset: every hook transcript and every approved hook set.
    async fn forget_all_hook_files(&self) {
        self.hook_sessions.lock().clear();
        let root = self.home.root().to_path_buf();
        let _ = tokio::task::spawn_blocking(move || {
            let _ = std::fs::remove_dir_all(root.join("transcripts"));
            let _ = std::fs::remove_file(root.join("hooks-approved.json"));
        })
        .await;
    }

    /// Rules and hooks as a turn in `workspace` would see them.
    pub async fn policy_view(&self, workspace: Option<&Path>) -> Result<PolicyView, EngineError> {
        let root = self.view_root(workspace).await?;
        let cwd = root.clone().unwrap_or_else(|| self.home.global_dir());
        let p = self.load_policy(root, cwd).await;
        Ok(PolicyView {
            rules: p.rules.all().to_vec(),
            hooks: p.hooks.all().to_vec(),
            problems: p.problems.clone(),
            trusted: p.trusted,
            hooks_hash: p.hooks_hash.clone(),
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
        let mut explained = p.explain(probe, &cwd, root.as_deref());
        if explained.verdict.is_none() {
            let config = self.config.load();
            let ws = root.as_deref().and_then(|r| {
                seekclaw_config::read_json_lenient(&seekclaw_config::workspace_config_path(r))
                    .ok()
                    .flatten()
            });
            let policy = seekclaw_agent::effective_policy(&config, ws.as_ref(), None);
            let asks = self
                .tools
                .get(&probe.tool)
                .map(|t| seekclaw_agent::asks(policy, t.as_ref(), &probe.input));
            let what = match asks {
                Some(true) => " (it asks before this call)",
                Some(false) => " (it runs this call without asking)",
                None => "",
            };
            explained.reason = explained.reason.replacen(
                "the approval policy does",
                &format!("the approval policy `{}` does{what}", policy.as_str()),
                1,
            );
        }
        Ok(explained)
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
    /// Returns whether it was open (its hooks ran).
    pub async fn end_session(&self, scope: &Scope, session_id: &str, reason: &str) -> bool {
        if !self.close_session(session_id) {
            return false;
        }
        self.fire_end(scope, session_id, reason).await;
        true
    }

    /// Marks `session_id` ended; whether it was open (its `SessionEnd` is
    /// then the caller's to fire, with [`Engine::fire_end`]).
    pub fn close_session(&self, session_id: &str) -> bool {
        self.hook_sessions.lock().remove(session_id).is_some()
    }

    /// Runs `SessionEnd` for a session [`Engine::close_session`] closed.
    pub async fn fire_end(&self, scope: &Scope, session_id: &str, reason: &str) {
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
        if open.is_empty() {
            return;
        }
        // A few at a time, and never holding the shutdown up for long: a
        // daemon may have many sessions open, each hook its own timeout.
        let ends = futures::stream::iter(open)
            .map(|(id, scope)| async move {
                let fields = [("reason", Value::from("other"))];
                self.fire_idle(&scope, &id, HookEvent::SessionEnd, &["other"], &fields)
                    .await;
            })
            .buffer_unordered(SESSION_ENDS_AT_ONCE)
            .collect::<Vec<()>>();
        if tokio::time::timeout(SESSION_ENDS_DEADLINE, ends)
            .await
            .is_err()
        {
            tracing::warn!("SessionEnd hooks still running at shutdown were stopped");
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
        SessionTranscript {
            store: self.store.clone(),
            scope_key: scope.key.clone(),
            session_id: session_id.to_string(),
            path: self.transcript_path(session_id),
        }
        .write()
        .await;
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

/// A session's log as the transcript file hook scripts read
/// (`transcript_path`): OpenSeek's session JSON lines, 0600 in the home.
#[derive(Debug)]
struct SessionTranscript {
    store: seekclaw_store::Store,
    scope_key: String,
    session_id: String,
    path: PathBuf,
}

impl TranscriptWriter for SessionTranscript {
    fn write(&self) -> futures::future::BoxFuture<'_, ()> {
        Box::pin(async move {
            let (store, key, id, path) = (
                self.store.clone(),
                self.scope_key.clone(),
                self.session_id.clone(),
                self.path.clone(),
            );
            let written = tokio::task::spawn_blocking(move || -> Result<(), String> {
                let events = store.events(&key, &id).map_err(|e| e.to_string())?;
                let text = seekclaw_store::encode_session_file(&id, "", &events);
                write_private(&path, text.as_bytes())
            })
            .await;
            if !matches!(written, Ok(Ok(()))) {
                tracing::warn!(session = %self.session_id, "hook transcript not written");
            }
        })
    }
}

/// Writes `bytes` to `path` (0600, its folder 0700) through a temp file.
fn write_private(path: &Path, bytes: &[u8]) -> Result<(), String> {
    use std::io::Write;
    use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
    let dir = path.parent().ok_or("no folder")?;
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .map_err(|e| e.to_string())?;
    let tmp = path.with_extension("jsonl.tmp");
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(&tmp)
        .map_err(|e| e.to_string())?;
    f.write_all(bytes).map_err(|e| e.to_string())?;
    std::fs::rename(&tmp, path).map_err(|e| e.to_string())
}

/// Whether `root` is (inside) a registered project: the trust the terminal
/// UI asks for and a daemon client gives with `project.upsert`. Blocking.
fn trusted(store: &seekclaw_store::Store, root: &Path) -> bool {
    crate::plugins::workspace_trusted(store, root)
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
    seekclaw_protocol::wording::hooks_off(p.trusted, &commands)
}

/// Claude Code's `permission_mode` for the turn's mode and approval policy.
fn permission_mode(mode: AgentMode, approval: ApprovalPolicy) -> &'static str {
    match (mode, approval) {
        (AgentMode::Plan, _) => "plan",
        (_, ApprovalPolicy::Never) => "bypassPermissions",
        _ => "default",
    }
}
