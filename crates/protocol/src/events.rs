//! Event names and the typed `details` of every event the daemon sends
//! (reference §3). [`EVENTS`] lists them all; the JSON Schema is built from it.

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::{Deserialize, Serialize};

use crate::error::ErrorCode;

/// Event names used on the wire.
pub mod event {
    /// The answer to `ping` (terminal).
    pub const PONG: &str = "pong";
    /// The answer to `shutdown` (terminal).
    pub const BYE: &str = "bye";
    /// A method's answer (terminal).
    pub const RESULT: &str = "result";
    /// A turn finished (terminal).
    pub const DONE: &str = "done";
    /// A turn was cancelled (terminal).
    pub const CANCELLED: &str = "cancelled";
    /// A request failed (terminal).
    pub const ERROR: &str = "error";
    /// A node of a turn's execution flowchart.
    pub const WORKFLOW: &str = "workflow";
    /// What a turn is doing now.
    pub const STATUS: &str = "status";
    /// A model request starts.
    pub const MODEL_START: &str = "model_start";
    /// The model that was to answer failed before saying anything and the
    /// next candidate answers instead (ours, additive).
    pub const FAILOVER: &str = "failover";
    /// A model request failed and is tried again after a pause (ours, additive).
    pub const RETRY: &str = "retry";
    /// A piece of the model's reasoning.
    pub const THINKING: &str = "thinking";
    /// A piece of the model's answer.
    pub const DELTA: &str = "delta";
    /// One provider attempt's token counts.
    pub const USAGE: &str = "usage";
    /// An image enters the model's request.
    pub const IMAGE_VIEW: &str = "image_view";
    /// A tool call starts.
    pub const TOOL_START: &str = "tool_start";
    /// A tool call ended.
    pub const TOOL_DONE: &str = "tool_done";
    /// A tool changed a file.
    pub const FILE_DIFF: &str = "file_diff";
    /// Queued guidance entered a turn.
    pub const STEER: &str = "steer";
    /// A turn reached the model's context ceiling and checkpointed; `done`
    /// follows (ours, additive).
    pub const CONTEXT_YIELD: &str = "context_yield";
    /// The session's standing goal changed (ours, additive): set or cleared
    /// by `goal.set`/`goal.clear` (broadcast), or reported by the model in a
    /// turn (`met`, `blocked`, `unblocked`).
    pub const GOAL_UPDATED: &str = "goal_updated";
    /// A background job of an idle session ended on its own; the notice is in
    /// the session's log (ours, additive; sent to the connection that last
    /// ran a turn on the session, with id 0).
    pub const BACKGROUND_NOTICE: &str = "background_notice";
    /// A notice of the engine entered a running turn (a background job
    /// ended): the model reads it, but it is not the user's guidance, so it
    /// is not a `steer` (ours, additive).
    pub const NOTICE: &str = "notice";
    /// `session.watch`: a turn started on the watched session (ours, additive).
    pub const TURN_START: &str = "turn_start";
    /// `session.watch`: a turn on the watched session ended (ours, additive;
    /// not terminal: the watch goes on).
    pub const TURN_END: &str = "turn_end";
    /// `session.watch {afterSeq}` could not replay what was asked (ours).
    pub const RESYNC: &str = "resync";
    /// The runtime reminded the model (goal, goal check, plan); the text is
    /// in the log as a notice (ours, additive).
    pub const REMINDER: &str = "reminder";
    /// A tool call waits for a person's decision (`agent.approve`) (ours,
    /// additive; only on turns whose client announced `approvals`).
    pub const APPROVAL_REQUEST: &str = "approval_request";
    /// A pending approval was decided, timed out or cancelled (ours, additive).
    pub const APPROVAL_RESOLVED: &str = "approval_resolved";
    /// A subagent (`explore`, `review`: a child turn with its own session)
    /// started from a tool call of the turn (ours, additive).
    pub const SUBRUN_STARTED: &str = "subrun_started";
    /// A running subagent made a model request or used tokens (ours, additive).
    pub const SUBRUN_PROGRESS: &str = "subrun_progress";
    /// A subagent ended: `status` says how (ours, additive).
    pub const SUBRUN_FINISHED: &str = "subrun_finished";
    /// The engine took a checkpoint of the session's workspace: in a turn
    /// (before its first change, after a step that changed files), or
    /// outside one (a background job ended, a rewind) to the session's
    /// watchers (ours, additive). `data` is the note as JSON text.
    pub const CHECKPOINT: &str = "checkpoint";
    /// A lifecycle hook (the user's command) started (ours, additive).
    pub const HOOK_STARTED: &str = "hook_started";
    /// A lifecycle hook ended: its exit code, duration and decision (ours, additive).
    pub const HOOK_FINISHED: &str = "hook_finished";
    /// Broadcast: a scheduled run ended.
    pub const SCHEDULE_UPDATED: &str = "schedule.updated";
    /// Broadcast: a scheduled run starts in about a minute.
    pub const SCHEDULE_UPCOMING: &str = "schedule.upcoming";

    /// Terminal events: every request gets exactly one of these.
    pub const TERMINAL: &[&str] = &[PONG, BYE, RESULT, DONE, CANCELLED, ERROR];

    /// Whether `name` ends its request.
    pub fn is_terminal(name: &str) -> bool {
        TERMINAL.contains(&name)
    }
}

/// A typed `details` object and the event it belongs to.
pub trait EventDetails: Serialize {
    /// The event name.
    const EVENT: &'static str;
}

/// `workflow`: a flowchart node. `data` is the label.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct WorkflowDetails {
    /// The model request the node belongs to (0 before the first).
    pub step: u32,
    /// start, compact, think, tool, verify, repair, done or error.
    pub kind: String,
    /// The node's display label (Chinese for fixed nodes, the tool name for a tool node); the same as `data`.
    pub label: String,
    /// null unless the node has one.
    pub detail: Option<String>,
}

/// `model_start`: before each model request. `data` is `provider/model`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct ModelStartDetails {
    /// The provider id.
    pub provider: String,
    /// The model id at that provider.
    pub model: String,
    /// The turn's model request number, from 1.
    pub step: u32,
}

/// `usage`: after each provider attempt. `data` is `provider/model`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct UsageDetails {
    /// The provider id of the attempt.
    pub provider: String,
    /// The model id of the attempt.
    pub model: String,
    /// Input tokens of the attempt, cached ones included (the same count as `totalInputTokens`).
    pub input_tokens: u64,
    /// Output tokens, reasoning included.
    pub output_tokens: u64,
    /// Every input token, cached or not.
    pub total_input_tokens: u64,
    /// Input tokens read from the provider's prompt cache.
    pub cached_input_tokens: u64,
    /// Wall time of the attempt, in whole milliseconds (a JSON integer).
    pub elapsed_ms: u64,
    /// What the attempt cost in USD at the config's prices; absent when the
    /// model has no price (additive: older clients ignore it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
}

/// `image_view`: an image shown to the model. `data` is its file name.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct ImageViewDetails {
    /// The image's id (as in the session's message `images`).
    pub image_id: String,
    /// MIME type, e.g. `image/png`.
    pub media_type: String,
}

/// `tool_start`. `data` is the tool name.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct ToolStartDetails {
    /// The call id; `tool_done` and `file_diff` for this call carry the same.
    pub call_id: String,
    /// Up to 3 scalar arguments, `key: value`, joined with `, ` (may be empty).
    pub summary: String,
}

/// `tool_done`. `data` is the result summary.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct ToolDoneDetails {
    /// The call id from `tool_start`.
    pub call_id: String,
    /// Whether the tool succeeded (false for denied, unknown or invalid calls).
    pub success: bool,
    /// Wall time of the call, in milliseconds (0 for a call that never ran).
    pub duration_ms: f64,
}

/// `context_yield`. `data` is the turn's answer (`[context ceiling] …`), which
/// `done` repeats.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct ContextYieldDetails {
    /// Last session-log event the checkpoint summary covers (0: the
    /// checkpoint failed and the history will be trimmed instead).
    pub to_seq: u64,
}

/// `goal_updated`. `data` is the goal in force afterwards (empty when none).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct GoalUpdatedDetails {
    /// The session.
    pub session_id: String,
    /// `set`, `cleared`, `met`, `blocked` or `unblocked`.
    pub status: String,
    /// Why it is blocked (`blocked` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Whether the engine keeps starting turns toward it.
    pub auto: bool,
}

/// `background_notice`. `data` is the notice as the model reads it.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct BackgroundNoticeDetails {
    /// The job's id (`bg-1`, …).
    pub job_id: String,
}

/// `turn_start` (session.watch). `data` is the turn's message.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct TurnStartDetails {
    /// Who started it: `chat` (a client), `schedule` or `goal` (an `auto` goal's continuation).
    pub origin: String,
}

/// `resync` (session.watch with `afterSeq`): the replay buffer no longer
/// reaches back to `afterSeq`; reload with `session.timeline`, the live
/// events that follow come after `seq`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct ResyncDetails {
    /// The seq the watch asked to resume after.
    pub after_seq: u64,
    /// The oldest seq the buffer could still replay.
    pub oldest_seq: u64,
    /// The last seq given out when the watch started: the live events
    /// that follow come after it.
    pub seq: u64,
}

/// `turn_end` (session.watch). `data` is the answer (or the error text).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct TurnEndDetails {
    /// `done`, `cancelled` or `error`, as the turn's own client saw it.
    pub outcome: String,
    /// For `error`: the error's code.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<ErrorCode>,
}

/// `reminder`. `data` is the reminder's text.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct ReminderDetails {
    /// `goal`, `goal_check`, `plan`, `hooks` (the workspace's hooks are off)
    /// or `instructions` (the instruction files were cut to the budget).
    pub kind: String,
}

/// `failover`. `data` is the readable line (`tk/m1 failed: … — answered by tk/m2`; `… — answered by other/m2 (another provider)` when the provider changes).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct FailoverDetails {
    /// The turn's model request number, from 1.
    pub step: u32,
    /// `provider/model` that failed.
    pub failed: String,
    /// Its error text.
    pub error: String,
    /// `provider/model` that answers instead.
    pub to: String,
}

/// `retry`. `data` is the readable line (`tk/m1: retrying 2/3 after HTTP 500 (in 1.0 s)`).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct RetryDetails {
    /// The turn's model request number, from 1.
    pub step: u32,
    /// `provider/model` being retried.
    pub model: String,
    /// The attempt about to start (2 for the first retry).
    pub attempt: u32,
    /// Attempts allowed per model.
    pub max_attempts: u32,
    /// What went wrong, in a few words (`HTTP 500`).
    pub reason: String,
    /// The provider's full error text.
    pub error: String,
    /// The pause before the attempt, in milliseconds.
    pub delay_ms: u64,
}

/// `approval_request`. `data` is the call's one-line summary.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct ApprovalRequestDetails {
    /// What `agent.approve` names.
    pub approval_id: String,
    /// The model's id for the call (its `tool_start` came before).
    pub call_id: String,
    /// The tool's name.
    pub tool: String,
    /// A one-line description of the call.
    pub summary: String,
    /// The call's arguments as the model gave them.
    pub arguments: serde_json::Value,
    /// For a file edit: the unified diff it would make.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff: Option<String>,
    /// The allow rule that `allow_always` saves (`Bash(npm test:*)`);
    /// absent: `allow_always` is not offered for this call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub always_rule: Option<String>,
    /// Where `allow_always` saves it: `workspace` or `user`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub always_target: Option<String>,
    /// `elicitation` when the call's MCP server asks the person for values
    /// (ours, additive); absent: a tool call's approval.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// With `kind: "elicitation"`: the form. Answer with `agent.approve`
    /// `action` (`accept` with `content`, `decline` or `cancel`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elicitation: Option<ElicitationDetails>,
}

/// What an MCP server asks the person during a tool call.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct ElicitationDetails {
    /// The MCP server asking.
    pub server: String,
    /// Its message to the person.
    pub message: String,
    /// The fields it wants: a flat JSON Schema object (`properties` of type
    /// string (with `enum`/`oneOf`, `format`), number, integer, boolean, or
    /// array of enum values; `required`).
    pub requested_schema: serde_json::Value,
}

/// `approval_resolved`. `data` is the outcome.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct ApprovalResolvedDetails {
    /// The approval.
    pub approval_id: String,
    /// The call.
    pub call_id: String,
    /// `allow_once`, `allow_session`, `allow_always`, `reject`, `timeout` or `cancelled`.
    pub outcome: String,
}

/// `hook_started`: a hook command starts. `data` is its event name (`PreToolUse`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct HookStartedDetails {
    /// Pairs it with its `hook_finished` (`hk_…`).
    pub run_id: String,
    /// The hook event: `SessionStart`, `UserPromptSubmit`, `PreToolUse`,
    /// `PermissionRequest`, `PostToolUse`, `PostToolUseFailure`,
    /// `Notification`, `Stop`, `SubagentStart`, `SubagentStop` or `PreCompact`.
    pub event: String,
    /// The shell command.
    pub command: String,
    /// Where it is configured: `managed`, `user` or `workspace`.
    pub source: String,
    /// The tool call it is about.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call_id: Option<String>,
    /// That call's tool, by Claude Code's name (`Bash`, `Edit`, `mcp__srv__tool`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
}

/// `hook_finished`: a hook command ended. `data` is its decision.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct HookFinishedDetails {
    /// The `runId` of its `hook_started`.
    pub run_id: String,
    /// The hook event.
    pub event: String,
    /// The shell command.
    pub command: String,
    /// `managed`, `user` or `workspace`.
    pub source: String,
    /// The tool call it is about.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call_id: Option<String>,
    /// That call's tool, by Claude Code's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// Its exit code; null: killed at its timeout, or it could not start.
    pub exit_code: Option<i32>,
    /// Wall time, in milliseconds.
    pub duration_ms: f64,
    /// `ok`, `allow`, `ask`, `deny`, `block`, `stop`, `error`, `timeout` or `cancelled` (stopped with its turn).
    pub decision: String,
    /// The reason or stderr shown to the user (at most 2000 characters).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// `file_diff`: after a write that changed a file. `data` is its workspace-relative path.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct FileDiffDetails {
    /// The call that changed the file.
    pub call_id: String,
    /// A unified diff (`--- a/<p>` / `+++ b/<p>`, 3 lines of context).
    pub diff: String,
}

/// The fields of the three subrun events, one struct each (a details type
/// names its event).
macro_rules! subrun_details {
    ($($(#[$doc:meta])* $name:ident),*) => {$(
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
        #[serde(rename_all = "camelCase")]
        #[schemars(deny_unknown_fields)]
        pub struct $name {
            /// The subagent's id: its own session's id (`<parent>-sr-N`).
            pub id: String,
            /// `explore` or `review`.
            pub kind: String,
            /// One line: the query or the focus (also `data`).
            pub label: String,
            /// `running`, then `done`, `cancelled` or `failed`.
            pub status: String,
            /// Model requests it made so far.
            pub steps: u64,
            /// Tokens it used so far (input and output).
            pub tokens: u64,
        }

        impl $name {
            /// The details from their fields, in declaration order.
            pub fn of(id: String, kind: String, label: String, status: String, steps: u64, tokens: u64) -> Self {
                $name { id, kind, label, status, steps, tokens }
            }
        }
    )*};
}

subrun_details!(
    /// `subrun_started`: a subagent started. `data` is its label.
    SubrunStartedDetails,
    /// `subrun_progress`: a subagent's steps and tokens so far. `data` is its label.
    SubrunProgressDetails,
    /// `subrun_finished`: a subagent ended. `data` is its label.
    SubrunFinishedDetails
);

/// `schedule.updated` (broadcast, id 0): a run ended. `data` is the task id.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct ScheduleUpdatedDetails {
    /// The task id.
    pub task_id: String,
    /// The task's display name.
    pub name: String,
    /// success, error or cancelled.
    pub status: String,
    /// The session the run worked in; absent when none was created.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// Why the run failed; absent unless it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// `schedule.upcoming` (broadcast, id 0): a run is about to start. `data` is
/// the task's display name.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct ScheduleUpcomingDetails {
    /// The task id.
    pub task_id: String,
    /// The task's display name.
    pub name: String,
    /// ISO-8601.
    pub run_at: String,
}

/// `error`: what failed. `data` is the readable message.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct ErrorDetails {
    /// The error class.
    pub code: ErrorCode,
    /// The parameter to blame, when one is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub param: Option<String>,
    /// `storage` after a turn's end could not be saved: how it had ended
    /// (done, cancelled or failed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ended: Option<String>,
    /// `storage`: the text `done`/`cancelled` would have carried.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub answer: Option<String>,
    /// `storage` after a failed turn: that failure.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cause: Option<ErrorCause>,
}

/// The failure behind an unsaved turn.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct ErrorCause {
    /// The failure's own class.
    pub code: ErrorCode,
    /// The failure's readable message.
    pub message: String,
}

macro_rules! details_for {
    ($($t:ty => $e:ident),* $(,)?) => {$(
        impl EventDetails for $t { const EVENT: &'static str = event::$e; }
    )*};
}

details_for!(
    WorkflowDetails => WORKFLOW,
    ModelStartDetails => MODEL_START,
    UsageDetails => USAGE,
    ImageViewDetails => IMAGE_VIEW,
    ToolStartDetails => TOOL_START,
    ToolDoneDetails => TOOL_DONE,
    FileDiffDetails => FILE_DIFF,
    ContextYieldDetails => CONTEXT_YIELD,
    GoalUpdatedDetails => GOAL_UPDATED,
    ReminderDetails => REMINDER,
    FailoverDetails => FAILOVER,
    RetryDetails => RETRY,
    ApprovalRequestDetails => APPROVAL_REQUEST,
    ApprovalResolvedDetails => APPROVAL_RESOLVED,
    HookStartedDetails => HOOK_STARTED,
    HookFinishedDetails => HOOK_FINISHED,
    BackgroundNoticeDetails => BACKGROUND_NOTICE,
    TurnStartDetails => TURN_START,
    SubrunStartedDetails => SUBRUN_STARTED,
    SubrunProgressDetails => SUBRUN_PROGRESS,
    SubrunFinishedDetails => SUBRUN_FINISHED,
    TurnEndDetails => TURN_END,
    ResyncDetails => RESYNC,
    ScheduleUpdatedDetails => SCHEDULE_UPDATED,
    ScheduleUpcomingDetails => SCHEDULE_UPCOMING,
    ErrorDetails => ERROR,
);

/// Who an event goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Audience {
    /// The request's own connection, with the request's id.
    Request,
    /// A turn's stream: the chat request's id and the turn's `sessionId`.
    Turn,
    /// Every connected client, with id 0 and no `sessionId`.
    Broadcast,
}

/// One row of the event table.
#[derive(Debug, Clone, Copy)]
pub struct EventSpec {
    /// The event name.
    pub name: &'static str,
    /// Whether it ends its request.
    pub terminal: bool,
    /// Who gets it.
    pub audience: Audience,
    /// What `data` holds.
    pub data: &'static str,
    /// The `details` schema; `None`: the event has no `details`.
    pub details: Option<fn(&mut SchemaGenerator) -> Schema>,
    /// The schema of the JSON value `data` holds as text; `None`: `data` is
    /// plain text.
    pub data_json: Option<fn(&mut SchemaGenerator) -> Schema>,
}

fn schema_of<T: JsonSchema>(g: &mut SchemaGenerator) -> Schema {
    g.subschema_for::<T>()
}

const fn row(
    name: &'static str,
    terminal: bool,
    audience: Audience,
    data: &'static str,
    details: Option<fn(&mut SchemaGenerator) -> Schema>,
) -> EventSpec {
    EventSpec {
        name,
        terminal,
        audience,
        data,
        details,
        data_json: None,
    }
}

/// A row whose `data` is the JSON text of `T` (no `details`).
const fn json_row<T: JsonSchema>(name: &'static str, data: &'static str) -> EventSpec {
    EventSpec {
        name,
        terminal: false,
        audience: Audience::Turn,
        data,
        details: None,
        data_json: Some(schema_of::<T>),
    }
}

/// Every event the daemon sends.
pub const EVENTS: &[EventSpec] = &[
    row(event::PONG, true, Audience::Request, "Empty.", None),
    row(event::BYE, true, Audience::Request, "Empty.", None),
    row(
        event::RESULT,
        true,
        Audience::Request,
        "The method's result: JSON text or plain text, as its `x-methods` entry says.",
        None,
    ),
    row(
        event::ERROR,
        true,
        Audience::Request,
        "The readable error message (for a turn, the full provider error text).",
        Some(schema_of::<ErrorDetails>),
    ),
    row(
        event::DONE,
        true,
        Audience::Turn,
        "The last non-empty assistant text of the turn.",
        None,
    ),
    row(
        event::CANCELLED,
        true,
        Audience::Turn,
        "The partial or last assistant text (may be empty).",
        None,
    ),
    row(
        event::WORKFLOW,
        false,
        Audience::Turn,
        "The node label.",
        Some(schema_of::<WorkflowDetails>),
    ),
    row(
        event::STATUS,
        false,
        Audience::Turn,
        "A short English status line (Thinking, Preparing tool call, a tool's label, Verifying, …).",
        None,
    ),
    row(
        event::MODEL_START,
        false,
        Audience::Turn,
        "`provider/model`.",
        Some(schema_of::<ModelStartDetails>),
    ),
    row(
        event::FAILOVER,
        false,
        Audience::Turn,
        "`provider/model failed: <error> — answered by provider/model`, with ` (another provider)` when the provider changes.",
        Some(schema_of::<FailoverDetails>),
    ),
    row(
        event::RETRY,
        false,
        Audience::Turn,
        "`provider/model: retrying N/M after <reason> (in S s)`.",
        Some(schema_of::<RetryDetails>),
    ),
    row(
        event::THINKING,
        false,
        Audience::Turn,
        "A reasoning text delta.",
        None,
    ),
    row(
        event::DELTA,
        false,
        Audience::Turn,
        "An answer text delta.",
        None,
    ),
    row(
        event::USAGE,
        false,
        Audience::Turn,
        "`provider/model` of the attempt.",
        Some(schema_of::<UsageDetails>),
    ),
    row(
        event::IMAGE_VIEW,
        false,
        Audience::Turn,
        "The image file name.",
        Some(schema_of::<ImageViewDetails>),
    ),
    row(
        event::TOOL_START,
        false,
        Audience::Turn,
        "The tool name: a built-in (`protocol.info` lists them: bash, …, capture_screen, …, web_fetch, web_search, write_file) or `mcp__<server>__<tool>`.",
        Some(schema_of::<ToolStartDetails>),
    ),
    row(
        event::TOOL_DONE,
        false,
        Audience::Turn,
        "The result summary (one line).",
        Some(schema_of::<ToolDoneDetails>),
    ),
    row(
        event::FILE_DIFF,
        false,
        Audience::Turn,
        "The workspace-relative file path.",
        Some(schema_of::<FileDiffDetails>),
    ),
    row(
        event::STEER,
        false,
        Audience::Turn,
        "The guidance text that entered the turn.",
        None,
    ),
    row(
        event::CONTEXT_YIELD,
        false,
        Audience::Turn,
        "The turn's answer (`[context ceiling] …`); `done` follows with the same text.",
        Some(schema_of::<ContextYieldDetails>),
    ),
    row(
        event::GOAL_UPDATED,
        false,
        Audience::Turn,
        "The goal in force afterwards (empty when none). Also broadcast (id 0) by `goal.set`/`goal.clear`.",
        Some(schema_of::<GoalUpdatedDetails>),
    ),
    row(
        event::BACKGROUND_NOTICE,
        false,
        Audience::Turn,
        "The notice: which job ended, how, and how to read its output.",
        Some(schema_of::<BackgroundNoticeDetails>),
    ),
    row(
        event::NOTICE,
        false,
        Audience::Turn,
        "An engine notice the running turn takes in (a background job ended, a goal changed); not the user's words.",
        None,
    ),
    row(
        event::TURN_START,
        false,
        Audience::Turn,
        "The turn's message (session.watch, on the watch request's id).",
        Some(schema_of::<TurnStartDetails>),
    ),
    row(
        event::TURN_END,
        false,
        Audience::Turn,
        "The turn's answer, or its error text (session.watch; the watch goes on).",
        Some(schema_of::<TurnEndDetails>),
    ),
    row(
        event::RESYNC,
        false,
        Audience::Turn,
        "Why the watch could not replay from `afterSeq` (reload with session.timeline; live events follow).",
        Some(schema_of::<ResyncDetails>),
    ),
    row(
        event::REMINDER,
        false,
        Audience::Turn,
        "The reminder's text, as the model reads it.",
        Some(schema_of::<ReminderDetails>),
    ),
    row(
        event::APPROVAL_REQUEST,
        false,
        Audience::Turn,
        "The call's one-line summary; answer with `agent.approve`.",
        Some(schema_of::<ApprovalRequestDetails>),
    ),
    row(
        event::APPROVAL_RESOLVED,
        false,
        Audience::Turn,
        "The outcome: allow_once, allow_session, allow_always, reject, timeout or cancelled.",
        Some(schema_of::<ApprovalResolvedDetails>),
    ),
    row(
        event::SUBRUN_STARTED,
        false,
        Audience::Turn,
        "The subagent's label (its query or focus).",
        Some(schema_of::<SubrunStartedDetails>),
    ),
    row(
        event::SUBRUN_PROGRESS,
        false,
        Audience::Turn,
        "The subagent's label.",
        Some(schema_of::<SubrunProgressDetails>),
    ),
    row(
        event::SUBRUN_FINISHED,
        false,
        Audience::Turn,
        "The subagent's label; `status` says how it ended.",
        Some(schema_of::<SubrunFinishedDetails>),
    ),
    json_row::<crate::api::CheckpointNote>(
        event::CHECKPOINT,
        "The checkpoint's note, as JSON text: the files changed since the one before, lines \
         added and removed, files tracked, what is not tracked (a turn's first) or the error \
         that kept it from being taken (the turn goes on). Also sent outside a turn (a \
         background job ended, a rewind) to the session's watchers.",
    ),
    row(
        event::SCHEDULE_UPDATED,
        false,
        Audience::Broadcast,
        "The task id.",
        Some(schema_of::<ScheduleUpdatedDetails>),
    ),
    row(
        event::SCHEDULE_UPCOMING,
        false,
        Audience::Broadcast,
        "The task's display name.",
        Some(schema_of::<ScheduleUpcomingDetails>),
    ),
    row(
        event::HOOK_STARTED,
        false,
        Audience::Turn,
        "The hook event (`PreToolUse`, `Stop`, …).",
        Some(schema_of::<HookStartedDetails>),
    ),
    row(
        event::HOOK_FINISHED,
        false,
        Audience::Turn,
        "The decision: ok, allow, ask, deny, block, stop, error, timeout or cancelled.",
        Some(schema_of::<HookFinishedDetails>),
    ),
];
