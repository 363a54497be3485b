//! What hook runs decided, read the way Claude Code reads them: exit 0
//! continues (JSON on stdout may decide more), exit 2 blocks with stderr,
//! any other exit is an error shown to the user that blocks nothing.

use serde_json::Value;

use crate::Verdict;
use crate::hooks::HookEvent;
use crate::run::HookResult;

/// Characters of a hook's message kept for the user and the model.
const MESSAGE_CAP: usize = 2000;

/// How one run ended, as recorded: `ok`, `allow`, `ask`, `deny`, `block`,
/// `stop`, `error`, `timeout`.
#[derive(Debug, Clone, PartialEq)]
pub struct RunReading {
    /// The recorded decision.
    pub decision: &'static str,
    /// What it said (reason, stderr), for the user.
    pub message: Option<String>,
}

/// What all runs of one occurrence decided together.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Verdicts {
    /// Blocked (exit 2, `decision: block`), with the reason for the model
    /// (or, for a prompt, the user).
    pub block: Option<String>,
    /// A tool call's permission decided by a hook, with its reason.
    pub permission: Option<(Verdict, Option<String>)>,
    /// New tool input (Claude Code's argument names).
    pub updated_input: Option<Value>,
    /// Context for the model (`additionalContext`, a prompt hook's stdout).
    pub context: Vec<String>,
    /// `continue: false`: the turn stops, with this reason.
    pub stop: Option<String>,
    /// Errors and messages shown to the user; nothing is blocked by them.
    pub notes: Vec<String>,
}

impl Verdicts {
    /// Folds in what a later hook of the same occurrence decided: the first
    /// block, stop and new input stand; the strictest permission wins.
    pub fn absorb(&mut self, other: Verdicts) {
        if self.block.is_none() {
            self.block = other.block;
        }
        if self.stop.is_none() {
            self.stop = other.stop;
        }
        if self.updated_input.is_none() {
            self.updated_input = other.updated_input;
        }
        if let Some((v, why)) = other.permission {
            let stricter = self
                .permission
                .as_ref()
                .is_none_or(|(mine, _)| rank(v) > rank(*mine));
            if stricter {
                self.permission = Some((v, why));
            }
        }
        self.context.extend(other.context);
        self.notes.extend(other.notes);
    }
}

/// Reads one run for `event`, folding what it decided into `into`.
pub fn read_run(event: HookEvent, r: &HookResult, into: &mut Verdicts) -> RunReading {
    let cut = |s: &str| -> Option<String> {
        let t = s.trim();
        (!t.is_empty()).then(|| t.chars().take(MESSAGE_CAP).collect())
    };
    if let Some(e) = &r.spawn_error {
        let m = format!("hook `{}` could not start: {e}", r.command);
        into.notes.push(m.clone());
        return RunReading {
            decision: "error",
            message: Some(m),
        };
    }
    if r.timed_out {
        let m = format!(
            "hook `{}` ran past its timeout ({} s) and was stopped",
            r.command,
            r.duration.as_secs()
        );
        into.notes.push(m.clone());
        return RunReading {
            decision: "timeout",
            message: Some(m),
        };
    }
    match r.exit_code {
        Some(0) => read_success(event, r, into),
        Some(2) => {
            let reason = cut(&r.stderr).unwrap_or_else(|| {
                format!("blocked by the {} hook `{}`", event.as_str(), r.command)
            });
            if can_block(event) {
                into.block.get_or_insert(reason.clone());
            } else {
                into.notes.push(reason.clone());
            }
            RunReading {
                decision: if can_block(event) { "block" } else { "error" },
                message: Some(reason),
            }
        }
        code => {
            let m = format!(
                "hook `{}` failed ({}){}",
                r.command,
                code.map_or("killed".to_string(), |c| format!("exit {c}")),
                cut(&r.stderr).map(|e| format!(": {e}")).unwrap_or_default()
            );
            into.notes.push(m.clone());
            RunReading {
                decision: "error",
                message: Some(m),
            }
        }
    }
}

fn can_block(event: HookEvent) -> bool {
    matches!(
        event,
        HookEvent::UserPromptSubmit
            | HookEvent::PreToolUse
            | HookEvent::PermissionRequest
            | HookEvent::PostToolUse
            | HookEvent::PostToolUseFailure
            | HookEvent::Stop
            | HookEvent::SubagentStop
    )
}

fn read_success(event: HookEvent, r: &HookResult, into: &mut Verdicts) -> RunReading {
    let text = r.stdout.trim();
    let ok = RunReading {
        decision: "ok",
        message: None,
    };
    if !text.starts_with('{') {
        // Plain stdout is context for these two; elsewhere it is only logged.
        if matches!(event, HookEvent::UserPromptSubmit | HookEvent::SessionStart)
            && !text.is_empty()
        {
            into.context
                .push(text.chars().take(10 * MESSAGE_CAP).collect());
        }
        return ok;
    }
    let Ok(json) = serde_json::from_str::<Value>(text) else {
        let m = format!(
            "hook `{}` printed output that is not valid JSON; it was ignored",
            r.command
        );
        into.notes.push(m.clone());
        return RunReading {
            decision: "error",
            message: Some(m),
        };
    };
    let string = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
    if let Some(m) = string(&json, "systemMessage") {
        into.notes.push(m);
    }
    let specific = json
        .get("hookSpecificOutput")
        .cloned()
        .unwrap_or(Value::Null);
    if let Some(c) = string(&specific, "additionalContext") {
        into.context.push(c);
    }
    if json.get("continue") == Some(&Value::Bool(false)) {
        let reason = string(&json, "stopReason")
            .unwrap_or_else(|| format!("stopped by the {} hook `{}`", event.as_str(), r.command));
        into.stop.get_or_insert(reason.clone());
        return RunReading {
            decision: "stop",
            message: Some(reason),
        };
    }
    let reason = string(&json, "reason");
    // PreToolUse: `permissionDecision`; older scripts say `decision: approve|block`.
    let permission = string(&specific, "permissionDecision")
        .or_else(|| specific.get("decision").and_then(|d| string(d, "behavior")))
        .or_else(|| match (event, string(&json, "decision").as_deref()) {
            (HookEvent::PreToolUse | HookEvent::PermissionRequest, Some("approve")) => {
                Some("allow".into())
            }
            (HookEvent::PreToolUse | HookEvent::PermissionRequest, Some("block")) => {
                Some("deny".into())
            }
            _ => None,
        });
    if matches!(event, HookEvent::PreToolUse | HookEvent::PermissionRequest)
        && let Some(p) = permission
    {
        let verdict = match p.as_str() {
            "allow" => Verdict::Allow,
            "ask" => Verdict::Ask,
            _ => Verdict::Deny,
        };
        let why = string(&specific, "permissionDecisionReason")
            .or_else(|| specific.get("decision").and_then(|d| string(d, "message")))
            .or(reason.clone());
        let updated = specific
            .get("updatedInput")
            .or_else(|| specific.get("decision").and_then(|d| d.get("updatedInput")))
            .filter(|v| v.is_object());
        if let Some(u) = updated
            && into.updated_input.is_none()
        {
            into.updated_input = Some(u.clone());
        }
        // The strictest of several hooks wins.
        let stricter = into
            .permission
            .as_ref()
            .is_none_or(|(v, _)| rank(verdict) > rank(*v));
        if stricter {
            into.permission = Some((verdict, why.clone()));
        }
        return RunReading {
            decision: verdict.as_str(),
            message: why,
        };
    }
    if let Some(u) = specific.get("updatedInput").filter(|v| v.is_object())
        && into.updated_input.is_none()
    {
        into.updated_input = Some(u.clone());
    }
    if string(&json, "decision").as_deref() == Some("block") && can_block(event) {
        let why = reason
            .unwrap_or_else(|| format!("blocked by the {} hook `{}`", event.as_str(), r.command));
        into.block.get_or_insert(why.clone());
        return RunReading {
            decision: "block",
            message: Some(why),
        };
    }
    ok
}

fn rank(v: Verdict) -> u8 {
    match v {
        Verdict::Allow => 0,
        Verdict::Ask => 1,
        Verdict::Deny => 2,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Layer;
    use std::time::Duration;

    fn result(code: i32, stdout: &str, stderr: &str) -> HookResult {
        HookResult {
            command: "h".into(),
            layer: Layer::User,
            exit_code: Some(code),
            stdout: stdout.into(),
            stderr: stderr.into(),
            duration: Duration::from_millis(3),
            timed_out: false,
            spawn_error: None,
        }
    }

    #[test]
    fn exits_and_json_are_read_as_claude_code_reads_them() {
        let mut v = Verdicts::default();
        let r = read_run(HookEvent::PreToolUse, &result(2, "", "no pushes\n"), &mut v);
        assert_eq!(
            (r.decision, v.block.as_deref()),
            ("block", Some("no pushes"))
        );

        let mut v = Verdicts::default();
        read_run(HookEvent::PreToolUse, &result(1, "", "oops"), &mut v);
        assert!(v.block.is_none() && v.notes[0].contains("exit 1"));

        let mut v = Verdicts::default();
        let out = r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"not here","updatedInput":{"command":"ls"}}}"#;
        read_run(HookEvent::PreToolUse, &result(0, out, ""), &mut v);
        assert_eq!(v.permission, Some((Verdict::Deny, Some("not here".into()))));
        assert_eq!(v.updated_input.unwrap()["command"], "ls");

        let mut v = Verdicts::default();
        read_run(
            HookEvent::UserPromptSubmit,
            &result(0, "today is Friday\n", ""),
            &mut v,
        );
        assert_eq!(v.context, vec!["today is Friday".to_string()]);

        let mut v = Verdicts::default();
        let r = read_run(HookEvent::PostToolUse, &result(0, "{not json", ""), &mut v);
        assert_eq!(r.decision, "error");

        let mut v = Verdicts::default();
        read_run(
            HookEvent::Stop,
            &result(0, r#"{"decision":"block","reason":"run the tests"}"#, ""),
            &mut v,
        );
        assert_eq!(v.block.as_deref(), Some("run the tests"));

        let mut v = Verdicts::default();
        read_run(
            HookEvent::PostToolUse,
            &result(0, r#"{"continue":false,"stopReason":"enough"}"#, ""),
            &mut v,
        );
        assert_eq!(v.stop.as_deref(), Some("enough"));
    }
}
