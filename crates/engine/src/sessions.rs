//! Sessions as the engine makes and finds them: new ids, creation in a
//! scope, the named or latest session of a scope.

use crate::error::EngineError;
use seekclaw_config::ReasoningLevel;
use seekclaw_store::{NewSession, SessionHeader, StoreError};

use crate::engine::Engine;
use crate::error::store_error;
use crate::scope::Scope;

/// A new session id: `yyyyMMdd-HHmmss-xxxxxx` (UTC, 6 lower-case hex).
pub fn new_session_id() -> String {
    let random = uuid::Uuid::new_v4();
    let b = random.as_bytes();
    format!(
        "{}-{:02x}{:02x}{:02x}",
        chrono::Utc::now().format("%Y%m%d-%H%M%S"),
        b[0],
        b[1],
        b[2]
    )
}

/// A new session of `scope` under a fresh id. Ids carry 24 random bits per
/// second, so the rare clash is retried with another.
pub fn create_session(
    store: &seekclaw_store::Store,
    scope: &Scope,
    title: Option<String>,
    level: ReasoningLevel,
    network_enabled: bool,
) -> seekclaw_store::Result<SessionHeader> {
    let mut attempt = 0;
    loop {
        let new = NewSession {
            scope: scope.key.clone(),
            id: new_session_id(),
            workspace: scope.workspace_string(),
            title: title.clone(),
            reasoning_level: level.as_str().to_string(),
            network_enabled,
        };
        match store.create_session(&new) {
            Err(StoreError::Conflict(_)) if attempt < 8 => attempt += 1,
            other => return other,
        }
    }
}

/// Creates a session with an id chosen earlier (`serve` names it in its
/// first event, before the first turn makes it); `conflict` if it exists.
pub fn create_session_as(
    store: &seekclaw_store::Store,
    scope: &Scope,
    id: String,
    level: ReasoningLevel,
) -> seekclaw_store::Result<SessionHeader> {
    store.create_session(&NewSession {
        scope: scope.key.clone(),
        id,
        workspace: scope.workspace_string(),
        title: None,
        reasoning_level: level.as_str().to_string(),
        network_enabled: true,
    })
}

impl Engine {
    /// The scope's most recently updated session (`--continue`).
    pub async fn latest(&self, scope: &Scope) -> Result<String, EngineError> {
        let (store, key) = (self.store.clone(), scope.key.clone());
        tokio::task::spawn_blocking(move || store.latest_session(&key))
            .await
            .map_err(|e| EngineError::internal(e.to_string()))?
            .map_err(store_error)?
            .map(|h| h.id)
            .ok_or_else(|| EngineError::not_found("No session to continue in this scope"))
    }

    /// The named session of `scope`, or a new one (with `new_id` if given).
    pub async fn session(
        &self,
        scope: &Scope,
        wanted: Option<String>,
        new_id: Option<String>,
    ) -> Result<SessionHeader, EngineError> {
        let level = self.config.load().agent.reasoning_level;
        let (store, scope) = (self.store.clone(), scope.clone());
        tokio::task::spawn_blocking(move || match (wanted, new_id) {
            (Some(id), _) => store.session(&scope.key, &id).map(|s| s.ok_or(id)),
            (None, Some(id)) => create_session_as(&store, &scope, id, level).map(Ok),
            (None, None) => create_session(&store, &scope, None, level, true).map(Ok),
        })
        .await
        .map_err(|e| EngineError::internal(e.to_string()))?
        .map_err(store_error)?
        .map_err(|id| EngineError::not_found(format!("Session {id} not found")))
    }
}
