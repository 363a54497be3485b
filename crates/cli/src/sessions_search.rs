//! `seekclaw sessions search QUERY`: full-text search of every session's log,
//! read straight from the store like `sessions list`.

use std::io::Write;

use seekclaw_config::Home;
use seekclaw_store::{SearchHit, Store};

use crate::sessions::{ScopeArgs, one_line};

/// Runs a search and prints the hits, newest first: a table, or with `json`
/// a JSON array of the store's hits (`scope`, `sessionId`, `seq`, `kind`,
/// `snippet`, `title`, `workspace`, `archived`). No scope named searches
/// every scope, as the daemon's `session.search` does.
pub fn search(
    home: &Home,
    store: &Store,
    scope: &ScopeArgs,
    query: &str,
    limit: usize,
    json: bool,
    out: &mut impl Write,
) -> anyhow::Result<()> {
    let key = if scope.named() {
        Some(scope.resolve(home)?.key)
    } else {
        None
    };
    let hits = store.search(query, key.as_deref(), limit)?;
    if json {
        serde_json::to_writer_pretty(&mut *out, &hits)?;
        writeln!(out)?;
    } else if hits.is_empty() {
        eprintln!("seekclaw: no matches");
    } else {
        print_hits(&hits, out)?;
    }
    Ok(())
}

/// Session, seq, kind and the snippet on one line (matches between « and »).
fn print_hits(hits: &[SearchHit], out: &mut impl Write) -> anyhow::Result<()> {
    let rows: Vec<[String; 4]> = hits
        .iter()
        .map(|h| {
            [
                h.session_id.clone(),
                h.seq.to_string(),
                h.kind.clone(),
                one_line(&h.snippet),
            ]
        })
        .collect();
    crate::table::write_table(out, ["SESSION", "SEQ", "KIND", "SNIPPET"], &rows)?;
    Ok(())
}
