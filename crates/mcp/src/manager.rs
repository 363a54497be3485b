//! The daemon-level MCP manager. Each distinct server spec (name, transport,
//! working directory) has one slot with one connection, shared by every turn that
//! uses that spec. A slot keeps itself connected: a server that dies or fails to
//! start is retried with backoff, and its status carries the last error.
//!
//! The "active" set is the daemon's current workspace configuration: it is
//! (re)connected one server at a time on start, `mcp.reload`, config changes and
//! workspace switches. Turns in other workspaces get their slots on demand; those
//! are closed after they sit unused for a while.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use rmcp::model::Tool as McpToolDef;
use seekclaw_tools::Tool;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::auth::{AuthState, AuthStore, login_message};
use crate::bridge::{McpTool, Names};
use crate::client::{Caller, Connection, Ended, Notice, Options, PromptText};
use crate::error::McpError;
use crate::spec::{ServerSpec, ServerStatus, Timeouts, Transport};
use crate::sync::{lock, read, write};

/// Longest wait between reconnect attempts.
const MAX_BACKOFF: Duration = Duration::from_secs(60);
/// Slots outside the active set close after this long unused.
const IDLE_CLOSE: Duration = Duration::from_secs(600);
/// A connection up this long counts as healthy again (resets the backoff).
const STABLE_AFTER: Duration = Duration::from_secs(30);
/// How often a server waiting for a login looks at the token store (a login
/// from the CLI is another process: its file appearing is the signal).
const LOGIN_POLL: Duration = Duration::from_secs(1);
/// All MCP prompt text a turn's system prompt may carry.
const MAX_PROMPT_CHARS: usize = 40_000;

/// How long shutdown waits for servers to exit before giving up on them.
const SHUTDOWN_WAIT: Duration = Duration::from_secs(5);
/// How long after a server began connecting a turn waits for it (a cold
/// `npx` start takes a few seconds; a server that hangs costs a turn at most this).
const TURN_WAIT: Duration = Duration::from_secs(5);

/// What a slot currently has.
#[derive(Default)]
struct Live {
    caller: Option<Caller>,
    tools: Vec<McpToolDef>,
    prompts: Vec<PromptText>,
    status: ServerStatus,
}

/// One server spec and its connection.
pub struct Slot {
    pub(crate) spec: ServerSpec,
    live: RwLock<Live>,
    timeouts: Arc<RwLock<Timeouts>>,
    /// Announce elicitation (the manager's front end can answer it).
    elicitation: Arc<AtomicBool>,
    stop: CancellationToken,
    /// `true` once the first connection attempt has finished, either way.
    attempted: watch::Sender<bool>,
    /// `true` once the slot's task has ended and its server is gone.
    finished: watch::Sender<bool>,
    last_used: Mutex<Instant>,
    /// When the slot began connecting: turns wait for its first attempt
    /// only until [`TURN_WAIT`] after this.
    created: Instant,
    /// The OAuth token store, for remote servers.
    auth: Option<AuthStore>,
}

impl Slot {
    fn new(
        spec: ServerSpec,
        timeouts: Arc<RwLock<Timeouts>>,
        (elicitation, auth): (Arc<AtomicBool>, Option<AuthStore>),
    ) -> Slot {
        Slot {
            spec,
            elicitation,
            live: RwLock::new(Live {
                status: ServerStatus {
                    state: "connecting",
                    ..ServerStatus::default()
                },
                ..Live::default()
            }),
            timeouts,
            stop: CancellationToken::new(),
            attempted: watch::channel(false).0,
            finished: watch::channel(false).0,
            last_used: Mutex::new(Instant::now()),
            created: Instant::now(),
            auth,
        }
    }

    /// The URL of a remote server (its identity in the token store).
    fn url(&self) -> Option<&str> {
        match &self.spec.transport {
            Transport::Http { url, .. } | Transport::Sse { url, .. } => Some(url),
            Transport::Stdio { .. } => None,
        }
    }

    /// The store and URL of a remote server, when OAuth applies.
    fn auth_target(&self) -> Option<(&AuthStore, &str)> {
        self.auth.as_ref().zip(self.url())
    }

    /// Where the server stands with OAuth.
    pub(crate) fn auth_state(&self) -> AuthState {
        match self.status().state {
            "needs_login" => AuthState::NeedsLogin,
            "login_required" => AuthState::LoginRequired,
            _ => self
                .auth_target()
                .map_or(AuthState::None, |(store, url)| store.state(url)),
        }
    }

    /// "Log in again" when the stored login was refused on refresh.
    pub(crate) fn login_problem(&self) -> Option<String> {
        let (store, url) = self.auth_target()?;
        (store.state(url) == AuthState::LoginRequired)
            .then(|| login_message(&self.spec.name, AuthState::LoginRequired))
    }

    /// Waits until the token store changes for this server (a login or a
    /// logout), or the slot is stopped; `false` when stopped.
    async fn login_changed(&self) -> bool {
        let Some((store, url)) = self.auth_target() else {
            return !self.stop.is_cancelled();
        };
        let before = store.stamp(url);
        loop {
            tokio::select! {
                _ = self.stop.cancelled() => return false,
                _ = tokio::time::sleep(LOGIN_POLL) => {}
            }
            if store.stamp(url) != before {
                return true;
            }
        }
    }

    pub(crate) fn touch_used(&self) {
        self.touch();
    }

    /// The connection to call through, or why there is none.
    pub(crate) fn caller(&self) -> Result<Caller, String> {
        let live = read(&self.live);
        match &live.caller {
            Some(c) => Ok(c.clone()),
            None => Err(live
                .status
                .error
                .clone()
                .unwrap_or_else(|| live.status.state.to_string())),
        }
    }

    pub(crate) fn call_timeout(&self) -> Duration {
        read(&self.timeouts).call
    }

    fn connect_timeout(&self) -> Duration {
        read(&self.timeouts).connect
    }

    pub fn status(&self) -> ServerStatus {
        read(&self.live).status.clone()
    }

    fn update(&self, f: impl FnOnce(&mut Live)) {
        f(&mut write(&self.live));
    }

    fn touch(&self) {
        *lock(&self.last_used) = Instant::now();
    }

    fn idle_for(&self) -> Duration {
        lock(&self.last_used).elapsed()
    }

    /// Waits until the first connection attempt has finished (or `limit` passes).
    async fn first_attempt(&self, limit: Duration) {
        let mut rx = self.attempted.subscribe();
        let _ = tokio::time::timeout(limit, rx.wait_for(|done| *done)).await;
    }

    async fn wait_finished(&self, limit: Duration) {
        let mut rx = self.finished.subscribe();
        let _ = tokio::time::timeout(limit, rx.wait_for(|done| *done)).await;
    }
}

/// Keeps one slot connected until it is stopped.
async fn run_slot(slot: Arc<Slot>) {
    let mut failures: u32 = 0;
    loop {
        let timeout = slot.connect_timeout();
        let opened = tokio::select! {
            _ = slot.stop.cancelled() => break,
            opened = Connection::open_with(&slot.spec, timeout, Options {
                elicitation: slot.elicitation.load(Ordering::Acquire),
                auth: slot.auth.clone(),
            }) => opened,
        };
        match opened {
            Ok(conn) => {
                let since = Instant::now();
                if serve(&slot, conn).await == Ended::Stopped {
                    break;
                }
                // Only a connection that stayed up a while resets the backoff, so
                // a server that dies right after connecting is not respawned
                // every second forever.
                if since.elapsed() >= STABLE_AFTER {
                    failures = 0;
                }
            }
            Err(McpError::NeedsLogin(why)) => {
                // Not a broken server: nothing to retry until a login is stored.
                let state = match slot.login_problem() {
                    Some(_) => "login_required",
                    None => "needs_login",
                };
                tracing::info!(server = %slot.spec.name, state, "MCP server needs a login");
                slot.update(|live| {
                    live.status = ServerStatus {
                        connected: false,
                        tool_count: 0,
                        error: Some(why),
                        state,
                    };
                });
                slot.attempted.send_replace(true);
                if !slot.login_changed().await {
                    break;
                }
                failures = 0;
                slot.update(|live| live.status.state = "reconnecting");
                continue;
            }
            Err(e) => {
                tracing::warn!(server = %slot.spec.name, error = %e, "MCP server failed to connect");
                slot.update(|live| {
                    live.status = ServerStatus {
                        connected: false,
                        tool_count: 0,
                        error: Some(e.to_string()),
                        state: "failed",
                    };
                });
            }
        }
        slot.attempted.send_replace(true);
        failures = failures.saturating_add(1);
        let backoff = backoff(failures);
        tokio::select! {
            _ = slot.stop.cancelled() => break,
            _ = tokio::time::sleep(backoff) => {}
        }
        slot.update(|live| live.status.state = "reconnecting");
    }
    slot.update(|live| {
        live.caller = None;
        live.tools.clear();
        live.prompts.clear();
        live.status = ServerStatus {
            state: "stopped",
            ..ServerStatus::default()
        };
    });
    slot.attempted.send_replace(true);
    slot.finished.send_replace(true);
}

/// 1 s, 2 s, 4 s … up to a minute, with a little jitter so servers don't sync up.
fn backoff(failures: u32) -> Duration {
    let base = Duration::from_secs(1u64 << failures.saturating_sub(1).min(6));
    let jitter = Duration::from_millis(fastrand::u64(0..250));
    (base + jitter).min(MAX_BACKOFF)
}

/// Publishes a live connection and tends it until it ends.
async fn serve(slot: &Arc<Slot>, mut conn: Connection) -> Ended {
    let caller = conn.caller();
    tracing::info!(server = %slot.spec.name, tools = conn.tools.len(), "MCP server connected");
    slot.update(|live| {
        live.caller = Some(caller.clone());
        live.tools = std::mem::take(&mut conn.tools);
        live.prompts = std::mem::take(&mut conn.prompts);
        live.status = ServerStatus {
            connected: true,
            tool_count: live.tools.len(),
            error: None,
            state: "connected",
        };
    });
    slot.attempted.send_replace(true);
    let (Some(mut ended), Some(mut notices)) = (conn.ended.take(), conn.notices.take()) else {
        return Ended::Lost("connection state missing".into());
    };
    let mut login_check = tokio::time::interval(LOGIN_POLL);
    let logged_in = slot
        .auth_target()
        .is_some_and(|(store, url)| store.state(url) == AuthState::Authorized);
    let outcome = loop {
        tokio::select! {
            _ = login_check.tick(), if logged_in => {
                // A refused refresh or a logout: drop the connection so the
                // slot shows the login state instead of failing every call.
                let gone = match slot.login_problem() {
                    Some(why) => Some(why),
                    None => slot
                        .auth_target()
                        .filter(|(store, url)| store.state(url) == AuthState::None)
                        .map(|_| format!("logged out of MCP server '{}'", slot.spec.name)),
                };
                if let Some(why) = gone {
                    conn.stop();
                    let _ = tokio::time::timeout(SHUTDOWN_WAIT, &mut ended).await;
                    break Ended::Lost(why);
                }
            }
            _ = slot.stop.cancelled() => {
                conn.stop();
                let _ = tokio::time::timeout(SHUTDOWN_WAIT, &mut ended).await;
                break Ended::Stopped;
            }
            Some(notice) = notices.recv() => {
                if notice == Notice::ToolsChanged {
                    tokio::select! {
                        _ = slot.stop.cancelled() => {}
                        _ = refresh_tools(slot, &caller) => {}
                    }
                }
            }
            end = &mut ended => {
                break end.unwrap_or_else(|_| Ended::Lost("the connection task ended".into()));
            }
        }
    };
    if let Ended::Lost(why) = &outcome {
        tracing::warn!(server = %slot.spec.name, error = %why, "MCP server disconnected");
        let error = format!("server exited: {why}");
        slot.update(|live| {
            live.caller = None;
            live.status = ServerStatus {
                connected: false,
                tool_count: live.tools.len(),
                error: Some(error),
                state: "reconnecting",
            };
        });
    }
    outcome
}

async fn refresh_tools(slot: &Slot, caller: &Caller) {
    match tokio::time::timeout(slot.connect_timeout(), caller.list_tools()).await {
        Ok(Ok(tools)) => slot.update(|live| {
            live.status.tool_count = tools.len();
            live.tools = tools;
        }),
        Ok(Err(e)) => tracing::warn!(server = %slot.spec.name, error = %e, "tools/list failed"),
        Err(_) => tracing::warn!(server = %slot.spec.name, "tools/list timed out"),
    }
}

/// A turn's share of MCP: its tools and the prompt texts for the MCP slot.
#[derive(Default)]
pub struct TurnMcp {
    /// The servers' tools, named `mcp__<server>__<tool>`.
    pub tools: Vec<Arc<dyn Tool>>,
    /// Prompt sections of the servers, within the prompt budget.
    pub prompts: Vec<String>,
}

/// The live slots by spec. Tools look their server up here on every call, so a
/// reconnected (or reloaded) server is found again under the same spec.
pub(crate) type SlotMap = Mutex<HashMap<ServerSpec, Arc<Slot>>>;

/// Every MCP connection of the daemon.
#[derive(Default)]
pub struct McpManager {
    slots: Arc<SlotMap>,
    /// The current workspace's servers, in connection order.
    active: Mutex<Vec<ServerSpec>>,
    timeouts: Arc<RwLock<Timeouts>>,
    /// Where OAuth logins are kept; `None` leaves remote servers without OAuth.
    auth: Option<AuthStore>,
    elicitation: Arc<AtomicBool>,
    tasks: TaskTracker,
    /// One (re)connection of the active set at a time.
    switching: tokio::sync::Mutex<()>,
    /// Set by shutdown: no server starts after it.
    closed: AtomicBool,
}

impl McpManager {
    /// A manager with no server connected.
    pub fn new() -> McpManager {
        McpManager::default()
    }

    /// A manager whose remote servers use the OAuth logins of `store`.
    pub fn with_auth(store: AuthStore) -> McpManager {
        McpManager {
            auth: Some(store),
            ..McpManager::default()
        }
    }

    /// The token store, if OAuth is on.
    pub fn auth_store(&self) -> Option<&AuthStore> {
        self.auth.as_ref()
    }

    /// Where `spec`'s server stands with OAuth (`none` for stdio servers).
    pub fn auth_state(&self, spec: &ServerSpec) -> AuthState {
        let slot = lock(&self.slots).get(spec).cloned();
        match slot {
            Some(slot) => slot.auth_state(),
            None => match (&self.auth, &spec.transport) {
                (Some(store), Transport::Http { url, .. } | Transport::Sse { url, .. }) => {
                    store.state(url)
                }
                _ => AuthState::None,
            },
        }
    }

    /// Sets the connect and call limits every slot uses from now on.
    pub fn set_timeouts(&self, timeouts: Timeouts) {
        *write(&self.timeouts) = timeouts;
    }

    /// Whether servers connected from now on are told this client answers
    /// elicitations (form mode): only where a front end can put them to a
    /// person (the daemon); a headless run never announces it.
    pub fn announce_elicitation(&self, on: bool) {
        self.elicitation.store(on, Ordering::Release);
    }

    /// The slot for `spec`, started if it did not exist.
    fn slot(&self, spec: &ServerSpec) -> Option<Arc<Slot>> {
        let mut slots = lock(&self.slots);
        if self.closed.load(Ordering::Acquire) {
            return None;
        }
        if let Some(slot) = slots.get(spec) {
            slot.touch();
            return Some(slot.clone());
        }
        let slot = Arc::new(Slot::new(
            spec.clone(),
            self.timeouts.clone(),
            (self.elicitation.clone(), self.auth.clone()),
        ));
        slots.insert(spec.clone(), slot.clone());
        self.tasks.spawn(run_slot(slot.clone()));
        Some(slot)
    }

    /// Stops and forgets the given slots, waiting until their servers are gone.
    async fn close(&self, specs: &[ServerSpec]) {
        let removed: Vec<Arc<Slot>> = {
            let mut slots = lock(&self.slots);
            specs.iter().filter_map(|s| slots.remove(s)).collect()
        };
        for slot in &removed {
            slot.stop.cancel();
        }
        for slot in &removed {
            slot.wait_finished(SHUTDOWN_WAIT).await;
        }
    }

    /// Makes `specs()` the active set. With `restart`, every server is reconnected
    /// (`mcp.reload`); otherwise unchanged servers keep their connection. Old
    /// servers are closed first, then the new ones connect one at a time; returns
    /// once each has finished its first attempt. `specs` runs once the previous
    /// switch has finished, so a late caller cannot install a stale set.
    pub async fn activate_with(&self, specs: impl FnOnce() -> Vec<ServerSpec>, restart: bool) {
        let _one_at_a_time = self.switching.lock().await;
        let specs = specs();
        let old = std::mem::replace(&mut *lock(&self.active), specs.clone());
        let gone: Vec<ServerSpec> = old
            .into_iter()
            .filter(|s| restart || !specs.contains(s))
            .collect();
        self.close(&gone).await;
        self.close_idle().await;
        for spec in &specs {
            if let Some(slot) = self.slot(spec) {
                let limit = slot.connect_timeout() + Duration::from_secs(1);
                slot.first_attempt(limit).await;
            }
        }
    }

    /// Closes on-demand slots (other workspaces) that nobody used for a while.
    async fn close_idle(&self) {
        let active = lock(&self.active).clone();
        let idle: Vec<ServerSpec> = lock(&self.slots)
            .values()
            .filter(|s| !active.contains(&s.spec) && s.idle_for() > IDLE_CLOSE)
            .map(|s| s.spec.clone())
            .collect();
        self.close(&idle).await;
    }

    /// The tools and prompts of `specs` for one turn. Servers still on their first
    /// connection attempt are waited for (up to [`TURN_WAIT`] after they began);
    /// failed or still-connecting ones are skipped. `taken` holds the names
    /// already in the registry.
    pub async fn for_turn(
        &self,
        specs: &[ServerSpec],
        taken: impl IntoIterator<Item = String>,
    ) -> TurnMcp {
        self.close_idle().await;
        let slots: Vec<Arc<Slot>> = specs.iter().filter_map(|s| self.slot(s)).collect();
        // A server on its first attempt is waited for, but only for a little
        // while after it began: one that never initializes must not stall
        // every turn for its whole connect timeout. It joins later turns.
        for slot in &slots {
            let limit = (slot.connect_timeout() + Duration::from_secs(1)).min(TURN_WAIT);
            let left = limit.saturating_sub(slot.created.elapsed());
            slot.first_attempt(left).await;
        }
        let mut names = Names::with_taken(taken);
        let mut out = TurnMcp::default();
        let mut prompt_chars = 0;
        for slot in &slots {
            let live = read(&slot.live);
            if live.caller.is_none() {
                continue;
            }
            for tool in &live.tools {
                let name = names.allocate(&slot.spec.name, &tool.name);
                out.tools.push(Arc::new(McpTool::new(
                    name,
                    tool,
                    slot.clone(),
                    Arc::downgrade(&self.slots),
                )));
            }
            for prompt in &live.prompts {
                let text = format!(
                    "## {} / {}\n{}",
                    slot.spec.name,
                    prompt.name,
                    prompt.text.trim()
                );
                if prompt_chars + text.len() > MAX_PROMPT_CHARS {
                    continue;
                }
                prompt_chars += text.len();
                out.prompts.push(text);
            }
        }
        out
    }

    /// How a server is doing; `idle` if nothing connects it.
    pub fn status(&self, spec: &ServerSpec) -> ServerStatus {
        let slot = lock(&self.slots).get(spec).cloned();
        match slot {
            Some(slot) => slot.status(),
            None => ServerStatus {
                state: "idle",
                ..ServerStatus::default()
            },
        }
    }

    /// Ends every server and waits (bounded) until they are gone.
    pub async fn shutdown(&self) {
        {
            let _slots = lock(&self.slots);
            // Under the slots lock, so no slot is being created right now.
            self.closed.store(true, Ordering::Release);
        }
        let all: Vec<ServerSpec> = lock(&self.slots).keys().cloned().collect();
        lock(&self.active).clear();
        self.close(&all).await;
        self.tasks.close();
        let _ = tokio::time::timeout(SHUTDOWN_WAIT, self.tasks.wait()).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_up_to_a_minute() {
        let secs = |n| backoff(n).as_secs();
        assert_eq!(secs(1), 1);
        assert_eq!(secs(2), 2);
        assert_eq!(secs(3), 4);
        assert_eq!(secs(7), 60);
        assert_eq!(backoff(50), MAX_BACKOFF);
    }
}
