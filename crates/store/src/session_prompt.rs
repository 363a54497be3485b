//! The system prompt of a session: the one its latest turn used, or the one
//! an imported session file brought. A prompt is stored once by content hash
//! (every session of a workspace shares the same few), and a turn whose
//! prompt is already recorded only reads. A turn also records the tool list
//! it offered (JSON) with its prompt: the two together are what the model
//! was told before any message.

use rusqlite::{OptionalExtension, Transaction, params};

use crate::blobs::sha256_hex;
use crate::error::{Result, StoreError};
use crate::store::Store;

/// What a session's latest turn told the model before any message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TurnContext {
    /// The system prompt.
    pub system_prompt: String,
    /// The tools offered, as a JSON array of `{name, description,
    /// parameters}`; `None` when not recorded (an imported file, an older
    /// release).
    pub tools: Option<String>,
    /// The instruction files the prompt included, as a JSON array of
    /// `{path, label, bytes, truncated, …}`; `None` when not recorded.
    pub instructions: Option<String>,
}

/// What a turn records as its context: the prompt, the tools offered, the
/// instruction files (both JSON).
#[derive(Debug, Clone, Copy)]
pub struct ContextRecord<'a> {
    /// The system prompt.
    pub prompt: &'a str,
    /// The tools offered (see [`TurnContext::tools`]).
    pub tools: Option<&'a str>,
    /// The instruction files (see [`TurnContext::instructions`]).
    pub instructions: Option<&'a str>,
}

/// The content hash of a prompt with its tools (the prompt alone hashes as
/// before the tools were recorded, so old rows keep matching).
fn context_hash(prompt: &str, tools: Option<&str>, instructions: Option<&str>) -> String {
    match (tools, instructions) {
        (None, None) => sha256_hex(prompt.as_bytes()),
        (Some(t), None) => sha256_hex(format!("{prompt}\0tools\0{t}").as_bytes()),
        (t, Some(i)) => sha256_hex(
            format!("{prompt}\0tools\0{}\0instructions\0{i}", t.unwrap_or("")).as_bytes(),
        ),
    }
}

impl Store {
    /// The session's recorded prompt and tool list (see [`TurnContext`]).
    pub fn turn_context(&self, scope: &str, id: &str) -> Result<Option<TurnContext>> {
        self.read(|tx| {
            Ok(tx
                .prepare_cached(
                    "SELECT p.text, p.tools, p.instructions FROM session_prompts sp \
                     JOIN sessions s ON s.pk = sp.session_pk \
                     JOIN system_prompts p ON p.hash = sp.hash \
                     WHERE s.scope = ?1 AND s.id = ?2",
                )?
                .query_row(params![scope, id], |r| {
                    Ok(TurnContext {
                        system_prompt: r.get(0)?,
                        tools: r.get(1)?,
                        instructions: r.get(2)?,
                    })
                })
                .optional()?)
        })
    }

    /// The session's recorded system prompt, `None` when none was recorded
    /// (a session from before prompts were kept, or no turn ran yet).
    pub fn system_prompt(&self, scope: &str, id: &str) -> Result<Option<String>> {
        self.read(|tx| {
            Ok(tx
                .prepare_cached(
                    "SELECT p.text FROM session_prompts sp \
                     JOIN sessions s ON s.pk = sp.session_pk \
                     JOIN system_prompts p ON p.hash = sp.hash \
                     WHERE s.scope = ?1 AND s.id = ?2",
                )?
                .query_row(params![scope, id], |r| r.get(0))
                .optional()?)
        })
    }

    /// Records `prompt` (and the `tools` JSON offered with it) as the
    /// session's turn context. Costs one read when it is already the
    /// recorded one (every turn after the first, until the config, skills,
    /// tools or date change it). `NotFound` without the session.
    pub fn record_system_prompt(
        &self,
        scope: &str,
        id: &str,
        prompt: &str,
        tools: Option<&str>,
    ) -> Result<()> {
        self.record_turn_context(
            scope,
            id,
            &ContextRecord {
                prompt,
                tools,
                instructions: None,
            },
        )
    }

    /// Records a turn's context (see [`ContextRecord`]); one read when it is
    /// the one already recorded.
    pub fn record_turn_context(
        &self,
        scope: &str,
        id: &str,
        record: &ContextRecord<'_>,
    ) -> Result<()> {
        let hash = context_hash(record.prompt, record.tools, record.instructions);
        let recorded: Option<Option<String>> = self.read(|tx| {
            Ok(tx
                .prepare_cached(
                    "SELECT sp.hash FROM sessions s \
                     LEFT JOIN session_prompts sp ON sp.session_pk = s.pk \
                     WHERE s.scope = ?1 AND s.id = ?2",
                )?
                .query_row(params![scope, id], |r| r.get(0))
                .optional()?)
        })?;
        match recorded {
            None => Err(StoreError::NotFound(format!("session {id}"))),
            Some(Some(h)) if h == hash => Ok(()),
            Some(_) => self.write(|tx| {
                let pk: i64 = tx
                    .prepare_cached("SELECT pk FROM sessions WHERE scope = ?1 AND id = ?2")?
                    .query_row(params![scope, id], |r| r.get(0))
                    .optional()?
                    .ok_or_else(|| StoreError::NotFound(format!("session {id}")))?;
                set_in(tx, pk, record, &hash)
            }),
        }
    }
}

/// Points session `pk` at `prompt` (stored under `hash` if new); the prompt
/// it named before goes when no session names it any more.
pub(crate) fn set_in(
    tx: &Transaction<'_>,
    pk: i64,
    record: &ContextRecord<'_>,
    hash: &str,
) -> Result<()> {
    tx.prepare_cached(
        "INSERT OR IGNORE INTO system_prompts (hash, text, tools, instructions) \
         VALUES (?1, ?2, ?3, ?4)",
    )?
    .execute(params![
        hash,
        record.prompt,
        record.tools,
        record.instructions
    ])?;
    tx.prepare_cached(
        "INSERT INTO session_prompts (session_pk, hash) VALUES (?1, ?2) \
         ON CONFLICT (session_pk) DO UPDATE SET hash = excluded.hash",
    )?
    .execute(params![pk, hash])?;
    drop_unused(tx)
}

/// Deletes the prompts no session names (after a session is deleted or
/// moves to another prompt). The table holds one row per distinct prompt,
/// a handful, each checked through an index.
pub(crate) fn drop_unused(tx: &Transaction<'_>) -> Result<()> {
    tx.prepare_cached(
        "DELETE FROM system_prompts WHERE NOT EXISTS \
         (SELECT 1 FROM session_prompts sp WHERE sp.hash = system_prompts.hash)",
    )?
    .execute([])?;
    Ok(())
}

/// [`set_in`] hashing `prompt` itself.
pub(crate) fn record_in(tx: &Transaction<'_>, pk: i64, prompt: &str) -> Result<()> {
    let record = ContextRecord {
        prompt,
        tools: None,
        instructions: None,
    };
    set_in(tx, pk, &record, &context_hash(prompt, None, None))
}

#[cfg(test)]
mod tests {
    use crate::{StoreError, testutil};

    #[test]
    fn a_session_keeps_the_latest_prompt_and_prompts_are_stored_once() {
        let (_dir, store) = testutil::temp_store();
        for id in ["s1", "s2"] {
            store
                .create_session(&testutil::new_session("ws", id))
                .unwrap();
        }
        assert_eq!(store.system_prompt("ws", "s1").unwrap(), None);
        store
            .record_system_prompt("ws", "s1", "You are A.", None)
            .unwrap();
        store
            .record_system_prompt("ws", "s1", "You are A.", None)
            .unwrap();
        store
            .record_system_prompt("ws", "s2", "You are A.", None)
            .unwrap();
        store
            .record_system_prompt("ws", "s1", "You are B.", Some("[]"))
            .unwrap();
        assert_eq!(
            store.system_prompt("ws", "s1").unwrap().as_deref(),
            Some("You are B.")
        );
        assert_eq!(
            store.system_prompt("ws", "s2").unwrap().as_deref(),
            Some("You are A.")
        );
        let context = store.turn_context("ws", "s1").unwrap().unwrap();
        assert_eq!(context.tools.as_deref(), Some("[]"));
        assert_eq!(store.turn_context("ws", "s2").unwrap().unwrap().tools, None);
        let stored: i64 = store
            .read(|tx| Ok(tx.query_row("SELECT COUNT(*) FROM system_prompts", [], |r| r.get(0))?))
            .unwrap();
        assert_eq!(stored, 2, "one row per distinct prompt");
        assert!(matches!(
            store.record_system_prompt("ws", "nope", "x", None),
            Err(StoreError::NotFound(_))
        ));
        assert!(store.delete_session("ws", "s1").unwrap());
        assert_eq!(store.system_prompt("ws", "s1").unwrap(), None);
        assert_eq!(prompts(&store), 1, "B went with the last session naming it");
        assert_eq!(store.delete_scope("ws").unwrap(), 1);
        assert_eq!(prompts(&store), 0);
    }

    fn prompts(store: &crate::Store) -> i64 {
        store
            .read(|tx| Ok(tx.query_row("SELECT COUNT(*) FROM system_prompts", [], |r| r.get(0))?))
            .unwrap()
    }
}
