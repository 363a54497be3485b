//! The global `config.json` schema (reference §5.2, plus our `daemon` section and
//! agent additions). Every struct is `#[serde(default)]` so partial files load,
//! and keeps unknown keys in `extra` so a newer config round-trips without loss.

use std::collections::BTreeMap;
use std::fmt;

use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use crate::enums::{AgentMode, ApprovalPolicy, ReasoningLevel, SandboxMode};
use crate::provider::Provider;
use crate::web_search::WebSearchSettings;

/// Name of the profile that exists out of the box.
pub const DEFAULT_PROFILE: &str = "default";

/// `~/.seekclaw/config.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Config {
    /// Name of the profile whose provider, model and strategy steer routing.
    pub active_profile: String,
    /// Looked up case-insensitively by [`Config::active_profile_mut`].
    pub profiles: BTreeMap<String, Profile>,
    /// The chat API endpoints and their models; none out of the box.
    pub providers: Vec<Provider>,
    /// How a request's candidate models are chosen, ordered and retried.
    pub routing: Routing,
    /// Turn-loop limits and agent defaults.
    pub agent: AgentSettings,
    /// Global MCP servers and their timeouts.
    pub mcp: McpSettings,
    /// Settings of this daemon that the original did not have.
    pub daemon: DaemonSettings,
    /// The wording of what the daemon writes for people (`ui.language`).
    #[serde(skip_serializing_if = "crate::UiSettings::is_empty")]
    pub ui: crate::UiSettings,
    /// Checkpoints of the workspace's files, for rewinding what the agent did.
    #[serde(skip_serializing_if = "CheckpointSettings::is_default")]
    pub checkpoints: CheckpointSettings,
    /// Lifecycle hooks in Claude Code's shape (read and checked by the
    /// policy crate; kept here as written).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hooks: Option<Value>,
    /// Permission rules: `{allow: [], ask: [], deny: []}` (read by the policy crate).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub permissions: Option<Value>,
    /// Language servers asked for diagnostics after an edit (none: off).
    #[serde(skip_serializing_if = "crate::LspSettings::is_empty")]
    pub lsp: crate::LspSettings,
    /// Which instruction files the prompt includes, and how much of them.
    #[serde(skip_serializing_if = "crate::InstructionSettings::is_empty")]
    pub instructions: crate::InstructionSettings,
    /// Spend limits checked before each model request (none: unlimited).
    #[serde(skip_serializing_if = "crate::Budgets::is_empty")]
    pub budgets: crate::Budgets,
    /// OpenTelemetry export (off unless `telemetry.otlp.endpoint` is set).
    #[serde(skip_serializing_if = "crate::TelemetrySettings::is_empty")]
    pub telemetry: crate::TelemetrySettings,
    /// Unknown keys of the top level, kept so a newer config round-trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            active_profile: DEFAULT_PROFILE.to_string(),
            profiles: BTreeMap::from([(DEFAULT_PROFILE.to_string(), Profile::default())]),
            providers: Vec::new(),
            routing: Routing::default(),
            agent: AgentSettings::default(),
            mcp: McpSettings::default(),
            daemon: DaemonSettings::default(),
            ui: crate::UiSettings::default(),
            checkpoints: CheckpointSettings::default(),
            hooks: None,
            permissions: None,
            lsp: crate::LspSettings::default(),
            instructions: crate::InstructionSettings::default(),
            budgets: crate::Budgets::default(),
            telemetry: crate::TelemetrySettings::default(),
            extra: Map::new(),
        }
    }
}

impl Config {
    /// The providers in listing order (`provider.list`, `seekclaw provider
    /// list`): priority, then id.
    pub fn providers_by_priority(&self) -> Vec<&Provider> {
        let mut all: Vec<&Provider> = self.providers.iter().collect();
        all.sort_by(|a, b| (a.priority, &a.id).cmp(&(b.priority, &b.id)));
        all
    }

    /// The active profile, matched exactly, else case-insensitively.
    pub fn active_profile(&self) -> Option<&Profile> {
        let key = self.active_profile_key()?;
        self.profiles.get(&key)
    }

    /// The active profile, created empty if missing (as the original does).
    pub fn active_profile_mut(&mut self) -> &mut Profile {
        let key = self
            .active_profile_key()
            .unwrap_or_else(|| self.active_profile.clone());
        self.profiles.entry(key).or_default()
    }

    /// The provider with this id (case-insensitive).
    pub fn provider(&self, id: &str) -> Option<&Provider> {
        self.providers
            .iter()
            .find(|p| p.id.eq_ignore_ascii_case(id))
    }

    fn active_profile_key(&self) -> Option<String> {
        if self.profiles.contains_key(&self.active_profile) {
            return Some(self.active_profile.clone());
        }
        self.profiles
            .keys()
            .find(|k| k.eq_ignore_ascii_case(&self.active_profile))
            .cloned()
    }
}

/// A named set of routing preferences.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Profile {
    /// Provider id that qualifies a bare `model`; also the provider a first
    /// `provider add` activates.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    /// Preferred model, tried before the strategy's candidates (after a workspace model).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// `fast|balanced|quality|cheap|offline` or any key of `routing.strategies`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub strategy: Option<String>,
    /// Sampling temperature sent to the model, unless the workspace sets one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// Stored for compatibility; the effective mode comes from workspace and `agent.mode`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mode: Option<AgentMode>,
    /// Unknown keys of a profile, kept so a newer config round-trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `routing`: failover, strategies and retry/circuit-breaker tuning.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Routing {
    /// When false, only the first candidate model is tried.
    pub failover_enabled: bool,
    /// Lets a DeepSeek model's stream go quiet for up to 300 s (slow thinking)
    /// instead of the provider's `timeoutSeconds`.
    pub deep_seek_optimization_enabled: bool,
    /// Strategy name → ordered `"provider/model"` refs.
    pub strategies: BTreeMap<String, Vec<String>>,
    /// `"provider/model"` refs tried after the strategy.
    pub fallback: Vec<String>,
    /// How a strategy's candidates are ordered before they are tried.
    pub load_balance: LoadBalance,
    /// Retry backoff per candidate and the circuit breaker per model.
    pub retry: Retry,
    /// Unknown keys of `routing`, kept so a newer config round-trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Default for Routing {
    fn default() -> Self {
        Routing {
            failover_enabled: true,
            deep_seek_optimization_enabled: false,
            strategies: BTreeMap::new(),
            fallback: Vec::new(),
            load_balance: LoadBalance::Priority,
            retry: Retry::default(),
            extra: Map::new(),
        }
    }
}

/// How candidates of equal rank are ordered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum LoadBalance {
    /// The order the strategy lists them in.
    #[default]
    Priority,
    /// Rotated by a per-strategy cursor kept in `state.json`.
    RoundRobin,
    /// Fewest recorded calls first.
    LeastUsed,
    /// Cheapest input + output price per 1M tokens first.
    LowestCost,
    /// Lowest average measured latency first; unmeasured models last.
    Fastest,
    /// Behaves like priority (as in the original).
    Sticky,
}

impl LoadBalance {
    /// Every policy, in the order of its integer form (0-5).
    pub const ALL: [LoadBalance; 6] = [
        LoadBalance::Priority,
        LoadBalance::RoundRobin,
        LoadBalance::LeastUsed,
        LoadBalance::LowestCost,
        LoadBalance::Fastest,
        LoadBalance::Sticky,
    ];

    /// The camelCase name written to `config.json`.
    pub fn as_str(self) -> &'static str {
        match self {
            LoadBalance::Priority => "priority",
            LoadBalance::RoundRobin => "roundRobin",
            LoadBalance::LeastUsed => "leastUsed",
            LoadBalance::LowestCost => "lowestCost",
            LoadBalance::Fastest => "fastest",
            LoadBalance::Sticky => "sticky",
        }
    }

    /// Case-insensitive; `-` and `_` ignored (`round_robin`, `Round-Robin`).
    pub fn parse(s: &str) -> Option<Self> {
        let wanted: String = s
            .trim()
            .chars()
            .filter(|c| *c != '-' && *c != '_')
            .collect();
        Self::ALL
            .into_iter()
            .find(|l| l.as_str().eq_ignore_ascii_case(&wanted))
    }
}

impl Serialize for LoadBalance {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for LoadBalance {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = LoadBalance;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a load-balance name or 0-5")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<LoadBalance, E> {
                LoadBalance::parse(v).ok_or_else(|| E::invalid_value(de::Unexpected::Str(v), &self))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<LoadBalance, E> {
                usize::try_from(v)
                    .ok()
                    .and_then(|i| LoadBalance::ALL.get(i).copied())
                    .ok_or_else(|| E::invalid_value(de::Unexpected::Unsigned(v), &self))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<LoadBalance, E> {
                u64::try_from(v)
                    .map_err(|_| E::invalid_value(de::Unexpected::Signed(v), &self))
                    .and_then(|u| self.visit_u64(u))
            }
        }
        d.deserialize_any(V)
    }
}

/// Per-candidate retries and the per-model circuit breaker.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Retry {
    /// Tries per candidate model before failing over to the next.
    pub max_attempts: u32,
    /// First backoff delay; doubled per attempt, with jitter.
    pub base_delay_seconds: f64,
    /// Cap on one backoff delay.
    pub max_delay_seconds: f64,
    /// Consecutive failures that open the breaker.
    pub circuit_break_threshold: u32,
    /// How long an open breaker keeps its model out of the candidates.
    pub circuit_cooldown_seconds: f64,
    /// Unknown keys of `routing.retry`, kept so a newer config round-trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Default for Retry {
    fn default() -> Self {
        Retry {
            max_attempts: 3,
            base_delay_seconds: 1.0,
            max_delay_seconds: 20.0,
            circuit_break_threshold: 4,
            circuit_cooldown_seconds: 60.0,
            extra: Map::new(),
        }
    }
}

/// `agent`: turn-loop limits and defaults.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct AgentSettings {
    /// Model steps a turn may take (repair attempts come on top).
    pub max_steps: u32,
    /// Runs the project's build check after a turn that changed files.
    pub auto_verify: bool,
    /// How often per turn a failed verification is fed back for a fix.
    pub max_repair_attempts: u32,
    /// `pragmatic` or `friendly`.
    pub personality: String,
    /// Summarizes old history with the model when it no longer fits the window.
    pub enable_context_compaction: bool,
    /// Consecutive truncated answers that are continued before the turn gives up.
    pub max_output_continuations: u32,
    /// Mode of turns whose workspace sets none.
    pub mode: AgentMode,
    /// Prompt key.
    pub system_prompt: String,
    /// Base of the Anthropic thinking budget, which the reasoning level scales.
    pub thinking_budget_tokens: u64,
    /// Reasoning effort asked of models that support it.
    pub reasoning_level: ReasoningLevel,
    /// Upper bound on the text a tool result hands back to the model.
    pub max_tool_output_chars: u64,
    /// How long one `bash` tool call may run.
    pub bash_timeout_seconds: u64,
    /// How long a scheduled task's turn may run before it is cancelled.
    pub scheduled_turn_timeout_seconds: u64,
    /// How long a tool waits for another session's write lock on a file.
    pub write_lock_timeout_seconds: u64,
    /// Lets file tools leave the workspace root.
    pub allow_outside_workspace: bool,
    /// What the shell may touch (`workspace-write`, `read-only`, `off`).
    pub sandbox: SandboxMode,
    /// Scheduled tasks whose turns may run at the same time.
    pub max_concurrent_scheduled_turns: u32,
    /// When a tool call waits for a person's approval.
    pub approval_policy: ApprovalPolicy,
    /// How long a pending approval waits before it counts as a rejection.
    pub approval_timeout_seconds: u64,
    /// The `web_search` tool's engine, base URL and key.
    #[serde(skip_serializing_if = "WebSearchSettings::is_default")]
    pub web_search: WebSearchSettings,
    /// Model requests a subagent (`explore`, `review`) may make.
    #[serde(skip_serializing_if = "is_default_subagent_steps")]
    pub subagent_max_steps: u32,
    /// How long a subagent may run before it is cancelled and fails.
    #[serde(skip_serializing_if = "is_default_subagent_timeout")]
    pub subagent_timeout_seconds: u64,
    /// Unknown keys of `agent`, kept so a newer config round-trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Default for AgentSettings {
    fn default() -> Self {
        AgentSettings {
            max_steps: 40,
            auto_verify: true,
            max_repair_attempts: 3,
            personality: "pragmatic".to_string(),
            enable_context_compaction: true,
            max_output_continuations: 6,
            mode: AgentMode::Edit,
            system_prompt: "system/default".to_string(),
            thinking_budget_tokens: 16384,
            reasoning_level: ReasoningLevel::High,
            max_tool_output_chars: 60_000,
            bash_timeout_seconds: 180,
            scheduled_turn_timeout_seconds: 1800,
            write_lock_timeout_seconds: 30,
            allow_outside_workspace: false,
            sandbox: SandboxMode::WorkspaceWrite,
            max_concurrent_scheduled_turns: 4,
            approval_policy: ApprovalPolicy::Never,
            approval_timeout_seconds: 600,
            web_search: WebSearchSettings::default(),
            subagent_max_steps: DEFAULT_SUBAGENT_STEPS,
            subagent_timeout_seconds: DEFAULT_SUBAGENT_TIMEOUT,
            extra: Map::new(),
        }
    }
}

/// A subagent's step budget unless `agent.subagentMaxSteps` says otherwise.
const DEFAULT_SUBAGENT_STEPS: u32 = 100;
/// A subagent's deadline (10 minutes) unless `agent.subagentTimeoutSeconds` says otherwise.
const DEFAULT_SUBAGENT_TIMEOUT: u64 = 600;

// Left out of a written config while default: config files stay as they were.
fn is_default_subagent_steps(v: &u32) -> bool {
    *v == DEFAULT_SUBAGENT_STEPS
}

fn is_default_subagent_timeout(v: &u64) -> bool {
    *v == DEFAULT_SUBAGENT_TIMEOUT
}

/// `mcp` (also the shape of a workspace's `mcp`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct McpSettings {
    /// Server name → how to reach it.
    pub servers: BTreeMap<String, McpServer>,
    /// Seconds a server gets to start and answer `initialize` (default 30).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub connect_timeout_seconds: Option<u64>,
    /// Seconds one `tools/call` may take (default 120).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub call_timeout_seconds: Option<u64>,
    /// Unknown keys of `mcp`, kept so a newer config round-trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One MCP server. `transport` stays text: which transports are supported is
/// the MCP client's decision, and an unknown one must not break config loading.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct McpServer {
    /// `stdio` (default), `sse`, `http`.
    pub transport: String,
    /// Program started for a `stdio` server.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// Arguments of `command`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub args: Option<Vec<String>>,
    /// Extra environment of the started program; may hold secrets, so
    /// `mcp.list` never returns the values.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub env: Option<BTreeMap<String, String>>,
    /// Endpoint of a remote (`sse`, `http`) server.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// HTTP headers sent to a remote server (`Authorization: Bearer …`, API keys).
    /// Like `env`, their values are never returned by `mcp.list`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub headers: Option<BTreeMap<String, String>>,
    /// A disabled server stays configured but is not connected.
    pub enabled: bool,
    /// OAuth client settings of a remote server that asks for a login. The
    /// tokens themselves never live here (they are in `mcp-auth/`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub oauth: Option<McpOAuth>,
    /// Unknown keys of the server entry, kept so a newer config round-trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `mcp.servers.X.oauth`: for authorization servers without dynamic client
/// registration, or to pin scopes or the redirect port.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct McpOAuth {
    /// A pre-registered client id (else dynamic registration).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub client_id: Option<String>,
    /// Its secret, for a confidential client.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<String>,
    /// Scopes to ask for (else those the server advertises).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scopes: Option<Vec<String>>,
    /// The loopback redirect port a pre-registered client was registered with
    /// (else a random one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub redirect_port: Option<u16>,
    /// Unknown keys of `oauth`, kept so a newer config round-trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Default for McpServer {
    fn default() -> Self {
        McpServer {
            transport: "stdio".to_string(),
            command: None,
            args: None,
            env: None,
            url: None,
            headers: None,
            enabled: true,
            oauth: None,
            extra: Map::new(),
        }
    }
}

/// `checkpoints`: what the engine keeps of a workspace's files so that a
/// rewind can put back anything the agent changed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct CheckpointSettings {
    /// Take checkpoints at all.
    pub enabled: bool,
    /// Files larger than this are not kept (they are listed as not tracked).
    pub max_file_bytes: u64,
    /// A workspace with more files to track than this is not checkpointed.
    pub max_files: usize,
    /// Checkpoints kept per session; older ones are folded away.
    pub keep: usize,
    /// Tracked files from which a turn watches its workspace (inotify)
    /// instead of rescanning it after each step; 0: always.
    pub watch_files: usize,
    /// Unknown keys, kept so a newer config round-trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Default for CheckpointSettings {
    fn default() -> Self {
        CheckpointSettings {
            enabled: true,
            max_file_bytes: 10 * 1024 * 1024,
            max_files: 100_000,
            keep: 100,
            watch_files: 4_000,
            extra: Map::new(),
        }
    }
}

impl CheckpointSettings {
    fn is_default(&self) -> bool {
        *self == CheckpointSettings::default()
    }
}

/// `daemon`: settings of our daemon that the original did not have.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct DaemonSettings {
    /// A client whose outbound queue stays full this long is disconnected.
    pub slow_client_timeout_seconds: u64,
    /// How often the scheduler looks for due tasks (it also wakes for the
    /// nearest known occurrence, so this bounds lateness, not precision).
    pub scheduler_tick_milliseconds: u64,
    /// Hidden (written only when set): lets `agent.scheduledTurnTimeoutSeconds`
    /// go below its 60 s floor, so tests can exercise the timeout quickly.
    #[serde(skip_serializing_if = "is_false")]
    pub allow_short_scheduled_timeouts: bool,
    /// Unknown keys of `daemon`, kept so a newer config round-trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

fn is_false(b: &bool) -> bool {
    !*b
}

impl Default for DaemonSettings {
    fn default() -> Self {
        DaemonSettings {
            slow_client_timeout_seconds: 10,
            scheduler_tick_milliseconds: 10_000,
            allow_short_scheduled_timeouts: false,
            extra: Map::new(),
        }
    }
}

#[cfg(test)]
#[path = "config_tests.rs"]
mod tests;
