//! `seekclaw run`: the engine in one process, no daemon needed. The CLI owns
//! the presentation (printing, Ctrl-C); this owns the services and the session.

use std::path::PathBuf;
use std::sync::Arc;

use seekclaw_agent::SteerQueue;
use seekclaw_config::{Home, ReasoningLevel};
use seekclaw_protocol::MethodError;
use seekclaw_store::Store;
use tokio_util::sync::CancellationToken;

use crate::config_service::ConfigService;
use crate::engine::{Engine, SessionClaim, TurnHandle, TurnRequest};
use crate::extras_cache::ExtrasCache;
use crate::handlers::session::create_session;
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
            config: ConfigService::new(home.clone()),
            home,
            store,
            providers: seekclaw_providers::Providers::new(),
            tools: seekclaw_tools::builtin_registry(),
            locks: Arc::new(seekclaw_tools::WriteLocks::new()),
            turns: Turns::default(),
            mcp: seekclaw_mcp::McpManager::new(),
            extras: ExtrasCache::default(),
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
        }
    }

    /// Starts the run's turn on a new session (or the one named) in its scope.
    pub async fn start(
        &self,
        opts: &RunOptions,
        cancel: &CancellationToken,
    ) -> Result<TurnHandle<'_>, MethodError> {
        let scope = self.scope(opts)?;
        let engine = self.engine();
        let steer = SteerQueue::new();
        let session = async {
            let header = self.session(&scope, opts.session.clone()).await?;
            let reasoning = ReasoningLevel::parse(&header.reasoning_level)
                .unwrap_or(self.config.load().agent.reasoning_level);
            let guard = engine.claim(&header.id, cancel, &steer)?;
            Ok(SessionClaim {
                session: header,
                reasoning,
                past: None,
                guard,
            })
        };
        let request = TurnRequest {
            scope: scope.clone(),
            message: opts.prompt.clone(),
            images: Vec::new(),
            cancel: cancel.clone(),
            steer: steer.clone(),
            session,
        };
        engine.start_turn(request).await
    }

    /// Stops the MCP servers and checkpoints the store.
    pub async fn close(self) {
        self.mcp.shutdown().await;
        let store = self.store.clone();
        let _ = tokio::task::spawn_blocking(move || store.checkpoint()).await;
    }

    fn scope(&self, opts: &RunOptions) -> Result<Scope, MethodError> {
        Scope::local(
            &self.home,
            &opts.cwd,
            opts.workspace.as_deref(),
            opts.global,
        )
    }

    /// The named session of `scope`, or a new one.
    async fn session(
        &self,
        scope: &Scope,
        wanted: Option<String>,
    ) -> Result<seekclaw_store::SessionHeader, MethodError> {
        let level = self.config.load().agent.reasoning_level;
        let (store, scope) = (self.store.clone(), scope.clone());
        tokio::task::spawn_blocking(move || match wanted {
            Some(id) => store.session(&scope.key, &id).map(|s| s.ok_or(id)),
            None => create_session(&store, &scope, None, level, true).map(Ok),
        })
        .await
        .map_err(|e| MethodError::internal(e.to_string()))?
        .map_err(crate::error::store_error)?
        .map_err(|id| MethodError::not_found(format!("Session {id} not found")))
    }
}
