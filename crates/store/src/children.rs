//! Child sessions: a subagent's session names the session whose turn
//! started it (`parent_id`), so listings can nest it under its parent.

use rusqlite::params;

use crate::error::Result;
use crate::model::{NewSession, SessionHeader};
use crate::sessions::create_in;
use crate::store::Store;
use crate::time::now_iso;

impl Store {
    /// Creates `s` as a child of `parent_id` (in the same scope), in one
    /// write: no reader ever sees it without its parent.
    pub fn create_child_session(&self, s: &NewSession, parent_id: &str) -> Result<SessionHeader> {
        self.write(|tx| {
            let mut header = create_in(tx, s, &now_iso())?;
            tx.prepare_cached("UPDATE sessions SET parent_id = ?3 WHERE scope = ?1 AND id = ?2")?
                .execute(params![s.scope, s.id, parent_id])?;
            header.parent_id = Some(parent_id.to_string());
            Ok(header)
        })
    }

    /// The ids of the sessions `parent_id` started, oldest first.
    pub fn child_sessions(&self, scope: &str, parent_id: &str) -> Result<Vec<String>> {
        self.read(|tx| {
            let mut stmt = tx.prepare_cached(
                "SELECT id FROM sessions WHERE scope = ?1 AND parent_id = ?2 ORDER BY pk",
            )?;
            let ids = stmt
                .query_map(params![scope, parent_id], |r| r.get(0))?
                .collect::<rusqlite::Result<Vec<String>>>()?;
            Ok(ids)
        })
    }
}

#[cfg(test)]
mod tests {
    use rusqlite::{Connection, TransactionBehavior};

    use crate::schema;
    use crate::testutil::{new_session, temp_store};

    #[test]
    fn a_child_names_its_parent_and_the_parent_lists_it() {
        let (_dir, store) = temp_store();
        store.create_session(&new_session("s", "p")).unwrap();
        let child = store
            .create_child_session(&new_session("s", "p-sr-1"), "p")
            .unwrap();
        assert_eq!(child.parent_id.as_deref(), Some("p"));
        let read = store.session("s", "p-sr-1").unwrap().unwrap();
        assert_eq!(read.parent_id.as_deref(), Some("p"));
        assert_eq!(store.session("s", "p").unwrap().unwrap().parent_id, None);
        let listed = store.list_sessions("s", false).unwrap();
        assert!(
            listed
                .iter()
                .any(|h| h.id == "p-sr-1" && h.parent_id.as_deref() == Some("p"))
        );
        assert_eq!(store.child_sessions("s", "p").unwrap(), vec!["p-sr-1"]);
        assert!(store.child_sessions("other", "p").unwrap().is_empty());
        let wire = serde_json::to_value(&read).unwrap();
        assert_eq!(wire["parentId"], "p");
        let top = serde_json::to_value(store.session("s", "p").unwrap().unwrap()).unwrap();
        assert!(
            top.get("parentId").is_none(),
            "additive: absent on a top-level session"
        );
    }

    /// A database of the release before V10 keeps its sessions, which come
    /// out top-level after the upgrade.
    #[test]
    fn the_parent_migration_upgrades_an_older_database() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("db");
        {
            let mut c = Connection::open(&path).unwrap();
            let tx = c
                .transaction_with_behavior(TransactionBehavior::Immediate)
                .unwrap();
            schema::apply_up_to(&tx, schema::LATEST_VERSION - 1).unwrap();
            tx.execute(
                "INSERT INTO sessions (scope, id, reasoning_level, network_enabled, created_at, updated_at) \
                 VALUES ('s', 'old', 'medium', 1, 't', 't')",
                [],
            )
            .unwrap();
            tx.commit().unwrap();
        }
        let store = crate::Store::open(&path).unwrap();
        let old = store.session("s", "old").unwrap().unwrap();
        assert_eq!(old.parent_id, None);
        store
            .create_child_session(&new_session("s", "old-sr-1"), "old")
            .unwrap();
        assert_eq!(store.child_sessions("s", "old").unwrap(), vec!["old-sr-1"]);
    }
}
