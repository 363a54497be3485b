//! What is drawn over the conversation: the `/sessions` and `/model` picker
//! (centred, modal) and the `@path` completion popup (above the editor).

use ratatui::Frame;
use ratatui::layout::{Position, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph};

use crate::completion::Completion;
use crate::picker::Picker;

const SELECTED: Style = Style::new().add_modifier(Modifier::REVERSED);
const DIM: Style = Style::new().fg(Color::DarkGray);

/// The picker, centred in `area`, with the cursor in its search field.
pub fn picker(frame: &mut Frame<'_>, picker: &Picker, area: Rect) {
    let shown = picker.shown();
    let width = area.width.saturating_sub(4).min(100);
    let rows = u16::try_from(shown.len()).unwrap_or(u16::MAX).max(1);
    let height = rows
        .saturating_add(4)
        .min(area.height.saturating_sub(2))
        .max(5);
    let rect = Rect::new(
        area.x + (area.width.saturating_sub(width)) / 2,
        area.y + (area.height.saturating_sub(height)) / 2,
        width,
        height.min(area.height),
    );
    let block = Block::bordered()
        .title(picker.title())
        .title_bottom(Line::styled(picker.help(), DIM))
        .border_style(Style::new().fg(Color::Cyan));
    let inner = block.inner(rect);
    let list_rows = usize::from(inner.height.saturating_sub(1)).max(1);
    // Scrolled so the selected row stays in view.
    let first = picker.selected.saturating_sub(list_rows - 1);
    let mut lines = vec![Line::from(vec![
        Span::styled("search: ", DIM),
        Span::raw(picker.query.clone()),
    ])];
    if shown.is_empty() {
        lines.push(Line::styled("  (nothing matches)", DIM));
    }
    for (i, item) in shown.iter().enumerate().skip(first).take(list_rows) {
        let selected = i == picker.selected;
        let mark = if selected { "› " } else { "  " };
        let mut line = Line::from(vec![
            Span::raw(format!("{mark}{}", item.label)),
            Span::styled(format!("  {}", item.detail), DIM),
        ]);
        if selected {
            line = line.style(SELECTED);
        }
        lines.push(line);
    }
    frame.render_widget(Clear, rect);
    frame.render_widget(Paragraph::new(lines).block(block), rect);
    let col = 8 + super::wrap::width_of(&picker.query);
    frame.set_cursor_position(Position::new(
        inner.x
            + u16::try_from(col)
                .unwrap_or(0)
                .min(inner.width.saturating_sub(1)),
        inner.y,
    ));
}

/// Rows of matches the completion popup shows at once.
const COMPLETION_ROWS: usize = 8;

/// The completion popup, its bottom edge on `bottom` (the editor's top).
pub fn completion(frame: &mut Frame<'_>, c: &Completion, area: Rect, bottom: u16) {
    let rows = c.matches.len().min(COMPLETION_ROWS);
    let first = c.selected.saturating_sub(rows.saturating_sub(1));
    let widest = c
        .matches
        .iter()
        .map(|m| super::wrap::width_of(m))
        .max()
        .unwrap_or(0);
    let width = u16::try_from(widest + 4)
        .unwrap_or(u16::MAX)
        .max(24)
        .min(area.width);
    let height = u16::try_from(rows + 2)
        .unwrap_or(u16::MAX)
        .min(bottom.saturating_sub(area.y));
    if height < 3 {
        return;
    }
    let rect = Rect::new(area.x, bottom - height, width, height);
    let title = format!(
        " {}/{} · Tab/↑↓ · Enter · Esc ",
        c.selected + 1,
        c.matches.len()
    );
    let block = Block::bordered()
        .title(Line::styled(title, DIM))
        .border_style(Style::new().fg(Color::Cyan));
    let lines: Vec<Line<'static>> = c
        .matches
        .iter()
        .enumerate()
        .skip(first)
        .take(rows)
        .map(|(i, m)| {
            let line = Line::raw(format!(" {m}"));
            if i == c.selected {
                line.style(SELECTED)
            } else {
                line
            }
        })
        .collect();
    frame.render_widget(Clear, rect);
    frame.render_widget(Paragraph::new(lines).block(block), rect);
}
