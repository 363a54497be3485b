//! `workspace.*`, `agent.mode.*`, `project.*`, `schedule.*`, `doctor*`,
//! `lock.list`, `factory.reset`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::adapter::{FieldMessage, Required, Strict};

/// `workspace.open`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WorkspaceOpenParams {
    /// A directory (walked up to its project root); must exist.
    pub path: Required,
}

/// `workspace.get` / `workspace.open`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct WorkspaceInfo {
    pub path: String,
    pub name: String,
    pub project_kinds: Vec<String>,
    /// The effective mode: plan, readonly, edit or auto.
    pub mode: String,
}

/// `workspace.init`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct WorkspaceInitResult {
    pub path: String,
    /// Relative directories created (and `.gitignore (updated)`).
    pub created: Vec<String>,
}

/// `agent.mode.switch`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ModeSwitchParams {
    /// plan, readonly, edit or auto (trimmed, case-insensitive).
    #[schemars(with = "String")]
    pub mode: Option<String>,
}

/// `project.upsert`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProjectUpsertParams {
    /// The project folder; an existing row for the same folder keeps its id.
    pub path: Required,
    pub id: Option<String>,
    /// Default: the folder name.
    pub name: Option<String>,
}

/// `project.remove`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProjectRemoveParams {
    pub id: Required,
    /// Keep the project's sessions (default false: they are deleted).
    pub keep_sessions: Option<bool>,
}

/// A registered project (`project.list` rows, `project.upsert`).
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProjectView {
    pub id: String,
    pub path: String,
    pub name: String,
    pub created_at: String,
    pub updated_at: String,
}

/// `schedule.create` / `schedule.update` (one handler: upsert by id).
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ScheduleUpsertParams {
    /// An unknown id creates the task with that id; none creates a new id.
    pub id: Option<String>,
    pub name: Required,
    pub prompt: Required,
    /// Five fields (minute hour day month weekday), local time.
    pub cron: Required,
    /// The workspace the task runs in (global scope when absent).
    pub workspace: Option<String>,
    /// Default true.
    pub enabled: Option<bool>,
}

/// The reference's one message for a missing or mistyped `enabled`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnabledMessage;

impl FieldMessage for EnabledMessage {
    const PARAM: &'static str = "enabled";
    const MESSAGE: &'static str = "params.enabled (boolean) is required";
}

/// `schedule.toggle`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ScheduleToggleParams {
    pub id: Required,
    pub enabled: Strict<bool, EnabledMessage>,
}

/// `schedule.delete`, `schedule.run`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ScheduleIdParams {
    pub id: Required,
}

/// A scheduled task (`schedule.list` rows, `schedule.create|update|toggle`);
/// unset fields are left out.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ScheduledTaskView {
    pub id: String,
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workspace: Option<String>,
    pub prompt: String,
    pub cron: String,
    pub enabled: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_run_at: Option<String>,
    /// UTC.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_run_at: Option<String>,
    /// success, error, cancelled or interrupted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_status: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_error: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_output: Option<String>,
    /// The session of the last run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_session_id: Option<String>,
    pub created_at: String,
    pub updated_at: String,
    pub display_name: String,
}

/// One `doctor.run` check.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DoctorCheck {
    pub name: String,
    pub ok: bool,
    pub detail: String,
    /// runtime or provider.
    pub kind: String,
}

/// One `lock.list` row: a held file write lock.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LockView {
    pub workspace: String,
    pub file: String,
    /// The turn holding it (`<sessionId>/<8 hex>`).
    pub owner: String,
    pub acquired_at: String,
    /// `file` relative to `workspace`.
    pub path: String,
}

/// `factory.reset`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FactoryResetResult {
    /// Always true.
    pub ok: bool,
    /// The SeekClaw home that was reset.
    pub home: String,
}
