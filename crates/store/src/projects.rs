//! Registered projects, deduplicated by their normalized path key.

use rusqlite::{OptionalExtension, Row, params};

use crate::error::{Result, StoreError};
use crate::model::Project;
use crate::store::Store;
use crate::time::now_iso;

fn project_from_row(r: &Row<'_>) -> rusqlite::Result<Project> {
    Ok(Project {
        id: r.get(0)?,
        path: r.get(1)?,
        name: r.get(2)?,
        created_at: r.get::<_, Option<String>>(3)?.unwrap_or_default(),
        updated_at: r.get::<_, Option<String>>(4)?.unwrap_or_default(),
    })
}

impl Store {
    /// Registers a project. If one with the same `path_key` exists it keeps
    /// its own id; its path spelling and name are replaced and `updated_at`
    /// bumped. A new project whose `id` is taken by another path is a
    /// `Conflict`.
    pub fn upsert_project(
        &self,
        id: &str,
        path: &str,
        path_key: &str,
        name: &str,
    ) -> Result<Project> {
        self.write(|tx| {
            let now = now_iso();
            let updated = tx
                .prepare_cached(
                    "UPDATE projects SET path = ?1, name = ?2, updated_at = ?3 WHERE path_key = ?4 \
                     RETURNING id, path, name, created_at, updated_at",
                )?
                .query_row(params![path, name, now, path_key], project_from_row)
                .optional()?;
            if let Some(p) = updated {
                return Ok(p);
            }
            let inserted = tx
                .prepare_cached(
                    "INSERT INTO projects (id, path, path_key, name, created_at, updated_at) \
                     VALUES (?1, ?2, ?3, ?4, ?5, ?5) ON CONFLICT (id) DO NOTHING",
                )?
                .execute(params![id, path, path_key, name, now])?;
            if inserted == 0 {
                return Err(StoreError::Conflict(format!(
                    "project id {id} is already used by another path"
                )));
            }
            Ok(Project {
                id: id.to_string(),
                path: path.to_string(),
                name: name.to_string(),
                created_at: now.clone(),
                updated_at: now,
            })
        })
    }

    /// All projects, most recently updated first, then by name.
    pub fn list_projects(&self) -> Result<Vec<Project>> {
        self.read(|tx| {
            let mut stmt = tx.prepare_cached(
                "SELECT id, path, name, created_at, updated_at FROM projects \
                 ORDER BY updated_at DESC, name",
            )?;
            let rows = stmt
                .query_map([], project_from_row)?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            Ok(rows)
        })
    }

    /// The project with this id, if registered.
    pub fn project(&self, id: &str) -> Result<Option<Project>> {
        self.read(|tx| {
            let p = tx
                .prepare_cached(
                    "SELECT id, path, name, created_at, updated_at FROM projects WHERE id = ?1",
                )?
                .query_row([id], project_from_row)
                .optional()?;
            Ok(p)
        })
    }

    /// Removes a project row (not its sessions); `false` if missing.
    pub fn remove_project(&self, id: &str) -> Result<bool> {
        self.write(|tx| {
            let n = tx
                .prepare_cached("DELETE FROM projects WHERE id = ?1")?
                .execute([id])?;
            Ok(n > 0)
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::error::StoreError;
    use crate::testutil::temp_store;

    #[test]
    fn upsert_dedupes_by_path_key_and_keeps_id() {
        let (_dir, store) = temp_store();
        let a = store
            .upsert_project("id-a", "/src/App", "/src/app", "App")
            .unwrap();
        assert_eq!(a.id, "id-a");
        assert_eq!(a.created_at, a.updated_at);
        let again = store
            .upsert_project("id-new", "/SRC/app", "/src/app", "Renamed")
            .unwrap();
        assert_eq!(again.id, "id-a");
        assert_eq!(again.name, "Renamed");
        assert_eq!(again.path, "/SRC/app");
        assert_eq!(again.created_at, a.created_at);
        assert!(again.updated_at > a.updated_at);
        assert_eq!(store.list_projects().unwrap().len(), 1);
        assert_eq!(store.project("id-a").unwrap().unwrap(), again);
        assert!(store.project("id-new").unwrap().is_none());
    }

    #[test]
    fn id_taken_by_other_path_is_conflict() {
        let (_dir, store) = temp_store();
        store.upsert_project("p", "/a", "/a", "a").unwrap();
        assert!(matches!(
            store.upsert_project("p", "/b", "/b", "b"),
            Err(StoreError::Conflict(_))
        ));
    }

    #[test]
    fn list_order_and_remove() {
        let (_dir, store) = temp_store();
        store.upsert_project("1", "/one", "/one", "one").unwrap();
        store.upsert_project("2", "/two", "/two", "two").unwrap();
        store
            .upsert_project("3", "/three", "/three", "three")
            .unwrap();
        // Re-registering "one" makes it the most recent.
        store.upsert_project("x", "/one", "/one", "one").unwrap();
        let ids: Vec<_> = store
            .list_projects()
            .unwrap()
            .into_iter()
            .map(|p| p.id)
            .collect();
        assert_eq!(ids, ["1", "3", "2"]);
        let json = serde_json::to_value(store.project("2").unwrap().unwrap()).unwrap();
        let keys: Vec<_> = json.as_object().unwrap().keys().cloned().collect();
        assert_eq!(keys, ["id", "path", "name", "createdAt", "updatedAt"]);
        assert!(store.remove_project("2").unwrap());
        assert!(!store.remove_project("2").unwrap());
        assert_eq!(store.list_projects().unwrap().len(), 2);
    }
}
