//! The model a session's turns use, when the user chose one for it (over
//! the config's active model, which every other session keeps).

use rusqlite::{OptionalExtension, params};

use crate::error::{Result, StoreError};
use crate::store::Store;

impl Store {
    /// The session's own model (`provider/model`), `None` when it has none.
    pub fn session_model(&self, scope: &str, id: &str) -> Result<Option<String>> {
        self.read(|tx| {
            Ok(tx
                .prepare_cached(
                    "SELECT m.model FROM session_models m \
                     JOIN sessions s ON s.pk = m.session_pk WHERE s.scope = ?1 AND s.id = ?2",
                )?
                .query_row(params![scope, id], |r| r.get(0))
                .optional()?)
        })
    }

    /// Sets (or, with `None`, clears) the session's model. Fails with
    /// `NotFound` when the session does not exist.
    pub fn set_session_model(&self, scope: &str, id: &str, model: Option<&str>) -> Result<()> {
        self.write(|tx| {
            let pk: i64 = tx
                .prepare_cached("SELECT pk FROM sessions WHERE scope = ?1 AND id = ?2")?
                .query_row(params![scope, id], |r| r.get(0))
                .optional()?
                .ok_or_else(|| StoreError::NotFound(format!("session {id}")))?;
            match model {
                Some(m) => tx
                    .prepare_cached(
                        "INSERT INTO session_models (session_pk, model) VALUES (?1, ?2) \
                         ON CONFLICT (session_pk) DO UPDATE SET model = excluded.model",
                    )?
                    .execute(params![pk, m])?,
                None => tx
                    .prepare_cached("DELETE FROM session_models WHERE session_pk = ?1")?
                    .execute(params![pk])?,
            };
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::{StoreError, testutil};

    #[test]
    fn a_session_keeps_its_model_until_cleared_or_deleted() {
        let (_dir, store) = testutil::temp_store();
        store
            .create_session(&testutil::new_session("ws", "s1"))
            .unwrap();
        assert_eq!(store.session_model("ws", "s1").unwrap(), None);
        store.set_session_model("ws", "s1", Some("a/m1")).unwrap();
        store.set_session_model("ws", "s1", Some("b/m2")).unwrap();
        assert_eq!(
            store.session_model("ws", "s1").unwrap().as_deref(),
            Some("b/m2")
        );
        assert_eq!(store.session_model("other", "s1").unwrap(), None);
        store.set_session_model("ws", "s1", None).unwrap();
        assert_eq!(store.session_model("ws", "s1").unwrap(), None);
        assert!(matches!(
            store.set_session_model("ws", "nope", Some("a/m1")),
            Err(StoreError::NotFound(_))
        ));
        store.set_session_model("ws", "s1", Some("a/m1")).unwrap();
        assert!(store.delete_session("ws", "s1").unwrap());
        assert_eq!(store.session_model("ws", "s1").unwrap(), None);
    }
}
