//! Forking a session at one of its user messages: a new session holding
//! the events before it, which names where it came from.

use rusqlite::{OptionalExtension, params};

use crate::error::{Result, StoreError};
use crate::model::{NewSession, SessionHeader};
use crate::sessions::{create_in, header_cols, header_from_row, not_found};
use crate::store::Store;
use crate::time::now_iso;

/// The source session's row key and what a fork takes over from it:
/// workspace, title, reasoning level, network.
type Source = (i64, Option<String>, Option<String>, String, bool);

impl Store {
    /// Makes session `to` from the events of `from` before its user message
    /// at `seq`, with `forkedFrom {from, seq}`. The caller checked that
    /// `seq` is a user message.
    pub fn fork_session(
        &self,
        scope: &str,
        from: &str,
        seq: u64,
        to: &str,
    ) -> Result<SessionHeader> {
        self.write(|tx| {
            let source: Option<Source> = tx
                .prepare_cached(
                    "SELECT pk, workspace, title, reasoning_level, network_enabled \
                     FROM sessions WHERE scope = ?1 AND id = ?2",
                )?
                .query_row(params![scope, from], |r| {
                    Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
                })
                .optional()?;
            let Some((source_pk, workspace, title, reasoning_level, network_enabled)) = source
            else {
                return Err(not_found(scope, from));
            };
            let short: String = from.chars().take(8).collect();
            let title = Some(match title {
                Some(t) => format!("{t} (fork)"),
                None => format!("Fork of {short}"),
            });
            create_in(
                tx,
                &NewSession {
                    scope: scope.to_string(),
                    id: to.to_string(),
                    workspace,
                    title,
                    reasoning_level,
                    network_enabled,
                },
                &now_iso(),
            )?;
            tx.execute(
                "UPDATE sessions SET forked_from = ?1, forked_at = ?2 WHERE scope = ?3 AND id = ?4",
                params![from, seq as i64, scope, to],
            )?;
            let pk: i64 = tx.query_row(
                "SELECT pk FROM sessions WHERE scope = ?1 AND id = ?2",
                params![scope, to],
                |r| r.get(0),
            )?;
            tx.execute(
                "INSERT INTO session_events (session_pk, seq, kind, turn, unix_ms, payload) \
                 SELECT ?1, seq, kind, turn, unix_ms, payload FROM session_events \
                 WHERE session_pk = ?2 AND seq < ?3",
                params![pk, source_pk, seq as i64],
            )?;
            tx.execute(
                "INSERT INTO blob_refs (session_pk, seq, hash) \
                 SELECT ?1, seq, hash FROM blob_refs WHERE session_pk = ?2 AND seq < ?3",
                params![pk, source_pk, seq as i64],
            )?;
            tx.query_row(
                concat!("SELECT ", header_cols!(), " FROM sessions WHERE pk = ?1"),
                [pk],
                header_from_row,
            )
            .map_err(StoreError::from)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::items::{EventItem, UserMessage};

    #[test]
    fn a_fork_holds_the_events_before_the_message_and_names_its_source() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("s.db")).unwrap();
        store
            .create_session(&NewSession {
                scope: "g".into(),
                id: "a".into(),
                workspace: None,
                title: Some("T".into()),
                reasoning_level: "auto".into(),
                network_enabled: false,
            })
            .unwrap();
        for text in ["one", "two", "three"] {
            let item = EventItem::User(UserMessage {
                text: text.into(),
                images: vec![],
            });
            store.append_event("g", "a", None, &item).unwrap();
        }
        let fork = store.fork_session("g", "a", 2, "b").unwrap();
        let from = fork.forked_from.unwrap();
        assert_eq!((from.session_id.as_str(), from.seq), ("a", 2));
        assert_eq!(fork.title.as_deref(), Some("T (fork)"));
        let events = store.events("g", "b").unwrap();
        assert_eq!(events.len(), 1);
        let listed = store.list_sessions("g", false).unwrap();
        assert!(
            listed
                .iter()
                .any(|s| s.id == "b" && s.forked_from.is_some())
        );
    }
}
