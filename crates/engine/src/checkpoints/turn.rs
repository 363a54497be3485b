//! A turn's checkpoints: the workspace is read at the turn's start (off the
//! turn, so the first model request never waits), recorded before its
//! first change and after each step that may have changed it.

use std::path::PathBuf;
use std::sync::Arc;

use seekclaw_agent::{CheckpointCause, CheckpointFuture, CheckpointNote, Touched, TurnCheckpoints};
use seekclaw_checkpoint::{CheckpointError, Checkpointer, Kind, Reach, Settings, Take, Tracker};
use seekclaw_store::Store;
use tokio::sync::Mutex;
use tokio::task::JoinHandle;

use super::{failed_note, note_of};

/// The engine's [`TurnCheckpoints`] for one turn.
pub(crate) struct TurnCheckpointer {
    cp: Arc<Checkpointer>,
    settings: Settings,
    store: Store,
    scope: String,
    session_id: String,
    root: PathBuf,
    state: Mutex<State>,
}

impl std::fmt::Debug for TurnCheckpointer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TurnCheckpointer")
            .field("session_id", &self.session_id)
            .finish_non_exhaustive()
    }
}

struct State {
    /// The tracker, once the turn-start read returned it.
    tracker: Option<Tracker>,
    /// The turn-start read, until it is awaited.
    reading: Option<JoinHandle<Result<Tracker, CheckpointError>>>,
    /// The turn's first checkpoint was attempted.
    first_done: bool,
    /// What is not tracked was said this turn.
    said_not_tracked: bool,
}

impl TurnCheckpointer {
    /// Starts reading `root` for the turn's session at once, in the background.
    pub(crate) fn start(
        cp: Arc<Checkpointer>,
        settings: Settings,
        store: Store,
        (scope, session_id): (&str, &str),
        root: PathBuf,
    ) -> TurnCheckpointer {
        let reading = {
            let (cp, settings, id, root) = (
                cp.clone(),
                settings.clone(),
                session_id.to_string(),
                root.clone(),
            );
            tokio::task::spawn_blocking(move || {
                let mut t = cp.tracker(&id, &root)?;
                cp.prefetch(&mut t, &settings)?;
                Ok(t)
            })
        };
        TurnCheckpointer {
            cp,
            settings,
            store,
            scope: scope.to_string(),
            session_id: session_id.to_string(),
            root,
            state: Mutex::new(State {
                tracker: None,
                reading: Some(reading),
                first_done: false,
                said_not_tracked: false,
            }),
        }
    }

    /// The tracker, once the turn-start read is done.
    async fn tracker(&self, state: &mut State) -> Result<Tracker, String> {
        if let Some(t) = state.tracker.take() {
            return Ok(t);
        }
        match state.reading.take() {
            Some(reading) => match reading.await {
                Ok(Ok(t)) => Ok(t),
                Ok(Err(e)) => Err(e.to_string()),
                Err(e) => Err(format!("checkpoint task failed: {e}")),
            },
            None => Err("the workspace could not be read".into()),
        }
    }

    /// Takes one checkpoint; the note to stream, if any.
    async fn take(&self, take: Take) -> Option<CheckpointNote> {
        let mut state = self.state.lock().await;
        let kind = take.kind.as_str();
        let (seq, turn_seq) = (take.seq, take.turn_seq);
        let mut tracker = match self.tracker(&mut state).await {
            Ok(t) => t,
            Err(e) => {
                // Read again next time (the folder may be back).
                let (cp, id, root) = (self.cp.clone(), self.session_id.clone(), self.root.clone());
                state.reading = Some(tokio::task::spawn_blocking(move || cp.tracker(&id, &root)));
                return Some(failed_note(kind, seq, turn_seq, &e));
            }
        };
        let (cp, settings) = (self.cp.clone(), self.settings.clone());
        let now = chrono::Utc::now().timestamp_millis();
        let done = tokio::task::spawn_blocking(move || {
            let r = cp.record(&mut tracker, &take, &settings, now);
            (tracker, r)
        })
        .await;
        let note = match done {
            Ok((tracker, result)) => {
                state.tracker = Some(tracker);
                match result {
                    Ok(Some(taken)) => Some(note_of(&taken)),
                    Ok(None) => None,
                    Err(e) => {
                        tracing::warn!(session = %self.session_id, root = %self.root.display(), error = %e, "checkpoint failed");
                        Some(failed_note(kind, seq, turn_seq, &e.to_string()))
                    }
                }
            }
            Err(e) => Some(failed_note(
                kind,
                seq,
                turn_seq,
                &format!("checkpoint task failed: {e}"),
            )),
        };
        // What is not tracked is said once a turn, with its first checkpoint.
        note.map(|mut n| {
            if state.said_not_tracked || n.error.is_some() {
                n.not_tracked = None;
            } else {
                state.said_not_tracked = true;
            }
            n
        })
    }

    /// The log's last seq now (where a step's checkpoint stands).
    async fn last_seq(&self) -> u64 {
        let (store, scope, id) = (
            self.store.clone(),
            self.scope.clone(),
            self.session_id.clone(),
        );
        tokio::task::spawn_blocking(move || store.last_seq(&scope, &id))
            .await
            .ok()
            .and_then(Result::ok)
            .unwrap_or(0)
    }
}

/// Closing a watcher's inotify descriptor waits for the kernel (an SRCU
/// grace period, ~15 ms): never on the turn's thread, whose end (and the
/// client's `done`) would wait for it.
impl Drop for TurnCheckpointer {
    fn drop(&mut self) {
        let state = self.state.get_mut();
        let (tracker, reading) = (state.tracker.take(), state.reading.take());
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        if let Some(tracker) = tracker {
            runtime.spawn_blocking(move || drop(tracker));
        }
        if let Some(reading) = reading {
            // Still reading: the read's own thread drops it when done.
            if !reading.is_finished() {
                return;
            }
            runtime.spawn(async move {
                if let Ok(read) = reading.await {
                    let _ = tokio::task::spawn_blocking(move || drop(read)).await;
                }
            });
        }
    }
}

impl TurnCheckpoints for TurnCheckpointer {
    fn before_change(&self, turn_seq: u64) -> CheckpointFuture<'_> {
        Box::pin(async move {
            {
                let mut state = self.state.lock().await;
                if std::mem::replace(&mut state.first_done, true) {
                    return None;
                }
            }
            self.take(Take {
                seq: turn_seq,
                turn_seq,
                kind: Kind::Turn,
                reach: Reach::Whole,
            })
            .await
        })
    }

    fn after_change(
        &self,
        turn_seq: u64,
        cause: CheckpointCause,
        touched: Touched,
    ) -> CheckpointFuture<'_> {
        Box::pin(async move {
            let reach = match touched {
                Touched::Anything => Reach::Whole,
                Touched::Paths(paths) => {
                    // A path outside the workspace is not tracked.
                    let inside: Vec<String> = paths
                        .into_iter()
                        .filter(|p| {
                            let p = std::path::Path::new(p);
                            p.is_relative()
                                && !p.components().any(|c| c == std::path::Component::ParentDir)
                        })
                        .map(|p| p.replace('\\', "/"))
                        .collect();
                    if inside.is_empty() {
                        return None;
                    }
                    Reach::Paths(inside)
                }
            };
            let kind = match cause {
                CheckpointCause::Step => Kind::Step,
                CheckpointCause::Verify => Kind::Verify,
            };
            let seq = self.last_seq().await;
            self.take(Take {
                seq,
                turn_seq,
                kind,
                reach,
            })
            .await
        })
    }
}
