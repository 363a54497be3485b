//! Approving a workspace's hooks (issue 39): a trusted workspace whose hook
//! set (`hooksHash` of `hooks.list`) is new or changed since it was approved
//! shows its commands (event, matcher, command) before the chat opens and
//! asks "Run these hooks?". Yes approves that set (`hooks.approve`); no opens
//! the chat with them off (the engine says so on each turn, and asks again
//! at the next start).
//!
//! Typing ahead never answers it (see [`crate::deliberate`]): text typed
//! before it was seen is kept as the chat's first draft, and Enter confirms
//! only a choice the user selected here.

use std::path::Path;

use crossterm::event::KeyEvent;
use ratatui::Frame;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};
use seekclaw_protocol::api::{HookView, HooksApproveParams, HooksListParams, Required};
use seekclaw_protocol::method;

use crate::client::Connection;
use crate::{Scope, TuiError};

/// What the user chose.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HookChoice {
    /// Approve the set: the hooks run.
    Run,
    /// Open the chat with the hooks off.
    Off,
    /// Leave.
    Quit,
}

const CHOICES: [(HookChoice, &str); 3] = [
    (HookChoice::Run, "Yes, run these hooks (approve this set)"),
    (
        HookChoice::Off,
        "No, chat with them off (asked again next time)",
    ),
    (HookChoice::Quit, "No, quit"),
];

/// The workspace's hooks waiting for approval.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookSet {
    /// The workspace asked about (its root).
    pub workspace: String,
    /// What `hooks.approve` names.
    pub hash: String,
    /// The workspace's hook commands.
    pub hooks: Vec<HookView>,
}

/// The hook set of the trusted workspace `dir` when it waits for approval;
/// `None` when it has none, it is approved, or the workspace is not trusted
/// (its hooks do not run at all then).
pub async fn pending(conn: &Connection, dir: &Path) -> Result<Option<HookSet>, TuiError> {
    let params = HooksListParams {
        workspace: Some(dir.display().to_string()),
    };
    let view = conn.call::<method::HooksList>(&params).await?;
    let Some(hash) = view
        .hooks_hash
        .filter(|_| view.trusted && !view.hooks_approved)
    else {
        return Ok(None);
    };
    let hooks: Vec<HookView> = view
        .hooks
        .into_iter()
        .filter(|h| h.layer == "workspace")
        .collect();
    Ok(Some(HookSet {
        workspace: view.workspace.unwrap_or_else(|| dir.display().to_string()),
        hash,
        hooks,
    }))
}

/// Approves `set` (refused with a conflict when the files changed since).
pub async fn approve(conn: &Connection, set: &HookSet) -> Result<(), TuiError> {
    let params = HooksApproveParams {
        workspace: Required(set.workspace.clone()),
        hash: Required(set.hash.clone()),
    };
    conn.call::<method::HooksApprove>(&params).await?;
    Ok(())
}

/// `/hooks`: every hook the chat's turns see, by layer, and whether it runs;
/// `approving`, the workspace's waiting set is approved (and listed, so
/// what was approved is on screen).
pub async fn report(conn: &Connection, scope: &Scope, approving: bool) -> Result<String, TuiError> {
    let (workspace, _) = scope.fields();
    let view = conn
        .call::<method::HooksList>(&HooksListParams { workspace })
        .await?;
    let mut out = vec![if view.hooks.is_empty() {
        "No hooks configured.".to_string()
    } else {
        "Hooks:".to_string()
    }];
    for h in &view.hooks {
        let state = if h.active { "on" } else { "off" };
        out.push(format!(
            "  {}{} · {} · {state} · {}  ({})",
            h.event,
            matcher(h.matcher.as_deref()),
            h.layer,
            h.command,
            h.file
        ));
    }
    let pending = view.hooks_hash.clone().filter(|_| !view.hooks_approved);
    let root = view.workspace.clone();
    out.push(match (pending, root, view.trusted, approving) {
        (None, _, _, true) => {
            "Nothing to approve: the workspace's hooks are approved, or it has none.".into()
        }
        (None, _, _, false) => return Ok(out.join("\n")),
        (Some(_), _, false, _) => {
            "This folder is not a trusted project: its hooks stay off.".into()
        }
        (Some(hash), Some(workspace), true, true) => {
            let set = HookSet {
                workspace,
                hash,
                hooks: Vec::new(),
            };
            approve(conn, &set).await?;
            "Approved: the workspace's hooks run from the next turn.".into()
        }
        (Some(_), _, true, _) => {
            "The workspace's hooks are new or changed and off: `/hooks approve` runs them.".into()
        }
    });
    Ok(out.join("\n"))
}

/// ` [Bash]`, or nothing for a hook on every tool.
fn matcher(m: Option<&str>) -> String {
    match m {
        Some(m) if !m.is_empty() && m != "*" => format!(" [{m}]"),
        _ => String::new(),
    }
}

/// The question on screen, its selection moved by keys.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookPrompt {
    /// What is asked about.
    pub set: HookSet,
    /// The highlighted choice; shown once the user has moved it.
    pub selected: usize,
    /// When the question appeared, and whether a choice was selected in it.
    pub guard: crate::deliberate::Deliberate,
    /// Text typed at the question: the chat's first draft, never an answer.
    pub draft: String,
    /// Said under the choices after an Enter that chose nothing.
    hint: bool,
}

impl HookPrompt {
    /// Asks about `set`, nothing selected yet; `draft` is text already typed.
    pub fn new(set: HookSet, draft: String) -> HookPrompt {
        HookPrompt {
            set,
            selected: 0,
            guard: crate::deliberate::Deliberate::new(),
            draft,
            hint: false,
        }
    }

    /// A key: the choice it makes, if any (↑↓ + Enter, 1-3, Esc keeps the
    /// hooks off, Ctrl-C quits). Keys typed ahead of the question answer
    /// nothing.
    pub fn key(&mut self, key: KeyEvent) -> Option<HookChoice> {
        let choosing = crate::deliberate::Choosing {
            selected: &mut self.selected,
            guard: &mut self.guard,
            draft: &mut self.draft,
            hint: &mut self.hint,
        };
        Some(match choosing.key(key, CHOICES.len())? {
            crate::deliberate::Answer::Pick(i) => CHOICES[i].0,
            crate::deliberate::Answer::Esc => HookChoice::Off,
            crate::deliberate::Answer::Quit => HookChoice::Quit,
        })
    }

    /// The screen's lines.
    pub fn lines(&self) -> Vec<Line<'static>> {
        let bold = Style::new().add_modifier(Modifier::BOLD);
        let keys = Style::new().fg(Color::Yellow);
        let dim = Style::new().fg(Color::DarkGray);
        let mut out = vec![
            Line::styled("Run these hooks?", bold),
            Line::raw(""),
            Line::styled(
                format!("  {}", self.set.workspace),
                Style::new().fg(Color::Cyan),
            ),
            Line::raw(""),
            Line::raw(
                "This workspace's files configure commands that run on your machine, as you, when \
                 the agent works here (new, or changed since you last approved them):",
            ),
            Line::raw(""),
        ];
        for h in &self.set.hooks {
            let matcher = matcher(h.matcher.as_deref());
            out.push(Line::from(vec![
                Span::styled(format!("  {}{matcher}", h.event), bold),
                Span::raw("  "),
                Span::styled(h.command.clone(), Style::new().fg(Color::Magenta)),
            ]));
            out.push(Line::styled(format!("    from {}", h.file), dim));
        }
        out.push(Line::raw(""));
        for (i, (_, label)) in CHOICES.iter().enumerate() {
            let text = format!("{}. {label}", i + 1);
            out.push(if self.guard.picked() && i == self.selected {
                Line::from(vec![
                    Span::styled("› ", keys.add_modifier(Modifier::BOLD)),
                    Span::styled(text, Style::new().add_modifier(Modifier::REVERSED)),
                ])
            } else {
                Line::raw(format!("  {text}"))
            });
        }
        out.push(Line::raw(""));
        out.push(Line::styled(
            if self.guard.picked() {
                "↑↓ select · Enter confirms · 1-3 pick · Esc keeps them off"
            } else {
                "Press 1-3, or ↑↓ then Enter, to choose · Esc keeps them off"
            },
            keys,
        ));
        if self.hint && !self.guard.picked() {
            out.push(Line::styled(
                "Choose first: Enter confirms only a choice you selected here.",
                keys,
            ));
        }
        if !self.draft.is_empty() {
            out.push(Line::raw(""));
            out.push(Line::styled(
                format!("Kept for the chat: {}", self.draft),
                dim,
            ));
        }
        out
    }
}

/// Draws the question over the whole screen.
pub fn draw(frame: &mut Frame<'_>, prompt: &HookPrompt) {
    frame.render_widget(
        Paragraph::new(prompt.lines()).wrap(Wrap { trim: false }),
        frame.area(),
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crossterm::event::{KeyCode, KeyModifiers};

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    fn prompt() -> HookPrompt {
        HookPrompt::new(
            HookSet {
                workspace: "/work/p".into(),
                hash: "h1".into(),
                hooks: vec![HookView {
                    event: "PreToolUse".into(),
                    matcher: Some("Bash".into()),
                    command: "./guard.sh".into(),
                    timeout_seconds: 60,
                    layer: "workspace".into(),
                    file: "/work/p/.seekclaw/config.json".into(),
                    active: false,
                }],
            },
            String::new(),
        )
    }

    fn seen(p: &mut HookPrompt) {
        use crate::deliberate::{Deliberate, GRACE};
        p.guard = Deliberate::shown_at(std::time::Instant::now() - GRACE * 2);
    }

    #[test]
    fn the_commands_are_shown_and_keys_choose() {
        let mut p = prompt();
        let shown: Vec<String> = p.lines().iter().map(ToString::to_string).collect();
        assert!(
            shown.contains(&"  PreToolUse [Bash]  ./guard.sh".to_string()),
            "{shown:?}"
        );
        seen(&mut p);
        assert_eq!(p.key(key(KeyCode::Char('y'))), None, "no letter decides");
        assert_eq!(p.key(key(KeyCode::Down)), None);
        assert_eq!(p.key(key(KeyCode::Down)), None);
        assert_eq!(p.key(key(KeyCode::Enter)), Some(HookChoice::Off));
        assert_eq!(p.key(key(KeyCode::Up)), None);
        assert_eq!(p.key(key(KeyCode::Enter)), Some(HookChoice::Run));
        assert_eq!(p.key(key(KeyCode::Char('1'))), Some(HookChoice::Run));
        assert_eq!(p.key(key(KeyCode::Esc)), Some(HookChoice::Off));
        assert_eq!(p.draft, "y");
    }

    #[test]
    fn typed_ahead_text_and_enter_answer_nothing_and_the_text_is_kept() {
        let mut p = prompt();
        for c in "hello 1".chars() {
            assert_eq!(p.key(key(KeyCode::Char(c))), None);
        }
        assert_eq!(p.key(key(KeyCode::Enter)), None);
        assert_eq!(p.key(key(KeyCode::Esc)), None);
        assert_eq!(p.draft, "hello 1");
        seen(&mut p);
        assert_eq!(p.key(key(KeyCode::Enter)), None, "nothing selected");
        assert!(
            p.lines()
                .iter()
                .any(|l| l.to_string().starts_with("Choose first"))
        );
        assert_eq!(p.key(key(KeyCode::Char('2'))), Some(HookChoice::Off));
    }
}
