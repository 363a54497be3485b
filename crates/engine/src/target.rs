//! Which session a turn runs on, and claiming it: the one place a session is
//! found or made, marked busy, given its reasoning level and read for the
//! turn (every front end's turns come through here).

use crate::error::EngineError;
use seekclaw_agent::{Approvals, SteerQueue};
use seekclaw_config::ReasoningLevel;
use seekclaw_store::{SessionEvent, SessionHeader, SessionPatch, Store};
use tokio_util::sync::CancellationToken;

use crate::engine::Engine;
use crate::error::store_error;
use crate::scope::Scope;
use crate::sessions::{create_session, create_session_as};
use crate::turns::TurnGuard;

/// The session a turn asks for, in its request's scope.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SessionTarget {
    /// A new session: under `id` when the front end named it already
    /// (`serve` names it before its first turn), else a fresh id.
    New {
        /// The id to create it under (`conflict` if taken).
        id: Option<String>,
    },
    /// This session of the scope; `not_found` when it is not there.
    Id(String),
    /// The scope's most recently updated session (`--continue`);
    /// `not_found` when the scope has none.
    Latest,
    /// This session while it is still there, else the scope's latest, else a
    /// new one: a desktop chat that names no session (reference §2.5).
    Resume(Option<String>),
}

impl SessionTarget {
    /// The session id the target names outright, if any.
    pub fn named(&self) -> Option<&str> {
        match self {
            SessionTarget::Id(id) => Some(id),
            _ => None,
        }
    }
}

/// What every turn is driven with, created once by the front end and kept
/// by it (to cancel, steer or answer before the turn has even started) and
/// by the turn registry (`agent.cancel`, `agent.steer` by session id).
#[derive(Clone, Default)]
pub struct TurnControls {
    /// Stops the turn; it ends `cancelled` with what it had said.
    pub cancel: CancellationToken,
    /// Guidance for the turn's next step.
    pub steer: SteerQueue,
    /// Who decides the calls the approval policy asks about.
    pub approvals: Approvals,
}

impl TurnControls {
    /// Fresh controls whose approvals are decided by `approvals`.
    pub fn new(approvals: Approvals) -> TurnControls {
        TurnControls {
            cancel: CancellationToken::new(),
            steer: SteerQueue::new(),
            approvals,
        }
    }

    /// As [`TurnControls::new`], cancelled also with `parent` (a daemon's
    /// shutdown).
    pub fn child_of(parent: &CancellationToken, approvals: Approvals) -> TurnControls {
        TurnControls {
            cancel: parent.child_token(),
            ..TurnControls::new(approvals)
        }
    }
}

/// A session claimed for one turn.
pub(crate) struct SessionClaim {
    pub(crate) session: SessionHeader,
    pub(crate) reasoning: ReasoningLevel,
    /// The conversation so far, when it was read along with the session (the
    /// turn reads it itself otherwise).
    pub(crate) past: Option<Vec<SessionEvent>>,
    pub(crate) guard: TurnGuard,
}

impl Engine {
    /// Finds or makes the session `target` names in `scope`, stores the
    /// turn's reasoning `level` with it (when one is given and differs) and
    /// marks it busy. A named session is claimed before it is read, so the
    /// read (which also brings its conversation, one trip to the store) sees
    /// every turn that finished before this one started.
    pub(crate) async fn claim_target(
        &self,
        scope: &Scope,
        target: SessionTarget,
        level: Option<ReasoningLevel>,
        controls: &TurnControls,
    ) -> Result<SessionClaim, EngineError> {
        let sid = match target {
            SessionTarget::Id(sid) => sid,
            other => {
                // A new session's id known up front is claimed before its row
                // is made: a refusal (busy in another process) leaves no
                // empty session that would clash with the retry.
                let early = match &other {
                    SessionTarget::New { id: Some(id) } => Some(self.claim_controls(id, controls)?),
                    _ => None,
                };
                let mut session = self.find_or_make(scope, other, level).await?;
                let stored = self.stored_level(&session);
                if let Some(patch) = level_patch(level, stored) {
                    let (k, s) = (scope.key.clone(), session.id.clone());
                    if let Some(h) = self.db(move |st| st.update_session(&k, &s, &patch)).await? {
                        session = h;
                    }
                }
                let guard = match early {
                    Some(guard) => guard,
                    None => self.claim_controls(&session.id, controls)?,
                };
                return Ok(SessionClaim {
                    session,
                    guard,
                    reasoning: level.unwrap_or(stored),
                    past: None,
                });
            }
        };
        let guard = self
            .claim_controls(&sid, controls)
            .map_err(|e| e.with_session(Some(sid.clone())))?;
        let Some((session, reasoning, past)) = self
            .read_claimed(scope, &sid, level)
            .await
            .map_err(|e| e.with_session(Some(sid.clone())))?
        else {
            return Err(
                EngineError::not_found(format!("Session {sid} not found")).with_session(Some(sid))
            );
        };
        Ok(SessionClaim {
            session,
            guard,
            reasoning,
            past: Some(past),
        })
    }

    fn claim_controls(&self, sid: &str, c: &TurnControls) -> Result<TurnGuard, EngineError> {
        self.claim(sid, &c.cancel, &c.steer, &c.approvals)
    }

    /// A claimed session's header, level and log. A short log is read right
    /// here when a store connection is idle (the usual case): a fraction of a
    /// millisecond, less than a trip to a blocking thread and back costs.
    /// Long logs, a busy store and a level to store take the trip.
    async fn read_claimed(
        &self,
        scope: &Scope,
        sid: &str,
        level: Option<ReasoningLevel>,
    ) -> Result<Option<(SessionHeader, ReasoningLevel, Vec<SessionEvent>)>, EngineError> {
        let (k, s) = (scope.key.clone(), sid.to_string());
        let fallback = self.config.load().agent.reasoning_level;
        match self.store.try_conversation(&k, &s) {
            // Without a level to store, the stored one is the turn's.
            Some(Ok(Some(c))) if level_patch(level, self.stored_level(&c.header)).is_none() => {
                let reasoning = self.stored_level(&c.header);
                return Ok(Some((c.header, reasoning, c.events)));
            }
            Some(Ok(None)) => return Ok(None),
            Some(Err(e)) => return Err(store_error(e)),
            _ => {}
        }
        self.db(move |st| {
            let Some(c) = st.conversation(&k, &s)? else {
                return Ok(None);
            };
            let mut session = c.header;
            let stored = ReasoningLevel::parse(&session.reasoning_level).unwrap_or(fallback);
            if let Some(patch) = level_patch(level, stored)
                && let Some(h) = st.update_session(&k, &s, &patch)?
            {
                session = h;
            }
            Ok(Some((session, level.unwrap_or(stored), c.events)))
        })
        .await
    }

    /// The session of a target that is not a plain id.
    async fn find_or_make(
        &self,
        scope: &Scope,
        target: SessionTarget,
        level: Option<ReasoningLevel>,
    ) -> Result<SessionHeader, EngineError> {
        let level = level.unwrap_or_else(|| self.config.load().agent.reasoning_level);
        let scope = scope.clone();
        self.db(move |st| match target {
            SessionTarget::New { id: Some(id) } => create_session_as(st, &scope, id, level),
            SessionTarget::New { id: None } => create_session(st, &scope, None, level, true),
            SessionTarget::Latest => st.latest_session(&scope.key)?.ok_or_else(|| {
                seekclaw_store::StoreError::NotFound(
                    "No session to continue in this scope".to_string(),
                )
            }),
            SessionTarget::Resume(remembered) => {
                if let Some(id) = remembered
                    && let Some(h) = st.session(&scope.key, &id)?
                {
                    return Ok(h);
                }
                match st.latest_session(&scope.key)? {
                    Some(h) => Ok(h),
                    None => create_session(st, &scope, None, level, true),
                }
            }
            SessionTarget::Id(id) => st.session(&scope.key, &id)?.ok_or_else(|| {
                seekclaw_store::StoreError::NotFound(format!("Session {id} not found"))
            }),
        })
        .await
    }

    /// The reasoning level stored with a session (the config's if unreadable).
    fn stored_level(&self, session: &SessionHeader) -> ReasoningLevel {
        ReasoningLevel::parse(&session.reasoning_level)
            .unwrap_or_else(|| self.config.load().agent.reasoning_level)
    }

    /// Runs a store call off the async threads and maps its error for the wire.
    pub async fn db<T, F>(&self, f: F) -> Result<T, EngineError>
    where
        T: Send + 'static,
        F: FnOnce(&Store) -> seekclaw_store::Result<T> + Send + 'static,
    {
        let store = self.store.clone();
        tokio::task::spawn_blocking(move || f(&store))
            .await
            .map_err(|e| EngineError::internal(format!("store task failed: {e}")))?
            .map_err(store_error)
    }

    /// The model the session `target` would continue keeps for itself
    /// (`/model` in `seekclaw chat`), while the config still has it; `None`
    /// for a new session. Read before the turn's checks (a session that is
    /// not found yet is the claim's to report).
    pub(crate) async fn own_model(
        &self,
        scope: &Scope,
        target: &SessionTarget,
    ) -> Result<Option<String>, EngineError> {
        let (key, target) = (scope.key.clone(), target.clone());
        let named = target.named().map(str::to_string);
        let model = self
            .db(move |s| {
                let sid = match target {
                    SessionTarget::New { .. } => return Ok(None),
                    SessionTarget::Id(id) => Some(id),
                    SessionTarget::Latest => s.latest_session(&key)?.map(|h| h.id),
                    SessionTarget::Resume(last) => match last {
                        Some(id) if s.session(&key, &id)?.is_some() => Some(id),
                        _ => s.latest_session(&key)?.map(|h| h.id),
                    },
                };
                match sid {
                    Some(sid) => s.session_model(&key, &sid),
                    None => Ok(None),
                }
            })
            .await
            .map_err(|e| e.with_session(named))?;
        let config = self.config.load();
        Ok(model.filter(|m| seekclaw_providers::routing::resolve(&config, m, false).is_some()))
    }
}

/// The session change a turn's reasoning level asks for, if any.
fn level_patch(level: Option<ReasoningLevel>, stored: ReasoningLevel) -> Option<SessionPatch> {
    let level = level.filter(|l| *l != stored)?;
    Some(SessionPatch {
        reasoning_level: Some(level.as_str().to_string()),
        ..SessionPatch::default()
    })
}
