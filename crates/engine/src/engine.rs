//! The engine: the one way every front end (daemon chat, scheduled runs,
//! `seekclaw run`, `serve`, and the front ends to come) starts and drives a turn.
//!
//! [`Engine`] owns the shared services behind an `Arc`, so it is a cheap
//! `Clone` a front end keeps as long as it likes: a daemon holds one, a
//! one-shot `seekclaw run` or `serve` opens one from its home
//! ([`Engine::open`]). A turn starts with [`Engine::start_turn`] and is
//! driven through the `'static` [`crate::TurnHandle`] it returns. Runtime
//! capture, load balancing, MCP and skills resolution, the owner id, the
//! steer queue, the event queue and the release of write locks all live
//! here, once.

use std::ops::Deref;
use std::sync::Arc;

use crate::error::{EngineError, ErrorKind};
use seekclaw_agent::{Steer, SteerKind, SteerQueue};
use seekclaw_config::Home;
use seekclaw_mcp::McpManager;
use seekclaw_providers::Providers;
use seekclaw_store::{EventItem, Store};
use seekclaw_tools::{Registry, WriteLocks};
use tokio_util::sync::CancellationToken;

use crate::announce::Announcers;
use crate::bus::TurnBus;
use crate::config_service::ConfigService;
use crate::extras_cache::ExtrasCache;
use crate::goals::AutoGoals;
use crate::jobs::SessionJobs;
use crate::roots::RootCache;
use crate::session_lock::try_hold;
use crate::turns::{ActiveTurn, TurnGuard, Turns};

/// The services a turn runs with, owned by the engine and shared by every
/// clone of it.
pub struct Services {
    /// `$SEEKCLAW_HOME`.
    pub home: Home,
    /// `config.json` and `state.json`.
    pub config: ConfigService,
    /// The session database.
    pub store: Store,
    /// Provider HTTP pool and circuit breaker, shared by every turn.
    pub providers: Arc<Providers>,
    /// Built-in tools offered to turns.
    pub tools: Registry,
    /// File write locks shared by every turn.
    pub locks: Arc<WriteLocks>,
    /// One turn per session: the registry `agent.steer`, `agent.cancel`,
    /// `doctor` and shutdown see.
    pub turns: Turns,
    /// MCP server connections, shared by every turn with the same server config.
    pub mcp: McpManager,
    /// Language servers for diagnostics after an edit, one per workspace and
    /// server, shared by every turn (and child turn) on that workspace.
    pub lsp: seekclaw_lsp::LspManager,
    /// What turns read from disk besides the session, per scope.
    pub extras: ExtrasCache,
    /// Each session's shell jobs (background jobs outlive turns).
    pub jobs: Arc<SessionJobs>,
    /// Project roots found for workspace paths.
    pub roots: RootCache,
    /// Sessions whose standing goal is `auto`, with their budgets.
    pub goals: AutoGoals,
    /// Every turn's events, for the sessions' watchers.
    pub bus: Arc<TurnBus>,
    /// The front ends shown what the session policy does by itself.
    pub announcers: Announcers,
    /// The shadow store of workspace files (`checkpoints.db`), opened on first use.
    pub checkpoints: crate::checkpoints::CheckpointStore,
    /// Sessions whose `SessionEnd` hooks are due.
    pub hook_sessions: crate::policy::HookSessions,
    /// The user's rules and hooks as last read, per workspace.
    pub policies: crate::policy::PolicyCache,
    /// The spend budgets already warned about, per session.
    pub budget_warnings: Arc<crate::budget::BudgetWarnings>,
    /// Fired when the engine stops: no goal continuation starts after it,
    /// and notices stop waiting for finishing turns.
    pub stopping: CancellationToken,
    /// The process's OpenTelemetry exporter, once a front end started it
    /// ([`Engine::start_telemetry`]); unset: turns export nothing.
    pub telemetry: std::sync::OnceLock<seekclaw_telemetry::Telemetry>,
}

/// The engine: a cheap `Clone` over the services it owns.
#[derive(Clone)]
pub struct Engine {
    services: Arc<Services>,
}

impl Deref for Engine {
    type Target = Services;

    fn deref(&self) -> &Services {
        &self.services
    }
}

impl Engine {
    /// The engine over services a weak reference still reaches.
    pub(crate) fn from_services(services: Arc<Services>) -> Engine {
        Engine { services }
    }

    /// A reference to the services that does not keep them alive (what a
    /// turn's child-turn handle holds: no cycle through the engine).
    pub(crate) fn downgrade(&self) -> std::sync::Weak<Services> {
        Arc::downgrade(&self.services)
    }

    /// An engine over an open `store` and a config service (a daemon's,
    /// which logs file problems, or a one-shot process's).
    pub fn new(home: Home, store: Store, config: ConfigService) -> Engine {
        let auth_store = seekclaw_mcp::auth::AuthStore::in_home(home.root());
        Engine {
            services: Arc::new_cyclic(|services: &std::sync::Weak<Services>| Services {
                home,
                config,
                store,
                providers: Arc::new(Providers::new()),
                tools: seekclaw_tools::builtin_registry(),
                locks: Arc::new(WriteLocks::new()),
                turns: Turns::default(),
                mcp: McpManager::with_auth(auth_store),
                lsp: seekclaw_lsp::LspManager::new({
                    // Read at every edit: a changed entry applies to the next one.
                    let services = services.clone();
                    std::sync::Arc::new(move || {
                        services
                            .upgrade()
                            .map(|s| s.config.load().lsp)
                            .unwrap_or_default()
                    })
                }),
                extras: ExtrasCache::default(),
                jobs: Arc::new(SessionJobs::new({
                    // Jobs end on the runtime's tasks; the handle also covers
                    // a notice raised off it.
                    let (services, runtime) =
                        (services.clone(), tokio::runtime::Handle::try_current().ok());
                    Arc::new(move |notice| {
                        crate::notices::deliver_later(&services, runtime.as_ref(), notice)
                    })
                })),
                roots: RootCache::default(),
                goals: AutoGoals::default(),
                bus: Arc::default(),
                announcers: Announcers::default(),
                checkpoints: Default::default(),
                hook_sessions: Default::default(),
                policies: Default::default(),
                budget_warnings: Default::default(),
                stopping: CancellationToken::new(),
                telemetry: std::sync::OnceLock::new(),
            }),
        }
    }

    /// Opens the home (creating it) and its store, for a process that runs
    /// turns itself (`seekclaw run`, `serve`): its MCP servers and background
    /// jobs end with it ([`Engine::close`]).
    pub async fn open(home: Home) -> Result<Engine, EngineError> {
        home.ensure()
            .map_err(|e| EngineError::internal(e.to_string()))?;
        let path = home.db_path();
        let store = tokio::task::spawn_blocking(move || Store::open(&path))
            .await
            .map_err(|e| EngineError::internal(e.to_string()))?
            .map_err(crate::error::store_error)?;
        let config = ConfigService::one_shot(home.clone());
        Ok(Engine::new(home, store, config))
    }

    /// Stops the session policy (no goal continuation starts after it),
    /// kills the background jobs (recording those it stopped unfinished in
    /// their sessions' logs), stops the MCP and language servers and
    /// checkpoints the store.
    pub async fn close(&self) {
        self.stopping.cancel();
        self.end_open_sessions().await;
        self.stop_jobs().await;
        self.mcp.shutdown().await;
        self.lsp.shutdown().await;
        self.flush_telemetry().await;
        let store = self.store.clone();
        match tokio::task::spawn_blocking(move || store.checkpoint()).await {
            Ok(Ok(())) => {}
            Ok(Err(e)) => tracing::warn!(error = %e, "final checkpoint failed"),
            Err(e) => tracing::warn!(error = %e, "final checkpoint task failed"),
        }
    }

    /// Marks `session_id` busy with a turn that `cancel` stops and `steer`
    /// feeds, until the guard is dropped; `busy` if it already has one.
    pub fn claim(
        &self,
        session_id: &str,
        cancel: &CancellationToken,
        steer: &SteerQueue,
        approvals: &seekclaw_agent::Approvals,
    ) -> Result<TurnGuard, EngineError> {
        let mut guard = self
            .turns
            .start(ActiveTurn {
                session_id: session_id.to_string(),
                cancel: cancel.clone(),
                steer: steer.clone(),
                approvals: approvals.clone(),
            })
            .ok_or_else(|| EngineError::busy(session_id))?;
        match hold_lock(&self.home, session_id) {
            Ok(Some(lock)) => guard.hold(lock),
            Ok(None) => return Err(EngineError::busy_elsewhere(session_id)),
            Err(e) => {
                return Err(EngineError::new(
                    ErrorKind::Storage,
                    format!("Cannot lock session {session_id} for its turn: {e}"),
                ));
            }
        }
        Ok(guard)
    }
}

/// Tries the session's lock a few times over a few milliseconds: a child
/// this process is forking (a tool's command, between fork and exec) holds
/// a copy of every descriptor, the lock of a turn that just ended included.
fn hold_lock(home: &Home, session_id: &str) -> std::io::Result<Option<crate::SessionLock>> {
    for _ in 0..10 {
        if let Some(lock) = try_hold(home, session_id)? {
            return Ok(Some(lock));
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    try_hold(home, session_id)
}

impl Engine {
    /// Hands `text` as a runtime notice to the turn running on `session_id`
    /// in this process (it reads it at its next step); false when no turn
    /// takes it (none runs, or it is finishing).
    pub fn notify_running(&self, session_id: &str, text: &str) -> bool {
        self.turns.by_session(session_id).is_some_and(|turn| {
            turn.steer
                .push(Steer {
                    text: text.to_string(),
                    images: Vec::new(),
                    kind: SteerKind::Notice,
                })
                .is_ok()
        })
    }

    /// Holds an idle session as a turn would (no turn runs meanwhile, here
    /// or in another process) for a write outside any turn; `busy` if one
    /// runs.
    pub fn hold_idle(&self, session_id: &str) -> Result<TurnGuard, EngineError> {
        self.claim(
            session_id,
            &CancellationToken::new(),
            &SteerQueue::new(),
            &Default::default(),
        )
    }

    /// Appends `item` to an idle session (goal markers, job notices, shell
    /// context), holding the session as a turn would so nothing interleaves
    /// with a turn here or in another process (`busy` then).
    pub async fn append_idle(
        &self,
        scope_key: &str,
        session_id: &str,
        item: EventItem,
    ) -> Result<u64, EngineError> {
        let _claim = self.hold_idle(session_id)?;
        let (store, key, id) = (
            self.store.clone(),
            scope_key.to_string(),
            session_id.to_string(),
        );
        tokio::task::spawn_blocking(move || store.append_event(&key, &id, None, &item))
            .await
            .map_err(|e| EngineError::internal(e.to_string()))?
            .map_err(crate::error::store_error)
    }
}

#[cfg(test)]
mod tests {
    /// `protocol.info` lists the built-in tools from a constant of the
    /// protocol crate (pure data): it must name exactly what the engine runs.
    #[test]
    fn protocol_info_names_every_built_in_tool() {
        let registry = seekclaw_tools::builtin_registry();
        let names: Vec<&str> = registry
            .all()
            .map(|t| t.definition().name.as_str())
            .collect();
        assert_eq!(names, seekclaw_protocol::BUILTIN_TOOLS);
    }
}
