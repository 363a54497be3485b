//! The view: the conversation (wrapped to the width, scrolled from the
//! bottom), the prompt editor and a status bar. Everything is laid out again
//! on each draw, so a resize reflows.

pub(crate) mod conversation;
mod popup;
pub mod wrap;

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Position, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

use crate::app::App;

/// Rows the editor may grow to before it scrolls.
const EDITOR_ROWS: usize = 8;

/// Draws the whole screen; remembers the page height for PgUp/PgDn.
pub fn draw(frame: &mut Frame<'_>, app: &mut App) {
    let area = frame.area();
    let width = usize::from(area.width).max(1);
    let (editor_lines, cursor) = editor(app, width);
    let editor_rows = editor_lines.len().clamp(1, EDITOR_ROWS);
    // The quit prompt, when open, stands over an approval's.
    let (asking, tail) = match app.quitting {
        Some(_) => {
            let lines = app.quit_lines();
            let tail = lines.len().saturating_sub(1);
            (lines, tail)
        }
        None if app.rewind.is_some() => app.rewind_lines(),
        None => (app.approval_lines(), app.approval_tail()),
    };
    let mut asking = wrap::wrap(asking, width);
    let asking_rows = asking.len().min(usize::from(area.height) / 2);
    // Cut from the middle: the call and the choices stay in view.
    if asking.len() > asking_rows {
        let tail = tail.min(asking_rows);
        let choices = asking.split_off(asking.len().saturating_sub(tail));
        asking.truncate(asking_rows - tail);
        asking.extend(choices);
    }
    // `ui.statusLine`'s row, over the bar, only while a command is set.
    let user_rows = u16::from(app.status_text.is_some());
    let [talk, prompt, input, user_line, status] = Layout::vertical([
        Constraint::Min(1),
        Constraint::Length(u16::try_from(asking_rows).unwrap_or(0)),
        Constraint::Length(u16::try_from(editor_rows).unwrap_or(1) + 1),
        Constraint::Length(user_rows),
        Constraint::Length(1),
    ])
    .areas(area);
    conversation_view(frame, app, talk);
    if asking_rows > 0 {
        frame.render_widget(Paragraph::new(asking), prompt);
    }

    // The editor: a rule above, its lines scrolled to keep the cursor shown.
    let first = cursor.0.saturating_sub(editor_rows - 1);
    let shown: Vec<Line<'static>> = editor_lines
        .into_iter()
        .skip(first)
        .take(editor_rows)
        .collect();
    let block = Block::new()
        .borders(Borders::TOP)
        .border_style(Style::new().fg(Color::DarkGray));
    let inner = block.inner(input);
    frame.render_widget(Paragraph::new(shown).block(block), input);
    let (row, col) = (cursor.0 - first, cursor.1);
    frame.set_cursor_position(Position::new(
        inner.x
            + u16::try_from(col)
                .unwrap_or(0)
                .min(inner.width.saturating_sub(1)),
        inner.y + u16::try_from(row).unwrap_or(0),
    ));

    frame.render_widget(Paragraph::new(status_line(app, status.width)), status);
    if let Some(shown) = &app.status_text {
        let text = crate::status_line::fit(&shown.text, usize::from(user_line.width));
        let style = match shown.failed {
            true => Style::new()
                .fg(Color::DarkGray)
                .add_modifier(Modifier::ITALIC),
            false => Style::new(),
        };
        frame.render_widget(Paragraph::new(Line::styled(text, style)), user_line);
    }

    if let Some(c) = &app.completion {
        popup::completion(frame, c, talk, input.y);
    }
    if let Some(p) = &app.picker {
        popup::picker(frame, p, area);
    }
}

/// Only the entries that reach the screen are laid out: from the newest
/// back until the page (plus what is scrolled) is full, so a long session
/// costs no more per draw than a short one.
fn conversation_view(frame: &mut Frame<'_>, app: &mut App, area: Rect) {
    let width = usize::from(area.width);
    let height = usize::from(area.height);
    app.page = height;
    let need = app.scroll + height;
    let mut chunks = vec![wrap::wrap(conversation::pending_lines(app), width)];
    let mut total = chunks[0].len();
    for entry in app.entries.iter().rev() {
        if total >= need {
            break;
        }
        let lines = wrap::wrap(conversation::entry_lines(app, entry), width);
        total += lines.len();
        chunks.push(lines);
    }
    let lines: Vec<Line<'static>> = chunks.into_iter().rev().flatten().collect();
    // All entries were laid out when fewer lines than asked for came back.
    app.scroll = app.scroll.min(lines.len().saturating_sub(height));
    let end = lines.len() - app.scroll;
    let start = end.saturating_sub(height);
    let visible: Vec<Line<'static>> = lines[start..end].to_vec();
    frame.render_widget(Paragraph::new(visible), area);
}

/// The editor's lines wrapped to `width` (a prompt mark first), and the
/// cursor's (row, column) among them.
fn editor(app: &App, width: usize) -> (Vec<Line<'static>>, (usize, usize)) {
    let raw = app.editor.raw();
    let cursor = app.editor.cursor();
    let mark = if app.typing_reason() {
        "why › "
    } else if app.turn.is_some() {
        "↳ "
    } else {
        "› "
    };
    let mut lines = Vec::new();
    let mut pos = (0, 0);
    let mut consumed = 0; // chars of `text` before the current logical line
    for (i, logical) in raw.split(|c| *c == '\n').enumerate() {
        let head = if i == 0 { mark } else { "  " };
        let chars = logical.len();
        // Lay the line out cell by cell so the cursor's place is exact; a
        // folded paste is one unit shown as its label.
        let mut col = wrap::width_of(head);
        let mut current = String::from(head);
        for (j, &c) in logical.iter().enumerate() {
            let shown = app.editor.label(c).unwrap_or_else(|| c.to_string());
            let w = wrap::width_of(&shown);
            if col + w > width && col > 0 {
                lines.push(Line::raw(std::mem::take(&mut current)));
                col = 0;
            }
            if consumed + j == cursor {
                pos = (lines.len(), col);
            }
            current.push_str(&shown);
            col += w;
        }
        if consumed + chars == cursor {
            if col >= width {
                lines.push(Line::raw(std::mem::take(&mut current)));
                col = 0;
            }
            pos = (lines.len(), col);
        }
        lines.push(Line::raw(current));
        consumed += chars + 1;
    }
    if app.editor.is_empty() {
        let placeholder = if app.typing_reason() {
            "why the agent should not do this (it reads it)"
        } else if app.quitting.is_some() {
            "choose above: a digit, or ↑↓ Enter · Esc stays"
        } else if app.rewind.is_some() {
            "choose above: ↑↓ Enter · Esc closes"
        } else if app.approvals.first().is_some_and(|a| a.form.is_some()) {
            "fill in the form above: Enter sends · Esc declines · Ctrl-C cancels"
        } else if !app.approvals.is_empty() {
            if app.choices().len() > 4 {
                "choose above: ↑↓ Enter · 1-5 · Esc rejects"
            } else {
                "choose above: ↑↓ Enter · 1-4 · Esc rejects"
            }
        } else {
            "Ask anything · /help"
        };
        let hint = Span::styled(
            placeholder,
            Style::new()
                .fg(Color::DarkGray)
                .add_modifier(Modifier::ITALIC),
        );
        lines = vec![Line::from(vec![Span::raw(mark), hint])];
        pos = (0, wrap::width_of(mark));
    }
    (lines, pos)
}

pub(crate) fn status_line(app: &App, width: u16) -> Line<'static> {
    let bar = Style::new().fg(Color::Black).bg(Color::Gray);
    let state = match (&app.turn, app.disconnected) {
        (_, true) => "disconnected".to_string(),
        _ if app.quitting.is_some() => "quit? choose above".to_string(),
        _ if app.rewind.is_some() => "rewind: choose above".to_string(),
        _ if !app.approvals.is_empty() => "waiting for your approval".to_string(),
        (Some(t), _) if t.cancelling => "cancelling…".to_string(),
        (Some(t), _) if !t.phase.is_empty() => format!("running: {}", t.phase),
        (Some(_), _) => "running".to_string(),
        (None, _) => "idle".to_string(),
    };
    // (what to keep first when the bar is too narrow, the part), in the
    // order shown: a hint ("Press Ctrl-C again to quit"), the state and the
    // session must never be cut off by the tokens and cost.
    let mut parts: Vec<(u8, String)> = vec![
        (
            5,
            format!("session {}", app.session_id.as_deref().unwrap_or("(new)")),
        ),
        (3, app.usage_label()),
        (6, state),
    ];
    if let Some(budget) = &app.budget {
        parts.insert(parts.len() - 1, (3, budget.label()));
    }
    // The model a new turn uses (or the one answering); left out until known.
    if let Some(model) = app.model_label() {
        parts.insert(1, (4, model));
    }
    if let Some(config) = app.config_label() {
        parts.push((6, config.to_string()));
    }
    if !app.attached.is_empty() {
        let chips: Vec<String> = app.attached.iter().map(|a| a.chip()).collect();
        parts.push((2, chips.join(" ")));
    }
    if app.scroll > 0 {
        parts.push((1, format!("scrolled ↑{}", app.scroll)));
    }
    if let Some(hint) = &app.hint {
        parts.push((7, hint.clone()));
    }
    let text = |parts: &[(u8, String)]| {
        let shown: Vec<&str> = parts.iter().map(|(_, p)| p.as_str()).collect();
        format!(" {}", shown.join(" │ "))
    };
    while parts.len() > 1 && wrap::width_of(&text(&parts)) > usize::from(width) {
        let least = parts
            .iter()
            .enumerate()
            .min_by_key(|(_, (rank, _))| *rank)
            .map_or(0, |(i, _)| i);
        parts.remove(least);
    }
    Line::from(Span::styled(text(&parts), bar)).style(bar)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_narrow_status_bar_drops_the_cost_before_the_session_the_state_and_the_hint() {
        let mut app = App::default();
        app.session_id = Some("20261203-094433-abcdef".into());
        app.model = Some("tk/m1".into());
        app.hint = Some("Press Ctrl-C again to quit".into());
        let text = |w: u16| {
            status_line(&app, w)
                .spans
                .iter()
                .map(|s| s.content.to_string())
                .collect::<String>()
        };
        let wide = text(200);
        assert!(wide.contains("session 20261203-094433-abcdef"), "{wide}");
        let narrow = text(80);
        assert!(wrap::width_of(&narrow) <= 80, "{narrow}");
        assert!(
            narrow.contains("idle") && narrow.contains("Press Ctrl-C again to quit"),
            "{narrow}"
        );
        assert!(
            narrow.contains("session 20261203-094433-abcdef"),
            "{narrow}"
        );
        assert!(!narrow.contains("tokens"), "{narrow}");
    }
}
