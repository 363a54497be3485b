//! Full-text search over every session's log (the `event_search` FTS5 table
//! of schema V8, kept in step with `session_events` by triggers).
//!
//! A scope is a second indexed column (one token per scope), so a scoped
//! search is an FTS intersection, not a filter over every match.
//!
//! Hits come newest first: by rowid, which is `session_pk << 32 | seq`, so the
//! most recently created session's hits lead and, inside a session, later
//! events come before earlier ones. Rowid order streams from the index and
//! stops at `limit`, so a word found in a million events costs no more than a
//! rare one; ranking by relevance (bm25) would score every match first.

use rusqlite::{OptionalExtension, params};
use serde::Serialize;

use crate::error::Result;
use crate::store::Store;

/// Opens a match in a snippet.
pub const MATCH_START: &str = "«";
/// Closes a match in a snippet.
pub const MATCH_END: &str = "»";
/// Stands for text a snippet leaves out.
const ELLIPSIS: &str = "…";
/// Tokens in a snippet, around the best-matching stretch.
const SNIPPET_TOKENS: i64 = 16;
/// The most hits one search returns.
pub const MAX_SEARCH_LIMIT: usize = 500;

/// One event whose text matches a search.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SearchHit {
    /// The session's scope key.
    pub scope: String,
    /// The session id.
    pub session_id: String,
    /// The event's position in its session's log.
    pub seq: u64,
    /// `user`, `steer`, `assistant` or `tool_result`.
    pub kind: String,
    /// A stretch of the event's text, each match between [`MATCH_START`]
    /// and [`MATCH_END`], cuts marked `…`.
    pub snippet: String,
    /// The session's title, if it has one.
    pub title: Option<String>,
    /// The session's workspace (`None`: global).
    pub workspace: Option<String>,
    /// Whether the session is archived.
    pub archived: bool,
}

/// The FTS5 query for what a user typed: every whitespace-separated word
/// becomes a quoted string (all must match, in any order), so quotes, `*`,
/// `-`, `:`, parentheses, `AND`/`OR`/`NOT`/`NEAR` are plain text and never
/// a syntax error. A trailing `*` keeps its meaning: a prefix. Words with no
/// letter or digit are dropped (the tokenizer would find nothing in them).
/// `None` when nothing searchable is left.
pub fn fts_query(input: &str) -> Option<String> {
    let terms: Vec<String> = input
        .split_whitespace()
        .filter_map(|word| {
            let core = word.trim_end_matches('*');
            if !core.chars().any(char::is_alphanumeric) {
                return None;
            }
            let prefix = if core.len() < word.len() { "*" } else { "" };
            Some(format!("\"{}\"{prefix}", core.replace('"', "\"\"")))
        })
        .collect();
    (!terms.is_empty()).then(|| terms.join(" "))
}

impl Store {
    /// Events whose text matches every word of `query` (see [`fts_query`]),
    /// in the scope `scope` or, with `None`, in every scope; archived
    /// sessions included. Newest first (see the module notes), at most
    /// `limit` (capped at [`MAX_SEARCH_LIMIT`]). A query with nothing
    /// searchable finds nothing.
    pub fn search(&self, query: &str, scope: Option<&str>, limit: usize) -> Result<Vec<SearchHit>> {
        let Some(terms) = fts_query(query) else {
            return Ok(Vec::new());
        };
        let limit = limit.min(MAX_SEARCH_LIMIT) as i64;
        self.read(|tx| {
            let fts = match scope {
                None => format!("{{body}} : ({terms})"),
                Some(key) => {
                    let id: Option<i64> = tx
                        .prepare_cached("SELECT id FROM search_scopes WHERE key = ?1")?
                        .query_row([key], |r| r.get(0))
                        .optional()?;
                    // A scope that never held a session has nothing to find.
                    let Some(id) = id else {
                        return Ok(Vec::new());
                    };
                    format!("{{body}} : ({terms}) AND {{scope_tag}} : \"s{id}\"")
                }
            };
            // CROSS JOIN keeps the FTS table outermost, so its rowid order
            // answers the ORDER BY and the scan stops at the limit.
            let mut stmt = tx.prepare_cached(
                "SELECT s.scope, s.id, f.rowid & 4294967295, f.kind, \
                        snippet(event_search, 0, ?4, ?5, ?6, ?7), s.title, s.workspace, s.archived \
                 FROM event_search f CROSS JOIN sessions s ON s.pk = (f.rowid >> 32) \
                 WHERE event_search MATCH ?1 AND (?2 IS NULL OR s.scope = ?2) \
                 ORDER BY f.rowid DESC LIMIT ?3",
            )?;
            let rows = stmt.query_map(
                params![
                    fts,
                    scope,
                    limit,
                    MATCH_START,
                    MATCH_END,
                    ELLIPSIS,
                    SNIPPET_TOKENS
                ],
                |r| {
                    Ok(SearchHit {
                        scope: r.get(0)?,
                        session_id: r.get(1)?,
                        seq: r.get::<_, i64>(2)? as u64,
                        kind: r.get(3)?,
                        snippet: r.get(4)?,
                        title: r.get(5)?,
                        workspace: r.get(6)?,
                        archived: r.get(7)?,
                    })
                },
            )?;
            Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
        })
    }
}

#[cfg(test)]
#[path = "search_tests.rs"]
mod tests;
