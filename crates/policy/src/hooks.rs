//! Hooks in Claude Code's shape: `{"<Event>": [{"matcher": "<regex>",
//! "hooks": [{"type": "command", "command": "…", "timeout": 60}]}]}`, read
//! from every layer into one set; which commands an occurrence runs.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use regex::Regex;
use serde_json::Value;

use crate::{Layer, Problem};

/// The lifecycle events a hook can run at (Claude Code's names).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum HookEvent {
    /// A session's first turn in this process (`source`: startup or resume).
    SessionStart,
    /// A user's message, before the model sees it.
    UserPromptSubmit,
    /// A tool call, before it runs (may allow, deny, ask or change it).
    PreToolUse,
    /// A call about to be put to a person (may decide it instead).
    PermissionRequest,
    /// A tool call that succeeded.
    PostToolUse,
    /// A tool call that failed.
    PostToolUseFailure,
    /// The agent waits for the user (an approval).
    Notification,
    /// The turn is about to end (may make it go on).
    Stop,
    /// A subagent starts.
    SubagentStart,
    /// A subagent is about to end (may make it go on).
    SubagentStop,
    /// Before the conversation is compacted.
    PreCompact,
    /// A front end is done with the session.
    SessionEnd,
}

impl HookEvent {
    /// Every event.
    pub const ALL: [HookEvent; 12] = [
        HookEvent::SessionStart,
        HookEvent::UserPromptSubmit,
        HookEvent::PreToolUse,
        HookEvent::PermissionRequest,
        HookEvent::PostToolUse,
        HookEvent::PostToolUseFailure,
        HookEvent::Notification,
        HookEvent::Stop,
        HookEvent::SubagentStart,
        HookEvent::SubagentStop,
        HookEvent::PreCompact,
        HookEvent::SessionEnd,
    ];

    /// Its name in config files and hook input.
    pub fn as_str(self) -> &'static str {
        match self {
            HookEvent::SessionStart => "SessionStart",
            HookEvent::UserPromptSubmit => "UserPromptSubmit",
            HookEvent::PreToolUse => "PreToolUse",
            HookEvent::PermissionRequest => "PermissionRequest",
            HookEvent::PostToolUse => "PostToolUse",
            HookEvent::PostToolUseFailure => "PostToolUseFailure",
            HookEvent::Notification => "Notification",
            HookEvent::Stop => "Stop",
            HookEvent::SubagentStart => "SubagentStart",
            HookEvent::SubagentStop => "SubagentStop",
            HookEvent::PreCompact => "PreCompact",
            HookEvent::SessionEnd => "SessionEnd",
        }
    }

    /// The event named `name`.
    pub fn parse(name: &str) -> Option<HookEvent> {
        HookEvent::ALL.into_iter().find(|e| e.as_str() == name)
    }
}

/// Seconds a hook may run unless it says otherwise (Claude Code's default).
pub const DEFAULT_TIMEOUT_SECONDS: u64 = 60;

/// One configured hook command.
#[derive(Debug, Clone)]
pub struct HookCommand {
    /// Its event.
    pub event: HookEvent,
    /// The matcher as written (`None`: every occurrence).
    pub matcher: Option<String>,
    regex: Option<Regex>,
    /// The shell command.
    pub command: String,
    /// How long it may run before its process group is killed.
    pub timeout: Duration,
    /// Where it came from.
    pub layer: Layer,
    /// Its file.
    pub file: PathBuf,
    /// Whether it runs (a workspace's hooks need trust and approval).
    pub active: bool,
    /// A plugin's hook: its folder, `CLAUDE_PLUGIN_ROOT` in the hook's environment.
    pub plugin_root: Option<PathBuf>,
}

impl HookCommand {
    /// Whether an occurrence described by `subjects` (a tool's names, a
    /// session start's source…) is one this hook is for.
    pub fn matches(&self, subjects: &[&str]) -> bool {
        match &self.regex {
            None => true,
            Some(re) => subjects.is_empty() || subjects.iter().any(|s| re.is_match(s)),
        }
    }
}

/// Every hook of a turn, in config order (managed, user, workspace).
#[derive(Debug, Clone, Default)]
pub struct HookSet {
    hooks: Vec<HookCommand>,
}

impl HookSet {
    /// Every hook read, active or not.
    pub fn all(&self) -> &[HookCommand] {
        &self.hooks
    }

    /// Whether any active hook is configured for `event`.
    pub fn has(&self, event: HookEvent) -> bool {
        self.hooks.iter().any(|h| h.active && h.event == event)
    }

    /// Whether no hook at all runs.
    pub fn is_empty(&self) -> bool {
        !self.hooks.iter().any(|h| h.active)
    }

    /// The active hooks an occurrence runs; the same command once.
    pub fn matching(&self, event: HookEvent, subjects: &[&str]) -> Vec<&HookCommand> {
        let mut seen = HashSet::new();
        self.hooks
            .iter()
            .filter(|h| h.active && h.event == event && h.matches(subjects))
            .filter(|h| seen.insert(h.command.as_str()))
            .collect()
    }

    pub(crate) fn extend(&mut self, more: Vec<HookCommand>) {
        self.hooks.extend(more);
    }

    pub(crate) fn set_active(&mut self, layer: Layer, active: bool) {
        for h in self.hooks.iter_mut().filter(|h| h.layer == layer) {
            h.active = active;
        }
    }
}

/// Reads the `hooks` object of one file; bad entries are reported and
/// skipped, never disabling the rest. `importClaude` is not an event.
pub(crate) fn read_hooks(
    value: &Value,
    layer: Layer,
    file: &Path,
    problems: &mut Vec<Problem>,
) -> Vec<HookCommand> {
    let mut out = Vec::new();
    let Some(obj) = value.as_object() else {
        problems.push(Problem::new(file, "hooks", "expected an object of events"));
        return out;
    };
    for (name, groups) in obj {
        if name == "importClaude" {
            continue;
        }
        let at = format!("hooks.{name}");
        let Some(event) = HookEvent::parse(name) else {
            problems.push(Problem::new(
                file,
                &at,
                &format!("unknown hook event `{name}` (known: {})", event_names()),
            ));
            continue;
        };
        let Some(groups) = groups.as_array() else {
            problems.push(Problem::new(file, &at, "expected a list of matcher groups"));
            continue;
        };
        for (gi, group) in groups.iter().enumerate() {
            read_group(
                group,
                event,
                (layer, file),
                &format!("{at}[{gi}]"),
                problems,
                &mut out,
            );
        }
    }
    out
}

fn read_group(
    group: &Value,
    event: HookEvent,
    (layer, file): (Layer, &Path),
    at: &str,
    problems: &mut Vec<Problem>,
    out: &mut Vec<HookCommand>,
) {
    let matcher = match group.get("matcher") {
        None | Some(Value::Null) => None,
        Some(Value::String(m)) if m.is_empty() || m == "*" => None,
        Some(Value::String(m)) => Some(m.clone()),
        Some(_) => {
            problems.push(Problem::new(
                file,
                &format!("{at}.matcher"),
                "expected a string",
            ));
            return;
        }
    };
    let regex = match &matcher {
        None => None,
        Some(m) => match Regex::new(&format!("^(?:{m})$")) {
            Ok(re) => Some(re),
            Err(e) => {
                let first = e.to_string().lines().last().unwrap_or_default().to_string();
                problems.push(Problem::new(
                    file,
                    &format!("{at}.matcher"),
                    &format!("`{m}` is not a valid regex: {first}"),
                ));
                return;
            }
        },
    };
    let Some(hooks) = group.get("hooks").and_then(Value::as_array) else {
        problems.push(Problem::new(
            file,
            &format!("{at}.hooks"),
            "expected a list of hooks",
        ));
        return;
    };
    for (hi, hook) in hooks.iter().enumerate() {
        let here = format!("{at}.hooks[{hi}]");
        match hook.get("type").and_then(Value::as_str) {
            Some("command") => {}
            Some(other) => {
                problems.push(Problem::new(
                    file,
                    &format!("{here}.type"),
                    &format!("`{other}` hooks are not supported (only `command`)"),
                ));
                continue;
            }
            None => {
                problems.push(Problem::new(
                    file,
                    &format!("{here}.type"),
                    "missing (expected \"command\")",
                ));
                continue;
            }
        }
        let Some(command) = hook
            .get("command")
            .and_then(Value::as_str)
            .filter(|c| !c.trim().is_empty())
        else {
            problems.push(Problem::new(
                file,
                &format!("{here}.command"),
                "expected a command",
            ));
            continue;
        };
        let timeout = match hook.get("timeout") {
            None | Some(Value::Null) => DEFAULT_TIMEOUT_SECONDS as f64,
            Some(v) => match v.as_f64().filter(|t| *t > 0.0 && *t <= 86_400.0) {
                Some(t) => t,
                None => {
                    problems.push(Problem::new(
                        file,
                        &format!("{here}.timeout"),
                        "expected seconds between 0 and 86400; 60 applies",
                    ));
                    DEFAULT_TIMEOUT_SECONDS as f64
                }
            },
        };
        out.push(HookCommand {
            event,
            matcher: matcher.clone(),
            regex: regex.clone(),
            command: command.to_string(),
            timeout: Duration::from_secs_f64(timeout),
            layer,
            file: file.to_path_buf(),
            active: true,
            plugin_root: None,
        });
    }
}

fn event_names() -> String {
    HookEvent::ALL
        .iter()
        .map(|e| e.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn bad_entries_are_reported_and_the_rest_kept() {
        let mut problems = Vec::new();
        let hooks = read_hooks(
            &json!({
                "PreToolUse": [
                    {"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "fmt.sh"}]},
                    {"matcher": "(", "hooks": [{"type": "command", "command": "x"}]},
                    {"hooks": [{"type": "prompt", "prompt": "x"}, {"type": "command", "command": "y", "timeout": 5}]}
                ],
                "OnSave": [],
                "importClaude": false
            }),
            Layer::User,
            Path::new("/h/config.json"),
            &mut problems,
        );
        assert_eq!(hooks.len(), 2);
        assert_eq!(problems.len(), 3, "{problems:?}");
        assert!(
            problems[0].path.starts_with("hooks.PreToolUse[1].matcher"),
            "{problems:?}"
        );
        assert!(hooks[0].matches(&["Write", "write_file"]));
        assert!(!hooks[0].matches(&["Bash", "bash"]));
        assert!(hooks[1].matches(&["Bash"]));
        assert_eq!(hooks[1].timeout, Duration::from_secs(5));
    }
}
