//! Versioned schema. Each entry of [`MIGRATIONS`] is one SQL batch; the
//! database's `PRAGMA user_version` is the number of batches applied. New
//! issues append a batch and never edit an old one.

use rusqlite::{Connection, Transaction, TransactionBehavior};

use crate::error::{Result, StoreError};

const V1: &str = r#"
CREATE TABLE sessions (
    pk INTEGER PRIMARY KEY,
    scope TEXT NOT NULL,
    id TEXT NOT NULL,
    workspace TEXT NULL,
    title TEXT NULL,
    archived INTEGER NOT NULL DEFAULT 0,
    reasoning_level TEXT NOT NULL,
    network_enabled INTEGER NOT NULL DEFAULT 1,
    llm_rounds INTEGER NOT NULL DEFAULT 0,
    execution_steps INTEGER NOT NULL DEFAULT 0,
    input_tokens INTEGER NOT NULL DEFAULT 0,
    total_input_tokens INTEGER NOT NULL DEFAULT 0,
    cached_input_tokens INTEGER NOT NULL DEFAULT 0,
    output_tokens INTEGER NOT NULL DEFAULT 0,
    output_elapsed_ms INTEGER NOT NULL DEFAULT 0,
    active_turn TEXT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    UNIQUE (scope, id)
);
CREATE INDEX sessions_scope_recent ON sessions (scope, archived, updated_at DESC);
CREATE INDEX sessions_active_turn ON sessions (active_turn) WHERE active_turn IS NOT NULL;

CREATE TABLE session_events (
    session_pk INTEGER NOT NULL REFERENCES sessions (pk) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    kind TEXT NOT NULL,
    turn TEXT NULL,
    unix_ms INTEGER NOT NULL,
    payload TEXT NOT NULL,
    PRIMARY KEY (session_pk, seq)
) WITHOUT ROWID;

CREATE TABLE blobs (
    hash TEXT PRIMARY KEY,
    media_type TEXT,
    size INTEGER,
    data BLOB,
    created_at TEXT
);

-- Which event references which blob, so deleting or truncating sessions can
-- drop blobs nobody references any more without parsing event payloads.
CREATE TABLE blob_refs (
    session_pk INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    hash TEXT NOT NULL,
    PRIMARY KEY (session_pk, seq, hash),
    FOREIGN KEY (session_pk, seq) REFERENCES session_events (session_pk, seq) ON DELETE CASCADE
) WITHOUT ROWID;
CREATE INDEX blob_refs_hash ON blob_refs (hash);

CREATE TABLE projects (
    id TEXT PRIMARY KEY,
    path TEXT NOT NULL,
    path_key TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    created_at TEXT,
    updated_at TEXT
);

CREATE TABLE scheduled_tasks (
    id TEXT PRIMARY KEY,
    name TEXT,
    workspace TEXT NULL,
    prompt TEXT,
    cron TEXT,
    enabled INTEGER DEFAULT 1,
    last_run_at TEXT NULL,
    next_run_at TEXT NULL,
    last_status TEXT NULL,
    last_error TEXT NULL,
    last_output TEXT NULL,
    last_session_id TEXT NULL,
    created_at TEXT,
    updated_at TEXT
);
CREATE INDEX scheduled_tasks_due ON scheduled_tasks (enabled, next_run_at);

CREATE TABLE schedule_claims (
    task_id TEXT NOT NULL,
    occurrence TEXT NOT NULL,
    claimed_at TEXT,
    finished_at TEXT NULL,
    status TEXT NULL,
    PRIMARY KEY (task_id, occurrence)
);

CREATE TABLE usage_records (
    id INTEGER PRIMARY KEY,
    ts TEXT,
    provider TEXT,
    model TEXT,
    session_id TEXT NULL,
    input_tokens INTEGER,
    total_input_tokens INTEGER,
    cached_input_tokens INTEGER,
    cache_creation_input_tokens INTEGER,
    output_tokens INTEGER,
    cost REAL,
    elapsed_ms REAL,
    success INTEGER
);
CREATE INDEX usage_records_ts ON usage_records (ts);
"#;

/// V2: `session.list {includeArchived}` reads in index order too.
const V2: &str = r#"
CREATE INDEX sessions_scope_updated ON sessions (scope, updated_at DESC);
"#;

/// V3: a scheduled run's claim names the session it created (so a run cut off
/// by a crash still links to its session), and start-up finds the claims a
/// crashed daemon left open without a scan.
const V3: &str = r#"
ALTER TABLE schedule_claims ADD COLUMN session_id TEXT NULL;
CREATE INDEX schedule_claims_open ON schedule_claims (task_id) WHERE finished_at IS NULL;
"#;

/// Schema batches in order; index + 1 is the resulting `user_version`.
/// V4: `session.list` of a scope reads only this index (every header column is in
/// it), so listing 10,000 sessions makes no table lookups.
const V4: &str = r#"
DROP INDEX IF EXISTS sessions_scope_recent;
CREATE INDEX sessions_scope_recent ON sessions (
    scope, archived, updated_at DESC, id, title, workspace, reasoning_level, network_enabled,
    llm_rounds, execution_steps, input_tokens, total_input_tokens, cached_input_tokens,
    output_tokens, output_elapsed_ms, created_at, active_turn
);
"#;

/// V5: a session's approval settings (its own policy, the calls allowed for
/// the rest of the session), kept beside the row so the listing index and
/// the wire header stay as they are; what a scheduled task's runs do with
/// calls that need approval (nobody is there to answer).
const V5: &str = r#"
CREATE TABLE session_approvals (
    session_pk INTEGER PRIMARY KEY REFERENCES sessions (pk) ON DELETE CASCADE,
    policy TEXT NULL,
    rules TEXT NOT NULL DEFAULT '[]'
);
ALTER TABLE scheduled_tasks ADD COLUMN approval TEXT NULL;
"#;

/// V6: the model a session's turns use (`/model` in `seekclaw chat`,
/// `session.update {model}`), beside the row like its approval settings.
const V6: &str = r#"
CREATE TABLE session_models (
    session_pk INTEGER PRIMARY KEY REFERENCES sessions (pk) ON DELETE CASCADE,
    model TEXT NOT NULL
);
"#;

/// V7: the system prompt a session's turns used (the header of an exported
/// session file), or the one an imported file brought. Prompts are kept once
/// by hash however many sessions share them; a session names one.
const V7: &str = r#"
CREATE TABLE system_prompts (
    hash TEXT PRIMARY KEY,
    text TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE session_prompts (
    session_pk INTEGER PRIMARY KEY REFERENCES sessions (pk) ON DELETE CASCADE,
    hash TEXT NOT NULL
);
CREATE INDEX session_prompts_hash ON session_prompts (hash);
"#;

/// V8: full-text search over the text people look for (user messages, steers,
/// assistant answers, tool output). A plain FTS5 table keeps its own copy of
/// the text: `session_events` is WITHOUT ROWID, so it cannot be an external
/// content table, and `snippet()` needs the text. The rowid packs the event's
/// key (`session_pk << 32 | seq`) so a session's rows are one rowid range
/// and newest-first is rowid order. Each row also carries its scope as one
/// token (`s<id>`, ids from `search_scopes`), so a scoped search intersects
/// posting lists instead of filtering every match of a common word. Triggers
/// keep it in step inside the very transaction that appends or deletes events
/// (cascades from a deleted session included), so a crash cannot leave the
/// two apart; the batch backfills what an older database already holds.
const V8: &str = r#"
CREATE TABLE search_scopes (id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE);
INSERT INTO search_scopes (key) SELECT DISTINCT scope FROM sessions;
CREATE TRIGGER search_scopes_insert AFTER INSERT ON sessions
BEGIN
    INSERT OR IGNORE INTO search_scopes (key) VALUES (new.scope);
END;
CREATE VIRTUAL TABLE event_search USING fts5(
    body, scope_tag, kind UNINDEXED, tokenize = 'unicode61 remove_diacritics 2'
);
INSERT INTO event_search (rowid, body, scope_tag, kind)
    SELECT e.session_pk * 4294967296 + e.seq, e.body, 's' || c.id, e.kind FROM (
        SELECT session_pk, seq, kind, json_extract(payload,
            CASE kind WHEN 'tool_result' THEN '$.output' ELSE '$.text' END) AS body
        FROM session_events WHERE kind IN ('user', 'steer', 'assistant', 'tool_result')
    ) AS e
    JOIN sessions s ON s.pk = e.session_pk
    JOIN search_scopes c ON c.key = s.scope
    WHERE e.body <> '';
CREATE TRIGGER event_search_insert AFTER INSERT ON session_events
WHEN new.kind IN ('user', 'steer', 'assistant', 'tool_result')
BEGIN
    INSERT INTO event_search (rowid, body, scope_tag, kind)
        SELECT new.session_pk * 4294967296 + new.seq, body,
            (SELECT 's' || c.id FROM sessions s JOIN search_scopes c ON c.key = s.scope
             WHERE s.pk = new.session_pk),
            new.kind
        FROM (
            SELECT json_extract(new.payload,
                CASE new.kind WHEN 'tool_result' THEN '$.output' ELSE '$.text' END) AS body
        ) WHERE body <> '';
END;
CREATE TRIGGER event_search_delete AFTER DELETE ON session_events
WHEN old.kind IN ('user', 'steer', 'assistant', 'tool_result')
BEGIN
    DELETE FROM event_search WHERE rowid = old.session_pk * 4294967296 + old.seq;
END;
"#;

/// V9: what the inspector's sidebar lists without reading any log. Each
/// session row counts its turns (terminal events) and sums the cost of the
/// provider calls recorded for its id, kept in step by triggers in the very
/// transaction that appends (or deletes) the event or records the call, and
/// backfilled here; listing 10,000 sessions then reads only their rows. A
/// recorded turn context (system prompt) may also carry the tool list that
/// turn offered (JSON), shown beside the prompt in the model view.
const V9: &str = r#"
ALTER TABLE sessions ADD COLUMN turns INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN cost REAL NOT NULL DEFAULT 0;
CREATE INDEX sessions_id ON sessions (id);
UPDATE sessions SET turns = (SELECT COUNT(*) FROM session_events e
    WHERE e.session_pk = sessions.pk AND e.kind = 'terminal');
UPDATE sessions SET cost = COALESCE((SELECT SUM(u.cost) FROM usage_records u
    WHERE u.session_id = sessions.id), 0);
CREATE TRIGGER session_turns_insert AFTER INSERT ON session_events
WHEN new.kind = 'terminal'
BEGIN
    UPDATE sessions SET turns = turns + 1 WHERE pk = new.session_pk;
END;
CREATE TRIGGER session_turns_delete AFTER DELETE ON session_events
WHEN old.kind = 'terminal'
BEGIN
    UPDATE sessions SET turns = turns - 1 WHERE pk = old.session_pk;
END;
CREATE TRIGGER session_cost_insert AFTER INSERT ON usage_records
WHEN new.session_id IS NOT NULL AND new.cost IS NOT NULL AND new.cost <> 0
BEGIN
    UPDATE sessions SET cost = cost + new.cost WHERE id = new.session_id;
END;
ALTER TABLE system_prompts ADD COLUMN tools TEXT NULL;
"#;

/// V10: subagent sessions name the session whose turn started them; a
/// parent's children are listed by it (the index), and a parent's deletion
/// leaves its children as top-level sessions (no cascade: their logs stand).
const V10: &str = r#"
ALTER TABLE sessions ADD COLUMN parent_id TEXT NULL;
CREATE INDEX sessions_parent ON sessions (scope, parent_id) WHERE parent_id IS NOT NULL;
"#;

/// V11: the usage ledger is where a session's totals come from. Each
/// provider attempt's row names the session row it was made for
/// (`session_pk`; ids alone are ambiguous across scopes) and its turn, and
/// carries its reasoning tokens; a trigger adds each row's tokens, time and
/// cost to that session's counters in the very transaction that records it
/// (a turn records its attempts step by step, with the log entries they
/// produced), so `session.get`, `session.list`, `usage.get` and the
/// inspector read one set of numbers. Rows without a `session_pk` (older
/// writers) still count for the sessions with their id, as V9 had it.
const V11: &str = r#"
ALTER TABLE usage_records ADD COLUMN session_pk INTEGER NULL;
ALTER TABLE usage_records ADD COLUMN turn TEXT NULL;
ALTER TABLE usage_records ADD COLUMN reasoning_tokens INTEGER NULL;
CREATE INDEX usage_records_session ON usage_records (session_id) WHERE session_id IS NOT NULL;
DROP TRIGGER session_cost_insert;
CREATE TRIGGER session_usage_insert AFTER INSERT ON usage_records
WHEN new.session_pk IS NOT NULL
BEGIN
    UPDATE sessions SET
        input_tokens = input_tokens + COALESCE(new.total_input_tokens, 0),
        total_input_tokens = total_input_tokens + COALESCE(new.total_input_tokens, 0),
        cached_input_tokens = cached_input_tokens + COALESCE(new.cached_input_tokens, 0),
        output_tokens = output_tokens + COALESCE(new.output_tokens, 0),
        output_elapsed_ms = output_elapsed_ms + CAST(COALESCE(new.elapsed_ms, 0) AS INTEGER),
        cost = cost + COALESCE(new.cost, 0)
    WHERE pk = new.session_pk;
END;
CREATE TRIGGER session_usage_insert_by_id AFTER INSERT ON usage_records
WHEN new.session_pk IS NULL AND new.session_id IS NOT NULL
BEGIN
    UPDATE sessions SET
        input_tokens = input_tokens + COALESCE(new.total_input_tokens, 0),
        total_input_tokens = total_input_tokens + COALESCE(new.total_input_tokens, 0),
        cached_input_tokens = cached_input_tokens + COALESCE(new.cached_input_tokens, 0),
        output_tokens = output_tokens + COALESCE(new.output_tokens, 0),
        output_elapsed_ms = output_elapsed_ms + CAST(COALESCE(new.elapsed_ms, 0) AS INTEGER),
        cost = cost + COALESCE(new.cost, 0)
    WHERE id = new.session_id;
END;
"#;

/// V12: a forked session names the session and user message it came from.
const V12: &str = r#"
ALTER TABLE sessions ADD COLUMN forked_from TEXT NULL;
ALTER TABLE sessions ADD COLUMN forked_at INTEGER NULL;
"#;

/// V13: a recorded turn context also names the instruction files the prompt
/// included (JSON), listed by `session.get` and the inspector.
const V13: &str = r#"
ALTER TABLE system_prompts ADD COLUMN instructions TEXT NULL;
"#;

/// V14: budgets of one session or one scheduled task, over the config's
/// (`budget.set`).
const V14: &str = r#"
CREATE TABLE own_budgets (
    kind TEXT NOT NULL,
    key TEXT NOT NULL,
    usd REAL NULL,
    tokens INTEGER NULL,
    PRIMARY KEY (kind, key)
) WITHOUT ROWID;
"#;

const MIGRATIONS: &[&str] = &[V1, V2, V3, V4, V5, V6, V7, V8, V9, V10, V11, V12, V13, V14];

/// The schema version this build writes.
pub const LATEST_VERSION: i64 = MIGRATIONS.len() as i64;

/// Brings the database up to [`LATEST_VERSION`]. Reads only `user_version`
/// when nothing is pending, so it costs nothing on a large database.
pub(crate) fn migrate(conn: &mut Connection) -> Result<()> {
    // IMMEDIATE: two processes opening at once must not both apply a batch.
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    apply_pending(&tx)?;
    tx.commit()?;
    Ok(())
}

/// Drops every table and index, then recreates the latest schema, all in one
/// transaction so a failed reset leaves the old data intact.
pub(crate) fn reset(conn: &mut Connection) -> Result<()> {
    // Dropping a parent table with foreign keys on would first run the
    // cascades row by row; nothing survives the reset, so skip them. The
    // pragma is a no-op inside a transaction, hence set around it.
    conn.pragma_update(None, "foreign_keys", false)?;
    let outcome = drop_and_recreate(conn);
    conn.pragma_update(None, "foreign_keys", true)?;
    outcome?;
    // Hand the freed pages back to the file system; a factory reset is rare.
    conn.execute_batch("VACUUM")?;
    Ok(())
}

fn drop_and_recreate(conn: &mut Connection) -> Result<()> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let tables: Vec<String> = {
        let mut stmt = tx.prepare(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'",
        )?;
        stmt.query_map([], |r| r.get(0))?
            .collect::<rusqlite::Result<_>>()?
    };
    for t in tables {
        // Indexes go with their table.
        tx.execute_batch(&format!(
            "DROP TABLE IF EXISTS \"{}\"",
            t.replace('"', "\"\"")
        ))?;
    }
    tx.pragma_update(None, "user_version", 0)?;
    apply_pending(&tx)?;
    tx.commit()?;
    Ok(())
}

fn apply_pending(tx: &Transaction<'_>) -> Result<()> {
    apply_up_to(tx, LATEST_VERSION)
}

/// Applies the batches after the database's version up to `target`; tests
/// stop short of the latest to build a database of an older release.
pub(crate) fn apply_up_to(tx: &Transaction<'_>, target: i64) -> Result<()> {
    let current: i64 = tx.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    if current > LATEST_VERSION {
        return Err(StoreError::Corrupt(format!(
            "schema version {current} is newer than this build supports ({LATEST_VERSION}); \
             upgrade seekclaw or reset the database"
        )));
    }
    if current < 0 {
        return Err(StoreError::Corrupt(format!(
            "invalid schema version {current}"
        )));
    }
    let pending = MIGRATIONS.iter().enumerate().take(target.max(0) as usize);
    for (i, batch) in pending.skip(current as usize) {
        tx.execute_batch(batch)?;
        tx.pragma_update(None, "user_version", i as i64 + 1)?;
    }
    Ok(())
}
