//! Session rows: create, read, list, patch, delete, usage counters and the
//! active-turn marker.

use rusqlite::{Connection, OptionalExtension, Row, params};
use serde::Serialize;

use crate::blobs;
use crate::error::{Result, StoreError};
use crate::model::{ForkedFrom, NewSession, SessionHeader, SessionPatch};
use crate::store::Store;
use crate::time::now_iso;

/// Columns read into a [`SessionHeader`], in [`header_from_row`] order.
macro_rules! header_cols {
    () => {
        "id, title, workspace, archived, reasoning_level, network_enabled, llm_rounds, \
         execution_steps, input_tokens, total_input_tokens, cached_input_tokens, output_tokens, \
         output_elapsed_ms, created_at, updated_at, scope, active_turn, parent_id, forked_from, forked_at"
    };
}
pub(crate) use header_cols;

pub(crate) fn header_from_row(r: &Row<'_>) -> rusqlite::Result<SessionHeader> {
    // One reading of the columns: the borrowed row, then owned.
    HeaderRow::from_row(r).map(|h| h.to_header())
}

/// A header borrowed straight from its SQLite row: serializes exactly like
/// [`SessionHeader`] without allocating, for streaming large lists.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HeaderRow<'a> {
    /// See [`SessionHeader::id`].
    pub id: &'a str,
    /// See [`SessionHeader::title`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<&'a str>,
    /// See [`SessionHeader::workspace`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workspace: Option<&'a str>,
    /// See [`SessionHeader::archived`].
    pub archived: bool,
    /// See [`SessionHeader::reasoning_level`].
    pub reasoning_level: &'a str,
    /// See [`SessionHeader::network_enabled`].
    pub network_enabled: bool,
    /// See [`SessionHeader::llm_rounds`].
    pub llm_rounds: i64,
    /// See [`SessionHeader::execution_steps`].
    pub execution_steps: i64,
    /// See [`SessionHeader::input_tokens`].
    pub input_tokens: i64,
    /// See [`SessionHeader::total_input_tokens`].
    pub total_input_tokens: i64,
    /// See [`SessionHeader::cached_input_tokens`].
    pub cached_input_tokens: i64,
    /// See [`SessionHeader::output_tokens`].
    pub output_tokens: i64,
    /// See [`SessionHeader::output_elapsed_ms`].
    pub output_elapsed_ms: i64,
    /// See [`SessionHeader::created_at`].
    pub created_at: &'a str,
    /// See [`SessionHeader::updated_at`].
    pub updated_at: &'a str,
    /// See [`SessionHeader::parent_id`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent_id: Option<&'a str>,
    /// See [`SessionHeader::forked_from`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub forked_from: Option<ForkedFromRef<'a>>,
    /// See [`SessionHeader::scope`].
    #[serde(skip)]
    pub scope: &'a str,
    /// See [`SessionHeader::active_turn`].
    #[serde(skip)]
    pub active_turn: Option<&'a str>,
}

/// See [`ForkedFrom`], borrowed.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ForkedFromRef<'a> {
    /// See [`ForkedFrom::session_id`].
    pub session_id: &'a str,
    /// See [`ForkedFrom::seq`].
    pub seq: u64,
}

impl HeaderRow<'_> {
    fn from_row<'r>(r: &'r Row<'_>) -> rusqlite::Result<HeaderRow<'r>> {
        let text = |i: usize| -> rusqlite::Result<&'r str> {
            r.get_ref(i)?.as_str().map_err(|e| {
                rusqlite::Error::FromSqlConversionFailure(
                    i,
                    rusqlite::types::Type::Text,
                    Box::new(e),
                )
            })
        };
        let opt_text = |i: usize| -> rusqlite::Result<Option<&'r str>> {
            r.get_ref(i)?.as_str_or_null().map_err(|e| {
                rusqlite::Error::FromSqlConversionFailure(
                    i,
                    rusqlite::types::Type::Text,
                    Box::new(e),
                )
            })
        };
        Ok(HeaderRow {
            id: text(0)?,
            title: opt_text(1)?,
            workspace: opt_text(2)?,
            archived: r.get(3)?,
            reasoning_level: text(4)?,
            network_enabled: r.get(5)?,
            llm_rounds: r.get(6)?,
            execution_steps: r.get(7)?,
            input_tokens: r.get(8)?,
            total_input_tokens: r.get(9)?,
            cached_input_tokens: r.get(10)?,
            output_tokens: r.get(11)?,
            output_elapsed_ms: r.get(12)?,
            created_at: text(13)?,
            updated_at: text(14)?,
            scope: text(15)?,
            active_turn: opt_text(16)?,
            parent_id: opt_text(17)?,
            forked_from: match (opt_text(18)?, r.get::<_, Option<i64>>(19)?) {
                (Some(session_id), Some(seq)) => Some(ForkedFromRef {
                    session_id,
                    seq: seq as u64,
                }),
                _ => None,
            },
        })
    }

    /// The owned header.
    pub fn to_header(&self) -> SessionHeader {
        SessionHeader {
            id: self.id.to_string(),
            title: self.title.map(str::to_string),
            workspace: self.workspace.map(str::to_string),
            archived: self.archived,
            reasoning_level: self.reasoning_level.to_string(),
            network_enabled: self.network_enabled,
            llm_rounds: self.llm_rounds,
            execution_steps: self.execution_steps,
            input_tokens: self.input_tokens,
            total_input_tokens: self.total_input_tokens,
            cached_input_tokens: self.cached_input_tokens,
            output_tokens: self.output_tokens,
            output_elapsed_ms: self.output_elapsed_ms,
            created_at: self.created_at.to_string(),
            updated_at: self.updated_at.to_string(),
            parent_id: self.parent_id.map(str::to_string),
            forked_from: self.forked_from.as_ref().map(|f| ForkedFrom {
                session_id: f.session_id.to_string(),
                seq: f.seq,
            }),
            scope: self.scope.to_string(),
            active_turn: self.active_turn.map(str::to_string),
        }
    }
}

pub(crate) fn not_found(scope: &str, id: &str) -> StoreError {
    StoreError::NotFound(format!("session {id} (scope {scope})"))
}

/// The row key of a session, or `NotFound`.
pub(crate) fn session_pk(conn: &Connection, scope: &str, id: &str) -> Result<i64> {
    conn.prepare_cached("SELECT pk FROM sessions WHERE scope = ?1 AND id = ?2")?
        .query_row(params![scope, id], |r| r.get(0))
        .optional()?
        .ok_or_else(|| not_found(scope, id))
}

impl Store {
    /// Creates a session; `Conflict` if `(scope, id)` already exists.
    pub fn create_session(&self, s: &NewSession) -> Result<SessionHeader> {
        self.write(|tx| create_in(tx, s, &now_iso()))
    }

    /// The header of a session, if it exists.
    pub fn session(&self, scope: &str, id: &str) -> Result<Option<SessionHeader>> {
        self.read(|tx| {
            let header = tx
                .prepare_cached(concat!(
                    "SELECT ",
                    header_cols!(),
                    " FROM sessions WHERE scope = ?1 AND id = ?2"
                ))?
                .query_row(params![scope, id], header_from_row)
                .optional()?;
            Ok(header)
        })
    }

    /// Sessions of one scope, most recently updated first.
    pub fn list_sessions(&self, scope: &str, include_archived: bool) -> Result<Vec<SessionHeader>> {
        let mut all = Vec::new();
        self.for_each_session(scope, include_archived, |h| {
            all.push(h.to_header());
            Ok(())
        })?;
        Ok(all)
    }

    /// Streams the headers of a scope, newest first, to `visit` without collecting
    /// them (a 10,000-session list is encoded as it is read).
    pub fn for_each_session(
        &self,
        scope: &str,
        include_archived: bool,
        mut visit: impl FnMut(&HeaderRow<'_>) -> Result<()>,
    ) -> Result<()> {
        self.read(|tx| {
            // Two statements so each walks an index in order (no sort of 10k rows).
            let mut stmt = if include_archived {
                tx.prepare_cached(concat!(
                    "SELECT ",
                    header_cols!(),
                    " FROM sessions INDEXED BY sessions_scope_updated WHERE scope = ?1 \
                     ORDER BY updated_at DESC"
                ))?
            } else {
                tx.prepare_cached(concat!(
                    "SELECT ",
                    header_cols!(),
                    " FROM sessions INDEXED BY sessions_scope_recent WHERE scope = ?1 AND archived = 0 \
                     ORDER BY updated_at DESC"
                ))?
            };
            let mut rows = stmt.query(params![scope])?;
            while let Some(row) = rows.next()? {
                visit(&HeaderRow::from_row(row)?)?;
            }
            Ok(())
        })
    }

    /// The most recently updated non-archived session of a scope.
    pub fn latest_session(&self, scope: &str) -> Result<Option<SessionHeader>> {
        self.read(|tx| {
            let header = tx
                .prepare_cached(concat!(
                    "SELECT ",
                    header_cols!(),
                    " FROM sessions WHERE scope = ?1 AND archived = 0 \
                     ORDER BY updated_at DESC, pk DESC LIMIT 1"
                ))?
                .query_row(params![scope], header_from_row)
                .optional()?;
            Ok(header)
        })
    }

    /// Applies a patch and bumps `updated_at`; `None` if the session is
    /// missing.
    pub fn update_session(
        &self,
        scope: &str,
        id: &str,
        patch: &SessionPatch,
    ) -> Result<Option<SessionHeader>> {
        self.write(|tx| {
            let header = tx
                .prepare_cached(concat!(
                    "UPDATE sessions SET \
                     title = CASE WHEN ?1 THEN ?2 ELSE title END, \
                     reasoning_level = COALESCE(?3, reasoning_level), \
                     network_enabled = COALESCE(?4, network_enabled), \
                     archived = COALESCE(?5, archived), \
                     updated_at = ?6 \
                     WHERE scope = ?7 AND id = ?8 RETURNING ",
                    header_cols!()
                ))?
                .query_row(
                    params![
                        patch.title.is_some(),
                        patch.title.clone().flatten(),
                        patch.reasoning_level,
                        patch.network_enabled,
                        patch.archived,
                        now_iso(),
                        scope,
                        id
                    ],
                    header_from_row,
                )
                .optional()?;
            Ok(header)
        })
    }

    /// Deletes a session and (by cascade) its events; `false` if missing.
    pub fn delete_session(&self, scope: &str, id: &str) -> Result<bool> {
        self.write(|tx| {
            let hashes = tx
                .prepare_cached(
                    "SELECT DISTINCT r.hash FROM blob_refs r JOIN sessions s ON s.pk = r.session_pk \
                     WHERE s.scope = ?1 AND s.id = ?2",
                )?
                .query_map(params![scope, id], |r| r.get(0))?
                .collect::<rusqlite::Result<Vec<String>>>()?;
            let deleted = tx
                .prepare_cached("DELETE FROM sessions WHERE scope = ?1 AND id = ?2")?
                .execute(params![scope, id])?;
            blobs::drop_unreferenced(tx, &hashes)?;
            crate::session_prompt::drop_unused(tx)?;
            Ok(deleted > 0)
        })
    }

    /// Deletes every session of a scope; returns how many.
    pub fn delete_scope(&self, scope: &str) -> Result<usize> {
        self.write(|tx| {
            let hashes = tx
                .prepare_cached(
                    "SELECT DISTINCT r.hash FROM blob_refs r JOIN sessions s ON s.pk = r.session_pk \
                     WHERE s.scope = ?1",
                )?
                .query_map(params![scope], |r| r.get(0))?
                .collect::<rusqlite::Result<Vec<String>>>()?;
            let deleted = tx
                .prepare_cached("DELETE FROM sessions WHERE scope = ?1")?
                .execute(params![scope])?;
            blobs::drop_unreferenced(tx, &hashes)?;
            crate::session_prompt::drop_unused(tx)?;
            Ok(deleted)
        })
    }

    /// Marks (or with `None` clears) the turn running on a session. Outside
    /// tests a mark changes only together with the log (`open_turn`,
    /// `close_turn`, `interrupt_turn`), so no turn loses its terminal.
    #[cfg(test)]
    pub(crate) fn set_active_turn(&self, scope: &str, id: &str, owner: Option<&str>) -> Result<()> {
        self.write(|tx| set_active_turn_in(tx, scope, id, owner))
    }

    /// `(scope, id, owner)` of every session with an active turn (uses the
    /// partial index, so it is cheap at startup).
    pub fn sessions_with_active_turn(&self) -> Result<Vec<(String, String, String)>> {
        self.read(|tx| {
            let mut stmt = tx.prepare_cached(
                "SELECT scope, id, active_turn FROM sessions WHERE active_turn IS NOT NULL \
                 ORDER BY scope, id",
            )?;
            let rows = stmt
                .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            Ok(rows)
        })
    }
}

/// [`Store::create_session`] inside a write transaction, created and updated `now`.
pub(crate) fn create_in(
    tx: &rusqlite::Transaction<'_>,
    s: &NewSession,
    now: &str,
) -> Result<SessionHeader> {
    let inserted = tx
        .prepare_cached(
            "INSERT INTO sessions (scope, id, workspace, title, reasoning_level, \
                 network_enabled, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7) \
                 ON CONFLICT (scope, id) DO NOTHING",
        )?
        .execute(params![
            s.scope,
            s.id,
            s.workspace,
            s.title,
            s.reasoning_level,
            s.network_enabled,
            now
        ])?;
    if inserted == 0 {
        return Err(StoreError::Conflict(format!(
            "session {} already exists",
            s.id
        )));
    }
    Ok(SessionHeader {
        id: s.id.clone(),
        title: s.title.clone(),
        workspace: s.workspace.clone(),
        archived: false,
        reasoning_level: s.reasoning_level.clone(),
        network_enabled: s.network_enabled,
        llm_rounds: 0,
        execution_steps: 0,
        input_tokens: 0,
        total_input_tokens: 0,
        cached_input_tokens: 0,
        output_tokens: 0,
        output_elapsed_ms: 0,
        created_at: now.to_string(),
        updated_at: now.to_string(),
        parent_id: None,
        forked_from: None,
        scope: s.scope.clone(),
        active_turn: None,
    })
}

/// [`Store::set_active_turn`] inside a write transaction.
#[cfg(test)]
pub(crate) fn set_active_turn_in(
    tx: &rusqlite::Transaction<'_>,
    scope: &str,
    id: &str,
    owner: Option<&str>,
) -> Result<()> {
    let n = tx
        .prepare_cached("UPDATE sessions SET active_turn = ?1 WHERE scope = ?2 AND id = ?3")?
        .execute(params![owner, scope, id])?;
    if n == 0 {
        return Err(not_found(scope, id));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{new_session, temp_store};

    #[test]
    fn create_get_and_conflict() {
        let (_dir, store) = temp_store();
        let mut s = new_session("scopeA", "s1");
        s.workspace = Some("/w".into());
        let h = store.create_session(&s).unwrap();
        assert_eq!(h.id, "s1");
        assert_eq!(h.workspace.as_deref(), Some("/w"));
        assert_eq!(h.created_at, h.updated_at);
        let got = store.session("scopeA", "s1").unwrap().unwrap();
        assert_eq!(got, h);
        assert!(store.session("scopeB", "s1").unwrap().is_none());
        assert!(matches!(
            store.create_session(&s),
            Err(StoreError::Conflict(_))
        ));
        // Same id in another scope is a different session.
        store.create_session(&new_session("scopeB", "s1")).unwrap();
    }

    #[test]
    fn header_serializes_in_wire_order_leaving_out_what_is_unset() {
        let (_dir, store) = temp_store();
        let h = store.create_session(&new_session("g", "s1")).unwrap();
        let json = serde_json::to_string(&h).unwrap();
        let expected = format!(
            r#"{{"id":"s1","archived":false,"reasoningLevel":"high","networkEnabled":true,"llmRounds":0,"executionSteps":0,"inputTokens":0,"totalInputTokens":0,"cachedInputTokens":0,"outputTokens":0,"outputElapsedMs":0,"createdAt":"{0}","updatedAt":"{0}"}}"#,
            h.created_at
        );
        assert_eq!(json, expected);
        // The streamed row serializes the same way.
        let mut rows = Vec::new();
        store
            .for_each_session("g", false, |row| {
                rows.push(serde_json::to_string(row).unwrap());
                Ok(())
            })
            .unwrap();
        assert_eq!(rows, [expected]);
    }

    #[test]
    fn list_is_scoped_ordered_and_filters_archived() {
        let (_dir, store) = temp_store();
        for id in ["a", "b", "c"] {
            store.create_session(&new_session("one", id)).unwrap();
        }
        store.create_session(&new_session("two", "x")).unwrap();
        let ids = |v: Vec<SessionHeader>| v.into_iter().map(|h| h.id).collect::<Vec<_>>();
        assert_eq!(
            ids(store.list_sessions("one", false).unwrap()),
            ["c", "b", "a"]
        );
        assert_eq!(ids(store.list_sessions("two", true).unwrap()), ["x"]);
        assert!(store.list_sessions("three", true).unwrap().is_empty());

        // Touching "a" moves it to the front; archiving "c" hides it.
        let patch = SessionPatch {
            title: Some(Some("A".into())),
            ..Default::default()
        };
        store.update_session("one", "a", &patch).unwrap().unwrap();
        let archive = SessionPatch {
            archived: Some(true),
            ..Default::default()
        };
        store.update_session("one", "c", &archive).unwrap().unwrap();
        assert_eq!(ids(store.list_sessions("one", false).unwrap()), ["a", "b"]);
        assert_eq!(
            ids(store.list_sessions("one", true).unwrap()),
            ["c", "a", "b"]
        );
        assert_eq!(store.latest_session("one").unwrap().unwrap().id, "a");
        assert_eq!(store.latest_session("two").unwrap().unwrap().id, "x");
        assert!(store.latest_session("none").unwrap().is_none());
    }

    #[test]
    fn patch_semantics() {
        let (_dir, store) = temp_store();
        let mut s = new_session("g", "s");
        s.title = Some("original".into());
        let created = store.create_session(&s).unwrap();

        let none = store
            .update_session("g", "s", &SessionPatch::default())
            .unwrap()
            .unwrap();
        assert_eq!(none.title.as_deref(), Some("original"));
        assert!(none.updated_at > created.updated_at);

        let p = SessionPatch {
            reasoning_level: Some("ultra".into()),
            network_enabled: Some(false),
            archived: Some(true),
            ..Default::default()
        };
        let h = store.update_session("g", "s", &p).unwrap().unwrap();
        assert_eq!(h.title.as_deref(), Some("original"));
        assert_eq!(h.reasoning_level, "ultra");
        assert!(!h.network_enabled);
        assert!(h.archived);

        let clear = SessionPatch {
            title: Some(None),
            ..Default::default()
        };
        let h = store.update_session("g", "s", &clear).unwrap().unwrap();
        assert_eq!(h.title, None);
        assert_eq!(h.reasoning_level, "ultra");
        assert_eq!(store.session("g", "s").unwrap().unwrap(), h);

        assert!(
            store
                .update_session("g", "missing", &clear)
                .unwrap()
                .is_none()
        );
        assert!(
            store
                .update_session("other", "s", &clear)
                .unwrap()
                .is_none()
        );
    }

    #[test]
    fn delete_and_delete_scope() {
        let (_dir, store) = temp_store();
        for id in ["a", "b"] {
            store.create_session(&new_session("one", id)).unwrap();
        }
        store.create_session(&new_session("two", "a")).unwrap();
        assert!(store.delete_session("one", "a").unwrap());
        assert!(!store.delete_session("one", "a").unwrap());
        assert!(store.session("two", "a").unwrap().is_some());
        store.create_session(&new_session("one", "c")).unwrap();
        assert_eq!(store.delete_scope("one").unwrap(), 2);
        assert_eq!(store.delete_scope("one").unwrap(), 0);
        assert_eq!(store.stats().unwrap().sessions, 1);
    }

    #[test]
    fn active_turn_set_list_clear() {
        let (_dir, store) = temp_store();
        store.create_session(&new_session("g", "a")).unwrap();
        store.create_session(&new_session("w", "b")).unwrap();
        assert!(store.sessions_with_active_turn().unwrap().is_empty());
        store.set_active_turn("g", "a", Some("turn-1")).unwrap();
        store.set_active_turn("w", "b", Some("turn-2")).unwrap();
        assert_eq!(
            store.sessions_with_active_turn().unwrap(),
            [
                ("g".to_string(), "a".to_string(), "turn-1".to_string()),
                ("w".to_string(), "b".to_string(), "turn-2".to_string()),
            ]
        );
        let h = store.session("g", "a").unwrap().unwrap();
        assert_eq!(h.active_turn.as_deref(), Some("turn-1"));
        assert!(!serde_json::to_string(&h).unwrap().contains("turn-1"));
        store.set_active_turn("g", "a", None).unwrap();
        assert_eq!(store.sessions_with_active_turn().unwrap().len(), 1);
        assert!(matches!(
            store.set_active_turn("g", "zz", None),
            Err(StoreError::NotFound(_))
        ));
    }

    #[test]
    fn borrowed_rows_serialize_like_owned_headers() {
        let (_d, s) = temp_store();
        s.create_session(&new_session("global", "a")).unwrap();
        s.create_session(&new_session("global", "b")).unwrap();
        let patch = SessionPatch {
            title: Some(Some("T \"q\"".into())),
            ..SessionPatch::default()
        };
        s.update_session("global", "b", &patch).unwrap();
        let owned = s.list_sessions("global", false).unwrap();
        let mut streamed = Vec::new();
        s.for_each_session("global", false, |h| {
            streamed.push(serde_json::to_value(h)?);
            Ok(())
        })
        .unwrap();
        assert_eq!(
            serde_json::to_value(&owned).unwrap(),
            serde_json::Value::Array(streamed)
        );
        assert_eq!(owned[0].id, "b", "newest first");
        assert_eq!(owned[0].scope, "global");
    }
}
