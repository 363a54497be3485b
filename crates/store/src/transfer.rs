//! What `seekclaw sessions` needs beyond the daemon's methods: listings with
//! turn counts and costs across scopes, finding a session by id alone, and
//! importing a whole session in one transaction.

use chrono::{DateTime, Utc};
use rusqlite::{OptionalExtension, params};

use crate::error::{Result, StoreError};
use crate::event_log::LogTarget;
use crate::items::SessionEvent;
use crate::model::{NewSession, SessionHeader};
use crate::sessions::{create_in, header_cols, header_from_row};
use crate::store::Store;
use crate::time::{format_iso, now_iso};

/// A session header with what a listing adds to it.
#[derive(Debug, Clone, PartialEq)]
pub struct ListedSession {
    /// The session's header (its `scope` says where it lives).
    pub header: SessionHeader,
    /// Turns that ended: the `terminal` events of its log (each turn gets
    /// exactly one; a turn still running is not counted yet).
    pub turns: u64,
    /// USD, summed over the provider calls recorded for its id in `usage_records`.
    pub cost: f64,
}

impl Store {
    /// Sessions of `scope` (every scope with `None`), newest first (by
    /// `updated_at`), archived ones only with `include_archived`.
    ///
    /// Costs come from `usage_records`, which name a session by id alone: two
    /// sessions with the same id in different scopes (an import of a session
    /// into a second scope of its home) share one cost.
    pub fn list_with_stats(
        &self,
        scope: Option<&str>,
        include_archived: bool,
    ) -> Result<Vec<ListedSession>> {
        self.list_recent(scope, include_archived, None)
    }

    /// [`Store::list_with_stats`], the first `limit` sessions only (a
    /// viewer's first screen).
    pub fn list_recent(
        &self,
        scope: Option<&str>,
        include_archived: bool,
        limit: Option<usize>,
    ) -> Result<Vec<ListedSession>> {
        // SQLite reads a negative LIMIT as none.
        let limit = limit.map_or(-1, |n| i64::try_from(n).unwrap_or(i64::MAX));
        self.read(|tx| {
            // `turns` and `cost` are counters kept by triggers (schema V9).
            let mut stmt = tx.prepare_cached(concat!(
                "SELECT ",
                header_cols!(),
                ", turns, cost FROM sessions s \
                 WHERE (?1 IS NULL OR scope = ?1) AND (?2 OR archived = 0) \
                 ORDER BY updated_at DESC, pk DESC LIMIT ?3"
            ))?;
            let rows = stmt
                .query_map(params![scope, include_archived, limit], |r| {
                    Ok(ListedSession {
                        header: header_from_row(r)?,
                        turns: r.get::<_, i64>(20)?.max(0) as u64,
                        cost: r.get(21)?,
                    })
                })?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            Ok(rows)
        })
    }

    /// The scopes holding a session with this id, in order.
    pub fn scopes_of_session(&self, id: &str) -> Result<Vec<String>> {
        self.read(|tx| {
            let scopes = tx
                .prepare_cached("SELECT scope FROM sessions WHERE id = ?1 ORDER BY scope")?
                .query_map([id], |r| r.get(0))?
                .collect::<rusqlite::Result<Vec<String>>>()?;
            Ok(scopes)
        })
    }

    /// Sessions whose id starts with `part` (in `scope`, else in any), as
    /// `(scope, id)` ordered by id, at most `limit`: what people type for a
    /// long id. When none starts with it, those whose id ends with it (the
    /// id's random tail).
    pub fn sessions_matching(
        &self,
        scope: Option<&str>,
        part: &str,
        limit: usize,
    ) -> Result<Vec<(String, String)>> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        self.read(|tx| {
            let mut found = Vec::new();
            for sql in [
                "SELECT scope, id FROM sessions WHERE (?1 IS NULL OR scope = ?1) \
                 AND substr(id, 1, length(?2)) = ?2 ORDER BY id, scope LIMIT ?3",
                "SELECT scope, id FROM sessions WHERE (?1 IS NULL OR scope = ?1) \
                 AND substr(id, -length(?2)) = ?2 ORDER BY id, scope LIMIT ?3",
            ] {
                found = tx
                    .prepare_cached(sql)?
                    .query_map(params![scope, part, limit], |r| Ok((r.get(0)?, r.get(1)?)))?
                    .collect::<rusqlite::Result<Vec<(String, String)>>>()?;
                if !found.is_empty() {
                    break;
                }
            }
            Ok(found)
        })
    }

    /// Creates `new` with `events` as its log, all or nothing: `Conflict` if
    /// the session exists (nothing written), `InvalidInput` unless the events'
    /// seqs run 1, 2, 3…. Events keep their `unix_ms`; their `turn` is not
    /// kept (an imported log belongs to no turn of this home). The session is
    /// titled from its first user message, as an appended log would be, and
    /// dated by its events: created at the first one's time, updated at the
    /// last one's (now for an empty log or events without a time, `ts` 0).
    /// Its usage counters start at zero: no provider call of this home served
    /// it. A non-empty `system_prompt` (the file's) is kept as the session's
    /// (see [`Store::system_prompt`]) until a turn here records its own.
    pub fn import_session(
        &self,
        new: &NewSession,
        events: &[SessionEvent],
        system_prompt: &str,
    ) -> Result<SessionHeader> {
        for (i, e) in events.iter().enumerate() {
            if e.seq != i as u64 + 1 {
                return Err(StoreError::InvalidInput(format!(
                    "event {} has seq {} (seqs must run on from 1)",
                    i + 1,
                    e.seq
                )));
            }
        }
        let now = now_iso();
        let dated = |ms: Option<i64>| {
            ms.filter(|ms| *ms > 0)
                .and_then(DateTime::<Utc>::from_timestamp_millis)
                .map(format_iso)
                .unwrap_or_else(|| now.clone())
        };
        let created = dated(events.first().map(|e| e.unix_ms));
        let updated = dated(events.iter().map(|e| e.unix_ms).max());
        self.write(|tx| {
            create_in(tx, new, &now)?;
            let target = LogTarget::find(tx, &new.scope, &new.id)?;
            target.insert(tx, None, events.iter().map(|e| (e.unix_ms, &e.item)), &now)?;
            if !system_prompt.is_empty() {
                crate::session_prompt::record_in(tx, target.pk, system_prompt)?;
            }
            let header = tx
                .prepare_cached(concat!(
                    "UPDATE sessions SET created_at = ?1, updated_at = ?2 WHERE pk = ?3 RETURNING ",
                    header_cols!()
                ))?
                .query_row(params![created, updated, target.pk], header_from_row)
                .optional()?;
            header.ok_or_else(|| StoreError::Corrupt("imported session vanished".into()))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::items::{EventItem, ImageAttachment, TerminalStatus, TurnTerminal, UserMessage};
    use crate::testutil::{new_session, temp_store, user};
    use crate::usage::UsageRecord;

    fn ev(seq: u64, unix_ms: i64, item: EventItem) -> SessionEvent {
        SessionEvent {
            seq,
            unix_ms,
            turn: None,
            item,
        }
    }

    fn finished(text: &str) -> EventItem {
        EventItem::Terminal(TurnTerminal {
            status: TerminalStatus::Finished,
            text: text.into(),
        })
    }

    #[test]
    fn an_import_keeps_the_log_and_its_times_and_is_all_or_nothing() {
        let (_dir, store) = temp_store();
        let image = EventItem::User(UserMessage {
            text: "look at this".into(),
            images: vec![ImageAttachment {
                id: "i".into(),
                name: "a.png".into(),
                media_type: "image/png".into(),
                data: "AAAA".into(),
                size_bytes: 3,
            }],
        });
        let answer = EventItem::Assistant(crate::items::AssistantMessage {
            text: "a cat".into(),
            ..Default::default()
        });
        let events = vec![
            ev(1, 1_752_000_000_000, image),
            ev(2, 1_752_000_001_000, answer),
            ev(3, 1_752_000_002_000, finished("a cat")),
        ];
        let h = store
            .import_session(&new_session("ws", "imp"), &events, "You are X.")
            .unwrap();
        assert_eq!(
            store.system_prompt("ws", "imp").unwrap().as_deref(),
            Some("You are X.")
        );
        assert_eq!(h.title.as_deref(), Some("look at this"));
        assert_eq!(h.created_at, "2025-07-08T18:40:00.0000000+00:00");
        assert_eq!(h.updated_at, "2025-07-08T18:40:02.0000000+00:00");
        assert_eq!(store.events("ws", "imp").unwrap(), events);
        // Appending afterwards follows on.
        let seq = store
            .append_event("ws", "imp", None, &user("more"))
            .unwrap();
        assert_eq!(seq, 4);

        // An existing id is a conflict, and nothing of the second log is kept.
        let before = store.stats().unwrap();
        let err = store
            .import_session(&new_session("ws", "imp"), &events, "")
            .unwrap_err();
        assert!(matches!(err, StoreError::Conflict(_)), "{err}");
        // A bad image fails the whole import: no session, no events.
        let bad = vec![
            ev(1, 0, user("fine")),
            ev(
                2,
                0,
                EventItem::User(UserMessage {
                    text: "x".into(),
                    images: vec![ImageAttachment {
                        data: "not base64!".into(),
                        ..Default::default()
                    }],
                }),
            ),
        ];
        assert!(
            store
                .import_session(&new_session("ws", "bad"), &bad, "")
                .is_err()
        );
        assert!(store.session("ws", "bad").unwrap().is_none());
        assert_eq!(store.stats().unwrap(), before);
        // Seqs must run on from 1.
        let gap = vec![ev(2, 0, user("x"))];
        assert!(matches!(
            store.import_session(&new_session("ws", "gap"), &gap, ""),
            Err(StoreError::InvalidInput(_))
        ));
        // An empty log (or one without times) is dated now.
        let h = store
            .import_session(&new_session("ws", "empty"), &[], "")
            .unwrap();
        assert_eq!(h.created_at, h.updated_at);
        assert_eq!(store.system_prompt("ws", "empty").unwrap(), None);
        let h = store.session("ws", "empty").unwrap().unwrap();
        assert_eq!(h.created_at, h.updated_at);
        assert!(h.created_at.as_str() > "2026");
    }

    #[test]
    fn listings_count_turns_and_sum_costs_across_scopes() {
        let (_dir, store) = temp_store();
        store.create_session(&new_session("a", "s1")).unwrap();
        store.create_session(&new_session("b", "s2")).unwrap();
        store
            .append_events("a", "s1", None, &[user("one"), finished("x")])
            .unwrap();
        store
            .append_events(
                "a",
                "s1",
                None,
                &[user("two"), finished("y"), user("three")],
            )
            .unwrap();
        for cost in [0.25, 0.5] {
            store
                .record_usage(&UsageRecord {
                    session_id: Some("s1".into()),
                    cost,
                    ..Default::default()
                })
                .unwrap();
        }
        let all = store.list_with_stats(None, false).unwrap();
        let ids: Vec<_> = all.iter().map(|l| l.header.id.as_str()).collect();
        assert_eq!(ids, ["s1", "s2"], "newest first");
        assert_eq!((all[0].turns, all[0].cost), (2, 0.75));
        assert_eq!((all[1].turns, all[1].cost), (0, 0.0));
        assert_eq!(all[1].header.scope, "b");
        let a = store.list_with_stats(Some("a"), false).unwrap();
        assert_eq!(a.len(), 1);
        store
            .update_session(
                "a",
                "s1",
                &crate::model::SessionPatch {
                    archived: Some(true),
                    ..Default::default()
                },
            )
            .unwrap();
        assert!(store.list_with_stats(Some("a"), false).unwrap().is_empty());
        assert_eq!(store.list_with_stats(Some("a"), true).unwrap().len(), 1);

        store.create_session(&new_session("b", "s1")).unwrap();
        assert_eq!(store.scopes_of_session("s1").unwrap(), ["a", "b"]);
        assert!(store.scopes_of_session("nope").unwrap().is_empty());

        // A part of an id: its start, else its end; per scope or in any.
        let pairs = |v: Vec<(String, String)>| -> Vec<String> {
            v.into_iter().map(|(k, id)| format!("{k}/{id}")).collect()
        };
        let found = |scope, part| pairs(store.sessions_matching(scope, part, 10).unwrap());
        assert_eq!(found(None, "s"), ["a/s1", "b/s1", "b/s2"]);
        assert_eq!(found(Some("b"), "s"), ["b/s1", "b/s2"]);
        assert_eq!(found(None, "2"), ["b/s2"], "by its end");
        assert_eq!(found(Some("a"), "s2"), Vec::<String>::new());
        assert_eq!(found(None, "%"), Vec::<String>::new(), "no wildcards");
        assert_eq!(store.sessions_matching(None, "s", 1).unwrap().len(), 1);
    }

    #[test]
    fn counters_are_backfilled_for_an_older_database() {
        use rusqlite::{Connection, TransactionBehavior};
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("seekclaw.db");
        {
            // The release before the counters (V8), with two turns and costs.
            let mut conn = Connection::open(&path).unwrap();
            let tx = conn
                .transaction_with_behavior(TransactionBehavior::Immediate)
                .unwrap();
            crate::schema::apply_up_to(&tx, 8).unwrap();
            tx.execute_batch(
                "INSERT INTO sessions (pk, scope, id, reasoning_level, created_at, updated_at) \
                     VALUES (3, 'g', 'old', 'high', 'x', 'x'); \
                 INSERT INTO session_events (session_pk, seq, kind, unix_ms, payload) VALUES \
                     (3, 1, 'terminal', 0, '{}'), (3, 2, 'user', 0, '{}'), \
                     (3, 3, 'terminal', 0, '{}'); \
                 INSERT INTO usage_records (session_id, cost) VALUES ('old', 0.5), ('old', 0.25);",
            )
            .unwrap();
            tx.commit().unwrap();
        }
        let store = Store::open(&path).unwrap();
        let listed = store.list_with_stats(None, true).unwrap();
        assert_eq!((listed[0].turns, listed[0].cost), (2, 0.75));
        // And kept in step from then on.
        store
            .append_events("g", "old", None, &[user("again"), finished("z")])
            .unwrap();
        assert_eq!(store.list_with_stats(None, true).unwrap()[0].turns, 3);
    }
}
