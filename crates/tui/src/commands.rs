//! The slash commands typed at the prompt: `/name [argument]` into an action,
//! and the help text that lists them. One place to add a command.

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
          /reasoning LEVEL  /goal [TEXT|clear]  /mcp [login|logout NAME]  /hooks [approve]  /usage  /doctor  /help  /quit\n\
          /init (a starter AGENTS.md)  /memory (AGENTS.md files and MEMORY.md in $EDITOR)";

impl App {
    pub(crate) fn command(&mut self, command: &str) -> Option<Action> {
        let (name, arg) = command.split_once(' ').unwrap_or((command, ""));
        let busy = self.turn.is_some();
        match (name, arg.trim()) {
            ("quit" | "exit" | "q", _) => self.request_quit(),
            ("help" | "?", _) => {
                self.notice(HELP);
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
            _ => {
                self.error(format!("Unknown command /{name}; /help lists them."));
                None
            }
        }
    }
}
