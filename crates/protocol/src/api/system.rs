//! `workspace.*`, `agent.mode.*`, `project.*`, `schedule.*`, `doctor*`,
//! `lock.list`, `factory.reset`, `connection.upgrade`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::adapter::{FieldMessage, Required, Strict};

/// `connection.upgrade`: the connection switches to another protocol the
/// daemon serves over its engine (`acp`).
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct UpgradeParams {
    /// The protocol's name: `acp`.
    pub protocol: Required,
}

/// `workspace.open`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WorkspaceOpenParams {
    /// A directory (walked up to its project root); must exist.
    pub path: Required,
}

/// `workspace.get` / `workspace.open`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct WorkspaceInfo {
    /// The workspace root (absolute).
    pub path: String,
    /// Display name: the root folder's name.
    pub name: String,
    /// Kinds detected in the root: git, dotnet, node, python, rust, go, unity, vue (empty when none).
    pub project_kinds: Vec<String>,
    /// The effective mode: plan, readonly, edit or auto.
    pub mode: String,
}

/// `agent.mode.get`'s `details` (ours, additive; `data` stays the mode).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct ModeDetails {
    /// The effective mode: plan, readonly, edit or auto.
    pub mode: String,
    /// The approval policy of the current workspace's turns: never,
    /// on-request or untrusted (a session may set its own).
    pub approval_policy: String,
    /// The shell sandbox of the current workspace's turns: workspace-write,
    /// read-only or off.
    pub sandbox: String,
}

/// `workspace.init`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct WorkspaceInitResult {
    /// The workspace root that was initialized.
    pub path: String,
    /// Relative directories created (and `.gitignore (updated)`).
    pub created: Vec<String>,
}

/// `agent.mode.switch`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ModeSwitchParams {
    /// plan, readonly, edit or auto (trimmed, case-insensitive).
    #[schemars(with = "String")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
}

/// `project.upsert`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProjectUpsertParams {
    /// The project folder; an existing row for the same folder keeps its id.
    pub path: Required,
    /// The id for a new project (generated when absent); ignored when the folder is already registered.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Default: the folder name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// `project.remove`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProjectRemoveParams {
    /// The project id.
    pub id: Required,
    /// Keep the project's sessions (default false: they are deleted).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub keep_sessions: Option<bool>,
}

/// A registered project (`project.list` rows, `project.upsert`).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct ProjectView {
    /// The project id.
    pub id: String,
    /// Absolute path of the project folder.
    pub path: String,
    /// Display name.
    pub name: String,
    /// Registration time (ISO 8601, UTC).
    pub created_at: String,
    /// Last change (ISO 8601, UTC).
    pub updated_at: String,
}

/// `schedule.create` / `schedule.update` (one handler: upsert by id).
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ScheduleUpsertParams {
    /// An unknown id creates the task with that id; none creates a new id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The task name.
    pub name: Required,
    /// What each run asks the agent.
    pub prompt: Required,
    /// Five fields (minute hour day month weekday), local time.
    pub cron: Required,
    /// The workspace the task runs in (global scope when absent).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workspace: Option<String>,
    /// Default true.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
    /// What runs do with a call the approval policy asks about (nobody is
    /// there to answer): `reject` (default) or `allow` (ours, additive).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub approval: Option<String>,
}

/// The reference's one message for a missing or mistyped `enabled`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnabledMessage;

impl FieldMessage for EnabledMessage {
    const PARAM: &'static str = "enabled";
    const MESSAGE: &'static str = "params.enabled (boolean) is required";
}

/// `schedule.toggle`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ScheduleToggleParams {
    /// The task id.
    pub id: Required,
    /// Whether the scheduler runs it; disabling clears `nextRunAt`. Required.
    pub enabled: Strict<bool, EnabledMessage>,
}

/// `schedule.delete`, `schedule.run`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ScheduleIdParams {
    /// The task id.
    pub id: Required,
}

/// A scheduled task (`schedule.list` rows, `schedule.create|update|toggle`);
/// unset fields are left out.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct ScheduledTaskView {
    /// The task id.
    pub id: String,
    /// The name as given (may be empty; see `displayName`).
    pub name: String,
    /// The workspace runs work in; absent: the global scope.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workspace: Option<String>,
    /// What each run asks the agent.
    pub prompt: String,
    /// Five-field cron expression (minute hour day month weekday), local time.
    pub cron: String,
    /// Whether the scheduler runs it.
    pub enabled: bool,
    /// When the last run started (ISO 8601, UTC); set once it has ended, absent before.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_run_at: Option<String>,
    /// UTC.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_run_at: Option<String>,
    /// success, error, cancelled or interrupted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_status: Option<String>,
    /// The last run's error; absent unless it failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_error: Option<String>,
    /// The last run's final assistant text (at most 4000 characters); absent when none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_output: Option<String>,
    /// The session of the last run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_session_id: Option<String>,
    /// Creation time (ISO 8601, UTC).
    pub created_at: String,
    /// Last change (ISO 8601, UTC).
    pub updated_at: String,
    /// The name, or a default (`未命名任务`) when it is blank.
    pub display_name: String,
    /// `allow` when runs may make calls that need approval; absent: they are refused.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub approval: Option<String>,
    /// Ours (additive): in a `schedule.create`/`update`/`toggle` answer of a
    /// daemon started on demand, for an enabled task, that it runs only while
    /// that daemon is up and how to keep one running. Never stored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warning: Option<String>,
}

/// `doctor`, `doctor.run`: ours (additive), the workspace to check instead
/// of the daemon's current one (`seekclaw doctor` sends its directory).
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DoctorParams {
    /// A directory (walked up to its project root); must exist.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workspace: Option<String>,
}

/// One `doctor.run` check.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct DoctorCheck {
    /// What was checked (e.g. `Workspace Root`, `Provider <id>`).
    pub name: String,
    /// Whether the check passed: false only when `level` is `fail`.
    pub ok: bool,
    /// What was found, or what is wrong.
    pub detail: String,
    /// runtime or provider.
    pub kind: String,
    /// Ours (additive): `ok`, `info` (optional and absent: nothing wrong),
    /// `warn` (works, worth a look) or `fail`.
    pub level: CheckLevel,
    /// Ours (additive): for `warn` and `fail`, what to do about it (a command
    /// that exists, or the step to take).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fix: Option<String>,
}

/// How a doctor check came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum CheckLevel {
    /// Passed.
    Ok,
    /// Something optional is absent; nothing is wrong.
    Info,
    /// Works, but something deserves a look (e.g. a config field that was ignored).
    Warn,
    /// Broken; `fix` says what to do.
    Fail,
}

impl CheckLevel {
    /// Upper-case label for text output (`OK`, `INFO`, `WARN`, `FAIL`).
    pub fn label(self) -> &'static str {
        match self {
            CheckLevel::Ok => "OK",
            CheckLevel::Info => "INFO",
            CheckLevel::Warn => "WARN",
            CheckLevel::Fail => "FAIL",
        }
    }
}

/// `config.status` (ours): how the home's `config.json` and `state.json` read.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct ConfigStatusView {
    /// Both files read, with no field ignored.
    pub ok: bool,
    /// `config.json` does not read and the daemon uses the version it read
    /// before (false with an unreadable file it never read: defaults, turns refused).
    pub using_last_good: bool,
    /// `config.json`, then `state.json`.
    pub files: Vec<ConfigFileView>,
    /// Hook and permission-rule entries skipped, by file and path (ours,
    /// additive; absent when none): the user's config, the current
    /// workspace's, Claude Code's settings files and the managed file. The
    /// rest of each file still applies.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub policy_problems: Vec<super::PolicyProblemView>,
}

/// One file of [`ConfigStatusView`].
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct ConfigFileView {
    /// `config.json` or `state.json`.
    pub name: String,
    /// Its absolute path.
    pub path: String,
    /// Set when it is not JSON: the whole message (file, line, column, what is wrong).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// 1-based line of the fault, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u64>,
    /// 1-based column of the fault, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub column: Option<u64>,
    /// Fields not used as written, e.g. `agent.maxSteps: expected a number, found "forty"`.
    pub warnings: Vec<String>,
}

/// One `lock.list` row: a held file write lock.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct LockView {
    /// The workspace root.
    pub workspace: String,
    /// Absolute path of the locked file.
    pub file: String,
    /// The turn holding it (`<sessionId>/<8 hex>`).
    pub owner: String,
    /// When it was taken (ISO 8601, UTC).
    pub acquired_at: String,
    /// `file` relative to `workspace`.
    pub path: String,
}

/// `factory.reset`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct FactoryResetResult {
    /// Always true.
    pub ok: bool,
    /// The SeekClaw home that was reset.
    pub home: String,
}
