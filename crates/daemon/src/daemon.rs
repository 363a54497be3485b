//! The daemon's life: open the state, bind, serve, shut down. The state
//! itself is [`crate::state`].

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use seekclaw_config::Home;
use seekclaw_store::Store;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::ctx::Ctx;
use crate::endpoint::{self, DaemonLock, Endpoint};
use crate::error::DaemonError;
use crate::state::Daemon;

/// How long shutdown waits for connections to flush before cutting them off.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(5);
/// How long after listening the MCP servers start connecting.
const MCP_START_GRACE: Duration = Duration::from_millis(150);

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
    daemon.ctx.idle_exit = opts.idle_exit;
    let daemon = Arc::new(daemon);
    daemon.ctx.engine.config.ensure_files().await;
    daemon.ctx.engine.start_telemetry("daemon");
    recover_interrupted_turns(&daemon.ctx).await;
    signals.watch(daemon.ctx.shutdown.clone());
    // Listen last: a client that connects finds config, store and workspace ready.
    let endpoint = endpoint::bind_listener(&daemon.ctx.engine.home, lock)?;
    tracing::info!(socket = %endpoint.display(), "seekclaw daemon listening");
    crate::scheduler::start(&daemon.ctx);
    let _announced = crate::notices::listen(
        &daemon.ctx.engine,
        &daemon.ctx.connections,
        &daemon.ctx.session_owners,
    );
    if let Some(delay) = opts.idle_exit {
        tracing::info!(idle = ?delay, "on demand: exits when no client is left");
        crate::idle_exit::start(&daemon.ctx, delay);
    }
    // MCP servers (configured or a plugin's) connect after we listen, and a
    // moment later: a slow server never delays clients, and starting their
    // processes does not compete with the first client's requests for the CPU.
    // A turn in between connects what it needs itself.
    let starting = daemon.clone();
    tokio::spawn(async move {
        tokio::time::sleep(MCP_START_GRACE).await;
        crate::extensions::activate(&starting.ctx, false).await
    });
    serve(&daemon, endpoint).await
}

/// Turns left without a terminal by a crash, `kill -9` or a closing write that
/// could not commit get an `interrupted` one (each in one transaction with
/// clearing its mark, so a crash here cannot give a turn two).
async fn recover_interrupted_turns(daemon: &Ctx) {
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
            _ = daemon.ctx.shutdown.cancelled() => break,
            accepted = endpoint.accept() => accepted,
        };
        match accepted {
            Ok(stream) => {
                let id = daemon.next_connection_id();
                let (reader, writer) = endpoint::split(stream);
                connections.spawn(crate::serve::serve_connection(
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
    daemon.ctx.not_listening.cancel();
    tracing::info!("shutting down");
    // No goal continuation starts from now on (running ones are cancelled).
    daemon.ctx.engine.stopping.cancel();
    // Scheduled runs are cancelled now and record `cancelled` while clients
    // drain (their `schedule.updated` may still reach them).
    daemon.ctx.scheduler.stop();
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
    daemon.ctx.scheduler.wait_stopped().await;
    // Every MCP server and background job (and whatever they started) ends
    // with us; a job stopped unfinished is recorded for its session's next turn.
    daemon.ctx.engine.close().await;
    endpoint.close();
    tracing::info!("stopped");
    Ok(())
}
