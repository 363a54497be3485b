//! The one method table. It drives request parsing (`Method::from_name`), dispatch
//! (the daemon matches exhaustively on `Method`) and the `protocol.info` lists, so a
//! method cannot be served without being listed, or listed without being served.
//! Each row names the method's params type and its reply form, from which its
//! result type follows ([`MethodType::Result`]): clients (`seekclaw-client`)
//! write the same params and read the same results the daemon does.

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

#[allow(clippy::wildcard_imports)]
use crate::api::*;
use crate::events::event;

/// How the daemon runs a method.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Serving {
    /// Answered in the connection's read loop: instant, no I/O.
    Inline,
    /// Runs as its own task, concurrently with the connection's other requests.
    Task,
    /// Runs as its own task holding the daemon-wide admin gate (config writes).
    /// Methods that also wait on the network or a process (an MCP reconnect,
    /// a model list fetch) are `Task`s that take the gate around their write only.
    Exclusive,
}

/// Feature names advertised by `protocol.info`, in the reference order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Capability {
    /// `chat`: agent turns.
    Chat,
    /// `image-input`: images in `chat` and `agent.steer`.
    ImageInput,
    /// `concurrent-turns`: several turns at once.
    ConcurrentTurns,
    /// `reasoning-level`: `reasoningLevel` on turns and sessions.
    ReasoningLevel,
    /// `agent.steer`.
    AgentSteer,
    /// `agent.cancel`.
    AgentCancel,
    /// `agent.mode`: `agent.mode.*`.
    AgentMode,
    /// `workspace`: `workspace.*`.
    Workspace,
    /// `profile`: `profile.*`.
    Profile,
    /// `provider`: `provider.*`.
    Provider,
    /// `model`: `model.*`.
    Model,
    /// `mcp`: `mcp.*`.
    Mcp,
    /// `skill`: `skill.*`.
    Skill,
    /// `usage`: `usage.get`.
    Usage,
    /// `project`: `project.*`.
    Project,
    /// `session`: `session.*`.
    Session,
    /// `global-session`: sessions in the global scope (`global: true`).
    GlobalSession,
    /// `doctor`: `doctor`, `doctor.run`.
    Doctor,
    /// `file-locks`: `lock.list`.
    FileLocks,
    /// `routing`: `routing.*`.
    Routing,
    /// `schedule`: `schedule.*`.
    Schedule,
    /// `factory-reset`: `factory.reset`.
    FactoryReset,
    /// `prompt-optimize`: `prompt.optimize`.
    PromptOptimize,
    /// `goal` (ours, additive): `goal.*`.
    Goal,
    /// `session-watch` (ours, additive): `session.watch`, `session.unwatch`.
    SessionWatch,
    /// `approvals` (ours, additive): `agent.approve`, `approval_request` /
    /// `approval_resolved` events on turns started with `approvals: true`.
    Approvals,
    /// `context-yield` (ours, additive): a turn that reaches the model's
    /// context ceiling checkpoints, sends `context_yield` and ends `done`.
    ContextYield,
    /// `checkpoints` (ours, additive): `checkpoint.*`, `session.rewind`,
    /// `session.fork` and the `checkpoint` event.
    Checkpoints,
    /// `hooks` (ours, additive): `hooks.list`, `hooks.approve` and the
    /// `hook_started` / `hook_finished` events.
    Hooks,
    /// `permissions` (ours, additive): `permissions.check`, and the
    /// `allow_always` decision of `agent.approve`.
    Permissions,
    /// `plugins` (ours, additive): `plugin.list`, `plugin.install`,
    /// `plugin.toggle`, `plugin.remove`.
    Plugins,
    /// `budgets` (ours, additive): `budget.get`, `budget.set`, the `budget`
    /// error code and `reminder` kind.
    Budgets,
}

/// Every capability with its wire name, in the order clients expect.
pub const CAPABILITIES: &[(Capability, &str)] = &[
    (Capability::Chat, "chat"),
    (Capability::ImageInput, "image-input"),
    (Capability::ConcurrentTurns, "concurrent-turns"),
    (Capability::ReasoningLevel, "reasoning-level"),
    (Capability::AgentSteer, "agent.steer"),
    (Capability::AgentCancel, "agent.cancel"),
    (Capability::AgentMode, "agent.mode"),
    (Capability::Workspace, "workspace"),
    (Capability::Profile, "profile"),
    (Capability::Provider, "provider"),
    (Capability::Model, "model"),
    (Capability::Mcp, "mcp"),
    (Capability::Skill, "skill"),
    (Capability::Usage, "usage"),
    (Capability::Project, "project"),
    (Capability::Session, "session"),
    (Capability::GlobalSession, "global-session"),
    (Capability::Doctor, "doctor"),
    (Capability::FileLocks, "file-locks"),
    (Capability::Routing, "routing"),
    (Capability::Schedule, "schedule"),
    (Capability::FactoryReset, "factory-reset"),
    (Capability::PromptOptimize, "prompt-optimize"),
    (Capability::ContextYield, "context-yield"),
    (Capability::Approvals, "approvals"),
    (Capability::Goal, "goal"),
    (Capability::SessionWatch, "session-watch"),
    (Capability::Checkpoints, "checkpoints"),
    (Capability::Hooks, "hooks"),
    (Capability::Permissions, "permissions"),
    (Capability::Plugins, "plugins"),
    (Capability::Budgets, "budgets"),
];

/// A schema-producing function: the schema of one type (a `$ref` for named types).
pub type SchemaFn = fn(&mut SchemaGenerator) -> Schema;

pub(crate) fn schema_of<T: JsonSchema>(g: &mut SchemaGenerator) -> Schema {
    g.subschema_for::<T>()
}

/// What a method answers with.
#[derive(Debug, Clone, Copy)]
pub enum Reply {
    /// `result` whose `data` is the JSON text of this schema's value.
    Json(SchemaFn),
    /// `result` whose `data` is plain text: a description, and a pattern the
    /// text matches when there is one.
    Text(&'static str, Option<&'static str>),
    /// `Text`, plus `details` of this schema: a structured twin of the text
    /// (ours, additive: old clients read the text as before).
    TextDetails(&'static str, &'static str, SchemaFn),
    /// This event (`pong`, `bye`) with empty `data`.
    Empty(&'static str),
    /// A turn: streamed events, then `done`, `cancelled` or `error`.
    Turn,
    /// A watch: every turn's events streamed (`turn_start` … `turn_end`),
    /// then `result` `unwatched`.
    Watch,
}

impl Reply {
    /// `result` carrying `T` as JSON.
    pub const fn json<T: JsonSchema>() -> Reply {
        Reply::Json(schema_of::<T>)
    }

    /// `result` carrying plain text.
    pub const fn text(description: &'static str) -> Reply {
        Reply::Text(description, None)
    }

    /// `result` carrying plain text that matches `pattern`.
    pub const fn text_matching(description: &'static str, pattern: &'static str) -> Reply {
        Reply::Text(description, Some(pattern))
    }
}

/// One row of the method table.
#[derive(Debug, Clone, Copy)]
pub struct MethodSpec {
    /// The method.
    pub method: Method,
    /// Its wire name.
    pub name: &'static str,
    /// Other names served by the same handler (listed in `protocol.info` too).
    pub aliases: &'static [&'static str],
    /// How the daemon runs it.
    pub serving: Serving,
    /// The `protocol.info` capabilities it provides.
    pub capabilities: &'static [Capability],
    /// The schema of the method's params.
    pub params: SchemaFn,
    /// What the method answers with.
    pub reply: Reply,
    /// Reads a request's params with the method's params type (the same
    /// check its handler starts with), for validation.
    pub check_params: fn(&crate::Params) -> Result<(), crate::MethodError>,
}

/// A method as a type: its params type, checked at compile time where a
/// handler reads them ([`crate::Params::read`]) and where a client sends
/// them, and the type its terminal envelope reads as.
pub trait MethodType {
    /// The params the method reads (and a client writes).
    type Params: Serialize + DeserializeOwned + JsonSchema;
    /// What the method's terminal envelope reads as, per its [`Reply`]: a
    /// JSON result's type, `String` for text, [`TextWithDetails`],
    /// `()` for `pong`/`bye`, [`TurnEnd`] for a turn, `String` for a watch.
    type Result: DeserializeOwned;
    /// The table row.
    const METHOD: Method;
}

/// A text `result` with its structured twin in `details`
/// ([`Reply::TextDetails`]).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct TextWithDetails<T> {
    /// The `data` text.
    pub text: String,
    /// The `details`.
    pub details: T,
}

/// How a turn ended (`done` or `cancelled`; a failed turn is an `error`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TurnOutcome {
    /// `done`.
    Done,
    /// `cancelled`.
    Cancelled,
}

/// A turn's terminal envelope, read.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct TurnEnd {
    /// `done` or `cancelled`.
    pub outcome: TurnOutcome,
    /// The answer (`done`), or the text so far (`cancelled`).
    pub text: String,
}

/// The [`Reply`] of a table row's reply form.
macro_rules! reply_of {
    (json($t:ty)) => {
        Reply::json::<$t>()
    };
    (text($d:expr)) => {
        Reply::text($d)
    };
    (text_matching($d:expr, $p:expr)) => {
        Reply::text_matching($d, $p)
    };
    (text_details($d:expr, $p:expr, $t:ty)) => {
        Reply::TextDetails($d, $p, schema_of::<$t>)
    };
    (empty($e:expr)) => {
        Reply::Empty($e)
    };
    (turn()) => {
        Reply::Turn
    };
    (watch()) => {
        Reply::Watch
    };
}

/// The [`MethodType::Result`] of a table row's reply form.
macro_rules! result_of {
    (json($t:ty)) => { $t };
    (text($($x:tt)*)) => { String };
    (text_matching($($x:tt)*)) => { String };
    (text_details($d:expr, $p:expr, $t:ty)) => { TextWithDetails<$t> };
    (empty($($x:tt)*)) => { () };
    (turn()) => { TurnEnd };
    (watch()) => { String };
}

macro_rules! method_table {
    ($( $variant:ident => $name:literal [$($alias:literal),*] $serving:ident [$($cap:ident),*]
        ($params:ty => $kind:ident $reply:tt) ; )*) => {
        /// A served method.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Method { $(#[doc = concat!("`", $name, "`.")] $variant),* }

        /// The table, in `protocol.info` order.
        pub const METHODS: &[MethodSpec] = &[
            $(MethodSpec {
                method: Method::$variant,
                name: $name,
                aliases: &[$($alias),*],
                serving: Serving::$serving,
                capabilities: &[$(Capability::$cap),*],
                params: schema_of::<$params>,
                reply: reply_of!($kind $reply),
                check_params: |p| p.read::<method::$variant>().map(|_| ()),
            }),*
        ];

        /// Every method as a type ([`MethodType`]), named as its [`Method`] variant.
        pub mod method {
            $(
                #[doc = concat!("`", $name, "`.")]
                #[derive(Debug, Clone, Copy)]
                pub struct $variant;
            )*
        }

        // Out here the names resolve to the API types, not to the method
        // structs that share them (`ProtocolInfo`, `SessionTimeline`).
        $(
            impl MethodType for method::$variant {
                type Params = $params;
                type Result = result_of!($kind $reply);
                const METHOD: Method = Method::$variant;
            }
        )*

        impl Method {
            /// Resolves a wire name or alias.
            pub fn from_name(name: &str) -> Option<Method> {
                match name {
                    $($name $(| $alias)* => Some(Method::$variant),)*
                    _ => None,
                }
            }

            /// The method's table row.
            pub fn spec(self) -> &'static MethodSpec {
                match self {
                    $(Method::$variant => &METHODS[Method::$variant as usize],)*
                }
            }
        }
    };
}

/// `agent.mode.*` answers.
const MODES: &str = "^(plan|readonly|edit|auto)$";

method_table! {
    Ping => "ping" [] Inline []
        (NoParams => empty(event::PONG));
    ProtocolInfo => "protocol.info" [] Inline []
        (NoParams => json(ProtocolInfo));
    Chat => "chat" ["agent.runTurn", "agent/runTurn"] Task [Chat, ImageInput, ConcurrentTurns, ReasoningLevel, ContextYield]
        (ChatParams => turn());
    AgentSteer => "agent.steer" [] Task [AgentSteer]
        (SteerParams => text_matching("`guidance queued` (with the turn's `sessionId`).", "^guidance queued$"));
    AgentApprove => "agent.approve" [] Task [Approvals]
        (ApproveParams => text_matching("`approved` or `rejected` (with the turn's `sessionId`).", "^(approved|rejected)$"));
    AgentCancel => "agent.cancel" [] Task [AgentCancel]
        (CancelParams => text_matching("`no active turn`, `cancellation requested for <requestId>`, `cancellation requested for <sessionId>` or `cancellation requested for <n> active turns`.", "^(no active turn|cancellation requested for .+)$"));
    WorkspaceGet => "workspace.get" [] Task [Workspace]
        (NoParams => json(WorkspaceInfo));
    WorkspaceOpen => "workspace.open" [] Task [Workspace]
        (WorkspaceOpenParams => json(WorkspaceInfo));
    WorkspaceInit => "workspace.init" [] Exclusive [Workspace]
        (NoParams => json(WorkspaceInitResult));
    AgentModeGet => "agent.mode.get" [] Task [AgentMode]
        (NoParams => text_details("The effective mode.", MODES, ModeDetails));
    AgentModeSwitch => "agent.mode.switch" [] Exclusive [AgentMode]
        (ModeSwitchParams => text_matching("The new mode.", MODES));
    RoutingGet => "routing.get" [] Task [Routing]
        (NoParams => json(RoutingView));
    RoutingSet => "routing.set" [] Exclusive [Routing]
        (RoutingSetParams => json(RoutingView));
    PromptOptimize => "prompt.optimize" [] Task [PromptOptimize]
        (PromptOptimizeParams => text("The rewritten prompt."));
    ScheduleList => "schedule.list" [] Task [Schedule]
        (NoParams => json(Vec<ScheduledTaskView>));
    ScheduleCreate => "schedule.create" [] Exclusive [Schedule]
        (ScheduleUpsertParams => json(ScheduledTaskView));
    ScheduleUpdate => "schedule.update" [] Exclusive [Schedule]
        (ScheduleUpsertParams => json(ScheduledTaskView));
    ScheduleToggle => "schedule.toggle" [] Exclusive [Schedule]
        (ScheduleToggleParams => json(ScheduledTaskView));
    ScheduleDelete => "schedule.delete" [] Exclusive [Schedule]
        (ScheduleIdParams => text_matching("`ok`, whether or not the task existed.", "^ok$"));
    ScheduleRun => "schedule.run" [] Task [Schedule]
        (ScheduleIdParams => text_matching("`started` (the run goes on; `schedule.updated` reports its end).", "^started$"));
    ProfileList => "profile.list" [] Task [Profile]
        (NoParams => json(Vec<ProfileView>));
    ProfileUpsert => "profile.upsert" [] Exclusive [Profile]
        (ProfileUpsertParams => text("The profile name as sent."));
    ProfileUse => "profile.use" [] Exclusive [Profile]
        (ProfileNameParams => text("The profile name as stored."));
    ProfileRemove => "profile.remove" [] Exclusive [Profile]
        (ProfileNameParams => text("The profile name as stored."));
    ProviderList => "provider.list" [] Task [Provider]
        (NoParams => json(Vec<ProviderView>));
    ProviderUpsert => "provider.upsert" [] Exclusive [Provider]
        (ProviderUpsertParams => json(ProviderView));
    ProviderUse => "provider.use" [] Exclusive [Provider]
        (ProviderIdParams => text("The provider id."));
    ProviderRemove => "provider.remove" [] Exclusive [Provider]
        (ProviderIdParams => text("The provider id."));
    ProviderTest => "provider.test" [] Task [Provider]
        (ProviderTestParams => json(Vec<ProbeResult>));
    ProviderModelsFetch => "provider.models.fetch" [] Task [Provider]
        (ProviderIdParams => json(Vec<String>));
    ModelList => "model.list" [] Task [Model]
        (NoParams => json(Vec<String>));
    ModelCatalog => "model.catalog" [] Task [Model]
        (NoParams => json(Vec<CatalogEntry>));
    ModelSwitch => "model.switch" [] Exclusive [Model]
        (ModelParams => text_matching("`switched to <provider/model>`.", "^switched to .+$"));
    ModelTest => "model.test" [] Task [Model]
        (ModelParams => json(ModelTestResult));
    ModelUpdate => "model.update" [] Exclusive [Model]
        (ModelUpdateParams => json(ModelUpdateResult));
    McpList => "mcp.list" [] Task [Mcp]
        (NoParams => json(Vec<McpServerView>));
    McpUpsert => "mcp.upsert" [] Task [Mcp]
        (McpUpsertParams => json(Vec<McpServerView>));
    McpRemove => "mcp.remove" [] Task [Mcp]
        (McpRemoveParams => json(Vec<McpServerView>));
    McpReload => "mcp.reload" [] Task [Mcp]
        (NoParams => json(Vec<McpServerView>));
    McpLogin => "mcp.login" [] Task [Mcp]
        (McpLoginParams => json(McpLoginResult));
    McpLogout => "mcp.logout" [] Task [Mcp]
        (McpLoginParams => json(Vec<McpServerView>));
    SkillList => "skill.list" [] Task [Skill]
        (NoParams => json(Vec<SkillView>));
    SkillImport => "skill.import" [] Exclusive [Skill]
        (SkillImportParams => json(Vec<SkillView>));
    SkillToggle => "skill.toggle" [] Exclusive [Skill]
        (SkillToggleParams => json(Vec<SkillView>));
    UsageGet => "usage.get" [] Task [Usage]
        (UsageParams => json(Vec<UsageSummary>));
    DoctorText => "doctor" [] Task [Doctor]
        (DoctorParams => text("One line per check: `[OK] <name>: <detail>`, or `[INFO]`, `[WARN]`, `[FAIL]` (those two end with ` (fix: …)`)."));
    DoctorRun => "doctor.run" [] Task [Doctor]
        (DoctorParams => json(Vec<DoctorCheck>));
    ConfigStatus => "config.status" [] Task [Doctor]
        (NoParams => json(ConfigStatusView));
    ProjectList => "project.list" [] Task [Project]
        (NoParams => json(Vec<ProjectView>));
    ProjectUpsert => "project.upsert" [] Exclusive [Project]
        (ProjectUpsertParams => json(ProjectView));
    ProjectRemove => "project.remove" [] Exclusive [Project]
        (ProjectRemoveParams => text("The project id."));
    SessionList => "session.list" [] Task [Session, GlobalSession]
        (SessionListParams => json(Vec<SessionHeader>));
    SessionGet => "session.get" [] Task [Session, GlobalSession]
        (SessionRefParams => json(SessionDetail));
    SessionUpdate => "session.update" [] Exclusive [Session, GlobalSession]
        (SessionUpdateParams => json(SessionHeader));
    SessionArchive => "session.archive" [] Exclusive [Session, GlobalSession]
        (SessionArchiveParams => json(SessionHeader));
    SessionDelete => "session.delete" [] Exclusive [Session, GlobalSession]
        (SessionRefParams => text("The deleted session id."));
    SessionResume => "session.resume" [] Task [Session, GlobalSession]
        (SessionRefParams => text_matching("`resumed <id>`.", "^resumed .+$"));
    SessionNew => "session.new" [] Task [Session, GlobalSession]
        (SessionNewParams => text("The new session id."));
    SessionTruncate => "session.truncate" [] Exclusive [Session, GlobalSession]
        (SessionTruncateParams => text_matching("The number of messages left.", "^[0-9]+$"));
    SessionCompact => "session.compact" [] Task [Session, GlobalSession]
        (SessionRefParams => json(SessionCompactResult));
    SessionRewind => "session.rewind" [] Task [Checkpoints]
        (SessionRewindParams => json(RewindOutcome));
    SessionFork => "session.fork" [] Task [Checkpoints]
        (SessionForkParams => json(ForkOutcome));
    CheckpointList => "checkpoint.list" [] Task [Checkpoints]
        (CheckpointListParams => json(Vec<CheckpointSummary>));
    CheckpointDiff => "checkpoint.diff" [] Task [Checkpoints]
        (CheckpointDiffParams => json(CheckpointDiffResult));
    SessionTimeline => "session.timeline" [] Task [Session, GlobalSession]
        (SessionTimelineParams => json(SessionTimeline));
    SessionSearch => "session.search" [] Task [Session, GlobalSession]
        (SessionSearchParams => json(Vec<SessionSearchHit>));
    SessionWatch => "session.watch" [] Task [SessionWatch]
        (SessionWatchParams => watch());
    SessionUnwatch => "session.unwatch" [] Task [SessionWatch]
        (SessionRefParams => text_matching("How many of this connection's watches of the session ended.", "^[0-9]+$"));
    GoalGet => "goal.get" [] Task [Goal]
        (SessionRefParams => json(GoalView));
    GoalSet => "goal.set" [] Task [Goal]
        (GoalSetParams => json(GoalView));
    GoalClear => "goal.clear" [] Task [Goal]
        (SessionRefParams => json(GoalView));
    BudgetGet => "budget.get" [] Task [Budgets]
        (BudgetGetParams => json(BudgetView));
    BudgetSet => "budget.set" [] Exclusive [Budgets]
        (BudgetSetParams => json(BudgetView));
    LockList => "lock.list" [] Task [FileLocks]
        (NoParams => json(Vec<LockView>));
    FactoryReset => "factory.reset" [] Exclusive [FactoryReset]
        (NoParams => json(FactoryResetResult));
    Shutdown => "shutdown" [] Task []
        (NoParams => empty(event::BYE));
    ConnectionUpgrade => "connection.upgrade" [] Inline []
        (UpgradeParams => text_matching("`upgraded to <protocol>`: the connection's next lines speak that protocol (`acp`: `seekclaw acp` through the daemon). Only as a connection's first request.", "^upgraded to .+$"));
    HooksList => "hooks.list" [] Task [Hooks]
        (HooksListParams => json(PolicyView));
    HooksApprove => "hooks.approve" [] Exclusive [Hooks]
        (HooksApproveParams => json(PolicyView));
    PermissionsCheck => "permissions.check" [] Task [Permissions]
        (PermissionsCheckParams => json(PermissionCheckView));
    SessionEnd => "session.end" [] Task [Hooks]
        (SessionEndParams => text_matching("`ended`: its `SessionEnd` hooks run now; `not open`: no turn of it ran since the daemon started (or it ended already).", "^(ended|not open)$"));
    PluginList => "plugin.list" [] Task [Plugins]
        (PluginListParams => json(Vec<PluginView>));
    PluginInstall => "plugin.install" [] Task [Plugins]
        (PluginInstallParams => json(PluginView));
    PluginToggle => "plugin.toggle" [] Exclusive [Plugins]
        (PluginToggleParams => json(Vec<PluginView>));
    PluginRemove => "plugin.remove" [] Exclusive [Plugins]
        (PluginRemoveParams => json(Vec<PluginView>));
}

/// The `protocol.info` document.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct ProtocolInfo {
    /// The protocol version, `2.1`.
    pub version: String,
    /// Always `jsonl`.
    pub transport: String,
    /// Capability names, in the reference order.
    pub capabilities: Vec<String>,
    /// Every method name and alias served, in table order.
    pub methods: Vec<String>,
    /// The built-in tools, sorted by name: bash, bash_output, bash_stop,
    /// capture_screen (offered with a vision model and a display), edit_file,
    /// glob, grep, list_dir, multi_edit, plan, read_file, remove, web_fetch and
    /// web_search (both offered when the session's network is on), write_file.
    /// MCP tools come on top as `mcp__<server>__<tool>`.
    #[serde(default)]
    pub tools: Vec<String>,
}

/// The built-in tool names `protocol.info` lists (the engine checks that its
/// registry holds exactly these).
pub const BUILTIN_TOOLS: &[&str] = &[
    "apply_patch",
    "bash",
    "bash_output",
    "bash_stop",
    "capture_screen",
    "edit_file",
    "explore",
    "glob",
    "grep",
    "list_dir",
    "multi_edit",
    "plan",
    "read_file",
    "remove",
    "review",
    "web_fetch",
    "web_search",
    "write_file",
];

impl ProtocolInfo {
    /// Built from the method table: every name and alias served, and the
    /// capabilities that at least one served method provides.
    pub fn from_table() -> Self {
        let methods = METHODS
            .iter()
            .flat_map(|m| std::iter::once(m.name).chain(m.aliases.iter().copied()))
            .map(str::to_string)
            .collect();
        let capabilities = CAPABILITIES
            .iter()
            .filter(|(cap, _)| METHODS.iter().any(|m| m.capabilities.contains(cap)))
            .map(|(_, name)| (*name).to_string())
            .collect();
        ProtocolInfo {
            version: crate::PROTOCOL_VERSION.to_string(),
            transport: crate::TRANSPORT.to_string(),
            capabilities,
            methods,
            tools: BUILTIN_TOOLS.iter().map(|t| (*t).to_string()).collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_and_lookup_agree() {
        for (i, spec) in METHODS.iter().enumerate() {
            assert_eq!(spec.method as usize, i, "table order must follow the enum");
            assert_eq!(Method::from_name(spec.name), Some(spec.method));
            for alias in spec.aliases {
                assert_eq!(Method::from_name(alias), Some(spec.method));
            }
            assert_eq!(spec.method.spec().name, spec.name);
        }
        assert_eq!(Method::from_name("nope"), None);
        assert_eq!(Method::from_name(""), None);
    }

    #[test]
    fn info_lists_every_name_once() {
        let info = ProtocolInfo::from_table();
        assert_eq!(info.version, "2.1");
        assert_eq!(info.transport, "jsonl");
        let mut names = info.methods.clone();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), info.methods.len());
        assert!(info.methods.iter().any(|x| x == "session.truncate"));
        assert!(info.tools.iter().any(|x| x == "web_search"));
        assert!(info.tools.iter().any(|x| x == "capture_screen"));
        assert!(info.tools.is_sorted());
        assert!(info.capabilities.iter().any(|x| x == "session"));
        assert!(info.capabilities.iter().any(|x| x == "schedule"));
        let at = |m: &str| info.methods.iter().position(|x| x == m).unwrap();
        // Reference order: after prompt.optimize, before the profile methods.
        assert!(at("prompt.optimize") < at("schedule.list"));
        assert!(at("schedule.list") < at("schedule.create"));
        assert!(at("schedule.create") < at("schedule.update"));
        assert!(at("schedule.run") < at("profile.list"));
        assert!(
            !info.capabilities.iter().any(|x| x == "chat")
                || info.methods.iter().any(|x| x == "chat")
        );
    }

    /// A client writes params with the same types the daemon reads: absent
    /// stays absent, null stays null, and images are sent in full though the
    /// typed read skips them (the image intake reads the raw value).
    #[test]
    fn params_a_client_writes_read_back_the_same() {
        use crate::api::{ChatParams, ImageInput, Required, SessionUpdateParams, Skipped};
        use serde_json::{Value, json};
        let update = SessionUpdateParams {
            id: Required("s1".into()),
            title: Some(None),
            model: Some(Some("a/b".into())),
            ..Default::default()
        };
        let v = serde_json::to_value(&update).unwrap();
        assert_eq!(v, json!({"id": "s1", "title": null, "model": "a/b"}));
        let Value::Object(m) = v else { unreachable!() };
        let back = crate::Params::new(m)
            .read::<method::SessionUpdate>()
            .unwrap();
        assert_eq!(
            (back.title, back.model, back.workspace),
            (Some(None), Some(Some("a/b".into())), None)
        );

        let image = ImageInput {
            name: "a.png".into(),
            media_type: "image/png".into(),
            data: "AAAA".into(),
        };
        let chat = ChatParams {
            message: Some("hi".into()),
            images: Some(Skipped::send(vec![image])),
            ..Default::default()
        };
        let v = serde_json::to_value(&chat).unwrap();
        assert_eq!(
            v,
            json!({"message": "hi", "images": [{"name": "a.png", "mediaType": "image/png", "data": "AAAA"}]})
        );
        let Value::Object(m) = v else { unreachable!() };
        let back = crate::Params::new(m).read::<method::Chat>().unwrap();
        assert!(matches!(back.images, Some(Skipped(None))));
    }

    /// What a `result` of each reply form reads as.
    #[test]
    fn results_read_back_as_the_table_says() {
        let info = ProtocolInfo::from_table();
        let text = serde_json::to_string(&info).unwrap();
        let back: <method::ProtocolInfo as MethodType>::Result =
            serde_json::from_str(&text).unwrap();
        assert_eq!(back.methods, info.methods);
        let end: <method::Chat as MethodType>::Result =
            serde_json::from_value(serde_json::json!({"outcome": "cancelled", "text": "x"}))
                .unwrap();
        assert_eq!(end.outcome, TurnOutcome::Cancelled);
    }

    /// Reference §4: all 23 capabilities, and the 58 methods in their order (our
    /// extras `agent/runTurn`, `agent.approve`, `session.truncate` and `session.compact` sit in between).
    #[test]
    fn info_matches_the_reference_lists() {
        let info = ProtocolInfo::from_table();
        let caps: Vec<&str> = CAPABILITIES.iter().map(|(_, n)| *n).collect();
        assert_eq!(info.capabilities, caps);
        let reference = "ping protocol.info chat agent.runTurn agent.steer agent.cancel \
            workspace.get workspace.open workspace.init agent.mode.get agent.mode.switch \
            routing.get routing.set prompt.optimize schedule.list schedule.create schedule.update \
            schedule.toggle schedule.delete schedule.run profile.list profile.upsert profile.use \
            profile.remove provider.list provider.upsert provider.use provider.remove provider.test \
            provider.models.fetch model.list model.catalog model.switch model.test model.update \
            mcp.list mcp.upsert mcp.remove mcp.reload skill.list skill.import skill.toggle usage.get \
            doctor doctor.run project.list project.upsert project.remove session.list session.get \
            session.update session.archive session.delete session.resume session.new lock.list \
            factory.reset shutdown";
        let reference: Vec<&str> = reference.split_whitespace().collect();
        assert_eq!(reference.len(), 58);
        let ours: Vec<&str> = info
            .methods
            .iter()
            .map(String::as_str)
            .filter(|m| reference.contains(m))
            .collect();
        assert_eq!(ours, reference);
        assert_eq!(info.methods.len(), 87);
    }
}
