//! The engine: the one way every front end (daemon chat, scheduled runs,
//! `seekclaw run`, and the front ends to come) starts and drives a turn.
//!
//! A front end borrows the shared services as an [`Engine`], resolves and
//! claims its session with [`Engine::claim`], and calls
//! [`Engine::start_turn`]; what it gets back is a [`TurnHandle`] it reads
//! events and the outcome from. Runtime capture, load balancing, MCP and
//! skills resolution, the owner id, the steer queue, the event queue and the
//! release of write locks all live here, once.

mod compact;
mod jobs;
mod launcher;
mod preflight;
mod runtime;
mod session_lock;

use std::sync::Arc;

use seekclaw_agent::{Steer, SteerKind, SteerQueue};
use seekclaw_config::Home;
use seekclaw_mcp::McpManager;
use seekclaw_protocol::{ErrorCode, MethodError};
use seekclaw_providers::Providers;
use seekclaw_store::{EventItem, Store};
use seekclaw_tools::{Registry, WriteLocks};
use tokio_util::sync::CancellationToken;

use crate::config_service::ConfigService;
use crate::extras_cache::ExtrasCache;
use crate::turns::{ActiveTurn, TurnGuard, Turns};

pub use jobs::{SessionJobs, SessionNotice};
pub use launcher::{SessionClaim, TurnHandle, TurnOverrides, TurnRequest};
pub(crate) use preflight::pin as pin_model;
use runtime::build_runtime;
pub use session_lock::{SessionLock, try_hold};

/// The services a turn runs with, borrowed from whoever owns them (the
/// daemon, or a one-shot `seekclaw run`).
#[derive(Clone, Copy)]
pub struct Engine<'e> {
    pub home: &'e Home,
    pub config: &'e ConfigService,
    pub store: &'e Store,
    pub providers: &'e Providers,
    pub tools: &'e Registry,
    pub locks: &'e Arc<WriteLocks>,
    /// One turn per session: the registry `agent.steer`, `agent.cancel`,
    /// `doctor` and shutdown see.
    pub turns: &'e Turns,
    pub mcp: &'e McpManager,
    pub extras: &'e ExtrasCache,
    /// Each session's shell jobs (background jobs outlive turns).
    pub jobs: &'e SessionJobs,
}

impl<'e> Engine<'e> {
    /// Marks `session_id` busy with a turn that `cancel` stops and `steer`
    /// feeds, until the guard is dropped; `busy` if it already has one.
    pub fn claim(
        &self,
        session_id: &str,
        cancel: &CancellationToken,
        steer: &SteerQueue,
        approvals: &seekclaw_agent::Approvals,
    ) -> Result<TurnGuard<'e>, MethodError> {
        let mut guard = self
            .turns
            .start(ActiveTurn {
                session_id: session_id.to_string(),
                cancel: cancel.clone(),
                steer: steer.clone(),
                approvals: approvals.clone(),
            })
            .ok_or_else(|| busy(session_id))?;
        match try_hold(self.home, session_id) {
            Ok(Some(lock)) => guard.hold(lock),
            Ok(None) => return Err(busy_elsewhere(session_id)),
            Err(e) => {
                return Err(MethodError::new(
                    ErrorCode::Storage,
                    format!("Cannot lock session {session_id} for its turn: {e}"),
                ));
            }
        }
        Ok(guard)
    }
}

/// The error of a turn on a session another process is running a turn on.
fn busy_elsewhere(sid: &str) -> MethodError {
    MethodError::new(
        ErrorCode::Busy,
        format!("Session {sid} is running a turn in another seekclaw process (a daemon, `seekclaw serve` or `seekclaw run`); wait for it to finish or cancel it there"),
    )
    .with_session(Some(sid.to_string()))
}

impl Engine<'_> {
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

    /// Appends `item` to an idle session (goal markers, job notices, shell
    /// context), holding the session as a turn would so nothing interleaves
    /// with a turn here or in another process (`busy` then).
    pub async fn append_idle(
        &self,
        scope_key: &str,
        session_id: &str,
        item: EventItem,
    ) -> Result<u64, MethodError> {
        let _claim = self.claim(
            session_id,
            &CancellationToken::new(),
            &SteerQueue::new(),
            &Default::default(),
        )?;
        let (store, key, id) = (
            self.store.clone(),
            scope_key.to_string(),
            session_id.to_string(),
        );
        tokio::task::spawn_blocking(move || store.append_event(&key, &id, None, &item))
            .await
            .map_err(|e| MethodError::internal(e.to_string()))?
            .map_err(crate::error::store_error)
    }
}

/// The error of a second turn on a busy session.
fn busy(sid: &str) -> MethodError {
    MethodError::new(
        ErrorCode::Busy,
        format!("Session {sid} is already running a turn; use agent.steer to add guidance or agent.cancel to stop it"),
    )
    .with_session(Some(sid.to_string()))
}
