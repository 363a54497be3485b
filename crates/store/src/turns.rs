//! A turn's opening and closing writes, each one transaction: they sit between
//! a chat request and its first token, and between the last token and `done`.

use crate::error::{Result, StoreError};
use crate::event_log::append_in;
use crate::items::EventItem;
use crate::model::UsageDelta;
use crate::sessions::{add_usage_in, set_active_turn_in};
use crate::store::Store;
use crate::usage::{UsageRecord, record_usage_in};

impl Store {
    /// Marks `owner`'s turn active on the session and appends its user
    /// message; returns the message's seq.
    pub fn open_turn(&self, scope: &str, id: &str, owner: &str, user: &EventItem) -> Result<u64> {
        self.write(|tx| {
            set_active_turn_in(tx, scope, id, Some(owner))?;
            append_in(tx, scope, id, Some(owner), std::slice::from_ref(user))?
                .first()
                .copied()
                .ok_or_else(|| StoreError::Corrupt("append returned no sequence number".into()))
        })
    }

    /// Ends `owner`'s turn, all or nothing: appends its last items (final
    /// answer, terminal), adds its counters, records its provider attempts and
    /// clears the active mark.
    pub fn close_turn(
        &self,
        scope: &str,
        id: &str,
        owner: &str,
        items: &[EventItem],
        delta: &UsageDelta,
        records: &[UsageRecord],
    ) -> Result<()> {
        self.write(|tx| {
            append_in(tx, scope, id, Some(owner), items)?;
            add_usage_in(tx, scope, id, delta)?;
            for r in records {
                record_usage_in(tx, r)?;
            }
            set_active_turn_in(tx, scope, id, None)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::items::{AssistantMessage, TerminalStatus, TurnTerminal, UserMessage};
    use crate::testutil::{new_session, temp_store};

    fn user(text: &str) -> EventItem {
        EventItem::User(UserMessage {
            text: text.into(),
            images: Vec::new(),
        })
    }

    fn closing() -> (Vec<EventItem>, UsageDelta, Vec<UsageRecord>) {
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
        let delta = UsageDelta {
            llm_rounds: 1,
            execution_steps: 1,
            output_tokens: 7,
            ..UsageDelta::default()
        };
        let record = UsageRecord {
            provider: "p".into(),
            model: "m".into(),
            session_id: Some("s1".into()),
            output_tokens: 7,
            success: true,
            ..UsageRecord::default()
        };
        (items, delta, vec![record])
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

        let (items, delta, records) = closing();
        store
            .close_turn("g", "s1", "turn-1", &items, &delta, &records)
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
        let (items, delta, records) = closing();
        store
            .close_turn("g", "s1", "t1", &items, &delta, &records)
            .unwrap();
        // A cancelled turn: its partial text differs from nothing before it.
        store.open_turn("g", "s1", "t2", &user("again")).unwrap();
        let cancelled = EventItem::Terminal(TurnTerminal {
            status: TerminalStatus::Aborted,
            text: "partial".into(),
        });
        store
            .close_turn("g", "s1", "t2", &[cancelled], &delta, &[])
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
        let (items, delta, records) = closing();
        let err = store
            .close_turn("g", "missing", "turn-1", &items, &delta, &records)
            .unwrap_err();
        assert!(matches!(err, StoreError::NotFound(_)), "{err:?}");
        assert!(store.usage_summary(None).unwrap().is_empty(), "rolled back");
        assert!(store.open_turn("g", "missing", "t", &user("x")).is_err());
    }
}
