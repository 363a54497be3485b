//! Manual compaction through the engine: the session is claimed as a turn
//! would claim it, so no turn (in this process or another) appends meanwhile.

use crate::error::EngineError;
use seekclaw_agent::{Compacted, SteerQueue, compact_session};
use seekclaw_store::{EventItem, Summary};
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
    ) -> Result<Compacted, EngineError> {
        let (store, key, id) = (
            self.store.clone(),
            scope.key.clone(),
            session_id.to_string(),
        );
        let header = tokio::task::spawn_blocking(move || store.session(&key, &id))
            .await
            .map_err(|e| EngineError::internal(e.to_string()))?
            .map_err(crate::error::store_error)?
            .ok_or_else(|| EngineError::not_found(format!("Session {session_id} not found")))?;
        let _claim = self.claim(&header.id, cancel, &SteerQueue::new(), &Default::default())?;
        let mut config = self.config.load();
        overrides.apply_to_config(&mut config);
        let mut runtime = crate::runtime::build_runtime(self, config, scope)?;
        overrides.apply_to_runtime(&mut runtime);
        let (store, key, id) = (self.store.clone(), scope.key.clone(), header.id.clone());
        let events = tokio::task::spawn_blocking(move || store.events(&key, &id))
            .await
            .map_err(|e| EngineError::internal(e.to_string()))?
            .map_err(crate::error::store_error)?;
        if let Some((from, to)) = seekclaw_agent::compaction_range(&events) {
            self.fire_idle(
                scope,
                &header.id,
                seekclaw_policy::HookEvent::PreCompact,
                &["manual"],
                &[
                    ("trigger", serde_json::Value::from("manual")),
                    ("custom_instructions", serde_json::Value::from("")),
                ],
            )
            .await;
            on_start(from, to);
        }
        compact_session(&runtime, &scope.key, &header.id, &events, cancel)
            .await
            .map_err(|f| EngineError::from_failure(f).with_session(Some(header.id.clone())))
    }
}

/// A summary the user wrote, appended by [`Engine::append_summary`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AppendedSummary {
    /// The summary's own sequence number (the log's last event now).
    pub seq: u64,
}

impl Engine {
    /// Appends `text` as a summary of events `from..=to` of `session_id`, no
    /// model involved (OpenSeek's `sessions compact --file`). The session is
    /// held as a turn would hold it (`busy` while one runs, here or in
    /// another process) and the range is checked against the log under that
    /// hold: `invalid_request` when it is out of the log or parts a tool call
    /// from its result, or when `text` is blank.
    pub async fn append_summary(
        &self,
        scope_key: &str,
        session_id: &str,
        text: String,
        from: u64,
        to: u64,
    ) -> Result<AppendedSummary, EngineError> {
        if text.trim().is_empty() {
            return Err(EngineError::invalid("the summary is empty"));
        }
        let _claim = self.hold_idle(session_id)?;
        let (store, key, id) = (
            self.store.clone(),
            scope_key.to_string(),
            session_id.to_string(),
        );
        tokio::task::spawn_blocking(move || {
            let events = store
                .conversation(&key, &id)
                .map_err(crate::error::store_error)?
                .ok_or_else(|| EngineError::not_found(format!("Session {id} not found")))?
                .events;
            if let Some(why) = seekclaw_store::summary_range_error(&events, from, to) {
                return Err(EngineError::invalid(why).with_session(Some(id)));
            }
            let summary = EventItem::Summary(Summary {
                text,
                from_seq: from,
                to_seq: to,
            });
            let seq = store
                .append_event(&key, &id, None, &summary)
                .map_err(crate::error::store_error)?;
            Ok(AppendedSummary { seq })
        })
        .await
        .map_err(|e| EngineError::internal(e.to_string()))?
    }
}
