//! Rewind and fork (issue 38): Esc Esc on an empty idle prompt or `/rewind`
//! opens a list of the session's prompts (newest at the bottom, each with
//! the file changes its turn made); choosing one asks what to restore (code
//! and conversation, conversation only, code only, or cancel). `/fork` picks
//! a prompt the same way (the newest is highlighted) and asks whether to
//! restore the code too. Files someone else changed since are listed with an
//! explicit "overwrite them" choice: nothing is overwritten silently.
//!
//! The list and the questions follow [`crate::deliberate`]: keys within the
//! grace of a step appearing were typed ahead and choose nothing; the
//! questions start with nothing selected, so Enter confirms only a row the
//! user picked (digits choose directly). Esc or Ctrl-C closes at any time.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

use crate::app::{Action, App};
use crate::deliberate::Deliberate;

/// What the chosen prompt is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Goal {
    /// Rewind this session to it.
    Rewind,
    /// Fork a new session at it.
    Fork,
}

/// What a rewind restores (`session.rewind`'s `restore`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Restore {
    /// The files and the conversation.
    Both,
    /// The conversation only (the files stay as they are).
    Conversation,
    /// The files only (the conversation goes on).
    Code,
}

impl Restore {
    /// Whether the files are restored.
    pub fn code(self) -> bool {
        matches!(self, Restore::Both | Restore::Code)
    }

    /// Whether the conversation is rewound.
    pub fn conversation(self) -> bool {
        matches!(self, Restore::Both | Restore::Conversation)
    }
}

/// A turn's file changes (summed over its checkpoints).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Changes {
    /// Files changed.
    pub files: u32,
    /// Lines added.
    pub added: u32,
    /// Lines removed.
    pub removed: u32,
}

impl Changes {
    /// "+12 −3 in 2 files", or "no file changes".
    pub fn label(&self) -> String {
        if self.files == 0 {
            return "no file changes".to_string();
        }
        let files = if self.files == 1 { "file" } else { "files" };
        format!(
            "+{} −{} in {} {files}",
            self.added, self.removed, self.files
        )
    }
}

/// One prompt that can be rewound to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// The user message's log seq.
    pub seq: u64,
    /// Its text.
    pub text: String,
    /// What its turn changed in the files.
    pub changes: Changes,
}

impl Target {
    /// The prompt's first line, cut to `max` characters.
    pub fn short(&self, max: usize) -> String {
        let first = self.text.lines().next().unwrap_or_default().trim();
        if first.chars().count() > max {
            let cut: String = first.chars().take(max.saturating_sub(1)).collect();
            format!("{cut}…")
        } else {
            first.to_string()
        }
    }
}

/// A choice of the question after the prompt is picked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Choice {
    /// Rewind with this restore.
    Rewind(Restore),
    /// Fork; `true` restores the code too.
    Fork(bool),
    /// Overwrite the conflicting files (the restore asked before).
    Overwrite,
    /// Back out.
    Cancel,
}

impl Choice {
    fn label(self) -> &'static str {
        match self {
            Choice::Rewind(Restore::Both) => "Restore the code and the conversation",
            Choice::Rewind(Restore::Conversation) => {
                "Restore the conversation only (files stay as they are)"
            }
            Choice::Rewind(Restore::Code) => "Restore the code only (the conversation goes on)",
            Choice::Fork(false) => "Fork the conversation (files stay as they are)",
            Choice::Fork(true) => "Fork and restore the code to that point too",
            Choice::Overwrite => "Overwrite them",
            Choice::Cancel => "Cancel",
        }
    }
}

/// Where the flow is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// Choosing the prompt; `selected` indexes [`Flow::targets`].
    Pick {
        /// The highlighted prompt.
        selected: usize,
    },
    /// Asking what to restore for `target`.
    Ask {
        /// The chosen prompt.
        target: usize,
        /// The row picked with ↑/↓ (none until then).
        picked: Option<usize>,
    },
    /// The restore of `choice` would overwrite `files`: overwrite or cancel.
    Conflicts {
        /// The chosen prompt.
        target: usize,
        /// What was asked (a rewind or a fork restoring code).
        choice: Choice,
        /// Files changed by someone else after that point.
        files: Vec<String>,
        /// The row picked with ↑/↓ (none until then).
        picked: Option<usize>,
    },
}

/// The open rewind or fork flow.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Flow {
    /// Rewind or fork.
    pub goal: Goal,
    /// The session's prompts, oldest first.
    pub targets: Vec<Target>,
    /// Where it is.
    pub step: Step,
    /// When the current step appeared.
    shown: Deliberate,
}

impl Flow {
    /// The list of `targets`, the newest highlighted.
    pub fn new(goal: Goal, targets: Vec<Target>) -> Flow {
        let selected = targets.len().saturating_sub(1);
        Flow {
            goal,
            targets,
            step: Step::Pick { selected },
            shown: Deliberate::new(),
        }
    }

    /// `self` as if shown at `at` (tests).
    pub fn shown_at(mut self, at: std::time::Instant) -> Flow {
        self.shown = Deliberate::shown_at(at);
        self
    }

    /// The choices of the current question (none while picking).
    pub fn choices(&self) -> Vec<Choice> {
        match (&self.step, self.goal) {
            (Step::Pick { .. }, _) => Vec::new(),
            (Step::Ask { .. }, Goal::Rewind) => vec![
                Choice::Rewind(Restore::Both),
                Choice::Rewind(Restore::Conversation),
                Choice::Rewind(Restore::Code),
                Choice::Cancel,
            ],
            (Step::Ask { .. }, Goal::Fork) => {
                vec![Choice::Fork(false), Choice::Fork(true), Choice::Cancel]
            }
            (Step::Conflicts { .. }, _) => vec![Choice::Overwrite, Choice::Cancel],
        }
    }

    fn target(&self) -> Option<&Target> {
        let i = match self.step {
            Step::Pick { selected } => selected,
            Step::Ask { target, .. } | Step::Conflicts { target, .. } => target,
        };
        self.targets.get(i)
    }

    fn action(&self, choice: Choice, force: bool) -> Option<Action> {
        let seq = self.target()?.seq;
        match choice {
            Choice::Rewind(restore) => Some(Action::Rewind {
                seq,
                restore,
                force,
            }),
            Choice::Fork(restore_code) => Some(Action::Fork {
                seq,
                restore_code,
                force,
            }),
            Choice::Overwrite | Choice::Cancel => None,
        }
    }
}

/// What the Esc Esc gesture is when no rewind can start now.
pub(crate) const BUSY: &str =
    "A turn is running: rewind when it is done (or cancel it with Ctrl-C first).";

impl App {
    /// Esc on the editor: a second one on an empty idle prompt opens the
    /// rewind list (the first arms it and says so).
    pub(crate) fn esc_key(&mut self) -> Option<Action> {
        if !self.editor.is_empty() {
            self.esc_armed = false;
            return None;
        }
        if !std::mem::replace(&mut self.esc_armed, true) {
            self.hint = Some("Esc again: rewind to an earlier prompt".into());
            return None;
        }
        self.esc_armed = false;
        self.hint = None;
        self.open_rewind(Goal::Rewind)
    }

    /// `/rewind`, `/fork` or Esc Esc: the list is loaded by the event loop;
    /// refused while a turn runs on the session (the daemon would say busy).
    pub(crate) fn open_rewind(&mut self, goal: Goal) -> Option<Action> {
        if self.turn.is_some() {
            self.error(BUSY);
            return None;
        }
        if self.session_id.is_none() {
            self.error("Nothing to rewind yet: this session has no prompt.");
            return None;
        }
        Some(Action::OpenRewind(goal))
    }

    /// Shows the list the event loop loaded.
    pub fn show_rewind(&mut self, goal: Goal, targets: Vec<Target>) {
        if targets.is_empty() {
            self.error("Nothing to rewind yet: this session has no prompt.");
            return;
        }
        self.rewind = Some(Flow::new(goal, targets));
        self.mark_waited_frame();
    }

    /// The rewind would overwrite `files` someone else changed: asks.
    pub fn ask_overwrite(&mut self, seq: u64, choice: Choice, files: Vec<String>) {
        let Some(flow) = self.rewind.as_mut() else {
            return;
        };
        let Some(target) = flow.targets.iter().position(|t| t.seq == seq) else {
            return;
        };
        flow.step = Step::Conflicts {
            target,
            choice,
            files,
            picked: None,
        };
        flow.shown = Deliberate::new();
        self.mark_waited_frame();
    }

    /// A key while the flow is open: `None` when it is not open, else the
    /// action it leads to (the flow takes every key).
    pub(crate) fn rewind_key(&mut self, key: KeyEvent) -> Option<Option<Action>> {
        let flow = self.rewind.as_mut()?;
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        if key.code == KeyCode::Esc || (ctrl && key.code == KeyCode::Char('c')) {
            self.rewind = None;
            self.hint = None;
            return Some(None);
        }
        if flow.shown.typed_ahead() {
            return Some(None);
        }
        if let Step::Pick { selected } = &mut flow.step {
            let last = flow.targets.len().saturating_sub(1);
            match key.code {
                KeyCode::Up => *selected = selected.saturating_sub(1),
                KeyCode::Down => *selected = (*selected + 1).min(last),
                KeyCode::PageUp => *selected = selected.saturating_sub(10),
                KeyCode::PageDown => *selected = (*selected + 10).min(last),
                KeyCode::Home => *selected = 0,
                KeyCode::End => *selected = last,
                KeyCode::Enter => {
                    flow.step = Step::Ask {
                        target: *selected,
                        picked: None,
                    };
                    flow.shown = Deliberate::new();
                    self.mark_waited_frame();
                }
                _ => {}
            }
            return Some(None);
        }
        let choices = flow.choices();
        let count = choices.len();
        let picked = match &mut flow.step {
            Step::Ask { picked, .. } | Step::Conflicts { picked, .. } => picked,
            Step::Pick { .. } => return Some(None),
        };
        let chosen = match key.code {
            KeyCode::Up | KeyCode::BackTab => {
                *picked = Some(picked.map_or(count - 1, |p| (p + count - 1) % count));
                None
            }
            KeyCode::Down | KeyCode::Tab => {
                *picked = Some(picked.map_or(0, |p| (p + 1) % count));
                None
            }
            KeyCode::Enter => match *picked {
                Some(p) => choices.get(p).copied(),
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
        Some(chosen.and_then(|c| self.rewind_with(c)))
    }

    fn rewind_with(&mut self, choice: Choice) -> Option<Action> {
        self.hint = None;
        let flow = self.rewind.take()?;
        match (choice, &flow.step) {
            (Choice::Cancel, Step::Conflicts { .. }) => {
                self.notice("Rewind cancelled: nothing was restored.".to_string());
                None
            }
            (Choice::Cancel, _) => None,
            (Choice::Overwrite, Step::Conflicts { choice, .. }) => {
                let action = flow.action(*choice, true);
                // Kept open until the forced call answers.
                self.rewind = Some(flow);
                action
            }
            (choice, _) => {
                let action = flow.action(choice, false);
                self.rewind = Some(flow);
                action
            }
        }
    }

    /// The flow's lines (above the editor), its choices or list last; how
    /// many of the last lines must stay in view.
    pub fn rewind_lines(&self) -> (Vec<Line<'static>>, usize) {
        let Some(flow) = &self.rewind else {
            return (Vec::new(), 0);
        };
        let bold = Style::new().fg(Color::Yellow).add_modifier(Modifier::BOLD);
        let keys = Style::new().fg(Color::Yellow);
        let dim = Style::new().fg(Color::DarkGray);
        let verb = match flow.goal {
            Goal::Rewind => "Rewind",
            Goal::Fork => "Fork",
        };
        let mut out = Vec::new();
        match &flow.step {
            Step::Pick { selected } => {
                out.push(Line::styled(
                    format!("{verb} to before which prompt? (newest last)"),
                    bold,
                ));
                // A window of rows around the selection, newest at the bottom.
                const ROWS: usize = 8;
                let first = selected.saturating_sub(ROWS - 1);
                let end = (first + ROWS).min(flow.targets.len());
                if first > 0 {
                    out.push(Line::styled(format!("  … {first} earlier"), dim));
                }
                for (i, t) in flow.targets.iter().enumerate().take(end).skip(first) {
                    let text = t.short(60);
                    let detail = format!("  {}", t.changes.label());
                    if i == *selected {
                        out.push(Line::from(vec![
                            Span::styled("› ", keys.add_modifier(Modifier::BOLD)),
                            Span::styled(text, Style::new().add_modifier(Modifier::REVERSED)),
                            Span::styled(detail, dim),
                        ]));
                    } else {
                        out.push(Line::from(vec![
                            Span::raw(format!("  {text}")),
                            Span::styled(detail, dim),
                        ]));
                    }
                }
                out.push(Line::styled("↑↓ select · Enter chooses · Esc closes", keys));
                let tail = out.len().saturating_sub(1);
                return (out, tail);
            }
            Step::Ask { .. } => {
                let t = flow.target().map(|t| t.short(60)).unwrap_or_default();
                out.push(Line::styled(format!("{verb} to before «{t}»:"), bold));
            }
            Step::Conflicts { files, .. } => {
                out.push(Line::styled(
                    format!(
                        "{} changed after that point by someone other than the agent:",
                        if files.len() == 1 {
                            "This file was"
                        } else {
                            "These files were"
                        }
                    ),
                    bold,
                ));
                for f in files {
                    out.push(Line::raw(format!("  {f}")));
                }
                out.push(Line::styled(
                    "Restoring the code overwrites them with how they were before that prompt.",
                    dim,
                ));
            }
        }
        let picked = match &flow.step {
            Step::Ask { picked, .. } | Step::Conflicts { picked, .. } => *picked,
            Step::Pick { .. } => None,
        };
        let choices = flow.choices();
        for (i, choice) in choices.iter().enumerate() {
            let text = format!("{}. {}", i + 1, choice.label());
            if picked == Some(i) {
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
                "1-{} pick · ↑↓ select, Enter confirms · Esc closes",
                choices.len()
            ),
            keys,
        ));
        let tail = choices.len() + 1;
        (out, tail)
    }
}

impl App {
    /// A `checkpoint` event (its `data` is the note as JSON): a dim line,
    /// "checkpoint · 2 files +5 −1"; a failed one says why; one that changed
    /// nothing is not shown. Another session's (a watch moved on) is skipped.
    pub(crate) fn on_checkpoint(&mut self, env: &seekclaw_client::Event) {
        if env.session_id.is_some() && env.session_id != self.session_id {
            return;
        }
        let Ok(note) = serde_json::from_str::<seekclaw_protocol::api::CheckpointNote>(&env.data)
        else {
            return;
        };
        // A turn's own steps need no label; a job's end or a rewind's does,
        // and a turn's first names what changed outside the agent since.
        let kind = match note.kind.as_str() {
            "step" => String::new(),
            "turn" => " (changed outside the agent before this turn)".to_string(),
            other => format!(" ({other})"),
        };
        let line = match (&note.error, note.files.len()) {
            (Some(e), _) => format!("checkpoint failed · {e} (the turn goes on)"),
            (None, 0) => return,
            (None, n) => format!(
                "checkpoint{kind} · {n} file{} +{} −{}",
                if n == 1 { "" } else { "s" },
                note.added,
                note.removed
            ),
        };
        self.entries.push(crate::app::Entry::Checkpoint(line));
        if let Some(nt) = note.not_tracked.filter(|n| !n.oversize.is_empty()) {
            self.entries.push(crate::app::Entry::Checkpoint(format!(
                "not checkpointed (over checkpoints.maxFileBytes): {}",
                nt.oversize.join(", ")
            )));
        }
    }
}

/// One `checkpoint.list` row as the list needs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Row<'a> {
    /// The seq of the user message of its turn.
    pub turn_seq: u64,
    /// `turn`, `step`, `job`, `verify` or `rewind`.
    pub kind: &'a str,
    /// Files changed since the checkpoint before it.
    pub files: u32,
    /// Lines added since then.
    pub added: u32,
    /// Lines removed since then.
    pub removed: u32,
}

/// The prompts of a session's timeline (`(seq, text)`) with the changes
/// their turns made: a turn's first checkpoint (`turn`) holds what changed
/// *before* it (someone else's edits between turns), so only the later ones
/// count as the turn's own.
pub fn targets(prompts: Vec<(u64, String)>, checkpoints: &[Row<'_>]) -> Vec<Target> {
    prompts
        .into_iter()
        .map(|(seq, text)| {
            let changes = checkpoints
                .iter()
                .filter(|r| r.turn_seq == seq && matches!(r.kind, "step" | "job" | "verify"))
                .fold(Changes::default(), |c, r| Changes {
                    files: c.files + r.files,
                    added: c.added + r.added,
                    removed: c.removed + r.removed,
                });
            Target { seq, text, changes }
        })
        .collect()
}

#[cfg(test)]
#[path = "rewind_tests.rs"]
mod tests;
