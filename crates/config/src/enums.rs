//! Domain enums shared by config, protocol and agent: agent mode and reasoning level.

use std::fmt;

use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// What the agent may do in a turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum AgentMode {
    /// Explore read-only, then propose a plan.
    Plan,
    /// No mutating tools; answers questions about the workspace.
    Readonly,
    /// All tools, with verification and repair as configured.
    #[default]
    Edit,
    /// Like edit, with a full-initiative prompt.
    Auto,
}

impl AgentMode {
    /// The four modes, as offered to users.
    pub const ALL: [AgentMode; 4] = [
        AgentMode::Plan,
        AgentMode::Readonly,
        AgentMode::Edit,
        AgentMode::Auto,
    ];

    /// The lower-case wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            AgentMode::Plan => "plan",
            AgentMode::Readonly => "readonly",
            AgentMode::Edit => "edit",
            AgentMode::Auto => "auto",
        }
    }

    /// Exactly one of the four wire names (trimmed, case-insensitive); for
    /// validating user input such as `agent.mode.switch`.
    pub fn parse_strict(s: &str) -> Option<Self> {
        match s.trim().to_ascii_lowercase().as_str() {
            "plan" => Some(AgentMode::Plan),
            "readonly" => Some(AgentMode::Readonly),
            "edit" => Some(AgentMode::Edit),
            "auto" => Some(AgentMode::Auto),
            _ => None,
        }
    }

    /// The original's reading of stored modes: known aliases, anything else is edit.
    pub fn parse_lenient(s: &str) -> Self {
        match s.trim().to_ascii_lowercase().as_str() {
            "plan" | "planning" => AgentMode::Plan,
            "readonly" | "read-only" | "ro" => AgentMode::Readonly,
            "auto" | "autonomous" => AgentMode::Auto,
            _ => AgentMode::Edit,
        }
    }

    /// Plan and readonly withhold mutating tools.
    pub fn is_read_only(self) -> bool {
        matches!(self, AgentMode::Plan | AgentMode::Readonly)
    }
}

impl fmt::Display for AgentMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for AgentMode {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// Read leniently, like the original: a stored mode never makes a file unreadable.
impl<'de> Deserialize<'de> for AgentMode {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Ok(AgentMode::parse_lenient(&s))
    }
}

/// When the agent asks a person before a tool runs (`agent.approvalPolicy`),
/// ordered from the loosest to the strictest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub enum ApprovalPolicy {
    /// Nothing asks (the original's behaviour; the desktop knows no approvals).
    #[default]
    Never,
    /// Mutating tools and shell commands outside a safe list ask.
    OnRequest,
    /// Everything but reads asks.
    Untrusted,
}

impl ApprovalPolicy {
    /// The three policies, as offered to users.
    pub const ALL: [ApprovalPolicy; 3] = [
        ApprovalPolicy::Never,
        ApprovalPolicy::OnRequest,
        ApprovalPolicy::Untrusted,
    ];

    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            ApprovalPolicy::Never => "never",
            ApprovalPolicy::OnRequest => "on-request",
            ApprovalPolicy::Untrusted => "untrusted",
        }
    }

    /// Exactly one of the wire names (trimmed, case-insensitive; OpenSeek's
    /// `ask` is `on-request`), for validating user input.
    pub fn parse_strict(s: &str) -> Option<Self> {
        match s.trim().to_ascii_lowercase().as_str() {
            "never" => Some(ApprovalPolicy::Never),
            "on-request" | "ask" => Some(ApprovalPolicy::OnRequest),
            "untrusted" => Some(ApprovalPolicy::Untrusted),
            _ => None,
        }
    }
}

impl fmt::Display for ApprovalPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for ApprovalPolicy {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// A misspelt policy in a hand-edited file fails safe: it reads as the
/// strictest one rather than making the file unreadable or silently `never`.
impl<'de> Deserialize<'de> for ApprovalPolicy {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Ok(ApprovalPolicy::parse_strict(&s).unwrap_or(ApprovalPolicy::Untrusted))
    }
}

/// Provider-neutral reasoning effort, ordered from none (0) to ultra (6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum ReasoningLevel {
    /// No reasoning: thinking is off and no effort is sent.
    None,
    /// Least effort.
    Low,
    /// Moderate effort.
    Medium,
    /// The default for the agent and for new sessions.
    #[default]
    High,
    /// The default cap of a model (`maxReasoningLevel`); DeepSeek never goes beyond it.
    Max,
    /// Above max; sent by name unless the provider's `reasoningEffortMap` maps it.
    Xhigh,
    /// The highest level; sent by name unless the provider's `reasoningEffortMap` maps it.
    Ultra,
}

impl ReasoningLevel {
    /// Every level, indexed by its integer form.
    pub const ALL: [ReasoningLevel; 7] = [
        ReasoningLevel::None,
        ReasoningLevel::Low,
        ReasoningLevel::Medium,
        ReasoningLevel::High,
        ReasoningLevel::Max,
        ReasoningLevel::Xhigh,
        ReasoningLevel::Ultra,
    ];

    /// The lower-case wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            ReasoningLevel::None => "none",
            ReasoningLevel::Low => "low",
            ReasoningLevel::Medium => "medium",
            ReasoningLevel::High => "high",
            ReasoningLevel::Max => "max",
            ReasoningLevel::Xhigh => "xhigh",
            ReasoningLevel::Ultra => "ultra",
        }
    }

    /// Trimmed, case-insensitive wire name.
    pub fn parse(s: &str) -> Option<Self> {
        let s = s.trim();
        Self::ALL
            .into_iter()
            .find(|l| l.as_str().eq_ignore_ascii_case(s))
    }

    /// 0 = none … 6 = ultra (the stored integer form).
    pub fn from_index(i: u8) -> Option<Self> {
        Self::ALL.get(usize::from(i)).copied()
    }

    /// The stored integer form, 0 = none … 6 = ultra.
    pub fn index(self) -> u8 {
        self as u8
    }
}

impl fmt::Display for ReasoningLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for ReasoningLevel {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ReasoningLevel {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(LevelVisitor)
    }
}

struct LevelVisitor;

const LEVEL_EXPECTED: &str =
    "a reasoning level (none, low, medium, high, max, xhigh, ultra) or 0-6";

impl Visitor<'_> for LevelVisitor {
    type Value = ReasoningLevel;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(LEVEL_EXPECTED)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        ReasoningLevel::parse(v).ok_or_else(|| E::invalid_value(de::Unexpected::Str(v), &self))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
        u8::try_from(v)
            .ok()
            .and_then(ReasoningLevel::from_index)
            .ok_or_else(|| E::invalid_value(de::Unexpected::Unsigned(v), &self))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
        u64::try_from(v)
            .map_err(|_| E::invalid_value(de::Unexpected::Signed(v), &self))
            .and_then(|u| self.visit_u64(u))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
        // `3.0` from a lenient writer is still 3.
        if v.fract() == 0.0 && (0.0..=6.0).contains(&v) {
            self.visit_u64(v as u64)
        } else {
            Err(E::invalid_value(de::Unexpected::Float(v), &self))
        }
    }
}

/// `agent.sandbox`: what the shell (`bash`, background jobs, verify commands)
/// may touch. Ordered from loosest to strictest, so the stricter of two
/// settings is their `max`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub enum SandboxMode {
    /// No sandbox: commands run with the daemon's rights.
    Off,
    /// Writes only beneath the workspace and the temp dir; the home is hidden.
    #[default]
    WorkspaceWrite,
    /// No writes at all (except to `/dev/null`-like devices); the home is hidden.
    ReadOnly,
}

impl SandboxMode {
    /// The three modes.
    pub const ALL: [SandboxMode; 3] = [
        SandboxMode::WorkspaceWrite,
        SandboxMode::ReadOnly,
        SandboxMode::Off,
    ];

    /// The config name.
    pub fn as_str(self) -> &'static str {
        match self {
            SandboxMode::Off => "off",
            SandboxMode::WorkspaceWrite => "workspace-write",
            SandboxMode::ReadOnly => "read-only",
        }
    }

    /// A config name (trimmed, case-insensitive, `_` taken as `-`).
    pub fn parse(s: &str) -> Option<Self> {
        let s = s.trim().to_ascii_lowercase().replace('_', "-");
        Self::ALL.into_iter().find(|m| m.as_str() == s)
    }
}

impl fmt::Display for SandboxMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for SandboxMode {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// Strict: a misspelt sandbox setting is an error, never silently a looser mode.
impl<'de> Deserialize<'de> for SandboxMode {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        SandboxMode::parse(&s).ok_or_else(|| {
            de::Error::custom(format!(
                "agent.sandbox must be workspace-write, read-only or off, not {s:?}"
            ))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mode_strict() {
        assert_eq!(AgentMode::parse_strict(" PLAN "), Some(AgentMode::Plan));
        assert_eq!(
            AgentMode::parse_strict("readonly"),
            Some(AgentMode::Readonly)
        );
        assert_eq!(AgentMode::parse_strict("Edit"), Some(AgentMode::Edit));
        assert_eq!(AgentMode::parse_strict("auto"), Some(AgentMode::Auto));
        assert_eq!(AgentMode::parse_strict("planning"), None);
        assert_eq!(AgentMode::parse_strict("ro"), None);
        assert_eq!(AgentMode::parse_strict(""), None);
    }

    #[test]
    fn mode_lenient() {
        for (s, m) in [
            ("plan", AgentMode::Plan),
            ("Planning", AgentMode::Plan),
            ("readonly", AgentMode::Readonly),
            ("read-only", AgentMode::Readonly),
            (" RO ", AgentMode::Readonly),
            ("auto", AgentMode::Auto),
            ("autonomous", AgentMode::Auto),
            ("edit", AgentMode::Edit),
            ("whatever", AgentMode::Edit),
            ("", AgentMode::Edit),
        ] {
            assert_eq!(AgentMode::parse_lenient(s), m, "{s}");
        }
        for m in AgentMode::ALL {
            assert_eq!(AgentMode::parse_strict(m.as_str()), Some(m));
            assert_eq!(m.to_string(), m.as_str());
        }
        assert!(AgentMode::Plan.is_read_only() && !AgentMode::Auto.is_read_only());
        assert_eq!(AgentMode::default(), AgentMode::Edit);
    }

    #[test]
    fn mode_serde() {
        assert_eq!(
            serde_json::to_string(&AgentMode::Readonly).unwrap(),
            "\"readonly\""
        );
        let m: AgentMode = serde_json::from_str("\"Read-Only\"").unwrap();
        assert_eq!(m, AgentMode::Readonly);
        let m: AgentMode = serde_json::from_str("\"bogus\"").unwrap();
        assert_eq!(m, AgentMode::Edit);
    }

    #[test]
    fn level_parse_and_index() {
        assert_eq!(ReasoningLevel::parse(" HIGH "), Some(ReasoningLevel::High));
        assert_eq!(ReasoningLevel::parse("XHigh"), Some(ReasoningLevel::Xhigh));
        assert_eq!(ReasoningLevel::parse("extreme"), None);
        for (i, l) in ReasoningLevel::ALL.into_iter().enumerate() {
            assert_eq!(usize::from(l.index()), i);
            assert_eq!(ReasoningLevel::from_index(l.index()), Some(l));
            assert_eq!(ReasoningLevel::parse(l.as_str()), Some(l));
        }
        assert_eq!(ReasoningLevel::from_index(7), None);
        assert!(ReasoningLevel::None < ReasoningLevel::Low);
        assert!(ReasoningLevel::Max < ReasoningLevel::Xhigh);
        assert!(ReasoningLevel::Xhigh < ReasoningLevel::Ultra);
        assert_eq!(
            ReasoningLevel::Ultra.min(ReasoningLevel::Max),
            ReasoningLevel::Max
        );
        assert_eq!(ReasoningLevel::default(), ReasoningLevel::High);
    }

    #[test]
    fn level_serde() {
        assert_eq!(
            serde_json::to_string(&ReasoningLevel::Xhigh).unwrap(),
            "\"xhigh\""
        );
        let l: ReasoningLevel = serde_json::from_str("\"Medium\"").unwrap();
        assert_eq!(l, ReasoningLevel::Medium);
        let l: ReasoningLevel = serde_json::from_str("6").unwrap();
        assert_eq!(l, ReasoningLevel::Ultra);
        let l: ReasoningLevel = json5::from_str("0").unwrap();
        assert_eq!(l, ReasoningLevel::None);
        let l: ReasoningLevel = serde_json::from_str("2.0").unwrap();
        assert_eq!(l, ReasoningLevel::Medium);
        assert!(serde_json::from_str::<ReasoningLevel>("7").is_err());
        assert!(serde_json::from_str::<ReasoningLevel>("-1").is_err());
        assert!(serde_json::from_str::<ReasoningLevel>("\"huge\"").is_err());
        assert!(serde_json::from_str::<ReasoningLevel>("true").is_err());
    }
}
