//! Envelopes read as what they are: the event name matched once, against the
//! protocol's names, and the `details` read as the protocol's types, so a
//! client matches on a variant instead of comparing strings and indexing JSON.

use seekclaw_protocol::event;
use seekclaw_protocol::events::{
    ApprovalRequestDetails, ApprovalResolvedDetails, BackgroundNoticeDetails, ContextYieldDetails,
    FailoverDetails, FileDiffDetails, GoalUpdatedDetails, HookFinishedDetails, HookStartedDetails,
    ImageViewDetails, ModelStartDetails, ReminderDetails, RetryDetails, ScheduleUpcomingDetails,
    ScheduleUpdatedDetails, SubrunFinishedDetails, SubrunProgressDetails, SubrunStartedDetails,
    ToolDoneDetails, ToolStartDetails, TurnEndDetails, TurnStartDetails, UsageDetails,
    WorkflowDetails,
};
use serde::de::DeserializeOwned;

use crate::error::DaemonError;
use crate::wire::Event;

/// What an envelope is, with its details typed (its `id`, `data` and
/// `sessionId` stay on the [`Event`]). An event this client does not know (a
/// newer daemon's), or a known one whose details do not read as the
/// protocol's type, is [`EventKind::Other`]: skipped as an unknown event is.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum EventKind {
    /// `pong` (terminal).
    Pong,
    /// `bye` (terminal).
    Bye,
    /// `result` (terminal): a method's answer in `data`.
    Result,
    /// `done` (terminal): the turn's answer in `data`.
    Done,
    /// `cancelled` (terminal): the answer so far in `data`.
    Cancelled,
    /// `error` (terminal), read as [`Event::as_error`] reads it.
    Error(Box<DaemonError>),
    /// `workflow`: a flowchart node.
    Workflow(WorkflowDetails),
    /// `status`: an English status line in `data`.
    Status,
    /// `model_start`: `provider/model` in `data`.
    ModelStart(ModelStartDetails),
    /// `failover`: the readable line in `data`.
    Failover(FailoverDetails),
    /// `retry`: the readable line in `data`.
    Retry(RetryDetails),
    /// `thinking`: a reasoning delta in `data`.
    Thinking,
    /// `delta`: an answer delta in `data`.
    Delta,
    /// `usage`: one provider attempt's tokens.
    Usage(UsageDetails),
    /// `image_view`: an image the model sees.
    ImageView(ImageViewDetails),
    /// `tool_start`: the tool's name in `data`.
    ToolStart(ToolStartDetails),
    /// `tool_done`: the result summary in `data`.
    ToolDone(ToolDoneDetails),
    /// `file_diff`: the file's path in `data`.
    FileDiff(FileDiffDetails),
    /// `steer`: the guidance the turn took in, in `data`.
    Steer,
    /// `context_yield`: the turn checkpointed at its context ceiling.
    ContextYield(ContextYieldDetails),
    /// `goal_updated`: the goal in force in `data`.
    GoalUpdated(GoalUpdatedDetails),
    /// `background_notice`: an idle session's job ended; the notice in `data`.
    BackgroundNotice(BackgroundNoticeDetails),
    /// `notice`: an engine notice the running turn took in, in `data`.
    Notice,
    /// `turn_start` (`session.watch`): the turn's message in `data`.
    TurnStart(TurnStartDetails),
    /// `turn_end` (`session.watch`): the answer or error text in `data`.
    TurnEnd(TurnEndDetails),
    /// `reminder`: the reminder's text in `data`.
    Reminder(ReminderDetails),
    /// `approval_request`: a call waits for a decision (boxed: it carries the
    /// call's arguments).
    ApprovalRequest(Box<ApprovalRequestDetails>),
    /// `approval_resolved`: the outcome in `data`.
    ApprovalResolved(ApprovalResolvedDetails),
    /// `hook_started`: a hook command started; its event name in `data`.
    HookStarted(HookStartedDetails),
    /// `hook_finished`: a hook command ended; its decision in `data`.
    HookFinished(HookFinishedDetails),
    /// `subrun_started`.
    SubrunStarted(SubrunStartedDetails),
    /// `subrun_progress`.
    SubrunProgress(SubrunProgressDetails),
    /// `subrun_finished`.
    SubrunFinished(SubrunFinishedDetails),
    /// `schedule.updated` (broadcast).
    ScheduleUpdated(ScheduleUpdatedDetails),
    /// `schedule.upcoming` (broadcast).
    ScheduleUpcoming(ScheduleUpcomingDetails),
    /// `checkpoint`: the engine checkpointed the workspace; the note is the
    /// JSON in `data` (boxed: it lists files).
    Checkpoint(Box<seekclaw_protocol::api::CheckpointNote>),
    /// An event this client does not know, or details that do not read.
    Other,
}

impl Event {
    /// The envelope as what it is; see [`EventKind`].
    pub fn kind(&self) -> EventKind {
        use EventKind as K;
        let kind = match self.event.as_str() {
            event::PONG => Some(K::Pong),
            event::BYE => Some(K::Bye),
            event::RESULT => Some(K::Result),
            event::DONE => Some(K::Done),
            event::CANCELLED => Some(K::Cancelled),
            event::ERROR => self.as_error().map(|e| K::Error(Box::new(e))),
            event::WORKFLOW => self.read(K::Workflow),
            event::STATUS => Some(K::Status),
            event::MODEL_START => self.read(K::ModelStart),
            event::FAILOVER => self.read(K::Failover),
            event::RETRY => self.read(K::Retry),
            event::THINKING => Some(K::Thinking),
            event::DELTA => Some(K::Delta),
            event::USAGE => self.read(K::Usage),
            event::IMAGE_VIEW => self.read(K::ImageView),
            event::TOOL_START => self.read(K::ToolStart),
            event::TOOL_DONE => self.read(K::ToolDone),
            event::FILE_DIFF => self.read(K::FileDiff),
            event::STEER => Some(K::Steer),
            event::CONTEXT_YIELD => self.read(K::ContextYield),
            event::GOAL_UPDATED => self.read(K::GoalUpdated),
            event::BACKGROUND_NOTICE => self.read(K::BackgroundNotice),
            event::NOTICE => Some(K::Notice),
            event::TURN_START => self.read(K::TurnStart),
            event::TURN_END => self.read(K::TurnEnd),
            event::REMINDER => self.read(K::Reminder),
            event::APPROVAL_REQUEST => self.read(|d| K::ApprovalRequest(Box::new(d))),
            event::APPROVAL_RESOLVED => self.read(K::ApprovalResolved),
            event::HOOK_STARTED => self.read(K::HookStarted),
            event::HOOK_FINISHED => self.read(K::HookFinished),
            event::SUBRUN_STARTED => self.read(K::SubrunStarted),
            event::SUBRUN_PROGRESS => self.read(K::SubrunProgress),
            event::SUBRUN_FINISHED => self.read(K::SubrunFinished),
            event::SCHEDULE_UPDATED => self.read(K::ScheduleUpdated),
            event::SCHEDULE_UPCOMING => self.read(K::ScheduleUpcoming),
            event::CHECKPOINT => serde_json::from_str(&self.data)
                .ok()
                .map(|n| K::Checkpoint(Box::new(n))),
            _ => None,
        };
        kind.unwrap_or(K::Other)
    }

    /// The details as `T`, wrapped as its kind.
    fn read<T: DeserializeOwned>(&self, wrap: impl FnOnce(T) -> EventKind) -> Option<EventKind> {
        let details = self.details.clone()?;
        serde_json::from_value(details).ok().map(wrap)
    }
}

#[cfg(test)]
mod tests {
    use seekclaw_protocol::{EVENTS, ErrorCode};

    use super::*;

    fn env(line: &str) -> Event {
        Event::parse(line).unwrap()
    }

    #[test]
    fn turn_events_read_with_their_details_typed() {
        let start = env(
            r#"{"id":3,"event":"tool_start","data":"bash","sessionId":"s","details":{"callId":"c1","summary":"command: ls"}}"#,
        );
        let EventKind::ToolStart(d) = start.kind() else {
            panic!("{:?}", start.kind())
        };
        assert_eq!(
            (d.call_id.as_str(), d.summary.as_str()),
            ("c1", "command: ls")
        );

        let done = env(
            r#"{"id":3,"event":"tool_done","data":"ok","details":{"callId":"c1","success":false,"durationMs":12.5}}"#,
        );
        let EventKind::ToolDone(d) = done.kind() else {
            panic!("{:?}", done.kind())
        };
        assert!(!d.success);
        assert_eq!(d.duration_ms, 12.5);

        let usage = env(
            r#"{"id":3,"event":"usage","data":"p/m","details":{"provider":"p","model":"m","inputTokens":10,"outputTokens":2,"totalInputTokens":10,"cachedInputTokens":0,"elapsedMs":5,"costUsd":0.5}}"#,
        );
        let EventKind::Usage(d) = usage.kind() else {
            panic!("{:?}", usage.kind())
        };
        assert_eq!(
            (d.input_tokens, d.output_tokens, d.cost_usd),
            (10, 2, Some(0.5))
        );

        assert!(matches!(
            env(r#"{"id":3,"event":"delta","data":"he"}"#).kind(),
            EventKind::Delta
        ));
        assert!(matches!(
            env(r#"{"id":3,"event":"done","data":"hello"}"#).kind(),
            EventKind::Done
        ));
    }

    #[test]
    fn hook_events_read_with_their_details_typed() {
        let start = env(
            r#"{"id":3,"event":"hook_started","data":"PreToolUse","sessionId":"s","details":{"runId":"hk_1","event":"PreToolUse","command":"./guard.sh","source":"workspace","callId":"c1","tool":"Bash"}}"#,
        );
        let EventKind::HookStarted(d) = start.kind() else {
            panic!("{:?}", start.kind())
        };
        assert_eq!(
            (d.run_id.as_str(), d.tool.as_deref()),
            ("hk_1", Some("Bash"))
        );
        let end = env(
            r#"{"id":3,"event":"hook_finished","data":"timeout","sessionId":"s","details":{"runId":"hk_1","event":"Stop","command":"sleep 9","source":"user","exitCode":null,"durationMs":1000.5,"decision":"timeout"}}"#,
        );
        let EventKind::HookFinished(d) = end.kind() else {
            panic!("{:?}", end.kind())
        };
        assert_eq!(
            (d.exit_code, d.decision.as_str(), d.call_id),
            (None, "timeout", None)
        );
    }

    #[test]
    fn errors_read_leniently_and_unknown_or_unreadable_events_are_other() {
        let e = env(r#"{"id":1,"event":"error","data":"busy","details":{"code":"busy"}}"#);
        let EventKind::Error(d) = e.kind() else {
            panic!("{:?}", e.kind())
        };
        assert_eq!(
            (d.message.as_str(), d.code),
            ("busy", Some(ErrorCode::Busy))
        );
        // An old daemon's error without details is still an error.
        assert!(matches!(
            env(r#"{"id":1,"event":"error","data":"x"}"#).kind(),
            EventKind::Error(_)
        ));
        assert!(matches!(
            env(r#"{"id":1,"event":"from_the_future","data":"x"}"#).kind(),
            EventKind::Other
        ));
        assert!(matches!(
            env(r#"{"id":1,"event":"tool_start","data":"x","details":{"callId":3}}"#).kind(),
            EventKind::Other
        ));
        assert!(matches!(
            env(r#"{"id":1,"event":"tool_start","data":"x"}"#).kind(),
            EventKind::Other
        ));
    }

    /// Every event of the protocol's table without details has its own
    /// kind (those with details are read above and in the terminal UI's
    /// tests): a new one must be added to [`EventKind`].
    #[test]
    fn every_event_without_details_is_known() {
        for spec in EVENTS.iter().filter(|s| s.details.is_none()) {
            // A checkpoint's note is its data.
            let data = match spec.name {
                event::CHECKPOINT => {
                    r#"{"id":1,"seq":3,"turnSeq":1,"kind":"step","files":[],"added":0,"removed":0,"tracked":2}"#
                }
                _ => "",
            };
            let e = Event {
                seq: None,
                id: 1,
                event: spec.name.to_string(),
                data: data.to_string(),
                session_id: None,
                details: None,
            };
            assert!(!matches!(e.kind(), EventKind::Other), "{}", spec.name);
        }
    }
}
