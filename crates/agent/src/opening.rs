//! A turn's first trip to the store: the conversation so far is read, then
//! one write marks the turn active and appends its user message. The model is
//! asked as soon as the read is back; the write runs meanwhile and whatever
//! touches the log after it waits for it ([`OpeningWrite::settle`]).

use seekclaw_store::{EventItem, SessionEvent, Store, UserMessage};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use crate::events::TurnFailure;
use crate::turn::{TurnInput, TurnRuntime, attachments};

/// The opening write, running or done.
pub(crate) struct OpeningWrite {
    running: Option<JoinHandle<Result<u64, TurnFailure>>>,
    done: Result<u64, TurnFailure>,
}

impl OpeningWrite {
    fn running(write: JoinHandle<Result<u64, TurnFailure>>) -> OpeningWrite {
        OpeningWrite {
            running: Some(write),
            done: Err(TurnFailure::storage("Cannot record the message")),
        }
    }

    fn failed(failure: TurnFailure) -> OpeningWrite {
        OpeningWrite {
            running: None,
            done: Err(failure),
        }
    }

    /// Waits for the write: the user message's seq, or why it was not recorded.
    pub(crate) async fn settle(&mut self) -> Result<u64, TurnFailure> {
        if let Some(running) = self.running.take() {
            self.done = running.await.unwrap_or_else(|e| {
                Err(TurnFailure::storage(format!(
                    "Cannot record the message: {e}"
                )))
            });
        }
        self.done.clone()
    }

    /// A write that has already returned (tests).
    #[cfg(test)]
    pub(crate) fn done(done: Result<u64, TurnFailure>) -> OpeningWrite {
        OpeningWrite {
            running: None,
            done,
        }
    }
}

/// Starts the opening trip; returns the conversation before the turn once it
/// is read (at once when the caller has read it: `read`), with the write
/// still running. A failed read skips the write.
pub(crate) async fn open_turn(
    rt: &TurnRuntime,
    input: &TurnInput,
    owner: &str,
    read: Option<Vec<SessionEvent>>,
) -> (Result<Vec<SessionEvent>, TurnFailure>, OpeningWrite) {
    let user_item = EventItem::User(UserMessage {
        text: input.message.clone(),
        images: attachments(&input.images),
    });
    let (store, s, i, o) = (
        rt.store.clone(),
        input.scope.clone(),
        input.session_id.clone(),
        owner.to_string(),
    );
    let write = move |store: &Store| {
        store
            .open_turn(&s, &i, &o, &user_item)
            .map_err(|e| TurnFailure::storage(format!("Cannot record the message: {e}")))
    };
    if let Some(past) = read {
        let running = tokio::task::spawn_blocking(move || write(&store));
        return (Ok(past), OpeningWrite::running(running));
    }
    let (s, i) = (input.scope.clone(), input.session_id.clone());
    let (read_tx, read_rx) = oneshot::channel();
    let running = tokio::task::spawn_blocking(move || {
        let past = match store.events(&s, &i) {
            Ok(past) => past,
            Err(e) => {
                let failure = TurnFailure::storage(format!("Cannot read the session: {e}"));
                let _ = read_tx.send(Err(failure.clone()));
                return Err(failure);
            }
        };
        let _ = read_tx.send(Ok(past));
        write(&store)
    });
    match read_rx.await {
        Ok(past) => (past, OpeningWrite::running(running)),
        // The task ended without sending: it panicked; its error says how.
        Err(_) => {
            let mut write = OpeningWrite::running(running);
            let failure = write
                .settle()
                .await
                .err()
                .unwrap_or_else(|| TurnFailure::storage("Cannot read the session"));
            (Err(failure.clone()), OpeningWrite::failed(failure))
        }
    }
}
