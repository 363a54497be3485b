//! The engine's language servers: one per (workspace root, server), started
//! on the first edit of a file of its language, shared by every turn on
//! that workspace, restarted after a crash (not after repeated ones for a
//! while), replaced when its config entry changes, stopped with the engine.

use std::collections::{HashMap, HashSet, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use futures::future::join_all;
use lsp_types::Url;
use seekclaw_config::LspSettings;
use seekclaw_tools::{Diagnostics, DiagnosticsFuture};
use tokio::sync::watch;
use tokio::time::{Instant, timeout_at};
use tokio_util::sync::CancellationToken;

use crate::client::{Exchange, Server, StartError};
use crate::compare;
use crate::spec::{self, ServerSpec, SpecProblem};

/// Crashes within [`CRASH_WINDOW`] after which a server is left alone for [`GIVE_UP_FOR`].
const MAX_CRASHES: usize = 3;
const CRASH_WINDOW: Duration = Duration::from_secs(600);
const GIVE_UP_FOR: Duration = Duration::from_secs(300);
/// How long a missing program is not looked for again.
const MISSING_RETRY: Duration = Duration::from_secs(60);
/// A start still going after this is likely hung: edits stop waiting for it
/// (it is given up when `initialize` times out).
const SLOW_START: Duration = Duration::from_secs(10);
/// A server no edit used for this long is stopped (it restarts on the next).
const IDLE_STOP: Duration = Duration::from_secs(30 * 60);

/// Reads the `lsp` settings in effect now (the engine reads its config).
pub type SettingsSource = Arc<dyn Fn() -> LspSettings + Send + Sync>;

/// The language servers of an engine: a cheap `Clone`.
#[derive(Clone)]
pub struct LspManager {
    inner: Arc<Inner>,
}

struct Inner {
    source: SettingsSource,
    slots: Mutex<HashMap<(PathBuf, String), Arc<Slot>>>,
    /// Programs already reported missing in an edit's result.
    reported: Mutex<HashSet<String>>,
    stopping: CancellationToken,
}

/// One (root, server): its state and crash history.
struct Slot {
    spec: ServerSpec,
    root: PathBuf,
    state: Mutex<SlotState>,
    /// Bumped when a start ends.
    started: watch::Sender<u64>,
    /// The last edit that asked it.
    used: Mutex<std::time::Instant>,
}

#[derive(Default)]
struct SlotState {
    phase: Phase,
    crashes: VecDeque<std::time::Instant>,
    total_crashes: u32,
    last_error: String,
}

#[derive(Default)]
enum Phase {
    #[default]
    Idle,
    Starting(std::time::Instant),
    Running(Arc<Server>),
    Missing(std::time::Instant),
    GaveUp(std::time::Instant),
}

fn locked<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// A configured server's state, for `doctor`.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerStatus {
    /// Its name in `lsp.servers`.
    pub name: String,
    /// The program it runs.
    pub program: String,
    /// The workspace it serves (`None`: started for none yet).
    pub root: Option<PathBuf>,
    /// What it is doing.
    pub state: ServerState,
}

/// What a server is doing.
#[derive(Debug, Clone, PartialEq)]
pub enum ServerState {
    /// Configured, not started yet (it starts on the first edit of its language).
    NotStarted,
    /// Disabled in the config.
    Disabled,
    /// Starting (`initialize` not answered yet).
    Starting,
    /// Running.
    Running {
        /// Its pid (and process group).
        pid: u32,
        /// Crashes so far.
        crashes: u32,
    },
    /// Crashed and restarts on the next edit, or gave up for a while.
    Crashed {
        /// Crashes so far.
        times: u32,
        /// Until when it is left alone (`None`: restarts on the next edit).
        retry_in: Option<Duration>,
        /// Why it last stopped.
        last_error: String,
    },
    /// Its program is not installed (or not on `PATH`).
    Missing,
}

enum Ready {
    Server(Arc<Server>),
    Wait,
    Missing,
    Unavailable,
}

impl LspManager {
    /// A manager that reads its settings from `source` at every edit.
    pub fn new(source: SettingsSource) -> LspManager {
        LspManager {
            inner: Arc::new(Inner {
                source,
                slots: Mutex::default(),
                reported: Mutex::default(),
                stopping: CancellationToken::new(),
            }),
        }
    }

    /// What the edit tools of a turn working in `root` report through.
    pub fn for_workspace(&self, root: PathBuf) -> Arc<dyn Diagnostics> {
        Arc::new(WorkspaceDiagnostics {
            manager: self.clone(),
            root,
        })
    }

    /// The errors the edit of `abs` (`before` → `after`) introduced, from
    /// every server covering it, within the wait bound.
    pub async fn after_edit(
        &self,
        root: &Path,
        abs: &Path,
        before: &str,
        after: &str,
    ) -> Option<String> {
        if self.inner.stopping.is_cancelled() {
            return None;
        }
        let settings = (self.inner.source)();
        if settings.entries().is_empty() {
            // Off: stop what an earlier config started.
            self.retire(&[]);
            return None;
        }
        let deadline = Instant::now() + Duration::from_millis(settings.wait_ms());
        let (specs, _) = spec::resolve(&settings);
        self.retire(&specs);
        let extension = abs.extension()?.to_str()?.to_ascii_lowercase();
        let covering: Vec<&ServerSpec> = specs.iter().filter(|s| s.covers(&extension)).collect();
        self.stop_idle();
        if covering.is_empty() {
            return None;
        }
        let uri = Url::from_file_path(abs).ok()?;
        let rel = abs.strip_prefix(root).unwrap_or(abs).display().to_string();
        let language = spec::language_id(&extension);
        let parts = join_all(covering.into_iter().map(|spec| {
            let slot = self.slot(root, spec);
            *locked(&slot.used) = std::time::Instant::now();
            let (uri, rel) = (&uri, rel.as_str());
            async move {
                let server = match self.ready(&slot, deadline).await {
                    Ready::Server(server) => server,
                    Ready::Missing => return self.missing_once(spec.program()),
                    Ready::Wait | Ready::Unavailable => return self.failed_once(&slot),
                };
                let exchange = server.exchange(uri, language, before, after, deadline).await;
                match exchange {
                    Exchange::Done { baseline, after: now } => {
                        let new = compare::introduced(before, &baseline, after, &now);
                        (!new.is_empty()).then(|| compare::format(&spec.name, rel, after, &new))
                    }
                    Exchange::TimedOut => None,
                    Exchange::Exited => {
                        tracing::warn!(server = %spec.name, why = %server.why_dead(), "language server stopped");
                        None
                    }
                }
            }
        }))
        .await;
        let parts: Vec<String> = parts.into_iter().flatten().collect();
        (!parts.is_empty()).then(|| parts.join("\n\n"))
    }

    /// Starts, in the background, the servers that cover `abs` (read, so
    /// likely to be edited next): a cold start then happens before the edit,
    /// not inside its wait bound.
    pub fn warm(&self, root: &Path, abs: &Path) {
        if self.inner.stopping.is_cancelled() {
            return;
        }
        let settings = (self.inner.source)();
        if settings.entries().is_empty() {
            return;
        }
        let Some(extension) = abs.extension().and_then(|e| e.to_str()) else {
            return;
        };
        let extension = extension.to_ascii_lowercase();
        let (specs, _) = spec::resolve(&settings);
        for spec in specs.iter().filter(|s| s.covers(&extension)) {
            let slot = self.slot(root, spec);
            *locked(&slot.used) = std::time::Instant::now();
            self.ensure(&slot);
        }
    }

    /// A server that keeps failing to start or stops at once (a wrong
    /// command line) is said once, with why, instead of silently never
    /// reporting.
    fn failed_once(&self, slot: &Slot) -> Option<String> {
        let why = {
            let state = locked(&slot.state);
            if state.total_crashes == 0 || state.last_error.is_empty() {
                return None;
            }
            state.last_error.clone()
        };
        locked(&self.inner.reported)
            .insert(format!("{}\0{why}", slot.spec.name))
            .then(|| format!("no diagnostics: {} stopped: {why}", slot.spec.name))
    }

    fn missing_once(&self, program: &str) -> Option<String> {
        locked(&self.inner.reported)
            .insert(program.to_string())
            .then(|| format!("no diagnostics: {program} not found"))
    }

    fn slot(&self, root: &Path, spec: &ServerSpec) -> Arc<Slot> {
        locked(&self.inner.slots)
            .entry((root.to_path_buf(), spec.name.clone()))
            .or_insert_with(|| {
                Arc::new(Slot {
                    spec: spec.clone(),
                    root: root.to_path_buf(),
                    state: Mutex::default(),
                    started: watch::channel(0).0,
                    used: Mutex::new(std::time::Instant::now()),
                })
            })
            .clone()
    }

    /// Stops the servers whose entry changed or went away.
    fn retire(&self, specs: &[ServerSpec]) {
        let stale: Vec<Arc<Slot>> = {
            let mut slots = locked(&self.inner.slots);
            if slots.is_empty() {
                return;
            }
            let keys: Vec<(PathBuf, String)> = slots
                .iter()
                .filter(|(_, slot)| !specs.contains(&slot.spec))
                .map(|(key, _)| key.clone())
                .collect();
            keys.iter().filter_map(|k| slots.remove(k)).collect()
        };
        for slot in stale {
            if let Phase::Running(server) = std::mem::take(&mut locked(&slot.state).phase) {
                tokio::spawn(async move { server.stop().await });
            }
        }
    }

    /// Stops the servers no edit asked for [`IDLE_STOP`].
    fn stop_idle(&self) {
        let slots: Vec<Arc<Slot>> = locked(&self.inner.slots).values().cloned().collect();
        for slot in slots {
            if locked(&slot.used).elapsed() < IDLE_STOP {
                continue;
            }
            let mut state = locked(&slot.state);
            if matches!(&state.phase, Phase::Running(s) if !s.is_dead())
                && let Phase::Running(server) = std::mem::take(&mut state.phase)
            {
                tokio::spawn(async move { server.stop().await });
            }
        }
    }

    /// The slot's running server, starting it if needed and waiting for the
    /// start until `deadline` (the start goes on past it).
    async fn ready(&self, slot: &Arc<Slot>, deadline: Instant) -> Ready {
        let mut started = slot.started.subscribe();
        loop {
            match self.ensure(slot) {
                Ready::Wait => {}
                other => return other,
            }
            match timeout_at(deadline, started.changed()).await {
                Ok(Ok(())) => {}
                _ => return Ready::Wait,
            }
        }
    }

    fn ensure(&self, slot: &Arc<Slot>) -> Ready {
        let mut state = locked(&slot.state);
        let now = std::time::Instant::now();
        match &state.phase {
            Phase::Running(server) if !server.is_dead() => return Ready::Server(server.clone()),
            Phase::Running(server) => {
                let why = server.why_dead();
                state.crashed(why, now);
                if matches!(state.phase, Phase::GaveUp(_)) {
                    tracing::warn!(server = %slot.spec.name, "language server crashed {MAX_CRASHES} times; not restarted for {} s", GIVE_UP_FOR.as_secs());
                    return Ready::Unavailable;
                }
            }
            Phase::Starting(since) if now.duration_since(*since) > SLOW_START => {
                return Ready::Unavailable;
            }
            Phase::Starting(_) => return Ready::Wait,
            Phase::Missing(since) if now.duration_since(*since) < MISSING_RETRY => {
                return Ready::Missing;
            }
            Phase::GaveUp(until) if now < *until => return Ready::Unavailable,
            Phase::Idle | Phase::Missing(_) | Phase::GaveUp(_) => {}
        }
        if self.inner.stopping.is_cancelled() {
            return Ready::Unavailable;
        }
        state.phase = Phase::Starting(now);
        let (slot, stopping) = (slot.clone(), self.inner.stopping.clone());
        tokio::spawn(async move {
            let result = Server::start(&slot.spec, &slot.root).await;
            let mut state = locked(&slot.state);
            let now = std::time::Instant::now();
            match result {
                Ok(server) if stopping.is_cancelled() => {
                    server.kill();
                    state.phase = Phase::Idle;
                }
                Ok(server) => state.phase = Phase::Running(Arc::new(server)),
                Err(StartError::Missing(program)) => {
                    state.last_error = format!("{program} not found");
                    state.phase = Phase::Missing(now);
                }
                Err(StartError::Failed(why)) => {
                    tracing::warn!(server = %slot.spec.name, %why, "language server did not start");
                    state.crashed(why, now);
                }
            }
            drop(state);
            slot.started.send_modify(|n| *n += 1);
        });
        Ready::Wait
    }

    /// Every configured server's state (those not started for any workspace
    /// yet once), and the entries that cannot be used.
    pub fn status(&self) -> (Vec<ServerStatus>, Vec<SpecProblem>) {
        let settings = (self.inner.source)();
        let (specs, problems) = spec::resolve(&settings);
        let slots: Vec<Arc<Slot>> = locked(&self.inner.slots).values().cloned().collect();
        let mut rows = Vec::new();
        for (name, entry) in &settings.entries() {
            if entry.disabled {
                rows.push(ServerStatus {
                    name: name.clone(),
                    program: String::new(),
                    root: None,
                    state: ServerState::Disabled,
                });
            }
        }
        for spec in &specs {
            let mut mine: Vec<&Arc<Slot>> = slots.iter().filter(|s| s.spec == *spec).collect();
            mine.sort_by(|a, b| a.root.cmp(&b.root));
            for slot in &mine {
                rows.push(ServerStatus {
                    name: spec.name.clone(),
                    program: spec.program().to_string(),
                    root: Some(slot.root.clone()),
                    state: locked(&slot.state).shown(),
                });
            }
            if mine.is_empty() {
                let state = if crate::find_program(spec.program(), &spec.env).is_some() {
                    ServerState::NotStarted
                } else {
                    ServerState::Missing
                };
                rows.push(ServerStatus {
                    name: spec.name.clone(),
                    program: spec.program().to_string(),
                    root: None,
                    state,
                });
            }
        }
        rows.sort_by(|a, b| a.name.cmp(&b.name));
        (rows, problems)
    }

    /// Stops every server (its process group killed); none starts after.
    pub async fn shutdown(&self) {
        self.inner.stopping.cancel();
        let slots: Vec<Arc<Slot>> = locked(&self.inner.slots).drain().map(|(_, s)| s).collect();
        let servers: Vec<Arc<Server>> = slots
            .iter()
            .filter_map(
                |slot| match std::mem::take(&mut locked(&slot.state).phase) {
                    Phase::Running(server) => Some(server),
                    _ => None,
                },
            )
            .collect();
        join_all(servers.iter().map(|s| s.stop())).await;
    }
}

impl SlotState {
    fn crashed(&mut self, why: String, now: std::time::Instant) {
        self.total_crashes += 1;
        self.last_error = why;
        self.crashes.push_back(now);
        while self
            .crashes
            .front()
            .is_some_and(|t| now.duration_since(*t) > CRASH_WINDOW)
        {
            self.crashes.pop_front();
        }
        self.phase = if self.crashes.len() >= MAX_CRASHES {
            self.crashes.clear();
            Phase::GaveUp(now + GIVE_UP_FOR)
        } else {
            Phase::Idle
        };
    }

    fn shown(&self) -> ServerState {
        let crashed = |retry_in| ServerState::Crashed {
            times: self.total_crashes,
            retry_in,
            last_error: self.last_error.clone(),
        };
        match &self.phase {
            Phase::Running(server) if !server.is_dead() => ServerState::Running {
                pid: server.pid,
                crashes: self.total_crashes,
            },
            Phase::Running(server) => ServerState::Crashed {
                times: self.total_crashes + 1,
                retry_in: None,
                last_error: server.why_dead(),
            },
            Phase::Starting(_) => ServerState::Starting,
            Phase::Missing(_) => ServerState::Missing,
            Phase::GaveUp(until) => crashed(Some(
                until.saturating_duration_since(std::time::Instant::now()),
            )),
            Phase::Idle if self.total_crashes > 0 => crashed(None),
            Phase::Idle => ServerState::NotStarted,
        }
    }
}

/// A turn's view: the manager and the workspace it edits.
struct WorkspaceDiagnostics {
    manager: LspManager,
    root: PathBuf,
}

impl Diagnostics for WorkspaceDiagnostics {
    fn after_edit<'a>(
        &'a self,
        abs: &'a Path,
        before: &'a str,
        after: &'a str,
    ) -> DiagnosticsFuture<'a> {
        Box::pin(self.manager.after_edit(&self.root, abs, before, after))
    }

    fn warm(&self, abs: &Path) {
        self.manager.warm(&self.root, abs);
    }
}
