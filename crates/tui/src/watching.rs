//! Watching the open session (`session.watch`): a turn another client, the
//! scheduler or an `auto` goal runs on it is shown as it happens, as if it
//! were this client's own (its events arrive on the watch's request id). The
//! watch also carries this client's own turns; those are skipped, since the
//! `chat` request already brings them.

use seekclaw_client::{DaemonError, Event, EventKind};
use seekclaw_protocol::event;

use crate::app::{App, Turn};

/// The watch of the open session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Watching {
    /// The `session.watch` request id (its events carry it).
    pub request_id: i64,
    /// The watched session.
    pub session: String,
    /// The turn now on the watch is this client's own.
    skipping: bool,
}

impl Watching {
    /// A watch of `session` on request `request_id`.
    pub fn new(request_id: i64, session: String) -> Watching {
        Watching {
            request_id,
            session,
            skipping: false,
        }
    }
}

impl App {
    /// `env` (read as `kind`) when it is not the watch's to handle here; a
    /// watched turn's end comes back as the turn's own terminal would read.
    pub(crate) fn on_watch_envelope(
        &mut self,
        env: Event,
        kind: EventKind,
    ) -> Option<(Event, EventKind)> {
        let Some(watch) = self.watch.as_mut() else {
            return Some((env, kind));
        };
        if env.id != watch.request_id {
            return Some((env, kind));
        }
        // The replay no longer reached back: the session is reloaded from
        // the store (the live events follow on this watch).
        if env.event == seekclaw_protocol::event::RESYNC {
            self.resync = true;
            return None;
        }
        // A checkpoint outside a turn (a rewind's, a job's end) starts none.
        if env.event == "checkpoint" && self.turn.is_none() {
            self.on_checkpoint(&env);
            return None;
        }
        match kind {
            EventKind::TurnStart(start) => {
                if self.turn.is_some() {
                    watch.skipping = true;
                    return None;
                }
                watch.skipping = false;
                let origin = start.origin;
                self.hint = Some(format!("a turn started by {origin} is running"));
                self.entries
                    .push(crate::app::Entry::User(env.data, Vec::new()));
                // Its `model_start` says which model answers.
                self.model = None;
                self.turn = Some(Turn {
                    request_id: watch.request_id,
                    cancelling: false,
                    phase: String::new(),
                    streamed: false,
                    foreign: true,
                });
                self.scroll = 0;
            }
            EventKind::TurnEnd(end) => {
                if std::mem::take(&mut watch.skipping) {
                    return None;
                }
                // The end reads as the turn's own terminal would.
                let (name, kind) = match end.outcome.as_str() {
                    "cancelled" => (event::CANCELLED, EventKind::Cancelled),
                    "error" => {
                        let error = DaemonError {
                            message: env.data.clone(),
                            code: end.code,
                            param: None,
                            session_id: env.session_id.clone(),
                            details: None,
                        };
                        (event::ERROR, EventKind::Error(Box::new(error)))
                    }
                    _ => (event::DONE, EventKind::Done),
                };
                let env = Event {
                    event: name.to_string(),
                    ..env
                };
                return Some((env, kind));
            }
            // The watch itself ended: after `session.unwatch`, or it fell behind.
            kind @ (EventKind::Result | EventKind::Error(_)) => {
                let fell_behind = matches!(kind, EventKind::Error(_));
                self.watch = None;
                if fell_behind {
                    self.notice(format!("Stopped watching the session: {}", env.data));
                }
            }
            _ if watch.skipping => {}
            _ => {
                // Watching began mid-turn: the turn shows from here on.
                if self.turn.is_none() {
                    self.hint = Some("a turn is running on this session".into());
                    self.turn = Some(Turn {
                        request_id: watch.request_id,
                        cancelling: false,
                        phase: String::new(),
                        streamed: false,
                        foreign: true,
                    });
                }
                return Some((env, kind));
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;
    use crate::app::Entry;

    fn env(event: &str, data: &str, details: Value) -> Event {
        Event {
            seq: None,
            id: 9,
            event: event.into(),
            data: data.into(),
            session_id: Some("s".into()),
            details: Some(details).filter(|d| !d.is_null()),
        }
    }

    fn watching() -> App {
        let mut app = App::default();
        app.watch = Some(Watching::new(9, "s".into()));
        app
    }

    #[test]
    fn another_clients_turn_shows_and_its_end_reads_as_its_terminal() {
        let mut app = watching();
        app.on_envelope(env("turn_start", "fix it", json!({"origin": "schedule"})));
        assert_eq!(
            app.hint.as_deref(),
            Some("a turn started by schedule is running")
        );
        assert!(app.turn.as_ref().is_some_and(|t| t.foreign));
        app.on_envelope(env("delta", "partial", Value::Null));
        app.on_envelope(env(
            "turn_end",
            "provider down",
            json!({"outcome": "error", "code": "provider"}),
        ));
        assert!(app.turn.is_none());
        assert_eq!(
            app.entries.last(),
            Some(&Entry::Error("provider down".into()))
        );

        app.on_envelope(env("turn_start", "again", json!({"origin": "chat"})));
        app.on_envelope(env("turn_end", "", json!({"outcome": "cancelled"})));
        assert!(app.turn.is_none());
        assert_eq!(
            app.entries.last(),
            Some(&Entry::Notice(crate::detail::CANCELLED.into()))
        );
    }

    #[test]
    fn our_own_turn_on_the_watch_is_skipped_and_an_error_ends_the_watch() {
        let mut app = watching();
        app.start_turn(3, "mine");
        app.on_envelope(env("turn_start", "mine", json!({"origin": "chat"})));
        app.on_envelope(env("delta", "twice?", Value::Null));
        app.on_envelope(env("turn_end", "done", json!({"outcome": "done"})));
        assert!(app.turn.as_ref().is_some_and(|t| t.request_id == 3));
        assert!(
            !app.entries
                .iter()
                .any(|e| matches!(e, Entry::Assistant { .. })),
            "{:?}",
            app.entries
        );
        app.on_envelope(env("error", "fell behind", json!({"code": "busy"})));
        assert!(app.watch.is_none());
        assert!(matches!(app.entries.last(), Some(Entry::Notice(n)) if n.contains("fell behind")));
    }
}
