//! The end of a turn in the session log: the final answer, the terminal and the
//! counters in one transaction, with a fallback that still writes the log. The
//! client is told the turn ended only once one of them has committed.

use seekclaw_store::{EventItem, Spend, Store, StoreError, TurnEnd};

/// Writes the turn's last items (final answer, terminal) and what it spent
/// since its last write, and clears its active mark. Should the single
/// transaction fail, the items and the mark are written on their own (that
/// last spend is then lost, and logged).
/// An error means neither committed: the turn keeps its active mark.
pub(crate) async fn close_turn(
    store: &Store,
    scope: &str,
    sid: &str,
    owner: &str,
    items: Vec<EventItem>,
    spend: Spend,
) -> Result<(), StoreError> {
    // The client's `done` waits for this write. When nothing else is writing
    // (the usual case) and the answer is of a usual size, it runs right here:
    // a fraction of a millisecond, less than handing it to another thread
    // costs. Otherwise it runs off the async threads.
    let inline = if text_bytes(&items) <= INLINE_CLOSE_BYTES {
        store.try_close_turn(&TurnEnd {
            scope,
            id: sid,
            owner,
            items: &items,
            spend: &spend,
        })
    } else {
        None
    };
    let first = match inline {
        Some(Ok(())) => return Ok(()),
        Some(Err(e)) => Some(e),
        None => None,
    };
    let (store, scope, sid, owner) = (
        store.clone(),
        scope.to_string(),
        sid.to_string(),
        owner.to_string(),
    );
    let closed = crate::blocking::run_now(move || {
        let end = TurnEnd {
            scope: &scope,
            id: &sid,
            owner: &owner,
            items: &items,
            spend: &spend,
        };
        let failure = match first {
            Some(e) => e,
            None => match store.close_turn(&end) {
                Ok(()) => return Ok(()),
                Err(e) => e,
            },
        };
        write_alone(&store, &end, &failure)
    })
    .await;
    closed.unwrap_or_else(|e| Err(StoreError::Corrupt(format!("session log task failed: {e}"))))
}

/// Text of a closing write beyond which it is not run on an async thread
/// (256 KB is some 70 database pages; the terminal repeats the answer, so
/// answers up to about half that qualify).
const INLINE_CLOSE_BYTES: usize = 256 * 1024;

/// The text (and image data) the closing items carry: answer, thinking,
/// leftover guidance, terminal.
fn text_bytes(items: &[EventItem]) -> usize {
    items
        .iter()
        .map(|item| match item {
            EventItem::Assistant(a) => a.text.len() + a.thinking.as_ref().map_or(0, String::len),
            EventItem::Steer(m) | EventItem::User(m) => {
                m.text.len() + m.images.iter().map(|i| i.data.len()).sum::<usize>()
            }
            EventItem::Terminal(t) => t.text.len(),
            _ => 0,
        })
        .sum()
}

/// The fallback after the closing transaction failed with `failure`: the log
/// half alone (items and the cleared mark, one transaction).
fn write_alone(store: &Store, end: &TurnEnd<'_>, failure: &StoreError) -> Result<(), StoreError> {
    tracing::error!(error = %failure, "cannot record the end of the turn; writing its log entries alone");
    store.close_turn_log(end).inspect_err(|e| {
        tracing::error!(error = %e, "cannot append the turn's terminal to the session log");
    })?;
    tracing::warn!(
        attempts = end.spend.records.len(),
        "the usage of the turn's last provider calls was not recorded"
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use seekclaw_store::{AssistantMessage, TerminalStatus, TurnTerminal, UserMessage};

    #[test]
    fn a_closing_write_is_sized_by_the_text_it_carries() {
        let items = [
            EventItem::Assistant(AssistantMessage {
                text: "a".repeat(100),
                thinking: Some("t".repeat(20)),
                ..AssistantMessage::default()
            }),
            EventItem::Terminal(TurnTerminal {
                status: TerminalStatus::Finished,
                text: "a".repeat(100),
            }),
            EventItem::Steer(UserMessage {
                text: "left".into(),
                images: vec![seekclaw_store::ImageAttachment {
                    data: "A".repeat(1000),
                    ..Default::default()
                }],
            }),
        ];
        assert_eq!(text_bytes(&items), 1224);
        assert_eq!(text_bytes(&[]), 0);
    }
}
