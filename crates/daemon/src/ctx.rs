//! What request handlers and the daemon's background loops work with: the
//! engine and the few pieces of daemon state they share, none of its
//! lifecycle (listener, connection loops, the shutdown sequence). A handler
//! reads as a function of a [`Ctx`], the connection it serves (when it needs
//! one) and its params, and a test builds a `Ctx` without a daemon. Handlers
//! call theirs `daemon`: it is the daemon as a request sees it.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, RwLock};
use std::time::Duration;

use seekclaw_engine::Engine;
use seekclaw_engine::sync::RwLocked;
use seekclaw_protocol::MethodError;
use seekclaw_store::Store;
use tokio_util::sync::CancellationToken;

use crate::connections::Connections;
use crate::owners::Owners;
use crate::scheduler::state::Scheduler;

/// The handlers' context. Cheap to clone: a task that outlives its request
/// (a scheduled run, a goal's continuation) takes its own.
#[derive(Clone)]
pub struct Ctx {
    /// The engine every turn starts through (home, config, store, providers,
    /// tools, locks, turns, MCP, jobs).
    pub engine: Engine,
    /// The workspace requests run in when they name none.
    pub workspace: Arc<Workspace>,
    /// Serializes config-writing methods across all connections.
    pub admin_gate: Arc<tokio::sync::Mutex<()>>,
    /// Open connections: broadcasts and the client count.
    pub connections: Arc<Connections>,
    /// Scheduled tasks: the tick loop's state and the runs in progress.
    pub scheduler: Arc<Scheduler>,
    /// The connection that last ran a turn on each session: it gets the
    /// session's idle-time background-job notices.
    pub session_owners: Arc<Owners>,
    /// The daemon's graceful stop (`shutdown`, a signal, the idle exit).
    pub shutdown: CancellationToken,
    /// Fired once the endpoint stopped accepting (shutdown began), so
    /// `shutdown` can say `bye` only when nobody else can connect.
    pub not_listening: CancellationToken,
    /// Started on demand: it exits after this long with no client and
    /// nothing running (schedules then wait for the next daemon).
    pub idle_exit: Option<Duration>,
}

impl Ctx {
    /// A context over `engine` whose workspace starts at `cwd`'s project
    /// root; nothing runs yet.
    pub fn new(engine: Engine, cwd: PathBuf) -> Ctx {
        let root = seekclaw_config::detect_root(&cwd, &engine.home);
        // Clients that announce approvals can answer a server's questions
        // (MCP elicitation); the others' turns decline them at once.
        engine.mcp.announce_elicitation(true);
        let shutdown = CancellationToken::new();
        Ctx {
            engine,
            workspace: Arc::new(Workspace::new(cwd, root)),
            admin_gate: Arc::default(),
            connections: Arc::default(),
            scheduler: Arc::new(Scheduler::new(shutdown.child_token())),
            session_owners: Arc::default(),
            shutdown,
            not_listening: CancellationToken::new(),
            idle_exit: None,
        }
    }

    /// A context over a new engine on `home` and its open store.
    pub fn open(home: seekclaw_config::Home, cwd: PathBuf, store: Store) -> Ctx {
        let config = seekclaw_engine::config_service::ConfigService::new(home.clone());
        Ctx::new(Engine::new(home, store, config), cwd)
    }

    /// The process's working directory: the base of relative paths.
    pub fn cwd(&self) -> &Path {
        &self.workspace.cwd
    }

    pub fn current_workspace(&self) -> PathBuf {
        self.workspace.current()
    }

    pub fn set_workspace(&self, root: PathBuf) {
        self.workspace.open(root);
    }

    /// Runs a store call off the async threads and maps its error for the wire.
    pub async fn db<T, F>(&self, f: F) -> Result<T, MethodError>
    where
        T: Send + 'static,
        F: FnOnce(&Store) -> seekclaw_store::Result<T> + Send + 'static,
    {
        let store = self.engine.store.clone();
        tokio::task::spawn_blocking(move || f(&store))
            .await
            .map_err(|e| MethodError::internal(format!("store task failed: {e}")))?
            .map_err(crate::wire::store_error)
    }
}

/// The daemon's current workspace (`workspace.get` / `workspace.open`),
/// shared by every connection.
pub struct Workspace {
    /// The process's working directory: the initial workspace and the base
    /// of relative paths.
    cwd: PathBuf,
    root: RwLock<PathBuf>,
    /// A client named the current workspace (`workspace.open`); until then
    /// it is the daemon's working directory, which a chat may not take as a
    /// workspace when it is too broad (see [`crate::scope::resolve_for_turn`]).
    named: AtomicBool,
}

impl Workspace {
    pub fn new(cwd: PathBuf, root: PathBuf) -> Workspace {
        Workspace {
            cwd,
            root: RwLock::new(root),
            named: AtomicBool::new(false),
        }
    }

    pub fn current(&self) -> PathBuf {
        self.root.read_locked().clone()
    }

    /// A client named `root` as the workspace.
    pub fn open(&self, root: PathBuf) {
        *self.root.write_locked() = root;
        self.named.store(true, Ordering::Relaxed);
    }

    /// Whether a client named the current workspace.
    pub fn is_named(&self) -> bool {
        self.named.load(Ordering::Relaxed)
    }
}
