//! The daemon's shared state and its life: bind, serve, shut down.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use seekclaw_config::Home;
use seekclaw_protocol::{Envelope, MethodError};
use seekclaw_store::Store;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::endpoint::{self, DaemonLock, Endpoint};
use crate::error::DaemonError;
use crate::outbox::Outbox;
use seekclaw_engine::config_service::ConfigService;
use seekclaw_engine::sync::{Locked, RwLocked};

/// How long shutdown waits for connections to flush before cutting them off.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(5);

/// What `seekclaw daemon` was started with.
#[derive(Debug, Clone)]
pub struct DaemonOptions {
    /// `$SEEKCLAW_HOME` (socket, config, database).
    pub home: Home,
    /// The process's working directory: the initial workspace and the base of relative paths.
    pub cwd: PathBuf,
    /// On demand (started by a front end for itself): exit after this long
    /// with no client and nothing running. `None`: run until told to stop.
    pub idle_exit: Option<Duration>,
    /// Protocols a connection may switch to with `connection.upgrade`.
    pub upgrades: crate::upgrade::Upgrades,
}

/// Open connections, for broadcasts (`schedule.updated`, …).
pub struct Connections {
    open: Mutex<HashMap<u64, Outbox>>,
    /// Upgraded connections (`connection.upgrade`): clients that take no
    /// broadcasts but keep an on-demand daemon up like any other.
    upgraded: AtomicUsize,
    /// How many are open, for whoever waits on it (the on-demand idle exit).
    count: tokio::sync::watch::Sender<usize>,
}

impl Default for Connections {
    fn default() -> Self {
        Connections {
            open: Mutex::default(),
            upgraded: AtomicUsize::new(0),
            count: tokio::sync::watch::Sender::new(0),
        }
    }
}

impl Connections {
    pub fn insert(&self, id: u64, outbox: Outbox) {
        let mut open = self.open.locked();
        open.insert(id, outbox);
        // Under the lock, so the counts are published in order.
        self.count
            .send_replace(open.len() + self.upgraded.load(Ordering::SeqCst));
    }

    pub fn remove(&self, id: u64) {
        let mut open = self.open.locked();
        open.remove(&id);
        self.count
            .send_replace(open.len() + self.upgraded.load(Ordering::SeqCst));
    }

    /// Turns open connection `id` into an upgraded one: no more broadcasts,
    /// still counted until the guard drops.
    pub fn upgrade(&self, id: u64) -> UpgradedClient<'_> {
        let mut open = self.open.locked();
        open.remove(&id);
        let upgraded = self.upgraded.fetch_add(1, Ordering::SeqCst) + 1;
        self.count.send_replace(open.len() + upgraded);
        UpgradedClient { connections: self }
    }

    /// The number of open connections, as it changes.
    pub fn watch_count(&self) -> tokio::sync::watch::Receiver<usize> {
        self.count.subscribe()
    }

    pub fn count(&self) -> usize {
        self.open.locked().len() + self.upgraded.load(Ordering::SeqCst)
    }

    /// Sends `env` to every open connection without waiting: a client that is
    /// slow to read delays (and eventually disconnects) only itself, and what
    /// waits for it is bounded ([`Outbox::post_line`]).
    pub fn broadcast(&self, env: &Envelope) {
        let outboxes: Vec<Outbox> = self.open.locked().values().cloned().collect();
        if outboxes.is_empty() {
            return;
        }
        let line = env.to_line();
        for outbox in outboxes {
            outbox.post_line(line.clone());
        }
    }
}

/// An upgraded connection, counted as a client while it lives.
pub struct UpgradedClient<'a> {
    connections: &'a Connections,
}

impl Drop for UpgradedClient<'_> {
    fn drop(&mut self) {
        let open = self.connections.open.locked();
        let upgraded = self.connections.upgraded.fetch_sub(1, Ordering::SeqCst) - 1;
        self.connections.count.send_replace(open.len() + upgraded);
    }
}

/// State shared by every connection and request.
pub struct Daemon {
    /// The engine every turn starts through (home, config, store, providers,
    /// tools, locks, turns, MCP, jobs).
    pub engine: seekclaw_engine::Engine,
    pub cwd: PathBuf,
    /// The daemon's current workspace root (`workspace.get` / `workspace.open`).
    pub workspace: RwLock<PathBuf>,
    /// A client named the current workspace (`workspace.open`); until then
    /// it is the daemon's working directory, which a chat may not take as a
    /// workspace when it is too broad (see [`crate::scope::refuse_implicit`]).
    pub workspace_named: std::sync::atomic::AtomicBool,
    /// Serializes config-writing methods across all connections.
    pub admin_gate: tokio::sync::Mutex<()>,
    /// Graceful stop: connections stop reading, finish and flush.
    pub shutdown: CancellationToken,
    /// Hard stop: writers are abandoned.
    pub kill: CancellationToken,
    /// Fired once the endpoint stopped accepting (shutdown began), so
    /// `shutdown` can say `bye` only when nobody else can connect.
    pub not_listening: CancellationToken,
    pub connections: Connections,
    /// Scheduled tasks: the tick loop's state and the runs in progress.
    pub scheduler: crate::scheduler::Scheduler,
    /// The connection that last ran a turn on each session: it gets the
    /// session's idle-time background-job notices.
    pub session_owners: crate::notices::Owners,
    /// Every running `chat` request, also one that outlived its connection
    /// (`detach`): shutdown waits for them to store their ends.
    pub chat_tasks: TaskTracker,
    pub slow_client_timeout: Duration,
    /// Protocols a connection may switch to (`connection.upgrade`).
    pub upgrades: crate::upgrade::Upgrades,
    /// Started on demand: it exits after this long with no client and
    /// nothing running (schedules then wait for the next daemon).
    pub idle_exit: Option<Duration>,
    next_conn: AtomicU64,
}

impl Daemon {
    pub fn current_workspace(&self) -> PathBuf {
        self.workspace.read_locked().clone()
    }

    pub fn set_workspace(&self, root: PathBuf) {
        *self.workspace.write_locked() = root;
        self.workspace_named
            .store(true, std::sync::atomic::Ordering::Relaxed);
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
            .map_err(crate::error::store_error)
    }
}

/// Runs the daemon until `shutdown`, SIGINT or SIGTERM.
pub async fn run(opts: DaemonOptions) -> Result<(), DaemonError> {
    let home = opts.home.clone();
    home.ensure().map_err(DaemonError::Config)?;
    // Lock first: a second daemon must fail fast without touching the
    // database (it waits only for one that is shutting down).
    let lock = DaemonLock::acquire_after_drain(&home).await?;
    // Signals are hooked before anyone can connect, so an early SIGTERM is graceful too.
    let signals = Signals::install()?;
    let store = {
        let path = home.db_path();
        tokio::task::spawn_blocking(move || Store::open(&path))
            .await
            .map_err(|e| DaemonError::Startup(e.to_string()))?
            .map_err(DaemonError::Store)?
    };
    let mut daemon = Daemon::new(home, opts.cwd, store);
    daemon.upgrades = opts.upgrades;
    daemon.idle_exit = opts.idle_exit;
    let daemon = Arc::new(daemon);
    daemon.engine.config.ensure_files().await;
    recover_interrupted_turns(&daemon).await;
    signals.watch(daemon.shutdown.clone());
    // Listen last: a client that connects finds config, store and workspace ready.
    let endpoint = endpoint::bind_listener(&daemon.engine.home, lock)?;
    tracing::info!(socket = %endpoint.display(), "seekclaw daemon listening");
    crate::scheduler::start(&daemon);
    let _announced = crate::notices::listen(&daemon);
    if let Some(delay) = opts.idle_exit {
        tracing::info!(idle = ?delay, "on demand: exits when no client is left");
        crate::idle_exit::start(&daemon, delay);
    }
    // MCP servers connect after we listen: a slow server never delays clients.
    let starting = daemon.clone();
    tokio::spawn(async move { crate::extensions::activate(&starting, false).await });
    serve(&daemon, endpoint).await
}

impl Daemon {
    /// The shared state over an open store; nothing runs yet.
    pub(crate) fn new(home: Home, cwd: PathBuf, store: Store) -> Daemon {
        let config = ConfigService::new(home.clone());
        let slow = config.slow_client_timeout();
        let workspace = seekclaw_config::detect_root(&cwd, &home);
        let shutdown = CancellationToken::new();
        Daemon {
            engine: seekclaw_engine::Engine::new(home, store, config),
            cwd,
            workspace: RwLock::new(workspace),
            workspace_named: std::sync::atomic::AtomicBool::new(false),
            admin_gate: tokio::sync::Mutex::new(()),
            scheduler: crate::scheduler::Scheduler::new(shutdown.child_token()),
            shutdown,
            kill: CancellationToken::new(),
            not_listening: CancellationToken::new(),
            connections: Connections::default(),
            session_owners: crate::notices::Owners::default(),
            chat_tasks: TaskTracker::new(),
            slow_client_timeout: slow,
            upgrades: crate::upgrade::Upgrades::default(),
            idle_exit: None,
            next_conn: AtomicU64::new(1),
        }
    }
}

/// Turns left without a terminal by a crash, `kill -9` or a closing write that
/// could not commit get an `interrupted` one (each in one transaction with
/// clearing its mark, so a crash here cannot give a turn two).
async fn recover_interrupted_turns(daemon: &Daemon) {
    let home = daemon.engine.home.clone();
    let result = daemon
        .db(move |s| {
            let mut marked = 0;
            for (scope, id, owner) in s.sessions_with_active_turn()? {
                // A turn another live process runs (`serve`, `seekclaw run`)
                // holds its session's lock: it is not ours to end.
                let Ok(Some(_held)) = seekclaw_engine::try_hold(&home, &id) else {
                    continue;
                };
                if s.interrupt_turn(&scope, &id, &owner, INTERRUPTED_BY_STOP)? {
                    marked += 1;
                }
            }
            Ok(marked)
        })
        .await;
    match result {
        Ok(0) => {}
        Ok(n) => tracing::warn!(turns = n, "marked interrupted turns from a previous run"),
        Err(e) => tracing::error!(error = %e, "could not recover interrupted turns"),
    }
}

/// The terminal text of a turn found unfinished at start.
const INTERRUPTED_BY_STOP: &str = "The daemon stopped before this turn finished.";

/// SIGTERM/SIGINT (Ctrl-C elsewhere) turn into a graceful shutdown.
struct Signals {
    #[cfg(unix)]
    term: tokio::signal::unix::Signal,
    #[cfg(unix)]
    int: tokio::signal::unix::Signal,
}

impl Signals {
    fn install() -> Result<Signals, DaemonError> {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            let err = |e: std::io::Error| DaemonError::Startup(format!("cannot hook signals: {e}"));
            Ok(Signals {
                term: signal(SignalKind::terminate()).map_err(err)?,
                int: signal(SignalKind::interrupt()).map_err(err)?,
            })
        }
        #[cfg(not(unix))]
        {
            Ok(Signals {})
        }
    }

    fn watch(self, shutdown: CancellationToken) {
        tokio::spawn(async move {
            #[cfg(unix)]
            {
                let Signals { mut term, mut int } = self;
                tokio::select! {
                    _ = term.recv() => tracing::info!("SIGTERM: shutting down"),
                    _ = int.recv() => tracing::info!("SIGINT: shutting down"),
                    _ = shutdown.cancelled() => return,
                }
            }
            #[cfg(not(unix))]
            {
                let _ = self;
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => tracing::info!("Ctrl-C: shutting down"),
                    _ = shutdown.cancelled() => return,
                }
            }
            shutdown.cancel();
        });
    }
}

async fn serve(daemon: &Arc<Daemon>, mut endpoint: Endpoint) -> Result<(), DaemonError> {
    let connections = TaskTracker::new();
    loop {
        let accepted = tokio::select! {
            _ = daemon.shutdown.cancelled() => break,
            accepted = endpoint.accept() => accepted,
        };
        match accepted {
            Ok(stream) => {
                let id = daemon.next_conn.fetch_add(1, Ordering::Relaxed);
                let (reader, writer) = endpoint::split(stream);
                connections.spawn(crate::connection::serve_connection(
                    daemon.clone(),
                    id,
                    reader,
                    writer,
                ));
            }
            Err(e) => {
                tracing::warn!(error = %e, "accept failed");
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
    }
    // Whoever connects from now on is refused at once (or reaches the next
    // daemon) rather than accepted by one that is going away.
    endpoint.stop_listening();
    daemon.not_listening.cancel();
    tracing::info!("shutting down");
    // No goal continuation starts from now on (running ones are cancelled).
    daemon.engine.stopping.cancel();
    // Scheduled runs are cancelled now and record `cancelled` while clients
    // drain (their `schedule.updated` may still reach them).
    daemon.scheduler.stop();
    connections.close();
    if tokio::time::timeout(SHUTDOWN_GRACE, connections.wait())
        .await
        .is_err()
    {
        daemon.kill.cancel();
        let _ = tokio::time::timeout(Duration::from_secs(1), connections.wait()).await;
    }
    // Turns whose connections left before (cancelled by the shutdown too).
    daemon.chat_tasks.close();
    if tokio::time::timeout(SHUTDOWN_GRACE, daemon.chat_tasks.wait())
        .await
        .is_err()
    {
        tracing::warn!("turns still running after the shutdown grace");
    }
    daemon.scheduler.wait_stopped().await;
    // Every MCP server and background job (and whatever they started) ends
    // with us; a job stopped unfinished is recorded for its session's next turn.
    daemon.engine.close().await;
    endpoint.close();
    tracing::info!("stopped");
    Ok(())
}
