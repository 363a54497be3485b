//! The one method table. It drives request parsing (`Method::from_name`), dispatch
//! (the daemon matches exhaustively on `Method`) and the `protocol.info` lists, so a
//! method cannot be served without being listed, or listed without being served.

use serde::Serialize;

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
    Chat,
    ImageInput,
    ConcurrentTurns,
    ReasoningLevel,
    AgentSteer,
    AgentCancel,
    AgentMode,
    Workspace,
    Profile,
    Provider,
    Model,
    Mcp,
    Skill,
    Usage,
    Project,
    Session,
    GlobalSession,
    Doctor,
    FileLocks,
    Routing,
    Schedule,
    FactoryReset,
    PromptOptimize,
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
];

/// One row of the method table.
#[derive(Debug, Clone, Copy)]
pub struct MethodSpec {
    pub method: Method,
    pub name: &'static str,
    /// Other names served by the same handler (listed in `protocol.info` too).
    pub aliases: &'static [&'static str],
    pub serving: Serving,
    pub capabilities: &'static [Capability],
}

macro_rules! method_table {
    ($( $variant:ident => $name:literal [$($alias:literal),*] $serving:ident [$($cap:ident),*] ; )*) => {
        /// A served method.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Method { $($variant),* }

        /// The table, in `protocol.info` order.
        pub const METHODS: &[MethodSpec] = &[
            $(MethodSpec {
                method: Method::$variant,
                name: $name,
                aliases: &[$($alias),*],
                serving: Serving::$serving,
                capabilities: &[$(Capability::$cap),*],
            }),*
        ];

        impl Method {
            /// Resolves a wire name or alias.
            pub fn from_name(name: &str) -> Option<Method> {
                match name {
                    $($name $(| $alias)* => Some(Method::$variant),)*
                    _ => None,
                }
            }

            pub fn spec(self) -> &'static MethodSpec {
                match self {
                    $(Method::$variant => &METHODS[Method::$variant as usize],)*
                }
            }
        }
    };
}

method_table! {
    Ping => "ping" [] Inline [];
    ProtocolInfo => "protocol.info" [] Inline [];
    Chat => "chat" ["agent.runTurn", "agent/runTurn"] Task [Chat, ImageInput, ConcurrentTurns, ReasoningLevel];
    AgentSteer => "agent.steer" [] Task [AgentSteer];
    AgentCancel => "agent.cancel" [] Task [AgentCancel];
    WorkspaceGet => "workspace.get" [] Task [Workspace];
    WorkspaceOpen => "workspace.open" [] Task [Workspace];
    WorkspaceInit => "workspace.init" [] Exclusive [Workspace];
    AgentModeGet => "agent.mode.get" [] Task [AgentMode];
    AgentModeSwitch => "agent.mode.switch" [] Exclusive [AgentMode];
    RoutingGet => "routing.get" [] Task [Routing];
    RoutingSet => "routing.set" [] Exclusive [Routing];
    PromptOptimize => "prompt.optimize" [] Task [PromptOptimize];
    ScheduleList => "schedule.list" [] Task [Schedule];
    ScheduleCreate => "schedule.create" [] Exclusive [Schedule];
    ScheduleUpdate => "schedule.update" [] Exclusive [Schedule];
    ScheduleToggle => "schedule.toggle" [] Exclusive [Schedule];
    ScheduleDelete => "schedule.delete" [] Exclusive [Schedule];
    ScheduleRun => "schedule.run" [] Task [Schedule];
    ProfileList => "profile.list" [] Task [Profile];
    ProfileUpsert => "profile.upsert" [] Exclusive [Profile];
    ProfileUse => "profile.use" [] Exclusive [Profile];
    ProfileRemove => "profile.remove" [] Exclusive [Profile];
    ProviderList => "provider.list" [] Task [Provider];
    ProviderUpsert => "provider.upsert" [] Exclusive [Provider];
    ProviderUse => "provider.use" [] Exclusive [Provider];
    ProviderRemove => "provider.remove" [] Exclusive [Provider];
    ProviderTest => "provider.test" [] Task [Provider];
    ProviderModelsFetch => "provider.models.fetch" [] Task [Provider];
    ModelList => "model.list" [] Task [Model];
    ModelCatalog => "model.catalog" [] Task [Model];
    ModelSwitch => "model.switch" [] Exclusive [Model];
    ModelTest => "model.test" [] Task [Model];
    ModelUpdate => "model.update" [] Exclusive [Model];
    McpList => "mcp.list" [] Task [Mcp];
    McpUpsert => "mcp.upsert" [] Task [Mcp];
    McpRemove => "mcp.remove" [] Task [Mcp];
    McpReload => "mcp.reload" [] Task [Mcp];
    SkillList => "skill.list" [] Task [Skill];
    SkillImport => "skill.import" [] Exclusive [Skill];
    SkillToggle => "skill.toggle" [] Exclusive [Skill];
    UsageGet => "usage.get" [] Task [Usage];
    DoctorText => "doctor" [] Task [Doctor];
    DoctorRun => "doctor.run" [] Task [Doctor];
    ProjectList => "project.list" [] Task [Project];
    ProjectUpsert => "project.upsert" [] Exclusive [Project];
    ProjectRemove => "project.remove" [] Exclusive [Project];
    SessionList => "session.list" [] Task [Session, GlobalSession];
    SessionGet => "session.get" [] Task [Session, GlobalSession];
    SessionUpdate => "session.update" [] Exclusive [Session, GlobalSession];
    SessionArchive => "session.archive" [] Exclusive [Session, GlobalSession];
    SessionDelete => "session.delete" [] Exclusive [Session, GlobalSession];
    SessionResume => "session.resume" [] Task [Session, GlobalSession];
    SessionNew => "session.new" [] Task [Session, GlobalSession];
    SessionTruncate => "session.truncate" [] Exclusive [Session, GlobalSession];
    LockList => "lock.list" [] Task [FileLocks];
    FactoryReset => "factory.reset" [] Exclusive [FactoryReset];
    Shutdown => "shutdown" [] Task [];
}

/// The `protocol.info` document.
#[derive(Debug, Clone, Serialize)]
pub struct ProtocolInfo {
    pub version: &'static str,
    pub transport: &'static str,
    pub capabilities: Vec<&'static str>,
    pub methods: Vec<&'static str>,
}

impl ProtocolInfo {
    /// Built from the method table: every name and alias served, and the
    /// capabilities that at least one served method provides.
    pub fn from_table() -> Self {
        let methods = METHODS
            .iter()
            .flat_map(|m| std::iter::once(m.name).chain(m.aliases.iter().copied()))
            .collect();
        let capabilities = CAPABILITIES
            .iter()
            .filter(|(cap, _)| METHODS.iter().any(|m| m.capabilities.contains(cap)))
            .map(|(_, name)| *name)
            .collect();
        ProtocolInfo {
            version: crate::PROTOCOL_VERSION,
            transport: crate::TRANSPORT,
            capabilities,
            methods,
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
        assert!(info.methods.contains(&"session.truncate"));
        assert!(info.capabilities.contains(&"session"));
        assert!(info.capabilities.contains(&"schedule"));
        let at = |m: &str| info.methods.iter().position(|x| *x == m).unwrap();
        // Reference order: after prompt.optimize, before the profile methods.
        assert!(at("prompt.optimize") < at("schedule.list"));
        assert!(at("schedule.list") < at("schedule.create"));
        assert!(at("schedule.create") < at("schedule.update"));
        assert!(at("schedule.run") < at("profile.list"));
        assert!(!info.capabilities.contains(&"chat") || info.methods.contains(&"chat"));
    }

    /// Reference §4: all 23 capabilities, and the 58 methods in their order (our
    /// extras `agent/runTurn` and `session.truncate` sit in between).
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
            .copied()
            .filter(|m| reference.contains(m))
            .collect();
        assert_eq!(ours, reference);
        assert_eq!(info.methods.len(), 60);
    }
}
