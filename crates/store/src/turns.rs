//! A turn's opening and closing writes, each one transaction: they sit between
//! a chat request and its first token, and between the last token and `done`.

use rusqlite::{Transaction, params};

use crate::error::{Result, StoreError};
use crate::event_log::LogTarget;
use crate::items::{EventItem, TerminalStatus, TurnTerminal};
use crate::store::Store;
use crate::usage::{Spend, record_spend_in};

impl Store {
    /// Marks `owner`'s turn active on the session and appends its user
    /// message; returns the message's seq. A turn still marked active from
    /// before (its end was never written: a full disk, a crash) first gets
    /// its `interrupted` terminal, in the same transaction, so no turn of the
    /// log is left without one.
    pub fn open_turn(&self, scope: &str, id: &str, owner: &str, user: &EventItem) -> Result<u64> {
        self.write(|tx| {
            let target = LogTarget::find(tx, scope, id)?;
            if let Some(stale) = target.active_turn.as_deref().filter(|t| *t != owner) {
                target.append(tx, Some(stale), &[interrupted(UNSAVED_END)])?;
            }
            let appended = target.append(tx, Some(owner), std::slice::from_ref(user))?;
            tx.prepare_cached(
                "UPDATE sessions SET updated_at = ?1, active_turn = ?2 WHERE pk = ?3",
            )?
            .execute(params![appended.at_iso, owner, target.pk])?;
            appended
                .seqs
                .first()
                .copied()
                .ok_or_else(|| StoreError::Corrupt("append returned no sequence number".into()))
        })
    }

    /// Gives `owner`'s turn an `interrupted` terminal saying `why` and clears
    /// its active mark, in one transaction; `false` (nothing written) when
    /// the session no longer marks that turn active.
    pub fn interrupt_turn(&self, scope: &str, id: &str, owner: &str, why: &str) -> Result<bool> {
        self.write(|tx| {
            let target = LogTarget::find(tx, scope, id)?;
            if target.active_turn.as_deref() != Some(owner) {
                return Ok(false);
            }
            let appended = target.append(tx, Some(owner), &[interrupted(why)])?;
            close_row(tx, target.pk, &appended.at_iso)?;
            Ok(true)
        })
    }

    /// Appends `owner`'s log entries together with what the turn spent to
    /// produce them (one transaction: the ledger and the session's counters
    /// never run ahead of, or behind, the log); returns their seqs.
    pub fn append_spending(
        &self,
        scope: &str,
        id: &str,
        owner: Option<&str>,
        items: &[EventItem],
        spend: &Spend,
    ) -> Result<Vec<u64>> {
        self.write(|tx| {
            let target = LogTarget::find(tx, scope, id)?;
            let appended = target.append(tx, owner, items)?;
            if !items.is_empty() {
                crate::event_log::bump(tx, target.pk, &appended.at_iso)?;
            }
            record_spend_in(tx, target.pk, owner, spend)?;
            Ok(appended.seqs)
        })
    }

    /// Ends a turn, all or nothing: appends its last items (final answer,
    /// terminal), adds its counters, records its provider attempts and clears
    /// the active mark. The session row is rewritten once: this write stands
    /// between the last token and `done`.
    pub fn close_turn(&self, end: &TurnEnd<'_>) -> Result<()> {
        self.write(|tx| end.write_in(tx))
    }

    /// [`Store::close_turn`] if it can start at once (see [`Store::try_write`]);
    /// `None` when another write holds the database.
    pub fn try_close_turn(&self, end: &TurnEnd<'_>) -> Option<Result<()>> {
        self.try_write(|tx| end.write_in(tx))
    }

    /// The log half of [`Store::close_turn`]: the last items and the cleared
    /// mark, without what the turn spent since its last write (a smaller
    /// write, for when the whole one failed). All or nothing too: the mark is
    /// never cleared without the terminal.
    pub fn close_turn_log(&self, end: &TurnEnd<'_>) -> Result<()> {
        self.write(|tx| {
            let target = end.target(tx)?;
            let appended = target.append(tx, Some(end.owner), end.items)?;
            close_row(tx, target.pk, &appended.at_iso)
        })
    }
}

/// The terminal text of a turn whose end could not be written; the next turn
/// on its session records it.
const UNSAVED_END: &str =
    "This turn's end could not be saved (the session log could not be written).";

fn interrupted(why: &str) -> EventItem {
    EventItem::Terminal(TurnTerminal {
        status: TerminalStatus::Interrupted,
        text: why.to_string(),
    })
}

/// What a turn's closing write records.
#[derive(Debug, Clone, Copy)]
pub struct TurnEnd<'a> {
    /// Scope of the session.
    pub scope: &'a str,
    /// Session id.
    pub id: &'a str,
    /// The turn (its active mark and the `turn` of its events).
    pub owner: &'a str,
    /// Final answer and terminal.
    pub items: &'a [EventItem],
    /// What the turn spent since its last write.
    pub spend: &'a Spend,
}

impl TurnEnd<'_> {
    /// The session's log, checked to have this turn running: a turn never
    /// ends (or clears the mark of) another one.
    fn target(&self, tx: &Transaction<'_>) -> Result<LogTarget> {
        let target = LogTarget::find(tx, self.scope, self.id)?;
        if target.active_turn.as_deref() != Some(self.owner) {
            return Err(StoreError::Conflict(format!(
                "turn {} is not the one running on session {}",
                self.owner, self.id
            )));
        }
        Ok(target)
    }

    fn write_in(&self, tx: &Transaction<'_>) -> Result<()> {
        let target = self.target(tx)?;
        let appended = target.append(tx, Some(self.owner), self.items)?;
        close_row(tx, target.pk, &appended.at_iso)?;
        record_spend_in(tx, target.pk, Some(self.owner), self.spend)
    }
}

/// The session row at a turn's end: `updated_at` and no active turn (its
/// counters grow with each write of what the turn spent).
fn close_row(tx: &Transaction<'_>, pk: i64, at_iso: &str) -> Result<()> {
    tx.prepare_cached("UPDATE sessions SET updated_at = ?1, active_turn = NULL WHERE pk = ?2")?
        .execute(params![at_iso, pk])?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::items::AssistantMessage;
    use crate::testutil::{new_session, temp_store, user};
    use crate::usage::UsageRecord;

    fn end<'a>(
        scope: &'a str,
        id: &'a str,
        owner: &'a str,
        items: &'a [EventItem],
        spend: &'a Spend,
    ) -> TurnEnd<'a> {
        TurnEnd {
            scope,
            id,
            owner,
            items,
            spend,
        }
    }

    fn attempt(session: &str, input: u64, cached: u64, output: u64, ms: f64) -> UsageRecord {
        UsageRecord {
            provider: "p".into(),
            model: "m".into(),
            session_id: Some(session.into()),
            input_tokens: input - cached,
            total_input_tokens: input,
            cached_input_tokens: cached,
            output_tokens: output,
            elapsed_ms: ms,
            cost: 0.5,
            success: true,
            ..UsageRecord::default()
        }
    }

    fn terminal() -> EventItem {
        EventItem::Terminal(TurnTerminal {
            status: TerminalStatus::Finished,
            text: "answer".into(),
        })
    }

    #[test]
    fn each_turns_usage_and_steps_add_up() {
        let (_dir, store) = temp_store();
        store.create_session(&new_session("g", "s")).unwrap();
        let spend = |steps: i64| Spend {
            records: vec![
                attempt("s", 100, 25, 10, 100.0),
                attempt("s", 50, 25, 10, 200.0),
            ],
            llm_rounds: 1,
            execution_steps: steps,
        };
        let add = |id: &str, spend: &Spend| {
            store.open_turn("g", id, "t", &user("go"))?;
            store.close_turn(&end("g", id, "t", &[terminal()], spend))
        };
        add("s", &spend(5)).unwrap();
        add("s", &spend(3)).unwrap();
        let h = store.session("g", "s").unwrap().unwrap();
        assert_eq!(h.llm_rounds, 2);
        assert_eq!(h.execution_steps, 8, "5 steps then 3");
        assert_eq!(h.input_tokens, 300);
        assert_eq!(h.total_input_tokens, 300);
        assert_eq!(h.cached_input_tokens, 100);
        assert_eq!(h.output_tokens, 40);
        assert_eq!(h.output_elapsed_ms, 600);
        assert!(matches!(
            add("nope", &spend(1)),
            Err(StoreError::NotFound(_))
        ));
    }

    /// What a turn spends is counted as it writes, not only at its end: a
    /// turn that never ends (its daemon killed) has counted its steps, and
    /// the session's totals, `usage.get` and the per-turn ledger agree.
    #[test]
    fn spending_written_with_the_steps_counts_without_an_end() {
        let (_dir, store) = temp_store();
        store.create_session(&new_session("g", "s")).unwrap();
        store.open_turn("g", "s", "t1", &user("go")).unwrap();
        let step = EventItem::Assistant(AssistantMessage {
            text: "step".into(),
            ..AssistantMessage::default()
        });
        let spend = Spend {
            records: vec![attempt("s", 100, 40, 7, 10.0)],
            llm_rounds: 1,
            execution_steps: 1,
        };
        let seqs = store
            .append_spending("g", "s", Some("t1"), std::slice::from_ref(&step), &spend)
            .unwrap();
        assert_eq!(seqs, [2]);
        // The next turn finds it unfinished and interrupts it; nothing is lost.
        store.open_turn("g", "s", "t2", &user("again")).unwrap();
        store
            .close_turn(&end("g", "s", "t2", &[terminal()], &spend))
            .unwrap();
        let h = store.session("g", "s").unwrap().unwrap();
        assert_eq!((h.llm_rounds, h.execution_steps), (2, 2));
        assert_eq!((h.total_input_tokens, h.output_tokens), (200, 14));
        let listed = store.list_with_stats(Some("g"), false).unwrap();
        assert_eq!(listed[0].cost, 1.0);
        let turns = store.usage_by_turn("g", "s").unwrap();
        let per_turn: Vec<_> = turns
            .iter()
            .map(|t| (t.turn.as_deref(), t.calls, t.input_tokens, t.output_tokens))
            .collect();
        assert_eq!(per_turn, [(Some("t1"), 1, 100, 7), (Some("t2"), 1, 100, 7)]);
        let summary = store.usage_summary(None).unwrap();
        assert_eq!((summary[0].calls, summary[0].output_tokens), (2, 14));
        assert!(matches!(
            store.usage_by_turn("g", "nope"),
            Err(StoreError::NotFound(_))
        ));
    }

    fn closing() -> (Vec<EventItem>, Spend) {
        let items = vec![
            EventItem::Assistant(AssistantMessage {
                text: "answer".into(),
                ..AssistantMessage::default()
            }),
            EventItem::Terminal(TurnTerminal {
                status: TerminalStatus::Finished,
                text: "answer".into(),
            }),
        ];
        let record = UsageRecord {
            provider: "p".into(),
            model: "m".into(),
            session_id: Some("s1".into()),
            output_tokens: 7,
            success: true,
            ..UsageRecord::default()
        };
        let spend = Spend {
            records: vec![record],
            llm_rounds: 1,
            execution_steps: 1,
        };
        (items, spend)
    }

    #[test]
    fn a_turn_opens_and_closes_in_two_writes() {
        let (_dir, store) = temp_store();
        store.create_session(&new_session("g", "s1")).unwrap();
        let seq = store
            .open_turn("g", "s1", "turn-1", &user("hello"))
            .unwrap();
        assert_eq!(seq, 1);
        let header = store.session("g", "s1").unwrap().unwrap();
        assert_eq!(header.active_turn.as_deref(), Some("turn-1"));
        assert_eq!(header.title.as_deref(), Some("hello"));

        let (items, spend) = closing();
        store
            .close_turn(&end("g", "s1", "turn-1", &items, &spend))
            .unwrap();
        let header = store.session("g", "s1").unwrap().unwrap();
        assert_eq!(header.active_turn, None);
        assert_eq!((header.llm_rounds, header.output_tokens), (1, 7));
        let events = store.events("g", "s1").unwrap();
        let kinds: Vec<&str> = events.iter().map(|e| e.item.kind()).collect();
        assert_eq!(kinds, ["user", "assistant", "terminal"]);
        assert!(events.iter().all(|e| e.turn.as_deref() == Some("turn-1")));
        let usage = store.usage_summary(None).unwrap();
        assert_eq!(usage.len(), 1);
        assert_eq!(usage[0].output_tokens, 7);
    }

    fn terminal_payloads(store: &Store) -> Vec<String> {
        store
            .read(|tx| {
                let mut stmt = tx.prepare(
                    "SELECT payload FROM session_events WHERE kind = 'terminal' ORDER BY seq",
                )?;
                let rows = stmt.query_map([], |r| r.get(0))?;
                Ok(rows.collect::<rusqlite::Result<Vec<String>>>()?)
            })
            .unwrap()
    }

    #[test]
    fn a_terminal_repeating_the_answer_refers_to_it_instead() {
        let (_dir, store) = temp_store();
        store.create_session(&new_session("g", "s1")).unwrap();
        store.open_turn("g", "s1", "t1", &user("hi")).unwrap();
        let (items, spend) = closing();
        store
            .close_turn(&end("g", "s1", "t1", &items, &spend))
            .unwrap();
        // A cancelled turn: its partial text differs from nothing before it.
        store.open_turn("g", "s1", "t2", &user("again")).unwrap();
        let cancelled = EventItem::Terminal(TurnTerminal {
            status: TerminalStatus::Aborted,
            text: "partial".into(),
        });
        store
            .close_turn(&end("g", "s1", "t2", &[cancelled], &Spend::default()))
            .unwrap();

        let payloads = terminal_payloads(&store);
        assert_eq!(payloads.len(), 2);
        assert!(
            payloads[0].contains(r#""text":"","answerSeq":2"#),
            "{}",
            payloads[0]
        );
        // A reader from before `answerSeq` still parses the row.
        let old: TurnTerminal = serde_json::from_str(&payloads[0]).unwrap();
        assert_eq!(old.status, TerminalStatus::Finished);
        assert!(
            payloads[1].contains(r#""text":"partial""#),
            "{}",
            payloads[1]
        );

        let terminals: Vec<(u64, TurnTerminal)> = store
            .events("g", "s1")
            .unwrap()
            .into_iter()
            .filter_map(|e| match e.item {
                EventItem::Terminal(t) => Some((e.seq, t)),
                _ => None,
            })
            .collect();
        assert_eq!(
            terminals,
            [
                (
                    3,
                    TurnTerminal {
                        status: TerminalStatus::Finished,
                        text: "answer".into()
                    }
                ),
                (
                    5,
                    TurnTerminal {
                        status: TerminalStatus::Aborted,
                        text: "partial".into()
                    }
                ),
            ]
        );
    }

    #[test]
    fn a_failed_close_writes_nothing() {
        let (_dir, store) = temp_store();
        let (items, spend) = closing();
        let err = store
            .close_turn(&end("g", "missing", "turn-1", &items, &spend))
            .unwrap_err();
        assert!(matches!(err, StoreError::NotFound(_)), "{err:?}");
        assert!(store.usage_summary(None).unwrap().is_empty(), "rolled back");
        assert!(store.open_turn("g", "missing", "t", &user("x")).is_err());
    }

    #[test]
    fn a_close_that_cannot_start_at_once_is_left_to_the_caller() {
        let (_dir, store) = temp_store();
        store.create_session(&new_session("g", "s")).unwrap();
        store.open_turn("g", "s", "t1", &user("hi")).unwrap();
        let (items, spend) = closing();
        let try_close = || store.try_close_turn(&end("g", "s", "t1", &items, &spend));
        // Another write of this process holds the writer.
        let held = store.writer().unwrap();
        assert!(try_close().is_none());
        drop(held);
        // Another process holds the database's write lock: no waiting either.
        let other = rusqlite::Connection::open(store.path()).unwrap();
        other.execute_batch("BEGIN IMMEDIATE").unwrap();
        let started = std::time::Instant::now();
        assert!(try_close().is_none());
        assert!(started.elapsed() < std::time::Duration::from_secs(1));
        other.execute_batch("COMMIT").unwrap();
        assert!(
            store.events("g", "s").unwrap().len() == 1,
            "nothing was written"
        );
        // Free: it runs, and later writes wait for locks as usual again.
        try_close().unwrap().unwrap();
        let log = store.events("g", "s").unwrap();
        assert_eq!(log.len(), 3);
        assert!(store.sessions_with_active_turn().unwrap().is_empty());
        let busy: i64 = store
            .writer()
            .unwrap()
            .query_row("PRAGMA busy_timeout", [], |r| r.get(0))
            .unwrap();
        assert_eq!(busy, 10_000);
    }

    fn statuses(store: &Store, id: &str) -> Vec<(Option<String>, TerminalStatus)> {
        store
            .events("g", id)
            .unwrap()
            .into_iter()
            .filter_map(|e| match e.item {
                EventItem::Terminal(t) => Some((e.turn, t.status)),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn a_turn_opened_over_one_without_an_end_first_interrupts_it() {
        let (_dir, store) = temp_store();
        store.create_session(&new_session("g", "s")).unwrap();
        store.open_turn("g", "s", "t1", &user("first")).unwrap();
        // t1's closing write never happened (a full disk): t2 records its end.
        let seq = store.open_turn("g", "s", "t2", &user("second")).unwrap();
        assert_eq!(seq, 3, "user, interrupted terminal, user");
        assert_eq!(
            statuses(&store, "s"),
            [(Some("t1".into()), TerminalStatus::Interrupted)]
        );
        let header = store.session("g", "s").unwrap().unwrap();
        assert_eq!(header.active_turn.as_deref(), Some("t2"));
        // Reopening under the same owner adds nothing.
        store.open_turn("g", "s", "t2", &user("again")).unwrap();
        assert_eq!(statuses(&store, "s").len(), 1);
    }

    #[test]
    fn interrupting_writes_the_terminal_and_clears_the_mark_together() {
        let (_dir, store) = temp_store();
        store.create_session(&new_session("g", "s")).unwrap();
        store.open_turn("g", "s", "t1", &user("hi")).unwrap();
        assert!(!store.interrupt_turn("g", "s", "other", "why").unwrap());
        assert!(store.interrupt_turn("g", "s", "t1", "why").unwrap());
        assert!(
            !store.interrupt_turn("g", "s", "t1", "why").unwrap(),
            "once"
        );
        assert_eq!(
            statuses(&store, "s"),
            [(Some("t1".into()), TerminalStatus::Interrupted)]
        );
        assert!(store.sessions_with_active_turn().unwrap().is_empty());
    }

    #[test]
    fn the_log_half_of_a_close_skips_the_counters() {
        let (_dir, store) = temp_store();
        store.create_session(&new_session("g", "s1")).unwrap();
        store.open_turn("g", "s1", "t1", &user("hi")).unwrap();
        let (items, spend) = closing();
        store
            .close_turn_log(&end("g", "s1", "t1", &items, &spend))
            .unwrap();
        let header = store.session("g", "s1").unwrap().unwrap();
        assert_eq!((header.active_turn, header.llm_rounds), (None, 0));
        assert!(store.usage_summary(None).unwrap().is_empty());
        assert_eq!(statuses(&store, "s1").len(), 1);
    }

    #[test]
    fn a_turn_ends_only_itself() {
        let (_dir, store) = temp_store();
        store.create_session(&new_session("g", "s")).unwrap();
        let (items, spend) = closing();
        // Never opened (its opening write failed): nothing is written.
        let err = store
            .close_turn(&end("g", "s", "t0", &items, &spend))
            .unwrap_err();
        assert!(matches!(err, StoreError::Conflict(_)), "{err:?}");
        store.open_turn("g", "s", "t1", &user("hi")).unwrap();
        assert!(
            store
                .close_turn_log(&end("g", "s", "t0", &items, &spend))
                .is_err()
        );
        let header = store.session("g", "s").unwrap().unwrap();
        assert_eq!(
            header.active_turn.as_deref(),
            Some("t1"),
            "t1's mark is kept"
        );
        assert!(statuses(&store, "s").is_empty());
    }
}
