//! The standing goal (reference §3.10, §4.8): durable markers in the session
//! log — runtime notices whose first line is `[goal]`, `[goal cleared]`,
//! `[goal blocked]` or `[goal unblocked]` — and the model's `goal` tool. The
//! goal in force is what the markers, read in order, leave standing; it
//! survives compaction because the raw log keeps them.

use seekclaw_store::{EventItem, RuntimeNotice, SessionEvent};

const SET: &str = "[goal]";
const CLEARED: &str = "[goal cleared]";
const BLOCKED: &str = "[goal blocked]";
const UNBLOCKED: &str = "[goal unblocked]";

/// Turns a front end starts on its own toward one `auto` goal.
pub const AUTO_TURNS: u32 = 20;

/// The prompt of a turn started toward an `auto` goal (reference §4.8).
pub const CONTINUE_PROMPT: &str = "Continue working toward the standing goal. When it is fully met, record that by calling the goal tool with status \"met\".";

/// The runtime-notice kind of goal markers.
pub const MARKER_KIND: &str = "goal";

/// One marker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GoalMarker {
    /// The goal is set (or replaced).
    Set(String),
    /// No goal stands (cleared by the user, or met).
    Cleared,
    /// The model reported it cannot go on without the user.
    Blocked(String),
    /// Work goes on again.
    Unblocked,
}

impl GoalMarker {
    /// The marker's text in the log.
    pub fn text(&self) -> String {
        match self {
            GoalMarker::Set(goal) => format!("{SET}\n{goal}"),
            GoalMarker::Cleared => CLEARED.to_string(),
            GoalMarker::Blocked(reason) => format!("{BLOCKED}\n{reason}"),
            GoalMarker::Unblocked => UNBLOCKED.to_string(),
        }
    }

    /// The marker as a log item.
    pub fn item(&self) -> EventItem {
        EventItem::Runtime(RuntimeNotice {
            kind: MARKER_KIND.into(),
            text: self.text(),
        })
    }

    /// The marker `text` is, if any.
    pub fn parse(text: &str) -> Option<GoalMarker> {
        match text {
            CLEARED => return Some(GoalMarker::Cleared),
            UNBLOCKED => return Some(GoalMarker::Unblocked),
            _ => {}
        }
        let body = |prefix: &str| {
            text.strip_prefix(prefix)
                .and_then(|rest| rest.strip_prefix('\n'))
                .map(str::to_string)
        };
        body(SET)
            .map(GoalMarker::Set)
            .or_else(|| body(BLOCKED).map(GoalMarker::Blocked))
    }
}

/// The goal in force.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StandingGoal {
    /// The goal; `None` when none stands.
    pub text: Option<String>,
    /// Why it is blocked, while it is.
    pub blocked: Option<String>,
}

impl StandingGoal {
    /// What the markers of `events`, in order, leave standing.
    pub fn from_events(events: &[SessionEvent]) -> StandingGoal {
        let mut goal = StandingGoal::default();
        for ev in events {
            if let EventItem::Runtime(n) = &ev.item
                && let Some(marker) = GoalMarker::parse(&n.text)
            {
                goal.apply(&marker);
            }
        }
        goal
    }

    /// Takes one marker into account.
    pub fn apply(&mut self, marker: &GoalMarker) {
        match marker {
            GoalMarker::Set(text) => {
                self.text = Some(text.clone());
                self.blocked = None;
            }
            GoalMarker::Cleared => *self = StandingGoal::default(),
            GoalMarker::Blocked(reason) if self.text.is_some() => {
                self.blocked = Some(reason.clone());
            }
            GoalMarker::Unblocked => self.blocked = None,
            GoalMarker::Blocked(_) => {}
        }
    }
}

/// The turn-start reminder of a standing, unblocked goal.
pub(crate) fn reminder(goal: &str) -> String {
    format!(
        "[goal reminder]\nThe standing goal: {goal}\nAssess it first. If it is met, record that with the goal tool \
         (status \"met\") and finish; if it is truly blocked, record that (status \"blocked\" with the reason); \
         otherwise keep working toward it."
    )
}

/// The once-per-turn check when the model would finish with the goal unconfirmed.
pub(crate) fn check(goal: &str) -> String {
    format!(
        "[goal check]\nYou are about to finish, but the standing goal is not confirmed: {goal}\n\
         Call the goal tool: status \"met\" if it is fully met, \"blocked\" with the reason if you cannot go on, \
         or \"continuing\" with what remains — and then continue the work."
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_round_trip_and_fold() {
        for m in [
            GoalMarker::Set("ship\nit".into()),
            GoalMarker::Cleared,
            GoalMarker::Blocked("no key".into()),
            GoalMarker::Unblocked,
        ] {
            assert_eq!(GoalMarker::parse(&m.text()), Some(m));
        }
        assert_eq!(GoalMarker::parse("[goalx]"), None);
        assert_eq!(GoalMarker::parse("[goal]"), None, "a set marker has a body");
        let mut g = StandingGoal::default();
        g.apply(&GoalMarker::Blocked("x".into()));
        assert_eq!(g, StandingGoal::default(), "nothing to block");
        g.apply(&GoalMarker::Set("g".into()));
        g.apply(&GoalMarker::Blocked("why".into()));
        assert_eq!(g.blocked.as_deref(), Some("why"));
        g.apply(&GoalMarker::Unblocked);
        assert_eq!((g.text.as_deref(), g.blocked.as_deref()), (Some("g"), None));
        g.apply(&GoalMarker::Cleared);
        assert_eq!(g, StandingGoal::default());
    }
}
