//! The append-only session log: appending, reading, projecting, truncating.

use chrono::Utc;
use rusqlite::{Connection, OptionalExtension, Transaction, params};

use crate::blobs::{self, BlobCache};
use crate::error::{Result, StoreError};
use crate::items::{EventItem, SessionEvent, TurnTerminal};
use crate::projection::{self, Message};
use crate::sessions::{not_found, session_pk};
use crate::store::Store;
use crate::stored;
use crate::time::format_iso;

/// Auto-titles keep this many characters of the first user message.
const TITLE_CHARS: usize = 42;

/// The title derived from a user message, or `None` if it has no text.
fn title_from(text: &str) -> Option<String> {
    let text = text.trim();
    if text.is_empty() {
        return None;
    }
    let mut chars = text.chars();
    let head: String = chars.by_ref().take(TITLE_CHARS).collect();
    Some(if chars.next().is_some() {
        head + "…"
    } else {
        head
    })
}

impl Store {
    /// Appends one event; returns its seq. Bumps the session's `updated_at`.
    pub fn append_event(
        &self,
        scope: &str,
        id: &str,
        turn: Option<&str>,
        item: &EventItem,
    ) -> Result<u64> {
        let seqs = self.append_events(scope, id, turn, std::slice::from_ref(item))?;
        seqs.first()
            .copied()
            .ok_or_else(|| StoreError::Corrupt("append returned no sequence number".into()))
    }

    /// Appends several events in one transaction (all or none); returns
    /// their seqs, which are contiguous.
    pub fn append_events(
        &self,
        scope: &str,
        id: &str,
        turn: Option<&str>,
        items: &[EventItem],
    ) -> Result<Vec<u64>> {
        self.write(|tx| append_in(tx, scope, id, turn, items))
    }

    /// The whole log of a session, in seq order, images re-inflated.
    pub fn events(&self, scope: &str, id: &str) -> Result<Vec<SessionEvent>> {
        self.read(|tx| {
            let pk = session_pk(tx, scope, id)?;
            events_of(tx, pk, id)
        })
    }

    /// The highest seq of a session's log (0 when empty): one index lookup,
    /// cheap enough for a viewer to poll for new events.
    pub fn last_seq(&self, scope: &str, id: &str) -> Result<u64> {
        self.read(|tx| {
            let pk = session_pk(tx, scope, id)?;
            let last: i64 = tx
                .prepare_cached(
                    "SELECT COALESCE(MAX(seq), 0) FROM session_events WHERE session_pk = ?1",
                )?
                .query_row([pk], |r| r.get(0))?;
            Ok(last.max(0) as u64)
        })
    }

    /// The session as `session.get` messages: one query in seq order,
    /// each distinct image blob read once.
    pub fn messages(&self, scope: &str, id: &str) -> Result<Vec<Message>> {
        self.read(|tx| {
            let pk = session_pk(tx, scope, id)?;
            let mut blobs = BlobCache::default();
            let mut stmt = tx.prepare_cached(
                "SELECT seq, kind, payload FROM session_events \
                 WHERE session_pk = ?1 ORDER BY seq",
            )?;
            let mut rows = stmt.query([pk])?;
            let mut out = Vec::new();
            let mut after_answer = false;
            while let Some(r) = rows.next()? {
                let seq: i64 = r.get(0)?;
                let kind: String = r.get(1)?;
                let payload: String = r.get(2)?;
                if kind == "rewind" {
                    let marker: crate::items::RewindMarker = serde_json::from_str(&payload)?;
                    out.retain(|m: &Message| m.seq < marker.from_seq);
                    after_answer = false;
                    continue;
                }
                if kind == "terminal" {
                    // Its text, if shown, is its own (a terminal naming an
                    // answer follows that answer).
                    let (t, _) = decode_terminal_row(id, seq, &payload)?;
                    if projection::replays_as_answer(&t, after_answer) {
                        out.push(Message::answer(t.text, seq as u64));
                    }
                    after_answer = false;
                    continue;
                }
                let item = decode_row(tx, id, seq, &kind, &payload, &mut blobs)?;
                after_answer = projection::closes_answer(&item);
                out.extend(Message::from_item(seq as u64, item));
            }
            Ok(out)
        })
    }

    /// Keeps the first `keep` projected messages: deletes every event after
    /// the `keep`-th message (`keep == 0` deletes all events; a `keep`
    /// beyond the message count deletes nothing). Returns how many messages
    /// remain.
    pub fn truncate_messages(&self, scope: &str, id: &str, keep: usize) -> Result<usize> {
        self.write(|tx| {
            let pk = session_pk(tx, scope, id)?;
            let (count, cut) = message_cut(tx, pk, keep)?;
            let Some(cut) = cut else {
                return Ok(count);
            };
            let hashes = blobs::hashes_after(tx, pk, cut)?;
            let deleted = tx
                .prepare_cached("DELETE FROM session_events WHERE session_pk = ?1 AND seq > ?2")?
                .execute(params![pk, cut])?;
            blobs::drop_unreferenced(tx, &hashes)?;
            if deleted > 0 {
                bump(tx, pk, &format_iso(Utc::now()))?;
            }
            Ok(count.min(keep))
        })
    }
}

/// Counts the session's messages and finds the seq after which to cut so
/// that `keep` messages remain (`Some(0)` for keep = 0).
fn message_cut(tx: &Transaction<'_>, pk: i64, keep: usize) -> Result<(usize, Option<i64>)> {
    // A terminal is a message when it holds an answer of its own: its
    // payload, and whether the event before it (seqs are contiguous) already
    // closes the answer, looked up for terminal rows only.
    let mut stmt = tx.prepare_cached(
        "SELECT seq, kind, CASE WHEN kind = 'runtime' THEN json_extract(payload, '$.kind') END, \
         CASE WHEN kind = 'terminal' THEN payload END, \
         CASE WHEN kind = 'terminal' THEN (SELECT p.kind = 'assistant' \
             OR (p.kind = 'tool_result' AND json_extract(p.payload, '$.toolName') = ?2) \
             FROM session_events p WHERE p.session_pk = e.session_pk AND p.seq = e.seq - 1) END, \
         CASE WHEN kind = 'rewind' THEN json_extract(payload, '$.fromSeq') END \
         FROM session_events e WHERE session_pk = ?1 ORDER BY seq",
    )?;
    let mut rows = stmt.query(params![pk, projection::FINISH_TOOL])?;
    // The seqs of the messages shown (a rewind takes back what it covers).
    let mut shown: Vec<i64> = Vec::new();
    while let Some(r) = rows.next()? {
        if let Some(from) = r.get::<_, Option<i64>>(5)? {
            shown.retain(|seq| *seq < from);
            continue;
        }
        let kind: String = r.get(1)?;
        let runtime_kind: Option<String> = r.get(2)?;
        let terminal: Option<String> = r.get(3)?;
        let message = match terminal {
            Some(payload) => {
                let (t, _) = stored::decode_terminal(&payload)?;
                let after_answer: Option<bool> = r.get(4)?;
                projection::replays_as_answer(&t, after_answer.unwrap_or(false))
            }
            None => projection::is_message_row(&kind, runtime_kind.as_deref()),
        };
        if message {
            shown.push(r.get(0)?);
        }
    }
    let cut = match keep {
        0 => Some(0),
        k => shown.get(k - 1).copied(),
    };
    Ok((shown.len(), cut))
}

/// A terminal row, its text taken from the answer it refers to (read earlier).
/// The log of the session with primary key `pk` (id `id`, for errors).
pub(crate) fn events_of(conn: &Connection, pk: i64, id: &str) -> Result<Vec<SessionEvent>> {
    let mut blobs = BlobCache::default();
    let mut stmt = conn.prepare_cached(
        "SELECT seq, unix_ms, turn, kind, payload FROM session_events \
         WHERE session_pk = ?1 ORDER BY seq",
    )?;
    let mut rows = stmt.query([pk])?;
    let mut out = Vec::new();
    while let Some(r) = rows.next()? {
        let seq: i64 = r.get(0)?;
        let kind: String = r.get(3)?;
        let payload: String = r.get(4)?;
        let item = if kind == "terminal" {
            terminal_row(id, seq, &payload, &out)?
        } else {
            decode_row(conn, id, seq, &kind, &payload, &mut blobs)?
        };
        out.push(SessionEvent {
            seq: seq as u64,
            unix_ms: r.get(1)?,
            turn: r.get(2)?,
            item,
        });
    }
    Ok(out)
}

/// A terminal row's terminal and the answer it names; a bad row is `Corrupt`.
fn decode_terminal_row(id: &str, seq: i64, payload: &str) -> Result<(TurnTerminal, Option<u64>)> {
    stored::decode_terminal(payload).map_err(|e| match e {
        StoreError::Json(e) => {
            StoreError::Corrupt(format!("event {seq} of session {id} (terminal): {e}"))
        }
        other => other,
    })
}

fn terminal_row(id: &str, seq: i64, payload: &str, before: &[SessionEvent]) -> Result<EventItem> {
    let (mut terminal, answer_seq) = decode_terminal_row(id, seq, payload)?;
    // The answer always precedes its terminal and is never deleted without
    // it; were it gone anyway, the terminal keeps its status and no text.
    let answer = answer_seq.and_then(|s| before.iter().rev().find(|e| e.seq == s));
    if let Some(EventItem::Assistant(a)) = answer.map(|e| &e.item) {
        terminal.text = a.text.clone();
    }
    Ok(EventItem::Terminal(terminal))
}

fn decode_row(
    conn: &Connection,
    id: &str,
    seq: i64,
    kind: &str,
    payload: &str,
    blobs: &mut BlobCache,
) -> Result<EventItem> {
    stored::decode(conn, kind, payload, blobs).map_err(|e| match e {
        StoreError::Json(e) => {
            StoreError::Corrupt(format!("event {seq} of session {id} ({kind}): {e}"))
        }
        other => other,
    })
}

/// Sets the auto-title if this is the session's first user message with
/// text. Returns whether the session has a title afterwards.
fn maybe_set_title(tx: &Transaction<'_>, pk: i64, seq: i64, text: &str) -> Result<bool> {
    let Some(title) = title_from(text) else {
        return Ok(false);
    };
    // Only reached while the title is NULL (rare after the first message):
    // if an earlier message had text, the user cleared the title on purpose.
    let earlier: bool = tx
        .prepare_cached(
            "SELECT EXISTS (SELECT 1 FROM session_events WHERE session_pk = ?1 AND seq < ?2 \
             AND kind = 'user' \
             AND trim(json_extract(payload, '$.text'), ' ' || char(9) || char(10) || char(13)) <> '')",
        )?
        .query_row(params![pk, seq], |r| r.get(0))?;
    if earlier {
        return Ok(true);
    }
    tx.prepare_cached("UPDATE sessions SET title = ?1 WHERE pk = ?2")?
        .execute(params![title, pk])?;
    Ok(true)
}

pub(crate) fn bump(tx: &Transaction<'_>, pk: i64, at_iso: &str) -> Result<()> {
    tx.prepare_cached("UPDATE sessions SET updated_at = ?1 WHERE pk = ?2")?
        .execute(params![at_iso, pk])?;
    Ok(())
}

/// [`Store::append_events`] inside a write transaction.
pub(crate) fn append_in(
    tx: &Transaction<'_>,
    scope: &str,
    id: &str,
    turn: Option<&str>,
    items: &[EventItem],
) -> Result<Vec<u64>> {
    let target = LogTarget::find(tx, scope, id)?;
    if items.is_empty() {
        return Ok(Vec::new());
    }
    let appended = target.append(tx, turn, items)?;
    bump(tx, target.pk, &appended.at_iso)?;
    Ok(appended.seqs)
}

/// A session's log, located for appending.
pub(crate) struct LogTarget {
    pub pk: i64,
    title: Option<String>,
    /// The turn marked running on the session, if any.
    pub active_turn: Option<String>,
}

/// What [`LogTarget::append`] wrote; the caller bumps `updated_at` to `at_iso`
/// (together with whatever else it changes on the session row).
pub(crate) struct Appended {
    pub seqs: Vec<u64>,
    pub at_iso: String,
}

impl LogTarget {
    pub fn find(tx: &Transaction<'_>, scope: &str, id: &str) -> Result<LogTarget> {
        tx.prepare_cached(
            "SELECT pk, title, active_turn FROM sessions WHERE scope = ?1 AND id = ?2",
        )?
        .query_row(params![scope, id], |r| {
            Ok(LogTarget {
                pk: r.get(0)?,
                title: r.get(1)?,
                active_turn: r.get(2)?,
            })
        })
        .optional()?
        .ok_or_else(|| not_found(scope, id))
    }

    /// Inserts `items` after the last event (titling an untitled session from
    /// its first user message); does not touch `updated_at`.
    pub fn append(
        &self,
        tx: &Transaction<'_>,
        turn: Option<&str>,
        items: &[EventItem],
    ) -> Result<Appended> {
        let now = Utc::now();
        let unix_ms = now.timestamp_millis();
        let at_iso = format_iso(now);
        let seqs = self.insert(tx, turn, items.iter().map(|i| (unix_ms, i)), &at_iso)?;
        Ok(Appended { seqs, at_iso })
    }

    /// Inserts `(unix_ms, item)` pairs after the last event, titling an
    /// untitled session from its first user message; `at_iso` dates the blobs
    /// it stores. Does not touch `updated_at`.
    pub fn insert<'i>(
        &self,
        tx: &Transaction<'_>,
        turn: Option<&str>,
        items: impl ExactSizeIterator<Item = (i64, &'i EventItem)>,
        at_iso: &str,
    ) -> Result<Vec<u64>> {
        let pk = self.pk;
        // Safe against races: only the writer (held here) inserts.
        let mut seq: i64 = tx
            .prepare_cached(
                "SELECT COALESCE(MAX(seq), 0) FROM session_events WHERE session_pk = ?1",
            )?
            .query_row([pk], |r| r.get(0))?;
        let mut needs_title = self.title.is_none();
        let mut seqs = Vec::with_capacity(items.len());
        let mut answer: Option<(u64, &str)> = None;
        for (unix_ms, item) in items {
            seq += 1;
            let enc = stored::encode(tx, item, at_iso, answer)?;
            answer = match item {
                EventItem::Assistant(a) => Some((seq as u64, a.text.as_str())),
                _ => None,
            };
            tx.prepare_cached(
                "INSERT INTO session_events (session_pk, seq, kind, turn, unix_ms, payload) \
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )?
            .execute(params![pk, seq, item.kind(), turn, unix_ms, enc.payload])?;
            for h in &enc.hashes {
                blobs::add_ref(tx, pk, seq, h)?;
            }
            if needs_title && let EventItem::User(m) = item {
                needs_title = !maybe_set_title(tx, pk, seq, &m.text)?;
            }
            seqs.push(seq as u64);
        }
        Ok(seqs)
    }
}

#[cfg(test)]
#[path = "event_log_tests.rs"]
mod tests;
