//! The slash commands typed at the prompt: `/name [argument]` into an action,
//! and the help text that lists them. One place to add a command.

use seekclaw_protocol::api::{PluginListParams, PluginView};
use seekclaw_protocol::method;

use crate::app::{Action, App};

const HELP: &str = "Keys: Enter sends (while a turn runs: steers it) · Ctrl-J or Alt-Enter: newline · \
Up/Down: history · PgUp/PgDn: scroll · Ctrl-C: cancel the turn, twice on an empty prompt: quit · \
Ctrl-D on an empty prompt: quit (during a turn: asks whether to cancel it or keep it running)\n\
Ctrl-T: show or hide reasoning · Ctrl-O: expand or fold diffs and subagents · !CMD runs a shell command here; \
its output goes to the model\n\
@PATH then Tab completes a file (Tab/Up/Down cycle, Enter keeps, Esc undoes); \
@IMAGE.png attaches the image · a long paste is one block\n\
Approval prompts: ↑↓ + Enter or 1-4 choose (5: always allow, when offered: saves the rule) · Esc rejects · \
typing starts a reason (Enter rejects with it, Esc goes back)\n\
Commands: /new  /sessions (picker: type to search, Tab: workspace/global, Ctrl-A: archived)\n\
          /resume ID  /model [REF] (this session)  /model default REF  /mode [NAME]\n\
          /compact  /copy  /rewind (or Esc Esc on an empty prompt)  /fork\n\
          /reasoning LEVEL  /goal [TEXT|clear]  /usage  /doctor  /help  /quit\n\
          /mcp [login|logout NAME]  /hooks [approve]  /init (a starter AGENTS.md)\n\
          /memory (the AGENTS.md files and MEMORY.md in $EDITOR)";

impl App {
    pub(crate) fn command(&mut self, command: &str) -> Option<Action> {
        let (name, arg) = command.split_once(' ').unwrap_or((command, ""));
        let busy = self.turn.is_some();
        match (name, arg.trim()) {
            ("quit" | "exit" | "q", _) => self.request_quit(),
            ("help" | "?", _) => {
                self.notice(help(&self.plugin_commands));
                None
            }
            ("new" | "sessions" | "resume", _) if busy => {
                self.error("A turn is running; wait for it or cancel it with Ctrl-C.");
                None
            }
            ("new", _) => Some(Action::NewSession),
            ("compact", _) if busy => {
                self.error("A turn is running; compact when it is done.");
                None
            }
            ("compact", _) => Some(Action::Compact),
            ("model", "") => Some(Action::Model(None)),
            ("model", "default") => {
                self.error("usage: /model default REF (the model new sessions use)");
                None
            }
            ("model", m) => match m.strip_prefix("default ") {
                Some(r) => Some(Action::ModelDefault(r.trim().to_string())),
                None => Some(Action::Model(Some(m.to_string()))),
            },
            ("mode", "") => Some(Action::Mode(None)),
            ("mode", m) => Some(Action::Mode(Some(m.to_string()))),
            ("copy", _) => Some(Action::Copy),
            ("reasoning", "") => {
                self.error("usage: /reasoning none|low|medium|high|max|xhigh|ultra");
                None
            }
            ("reasoning", level) => Some(Action::Reasoning(level.to_string())),
            ("doctor", _) => Some(Action::Doctor),
            ("usage", _) => Some(Action::Usage),
            ("mcp", arg) => crate::reports::McpCommand::parse(arg)
                .map(Action::Mcp)
                .or_else(|| {
                    self.error("usage: /mcp [login NAME | logout NAME]");
                    None
                }),
            ("init", _) => Some(Action::Init),
            ("memory", _) => Some(Action::Memory),
            ("hooks", arg) => Some(Action::Hooks(arg == "approve")),
            ("goal", "") => Some(Action::Goal(None)),
            ("goal", "clear") => Some(Action::Goal(Some(None))),
            ("goal", text) => Some(Action::Goal(Some(Some(text.to_string())))),
            ("sessions", _) => Some(Action::ListSessions),
            ("rewind", _) => self.open_rewind(crate::rewind::Goal::Rewind),
            ("fork", _) => self.open_rewind(crate::rewind::Goal::Fork),
            ("resume", "") => {
                self.error("usage: /resume ID (ids from /sessions)");
                None
            }
            ("resume", id) => Some(Action::Resume(id.to_string())),
            (name, arg) if let Some(p) = self.plugin_command(name) => {
                // A plugin's prompt is a message like any other, `$ARGUMENTS` filled in.
                let text = p.body.replace("$ARGUMENTS", arg);
                if busy {
                    self.pending_steers.push(text.clone());
                    return Some(Action::Steer(text));
                }
                Some(Action::Chat(text))
            }
            _ => {
                self.error(format!("Unknown command /{name}; /help lists them."));
                None
            }
        }
    }
}

/// A prompt an enabled plugin brings: `/plugin:name [arguments]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PluginPrompt {
    /// `plugin:name`, as typed after `/`.
    pub command: String,
    /// One line, possibly empty.
    pub description: String,
    /// The prompt; `$ARGUMENTS` stands for what follows the command.
    pub body: String,
}

impl PluginPrompt {
    /// The prompts of the active plugins of a `plugin.list`.
    pub fn from_views(views: &[PluginView]) -> Vec<PluginPrompt> {
        views
            .iter()
            .filter(|v| v.active)
            .flat_map(|v| {
                v.commands.iter().map(|c| PluginPrompt {
                    command: format!("{}:{}", v.name, c.name),
                    description: c.description.clone(),
                    body: c.body.clone(),
                })
            })
            .collect()
    }
}

impl App {
    fn plugin_command(&self, name: &str) -> Option<PluginPrompt> {
        self.plugin_commands
            .iter()
            .find(|p| p.command == name)
            .cloned()
    }
}

/// The help text with the plugins' commands, one a line.
fn help(plugins: &[PluginPrompt]) -> String {
    let mut text = HELP.to_string();
    if !plugins.is_empty() {
        text.push_str("\nPlugin commands:");
        for p in plugins {
            text.push_str(&format!("\n          /{}  {}", p.command, p.description));
        }
    }
    text
}

/// Asks the daemon for the plugins' commands (an older daemon has none).
pub(crate) async fn load_plugin_commands(
    conn: &crate::client::Connection,
    scope: &crate::Scope,
    app: &mut App,
) {
    let workspace = match scope {
        crate::Scope::Workspace(dir) => Some(dir.display().to_string()),
        crate::Scope::Global => None,
    };
    if let Ok(views) = conn
        .call::<method::PluginList>(&PluginListParams { workspace })
        .await
    {
        app.plugin_commands = PluginPrompt::from_views(&views);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn app_with_review() -> App {
        let mut app = App::default();
        app.plugin_commands = vec![PluginPrompt {
            command: "demo:review".into(),
            description: "Review the named files".into(),
            body: "Review $ARGUMENTS for bugs.".into(),
        }];
        app
    }

    #[test]
    fn a_plugin_command_sends_its_body_with_the_arguments() {
        let mut app = app_with_review();
        match app.command("demo:review src/main.rs") {
            Some(Action::Chat(text)) => assert_eq!(text, "Review src/main.rs for bugs."),
            other => panic!("{other:?}"),
        }
        assert!(app.command("demo:nope").is_none());
    }

    #[test]
    fn help_lists_the_plugin_commands() {
        let text = help(&app_with_review().plugin_commands);
        assert!(
            text.contains("/demo:review  Review the named files"),
            "{text}"
        );
    }
}
