//! Manual compaction through the engine: the session is claimed as a turn
//! would claim it, so no turn (in this process or another) appends meanwhile.

use seekclaw_agent::{Compacted, SteerQueue, compact_session};
use seekclaw_protocol::MethodError;
use tokio_util::sync::CancellationToken;

use crate::engine::Engine;
use crate::launcher::TurnOverrides;
use crate::scope::Scope;

impl Engine {
    /// Summarizes the whole of `session_id`'s log and appends the summary;
    /// `busy` while a turn runs on it, `not_found` for an unknown session.
    /// `on_start` hears the range once the log is read, before the request.
    pub async fn compact_session(
        &self,
        scope: &Scope,
        session_id: &str,
        overrides: &TurnOverrides,
        cancel: &CancellationToken,
        on_start: impl FnOnce(u64, u64) + Send,
    ) -> Result<Compacted, MethodError> {
        let (store, key, id) = (
            self.store.clone(),
            scope.key.clone(),
            session_id.to_string(),
        );
        let header = tokio::task::spawn_blocking(move || store.session(&key, &id))
            .await
            .map_err(|e| MethodError::internal(e.to_string()))?
            .map_err(crate::error::store_error)?
            .ok_or_else(|| MethodError::not_found(format!("Session {session_id} not found")))?;
        let _claim = self.claim(&header.id, cancel, &SteerQueue::new(), &Default::default())?;
        let mut config = self.config.load();
        overrides.apply_to_config(&mut config);
        let mut runtime = crate::runtime::build_runtime(self, config, scope)?;
        overrides.apply_to_runtime(&mut runtime);
        let (store, key, id) = (self.store.clone(), scope.key.clone(), header.id.clone());
        let events = tokio::task::spawn_blocking(move || store.events(&key, &id))
            .await
            .map_err(|e| MethodError::internal(e.to_string()))?
            .map_err(crate::error::store_error)?;
        if let Some((from, to)) = seekclaw_agent::compaction_range(&events) {
            on_start(from, to);
        }
        compact_session(&runtime, &scope.key, &header.id, &events, cancel)
            .await
            .map_err(|f| {
                MethodError::new(crate::error::failure_code(f.kind), f.message)
                    .with_session(Some(header.id.clone()))
            })
    }
}
