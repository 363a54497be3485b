//! `seekclaw run`: the engine in one process, no daemon needed. The CLI owns
//! the presentation (printing, Ctrl-C); this owns the services and the session.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use seekclaw_agent::{Approvals, SteerQueue, Unattended};
use seekclaw_config::{Home, ReasoningLevel, normalize_path};
use seekclaw_protocol::MethodError;
use seekclaw_store::Store;
use tokio_util::sync::CancellationToken;

use crate::config_service::ConfigService;
use crate::engine::{Engine, SessionClaim, TurnHandle, TurnOverrides, TurnRequest};
use crate::extras_cache::ExtrasCache;
use crate::handlers::session::{create_session, create_session_as};
use crate::scope::Scope;
use crate::turns::Turns;

/// What `seekclaw run` was asked.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// The process's working directory (the default workspace).
    pub cwd: PathBuf,
    /// The user's message.
    pub prompt: String,
    /// Project directory; its project root is the scope.
    pub workspace: Option<PathBuf>,
    /// Run in the global scope instead of a workspace.
    pub global: bool,
    /// Continue this session instead of starting a new one.
    pub session: Option<String>,
    /// Continue the scope's latest session.
    pub continue_latest: bool,
    /// Image files sent with the prompt.
    pub images: Vec<PathBuf>,
    /// Model, mode and step limit over the config's.
    pub overrides: TurnOverrides,
}

/// One turn of a process without a daemon.
pub struct LocalTurn {
    /// Where it runs.
    pub scope: Scope,
    /// The session it continues; a new one when `None`.
    pub session: Option<String>,
    /// The id a new session gets (`serve` names it before its first turn);
    /// a fresh one when `None`.
    pub new_id: Option<String>,
    /// The user's message.
    pub message: String,
    /// Images sent with it.
    pub images: Vec<seekclaw_agent::UserImage>,
    /// Model, mode and step limit over the config's.
    pub overrides: TurnOverrides,
}

/// The engine's services owned by one process: its own store connection,
/// provider pool, tools, write locks and MCP servers (which end with it).
pub struct LocalEngine {
    home: Home,
    config: ConfigService,
    store: Store,
    providers: seekclaw_providers::Providers,
    tools: seekclaw_tools::Registry,
    locks: Arc<seekclaw_tools::WriteLocks>,
    turns: Turns,
    mcp: seekclaw_mcp::McpManager,
    extras: ExtrasCache,
    jobs: crate::engine::SessionJobs,
}

impl LocalEngine {
    /// Opens the home (creating it) and its store.
    pub async fn open(home: Home) -> Result<LocalEngine, MethodError> {
        home.ensure()
            .map_err(|e| MethodError::internal(e.to_string()))?;
        let path = home.db_path();
        let store = tokio::task::spawn_blocking(move || Store::open(&path))
            .await
            .map_err(|e| MethodError::internal(e.to_string()))?
            .map_err(crate::error::store_error)?;
        Ok(LocalEngine {
            config: ConfigService::one_shot(home.clone()),
            home,
            store,
            providers: seekclaw_providers::Providers::new(),
            tools: seekclaw_tools::builtin_registry(),
            locks: Arc::new(seekclaw_tools::WriteLocks::new()),
            turns: Turns::default(),
            mcp: seekclaw_mcp::McpManager::new(),
            extras: ExtrasCache::default(),
            jobs: crate::engine::SessionJobs::default(),
        })
    }

    fn engine(&self) -> Engine<'_> {
        Engine {
            home: &self.home,
            config: &self.config,
            store: &self.store,
            providers: &self.providers,
            tools: &self.tools,
            locks: &self.locks,
            turns: &self.turns,
            mcp: &self.mcp,
            extras: &self.extras,
            jobs: &self.jobs,
        }
    }

    /// Starts the run's turn on a new session (or the one named, or the
    /// scope's latest with `--continue`) in its scope.
    pub async fn start(
        &self,
        opts: &RunOptions,
        cancel: &CancellationToken,
    ) -> Result<TurnHandle<'_>, MethodError> {
        let scope = self.scope_of(opts.workspace.as_deref(), opts.global, &opts.cwd)?;
        let session = match (&opts.session, opts.continue_latest) {
            (Some(id), _) => Some(id.clone()),
            (None, true) => Some(self.latest(&scope).await?),
            (None, false) => None,
        };
        let images = opts
            .images
            .iter()
            .map(|p| crate::handlers::images::from_path(&normalize_path(p, &opts.cwd)))
            .collect::<Result<Vec<_>, _>>()?;
        let turn = LocalTurn {
            scope,
            session,
            new_id: None,
            message: opts.prompt.clone(),
            images,
            overrides: opts.overrides.clone(),
        };
        // `run` has nobody to ask: what the policy asks about is refused.
        let approvals = Approvals::unattended(Unattended::Reject(
            "`seekclaw run` cannot ask a person (use `seekclaw serve` or `seekclaw chat` to be asked)"
                .into(),
        ));
        self.start_turn(turn, cancel, &SteerQueue::new(), &approvals)
            .await
    }

    /// Starts `turn`; `steer` is its guidance queue, `approvals` decides
    /// what the approval policy asks about.
    pub async fn start_turn(
        &self,
        turn: LocalTurn,
        cancel: &CancellationToken,
        steer: &SteerQueue,
        approvals: &Approvals,
    ) -> Result<TurnHandle<'_>, MethodError> {
        let engine = self.engine();
        let scope = turn.scope;
        let (wanted, new_id) = (turn.session, turn.new_id);
        let session = async {
            let header = self.session(&scope, wanted, new_id).await?;
            let reasoning = ReasoningLevel::parse(&header.reasoning_level)
                .unwrap_or(self.config.load().agent.reasoning_level);
            let guard = engine.claim(&header.id, cancel, steer, approvals)?;
            Ok(SessionClaim {
                session: header,
                reasoning,
                past: None,
                guard,
            })
        };
        let request = TurnRequest {
            scope: scope.clone(),
            message: turn.message,
            images: turn.images,
            cancel: cancel.clone(),
            steer: steer.clone(),
            session,
            overrides: turn.overrides,
            approvals: approvals.clone(),
        };
        engine.start_turn(request).await
    }

    /// Summarizes the whole of a session (`serve`'s `compact`, `seekclaw
    /// sessions compact`).
    pub async fn compact(
        &self,
        scope: &Scope,
        session_id: &str,
        overrides: &TurnOverrides,
        cancel: &CancellationToken,
        on_start: impl FnOnce(u64, u64) + Send,
    ) -> Result<seekclaw_agent::Compacted, MethodError> {
        self.engine()
            .compact_session(scope, session_id, overrides, cancel, on_start)
            .await
    }

    /// Appends `item` to an idle session (`serve`'s idle-time steers, goal
    /// markers, job notices), holding the session as a turn would so nothing
    /// interleaves with a turn of another process.
    pub async fn append_idle(
        &self,
        scope: &Scope,
        session_id: &str,
        item: seekclaw_store::EventItem,
    ) -> Result<u64, MethodError> {
        self.engine()
            .append_idle(&scope.key, session_id, item)
            .await
    }

    /// Checks the front end's settings before any turn (`serve --model`
    /// that names no configured model fails at once, listing those there are).
    pub fn check_overrides(&self, overrides: &TurnOverrides) -> Result<(), MethodError> {
        match overrides.model.as_deref() {
            Some(model) => crate::engine::pin_model(&self.config.load(), model).map(|_| ()),
            None => Ok(()),
        }
    }

    /// The scope's most recently updated session (`--continue`).
    pub async fn latest(&self, scope: &Scope) -> Result<String, MethodError> {
        let (store, key) = (self.store.clone(), scope.key.clone());
        tokio::task::spawn_blocking(move || store.latest_session(&key))
            .await
            .map_err(|e| MethodError::internal(e.to_string()))?
            .map_err(crate::error::store_error)?
            .map(|h| h.id)
            .ok_or_else(|| MethodError::not_found("No session to continue in this scope"))
    }

    /// The store this engine writes.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// The home this engine runs in.
    pub fn home(&self) -> &Home {
        &self.home
    }

    /// The notices of background jobs that ended on their own (taken once).
    pub fn take_job_notices(
        &self,
    ) -> Option<tokio::sync::mpsc::UnboundedReceiver<crate::engine::SessionNotice>> {
        self.jobs.take_notices()
    }

    /// Kills the background jobs, stops the MCP servers and checkpoints the store.
    pub async fn close(self) {
        self.jobs.close_all();
        self.mcp.shutdown().await;
        let store = self.store.clone();
        let _ = tokio::task::spawn_blocking(move || store.checkpoint()).await;
    }

    /// The scope a front end asked for: the global one, or the project
    /// root of `workspace` (default: `cwd`, unless that is `/`, the home
    /// directory or a parent of it).
    pub fn scope_of(
        &self,
        workspace: Option<&Path>,
        global: bool,
        cwd: &Path,
    ) -> Result<Scope, MethodError> {
        let scope = Scope::local(&self.home, cwd, workspace, global)?;
        if let (None, Some(root)) = (workspace, &scope.workspace) {
            crate::scope::refuse_implicit(
                root,
                "Run seekclaw in a project directory, name one with `--workspace DIR`, or use `--global`.",
            )?;
        }
        Ok(scope)
    }

    /// The named session of `scope`, or a new one (with `new_id` if given).
    pub async fn session(
        &self,
        scope: &Scope,
        wanted: Option<String>,
        new_id: Option<String>,
    ) -> Result<seekclaw_store::SessionHeader, MethodError> {
        let level = self.config.load().agent.reasoning_level;
        let (store, scope) = (self.store.clone(), scope.clone());
        tokio::task::spawn_blocking(move || match (wanted, new_id) {
            (Some(id), _) => store.session(&scope.key, &id).map(|s| s.ok_or(id)),
            (None, Some(id)) => create_session_as(&store, &scope, id, level).map(Ok),
            (None, None) => create_session(&store, &scope, None, level, true).map(Ok),
        })
        .await
        .map_err(|e| MethodError::internal(e.to_string()))?
        .map_err(crate::error::store_error)?
        .map_err(|id| MethodError::not_found(format!("Session {id} not found")))
    }
}
