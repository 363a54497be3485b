//! `seekclaw permissions check -- <tool or command>`: a call described on
//! the command line, and the decision the rules make about it, explained.

use std::path::Path;

use serde_json::{Value, json};

use crate::names::{is_known, our_name};
use crate::rules::Call;
use crate::{Layer, Policy, Verdict};

/// A tool call to decide: `Tool(arg)`, a bare tool name, or a shell command.
#[derive(Debug, Clone, PartialEq)]
pub struct Probe {
    /// Our tool name.
    pub tool: String,
    /// Its arguments (our names).
    pub input: Value,
}

impl Probe {
    /// `["Read(./.env)"]`, `["WebFetch"]`, or the words of a command
    /// (`["git", "push"]`, or one quoted string holding a whole line).
    pub fn parse(words: &[String]) -> Probe {
        if let [one] = words {
            let one = one.trim();
            if let Some((name, rest)) = one.split_once('(')
                && let Some(arg) = rest.strip_suffix(')')
                && is_known(name)
            {
                return Probe::of(name, arg);
            }
            if is_known(one) && !one.contains(' ') {
                return Probe {
                    tool: our_name(one).to_string(),
                    input: json!({}),
                };
            }
        }
        Probe {
            tool: "bash".into(),
            input: json!({"command": words.join(" ")}),
        }
    }

    fn of(name: &str, arg: &str) -> Probe {
        let tool = our_name(name).to_string();
        let input = match tool.as_str() {
            "bash" => json!({"command": arg}),
            "web_fetch" => {
                let url = arg.strip_prefix("domain:").unwrap_or(arg);
                let url = if url.contains("://") {
                    url.to_string()
                } else {
                    format!("https://{url}/")
                };
                json!({"url": url})
            }
            "web_search" => json!({"query": arg}),
            _ => json!({"path": arg}),
        };
        Probe { tool, input }
    }
}

/// A decision and what made it.
#[derive(Debug, Clone, PartialEq)]
pub struct Explained {
    /// `None`: no rule decides; the approval policy does.
    pub verdict: Option<Verdict>,
    /// The rule, as written.
    pub rule: Option<String>,
    /// Its layer.
    pub layer: Option<Layer>,
    /// Its file.
    pub file: Option<std::path::PathBuf>,
    /// One sentence for the user.
    pub reason: String,
}

impl Policy {
    /// Decides `probe` as a turn in `workspace` (or `cwd`) would.
    pub fn explain(&self, probe: &Probe, cwd: &Path, workspace: Option<&Path>) -> Explained {
        let call = Call {
            tool: &probe.tool,
            args: &probe.input,
            cwd,
            workspace,
        };
        match self.rules.decide(&call) {
            Some(m) => Explained {
                verdict: Some(m.verdict),
                rule: Some(m.rule.text.clone()),
                layer: Some(m.rule.layer),
                file: Some(m.rule.file.clone()),
                reason: format!(
                    "{} by `{}` ({} rules, {})",
                    match m.verdict {
                        Verdict::Allow => "allowed",
                        Verdict::Ask => "asks",
                        Verdict::Deny => "denied",
                    },
                    m.rule.text,
                    m.rule.layer.as_str(),
                    m.rule.file.display()
                ),
            },
            None => Explained {
                verdict: None,
                rule: None,
                layer: None,
                file: None,
                reason: self.no_rule_reason(&call),
            },
        }
    }

    fn no_rule_reason(&self, call: &Call<'_>) -> String {
        let inactive = self
            .rules
            .all()
            .iter()
            .any(|r| !r.active && r.verdict == Verdict::Allow);
        let mut reason = String::from("no rule decides it: the approval policy does");
        if call.tool == "bash"
            && let Some(cmd) = call.args["command"].as_str()
            && let Some(why) = crate::shell::parse(cmd).opaque
        {
            reason.push_str(&format!(
                " (the command holds {why}, so no allow rule can pass it)"
            ));
        }
        if inactive {
            reason.push_str("; the workspace's allow rules are off until the workspace is trusted");
        }
        reason
    }
}
