//! Log writes that need the session idle: shell context sent with
//! `steer{kind:"command"}` and goal markers (background-job notices are the
//! engine's, see [`seekclaw_engine::Announce`]). Idle, they
//! are written at once; while work runs (a finishing turn, a compaction)
//! they wait and are written, in order, when it ends (reference §2.2: "leftover
//! command/notice steers → persisted at the boundary").

use seekclaw_store::{EventItem, UserMessage};

use super::command::Submission;
use super::wire::{AppliedSteerKind, WireEvent};
use super::{Serve, goal};

/// One write waiting for the boundary.
pub(super) enum Boundary {
    /// Shell context from the user.
    Command(Submission),
    /// The goal set (`Some`) or cleared, and whether it is `auto`.
    Goal(Option<String>, bool),
}

impl Serve<'_> {
    /// Writes `w` now, or when the work in hand ends (`busy`).
    pub(super) async fn write_or_defer(&mut self, w: Boundary, busy: bool) {
        if busy {
            self.deferred.push(w);
        } else {
            self.write_idle(w).await;
        }
    }

    /// Writes what waited for the boundary, in order.
    pub(super) async fn flush_deferred(&mut self) {
        for w in std::mem::take(&mut self.deferred) {
            self.write_idle(w).await;
        }
    }

    /// Appends `w` to the idle session and reports it.
    pub(super) async fn write_idle(&mut self, w: Boundary) {
        let (item, done) = match w {
            Boundary::Command(sub) => (
                EventItem::Steer(UserMessage {
                    text: sub.text.clone(),
                    images: Vec::new(),
                }),
                Done::Event(WireEvent::SteerApplied {
                    kind: AppliedSteerKind::Command,
                    content: sub.text,
                    submission_id: sub.submission_id,
                }),
            ),
            Boundary::Goal(text, auto) => {
                (goal::marker(text.as_deref()).item(), Done::Goal(text, auto))
            }
        };
        match self.append(item).await {
            Ok(_) => match done {
                Done::Event(ev) => self.events.emit(&ev),
                // Armed only once the marker is durable.
                Done::Goal(text, auto) => {
                    self.goal
                        .set(text.as_deref(), auto, self.engine, self.session.as_deref());
                    self.events.emit(&WireEvent::GoalUpdated { goal: text });
                }
            },
            Err(e) => self
                .events
                .emit(&WireEvent::SessionError { error: e.message }),
        }
    }
}

/// What a write reports once it is in the log.
enum Done {
    Event(WireEvent),
    Goal(Option<String>, bool),
}
