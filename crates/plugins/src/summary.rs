//! What a plugin brings, as shown before it is installed and listed after:
//! each command it will run and each server it will start.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::plugin::Plugin;

/// One hook command.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HookLine {
    /// The event (`PreToolUse`, …).
    pub event: String,
    /// Its matcher, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matcher: Option<String>,
    /// The shell command run.
    pub command: String,
}

/// One MCP server.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerLine {
    /// The name its tools carry (`plugin_<plugin>_<server>`).
    pub name: String,
    /// The command line it starts, or the URL it reaches.
    pub target: String,
}

/// What a plugin brings.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Summary {
    /// Plugin name.
    pub name: String,
    /// Version, if declared.
    pub version: Option<String>,
    /// Description, if declared.
    pub description: Option<String>,
    /// Skill names as the model sees them (`plugin:skill`).
    pub skills: Vec<String>,
    /// Command names (`/plugin:<name>` in the terminal UI).
    pub commands: Vec<String>,
    /// Agent names (listed only).
    pub agents: Vec<String>,
    /// Hook commands.
    pub hooks: Vec<HookLine>,
    /// MCP servers.
    pub mcp_servers: Vec<ServerLine>,
    /// Parts that could not be read.
    pub problems: Vec<String>,
}

impl Summary {
    /// The summary of a read plugin.
    pub fn of(p: &Plugin) -> Summary {
        let name = p.name();
        Summary {
            name: name.to_string(),
            version: p.manifest.version.clone(),
            description: p.manifest.description.clone(),
            skills: p
                .skills
                .iter()
                .map(|(s, _)| crate::skill_name(name, s))
                .collect(),
            commands: p.commands.iter().map(|c| c.name.clone()).collect(),
            agents: p.agents.clone(),
            hooks: hook_lines(p.hooks.as_ref()),
            mcp_servers: p
                .mcp_servers
                .iter()
                .map(|(server, c)| ServerLine {
                    name: crate::server_name(name, server),
                    target: match (&c.command, &c.url) {
                        (Some(cmd), _) => std::iter::once(cmd.as_str())
                            .chain(c.args.iter().flatten().map(String::as_str))
                            .collect::<Vec<_>>()
                            .join(" "),
                        (None, Some(url)) => url.clone(),
                        (None, None) => "(no command or url)".to_string(),
                    },
                })
                .collect(),
            problems: p.problems.clone(),
        }
    }

    /// The summary as lines for a terminal, one fact a line.
    pub fn lines(&self) -> Vec<String> {
        let mut out = vec![match &self.version {
            Some(v) => format!("Plugin {} {v}", self.name),
            None => format!("Plugin {}", self.name),
        }];
        if let Some(d) = &self.description {
            out.push(format!("  {d}"));
        }
        let list = |label: &str, items: &[String], out: &mut Vec<String>| {
            if !items.is_empty() {
                out.push(format!("  {label}: {}", items.join(", ")));
            }
        };
        list("skills", &self.skills, &mut out);
        let commands: Vec<String> = self
            .commands
            .iter()
            .map(|c| format!("/{}:{c}", self.name))
            .collect();
        list("commands", &commands, &mut out);
        list("agents (listed only)", &self.agents, &mut out);
        for s in &self.mcp_servers {
            out.push(format!("  MCP server {} starts: {}", s.name, s.target));
        }
        for h in &self.hooks {
            let on = match &h.matcher {
                Some(m) if !m.is_empty() => format!("{} ({m})", h.event),
                _ => h.event.clone(),
            };
            out.push(format!("  hook on {on} runs: {}", h.command));
        }
        for p in &self.problems {
            out.push(format!("  problem: {p}"));
        }
        out
    }
}

/// The commands of a Claude Code hooks map (`{Event: [{matcher, hooks: [{command}]}]}`).
fn hook_lines(hooks: Option<&Value>) -> Vec<HookLine> {
    let Some(map) = hooks.and_then(Value::as_object) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (event, groups) in map {
        for group in groups.as_array().into_iter().flatten() {
            let matcher = group
                .get("matcher")
                .and_then(Value::as_str)
                .map(str::to_string);
            for hook in group
                .get("hooks")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                if let Some(command) = hook.get("command").and_then(Value::as_str) {
                    out.push(HookLine {
                        event: event.clone(),
                        matcher: matcher.clone(),
                        command: command.to_string(),
                    });
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_name_every_command_and_server() {
        let s = Summary {
            name: "demo".into(),
            version: Some("1".into()),
            skills: vec!["demo:tabs".into()],
            commands: vec!["review".into()],
            hooks: hook_lines(Some(&serde_json::json!({
                "PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"/p/check.sh"}]}]
            }))),
            mcp_servers: vec![ServerLine {
                name: "plugin_demo_srv".into(),
                target: "python3 s.py".into(),
            }],
            ..Summary::default()
        };
        let text = s.lines().join("\n");
        for want in [
            "Plugin demo 1",
            "skills: demo:tabs",
            "/demo:review",
            "MCP server plugin_demo_srv starts: python3 s.py",
            "hook on PreToolUse (Bash) runs: /p/check.sh",
        ] {
            assert!(text.contains(want), "{want} in {text}");
        }
    }
}
