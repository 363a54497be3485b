//! Trusting the folder a chat starts in: a directory that is not yet a known
//! project (the daemon's `project.*` registry) is asked about once, as Codex
//! and Claude Code do; trusting registers it. `/`, the home directory and
//! its ancestors are never offered: the chat says so and stops.
//!
//! Typing ahead never answers it (see [`crate::deliberate`]): text typed
//! before it was seen is kept as the chat's first draft, and Enter confirms
//! only a choice the user selected here.

use std::path::{Path, PathBuf};

use crossterm::event::KeyEvent;
use ratatui::Frame;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};
use seekclaw_protocol::api::{NoParams, ProjectUpsertParams, Required};
use seekclaw_protocol::method;

use crate::TuiError;
use crate::client::Connection;

/// What the user chose.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TrustChoice {
    /// Register the folder as a project and work in it.
    Trust,
    /// Work in a global session (no folder) instead.
    Global,
    /// Leave.
    Quit,
}

const CHOICES: [(TrustChoice, &str); 3] = [
    (
        TrustChoice::Trust,
        "Yes, trust this folder (remember it as a project)",
    ),
    (
        TrustChoice::Global,
        "No, chat in a global session (no folder)",
    ),
    (TrustChoice::Quit, "No, quit"),
];

/// What the chat's folder needs before the UI opens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FolderCheck {
    /// A known project (or inside one): go on.
    Known,
    /// Ask whether to trust this project root.
    Ask(PathBuf),
    /// Never a workspace unless named: the message to show.
    Refused(String),
}

/// Where `dir` stands: refused (`/`, the home directory or one of its
/// ancestors), a known project, or to be asked about (its project root).
pub async fn check(
    conn: &Connection,
    home: &seekclaw_config::Home,
    dir: &Path,
) -> Result<FolderCheck, TuiError> {
    let user_home = seekclaw_config::user_home();
    if seekclaw_config::too_broad_for_workspace(dir, user_home.as_deref()).is_some() {
        return Ok(FolderCheck::Refused(format!(
            "{} is not a project folder (it is / or your home directory, or holds it), so seekclaw \
             will not let an agent work in all of it.\nStart seekclaw in a project folder, name one \
             with --workspace DIR, or chat without a folder with --global.",
            dir.display()
        )));
    }
    let root = seekclaw_config::detect_root(dir, home);
    let projects = conn.call::<method::ProjectList>(&NoParams {}).await?;
    let known = projects
        .iter()
        .any(|p| root.starts_with(&p.path) || dir.starts_with(&p.path));
    Ok(if known {
        FolderCheck::Known
    } else {
        FolderCheck::Ask(root)
    })
}

/// Registers `root` as a project (the daemon may refuse it, e.g. its own
/// state directory: its message is the error).
pub async fn trust(conn: &Connection, root: &Path) -> Result<(), TuiError> {
    let params = ProjectUpsertParams {
        path: Required(root.display().to_string()),
        id: None,
        name: None,
    };
    conn.call::<method::ProjectUpsert>(&params).await?;
    Ok(())
}

/// The question on screen, its selection moved by keys.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrustPrompt {
    /// The folder asked about.
    pub root: PathBuf,
    /// The highlighted choice; shown once the user has moved it.
    pub selected: usize,
    /// When the question appeared, and whether a choice was selected in it.
    pub guard: crate::deliberate::Deliberate,
    /// Text typed at the question: the chat's first draft, never an answer.
    pub draft: String,
    /// Said under the choices after an Enter that chose nothing.
    hint: bool,
}

impl TrustPrompt {
    /// Asks about `root`, nothing selected yet.
    pub fn new(root: PathBuf) -> TrustPrompt {
        TrustPrompt {
            root,
            selected: 0,
            guard: crate::deliberate::Deliberate::new(),
            draft: String::new(),
            hint: false,
        }
    }

    /// A key: the choice it makes, if any (↑↓ + Enter, 1-3, Esc or Ctrl-C
    /// quit). Keys typed ahead of the question answer nothing.
    pub fn key(&mut self, key: KeyEvent) -> Option<TrustChoice> {
        let choosing = crate::deliberate::Choosing {
            selected: &mut self.selected,
            guard: &mut self.guard,
            draft: &mut self.draft,
            hint: &mut self.hint,
        };
        Some(match choosing.key(key, CHOICES.len())? {
            crate::deliberate::Answer::Pick(i) => CHOICES[i].0,
            crate::deliberate::Answer::Esc => TrustChoice::Quit,
            crate::deliberate::Answer::Quit => TrustChoice::Quit,
        })
    }

    /// The screen's lines.
    pub fn lines(&self) -> Vec<Line<'static>> {
        let bold = Style::new().add_modifier(Modifier::BOLD);
        let keys = Style::new().fg(Color::Yellow);
        let mut out = vec![
            Line::styled("Do you trust the files in this folder?", bold),
            Line::raw(""),
            Line::styled(
                format!("  {}", self.root.display()),
                Style::new().fg(Color::Cyan),
            ),
            Line::raw(""),
            Line::raw(
                "seekclaw's agent reads the files here and, as your approval policy allows, edits \
                 them and runs commands. Only trust a folder whose contents you trust.",
            ),
            Line::raw(""),
        ];
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
                "↑↓ select · Enter confirms · 1-3 pick · Esc quits"
            } else {
                "Press 1-3, or ↑↓ then Enter, to choose · Esc quits"
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
                Style::new().fg(Color::DarkGray),
            ));
        }
        out
    }
}

/// Draws the question over the whole screen.
pub fn draw(frame: &mut Frame<'_>, prompt: &TrustPrompt) {
    let area = frame.area();
    frame.render_widget(
        Paragraph::new(prompt.lines()).wrap(Wrap { trim: false }),
        area,
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crossterm::event::{KeyCode, KeyModifiers};

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    fn seen(p: &mut TrustPrompt) {
        use crate::deliberate::{Deliberate, GRACE};
        p.guard = Deliberate::shown_at(std::time::Instant::now() - GRACE * 2);
    }

    #[test]
    fn keys_choose_and_typed_letters_do_nothing() {
        let mut p = TrustPrompt::new(PathBuf::from("/work/p"));
        seen(&mut p);
        assert_eq!(p.key(key(KeyCode::Char('y'))), None, "no letter decides");
        assert_eq!(p.key(key(KeyCode::Down)), None);
        assert_eq!(p.key(key(KeyCode::Down)), None);
        assert!(p.lines().iter().any(|l| l.to_string().starts_with("› 2.")));
        assert_eq!(p.key(key(KeyCode::Enter)), Some(TrustChoice::Global));
        assert_eq!(p.key(key(KeyCode::Up)), None);
        assert_eq!(p.key(key(KeyCode::Enter)), Some(TrustChoice::Trust));
        assert_eq!(p.key(key(KeyCode::Char('3'))), Some(TrustChoice::Quit));
        assert_eq!(p.key(key(KeyCode::Esc)), Some(TrustChoice::Quit));
        assert_eq!(p.draft, "y");
    }

    /// Regression (issue 36, item 1): "hello" + Enter typed as the chat
    /// opened trusted the folder and dropped the text.
    #[test]
    fn typed_ahead_text_and_enter_answer_nothing_and_the_text_is_kept() {
        let mut p = TrustPrompt::new(PathBuf::from("/work/p"));
        for c in "hello 1".chars() {
            assert_eq!(p.key(key(KeyCode::Char(c))), None);
        }
        assert_eq!(p.key(key(KeyCode::Enter)), None);
        assert_eq!(p.key(key(KeyCode::Esc)), None);
        assert_eq!(p.draft, "hello 1");
        // Seen now, but nothing selected: Enter still answers nothing.
        seen(&mut p);
        assert_eq!(p.key(key(KeyCode::Enter)), None);
        assert!(
            p.lines()
                .iter()
                .any(|l| l.to_string().starts_with("Choose first"))
        );
        assert!(!p.lines().iter().any(|l| l.to_string().starts_with("› ")));
        assert_eq!(p.key(key(KeyCode::Char('1'))), Some(TrustChoice::Trust));
    }
}
