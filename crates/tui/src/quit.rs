//! Quitting while this window's turn runs asks first: cancel the turn and
//! quit, keep it running in the daemon and quit (the chat is `detach`ed, so
//! the daemon finishes and stores it, and watchers see its end), or stay.
//!
//! Like every confirmation it needs a deliberate answer given after the
//! prompt was seen: keys within [`crate::deliberate::GRACE`] of its opening are ignored, and
//! Enter only confirms a row picked with ↑/↓ in the prompt itself (nothing
//! is preselected). Esc, or Ctrl-C, stays.

use std::time::Instant;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

use crate::app::{Action, App};

/// A choice of the quit prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QuitChoice {
    /// Cancel the running turn, then quit.
    CancelAndQuit,
    /// Quit; the daemon runs the turn to its end.
    KeepAndQuit,
    /// Quit (the turn already ended or is being cancelled).
    Quit,
    /// Close the prompt.
    Stay,
}

impl QuitChoice {
    fn label(self) -> &'static str {
        match self {
            QuitChoice::CancelAndQuit => "Cancel the turn and quit",
            QuitChoice::KeepAndQuit => "Keep it running in the daemon and quit",
            QuitChoice::Quit => "Quit",
            QuitChoice::Stay => "Stay",
        }
    }
}

/// The open quit prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuitPrompt {
    shown: crate::deliberate::Deliberate,
    /// The row picked with ↑/↓ (none until then: Enter alone confirms nothing).
    picked: Option<usize>,
}

impl QuitPrompt {
    /// A prompt opened at `opened`.
    pub fn opened_at(opened: Instant) -> QuitPrompt {
        QuitPrompt {
            shown: crate::deliberate::Deliberate::shown_at(opened),
            picked: None,
        }
    }
}

impl App {
    /// `/quit`, Ctrl-D, or a second Ctrl-C while this window's turn runs:
    /// asks first; otherwise quits at once (another client's turn, seen
    /// through the watch, goes on without this window).
    pub(crate) fn request_quit(&mut self) -> Option<Action> {
        if self.own_turn().is_none() {
            return Some(Action::Quit);
        }
        self.quitting = Some(QuitPrompt::opened_at(Instant::now()));
        self.mark_waited_frame();
        None
    }

    /// This window's running turn (not one it watches).
    fn own_turn(&self) -> Option<&crate::app::Turn> {
        self.turn.as_ref().filter(|t| !t.foreign)
    }

    /// The prompt's rows now: the turn may end or begin cancelling while it
    /// is open, and a choice that can no longer happen is not offered.
    pub fn quit_choices(&self) -> Vec<QuitChoice> {
        match self.own_turn() {
            Some(t) if !t.cancelling => vec![
                QuitChoice::CancelAndQuit,
                QuitChoice::KeepAndQuit,
                QuitChoice::Stay,
            ],
            _ => vec![QuitChoice::Quit, QuitChoice::Stay],
        }
    }

    /// A key while the quit prompt is open: `None` when it is not open,
    /// else the action it leads to (the prompt takes every key).
    pub(crate) fn quit_key(&mut self, key: KeyEvent) -> Option<Option<Action>> {
        let prompt = self.quitting.as_mut()?;
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let stay = matches!(key.code, KeyCode::Esc) || (ctrl && key.code == KeyCode::Char('c'));
        if stay {
            self.quitting = None;
            self.hint = None;
            return Some(None);
        }
        if prompt.shown.typed_ahead() {
            return Some(None);
        }
        let choices = self.quit_choices();
        let count = choices.len();
        let Some(prompt) = self.quitting.as_mut() else {
            return Some(None);
        };
        let chosen = match key.code {
            KeyCode::Up | KeyCode::BackTab => {
                prompt.picked = Some(prompt.picked.map_or(count - 1, |p| (p + count - 1) % count));
                None
            }
            KeyCode::Down | KeyCode::Tab => {
                prompt.picked = Some(prompt.picked.map_or(0, |p| (p + 1) % count));
                None
            }
            KeyCode::Enter => match prompt.picked {
                Some(p) => choices.get(p.min(count - 1)).copied(),
                None => {
                    self.hint = Some("pick a choice first: ↑↓ or its digit".into());
                    None
                }
            },
            KeyCode::Char(c @ '1'..='9') if !ctrl => {
                choices.get(usize::from(c as u8 - b'1')).copied()
            }
            _ => None,
        };
        Some(chosen.and_then(|c| self.quit_with(c)))
    }

    fn quit_with(&mut self, choice: QuitChoice) -> Option<Action> {
        self.quitting = None;
        self.hint = None;
        let own = self.own_turn().map(|t| t.request_id);
        match (choice, own) {
            (QuitChoice::Stay, _) => None,
            (QuitChoice::CancelAndQuit, Some(request_id)) => {
                Some(Action::CancelAndQuit(request_id))
            }
            (QuitChoice::KeepAndQuit, Some(_)) => {
                self.kept_turn = true;
                Some(Action::Quit)
            }
            _ => Some(Action::Quit),
        }
    }

    /// What to say once the terminal is restored: where a kept turn can be
    /// seen (`None` when no turn was kept).
    pub fn farewell(&self, scope: &crate::Scope) -> Option<String> {
        if !self.kept_turn {
            return None;
        }
        let Some(id) = &self.session_id else {
            return Some("The turn keeps running in the daemon.".to_string());
        };
        let open = match scope {
            crate::Scope::Global => format!("seekclaw --global --resume {id}"),
            crate::Scope::Workspace(dir) => {
                format!("seekclaw --workspace '{}' --resume {id}", dir.display())
            }
        };
        Some(format!(
            "The turn keeps running in the daemon; `{open}` shows it."
        ))
    }

    /// The prompt's lines (above the editor), the choices last.
    pub fn quit_lines(&self) -> Vec<Line<'static>> {
        let Some(prompt) = &self.quitting else {
            return Vec::new();
        };
        let bold = Style::new().fg(Color::Yellow).add_modifier(Modifier::BOLD);
        let keys = Style::new().fg(Color::Yellow);
        let choices = self.quit_choices();
        let title = match self.own_turn() {
            Some(t) if !t.cancelling => "Quit? A turn of this window is running.",
            Some(_) => "Quit? The turn is being cancelled.",
            None => "Quit? The turn has ended.",
        };
        let mut out = vec![Line::styled(title, bold)];
        for (i, choice) in choices.iter().enumerate() {
            let text = format!("{}. {}", i + 1, choice.label());
            if prompt.picked == Some(i) {
                out.push(Line::from(vec![
                    Span::styled("› ", keys.add_modifier(Modifier::BOLD)),
                    Span::styled(text, Style::new().add_modifier(Modifier::REVERSED)),
                ]));
            } else {
                out.push(Line::raw(format!("  {text}")));
            }
        }
        out.push(Line::styled(
            format!(
                "1-{} pick · ↑↓ select, Enter confirms · Esc stays",
                choices.len()
            ),
            keys,
        ));
        out
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use crossterm::event::{KeyEventKind, KeyEventState};

    use super::*;
    use crate::deliberate::GRACE;

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent {
            code,
            modifiers: KeyModifiers::NONE,
            kind: KeyEventKind::Press,
            state: KeyEventState::NONE,
        }
    }

    /// An app whose own turn (request 7) runs, with the prompt open since `ago`.
    fn asking(ago: Duration) -> App {
        let mut app = App::default();
        app.start_turn(7, "work");
        assert_eq!(app.request_quit(), None);
        let opened = Instant::now().checked_sub(ago).unwrap();
        app.quitting = Some(QuitPrompt::opened_at(opened));
        app
    }

    #[test]
    fn keys_typed_ahead_and_a_bare_enter_answer_nothing() {
        let mut app = asking(Duration::ZERO);
        for code in [KeyCode::Char('1'), KeyCode::Down, KeyCode::Enter] {
            assert_eq!(app.on_key(key(code)), None);
        }
        assert!(app.quitting.is_some(), "typed ahead: still asking");
        let mut app = asking(GRACE * 2);
        assert_eq!(app.on_key(key(KeyCode::Enter)), None);
        assert!(app.quitting.is_some(), "Enter with nothing picked");
        assert_eq!(app.on_key(key(KeyCode::Char('x'))), None);
        assert!(app.quitting.is_some());
    }

    #[test]
    fn each_choice_leads_where_it_says() {
        let mut app = asking(GRACE * 2);
        assert_eq!(
            app.on_key(key(KeyCode::Char('1'))),
            Some(Action::CancelAndQuit(7))
        );
        let mut app = asking(GRACE * 2);
        app.on_key(key(KeyCode::Down));
        app.on_key(key(KeyCode::Down));
        assert_eq!(app.on_key(key(KeyCode::Enter)), Some(Action::Quit));
        assert!(app.kept_turn, "keeping it says so on the way out");
        app.session_id = Some("s1".into());
        assert_eq!(
            app.farewell(&crate::Scope::Global).as_deref(),
            Some("The turn keeps running in the daemon; `seekclaw --global --resume s1` shows it.")
        );
        let mut app = asking(GRACE * 2);
        assert_eq!(app.on_key(key(KeyCode::Char('3'))), None);
        assert!(app.quitting.is_none() && app.turn.is_some(), "stays");
        // Esc stays at once, even inside the grace.
        let mut app = asking(Duration::ZERO);
        assert_eq!(app.on_key(key(KeyCode::Esc)), None);
        assert!(app.quitting.is_none());
    }

    #[test]
    fn a_turn_that_ends_or_is_cancelled_leaves_quit_or_stay() {
        let mut app = asking(GRACE * 2);
        app.turn.as_mut().unwrap().cancelling = true;
        assert_eq!(app.quit_choices(), [QuitChoice::Quit, QuitChoice::Stay]);
        app.turn = None;
        assert_eq!(app.on_key(key(KeyCode::Char('2'))), None);
        assert!(app.quitting.is_none());
        let mut app = asking(GRACE * 2);
        app.turn = None;
        assert_eq!(app.on_key(key(KeyCode::Char('1'))), Some(Action::Quit));
        assert!(!app.kept_turn);
    }

    #[test]
    fn ctrl_c_cancels_and_pressed_again_while_the_cancel_is_under_way_asks() {
        let mut app = App::default();
        app.start_turn(5, "work");
        let ctrl_c = KeyEvent {
            modifiers: KeyModifiers::CONTROL,
            ..key(KeyCode::Char('c'))
        };
        assert_eq!(app.on_key(ctrl_c), Some(Action::Cancel(5)));
        assert_eq!(app.on_key(ctrl_c), None);
        assert_eq!(
            app.quit_choices(),
            [QuitChoice::Quit, QuitChoice::Stay],
            "being cancelled: it cannot be kept"
        );
        assert!(app.quitting.is_some());
        // Ctrl-C again closes the prompt: it never quits by itself.
        assert_eq!(app.on_key(ctrl_c), None);
        assert!(app.quitting.is_none() && app.turn.is_some());
    }

    #[test]
    fn a_watched_turn_of_another_client_is_cancelled_by_session_on_a_second_ctrl_c() {
        let mut app = App::default();
        app.watch = Some(crate::watching::Watching::new(9, "s1".into()));
        app.start_turn(9, "theirs");
        app.turn.as_mut().unwrap().foreign = true;
        let ctrl_c = KeyEvent {
            modifiers: KeyModifiers::CONTROL,
            ..key(KeyCode::Char('c'))
        };
        assert_eq!(app.on_key(ctrl_c), None);
        assert!(
            app.hint
                .as_deref()
                .unwrap()
                .contains("Ctrl-C again cancels it")
        );
        assert_eq!(app.on_key(ctrl_c), Some(Action::CancelSession("s1".into())));
        // Ctrl-D quits at once: the turn is not this window's.
        assert_eq!(
            app.on_key(KeyEvent {
                modifiers: KeyModifiers::CONTROL,
                ..key(KeyCode::Char('d'))
            }),
            Some(Action::Quit)
        );
    }

    #[test]
    fn quitting_asks_only_over_this_windows_own_running_turn() {
        let mut app = App::default();
        assert_eq!(app.request_quit(), Some(Action::Quit));
        app.start_turn(1, "x");
        app.turn.as_mut().unwrap().foreign = true;
        assert_eq!(app.request_quit(), Some(Action::Quit));
    }
}
