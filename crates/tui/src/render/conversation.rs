//! The conversation as styled lines: prompts, answers (Markdown), reasoning
//! (dimmed), tool rows with their state and diffs, notices and errors.

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

use crate::app::{App, Entry, ToolRow, ToolState};
use crate::markdown;

const SPINNER: [&str; 10] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
/// Diff lines shown under a folded diff (Ctrl-O shows them all).
const DIFF_FOLDED: usize = 6;

/// The lines of one entry (not yet wrapped).
pub fn entry_lines(app: &App, entry: &Entry) -> Vec<Line<'static>> {
    let mut out = Vec::new();
    match entry {
        Entry::User(text, chips) => {
            prefixed(&mut out, text, "› ", Style::new().fg(Color::Blue).bold());
            if !chips.is_empty() {
                let chip = Style::new().fg(Color::Black).bg(Color::Blue);
                let mut spans = vec![Span::raw("  ")];
                for c in chips {
                    spans.push(Span::styled(c.clone(), chip));
                    spans.push(Span::raw(" "));
                }
                out.push(Line::from(spans));
            }
            out.push(Line::default());
        }
        Entry::Steer(text) => {
            prefixed(&mut out, text, "↳ ", Style::new().fg(Color::Magenta));
            out.push(Line::default());
        }
        Entry::Assistant { text, thinking } => {
            let dim = Style::new()
                .fg(Color::DarkGray)
                .add_modifier(Modifier::ITALIC);
            let reasoning = thinking.trim();
            if app.hide_thinking && !reasoning.is_empty() {
                let n = reasoning.lines().count();
                out.push(Line::styled(
                    format!("▸ reasoning, {n} lines (Ctrl-T shows)"),
                    dim,
                ));
            } else {
                for l in reasoning.lines() {
                    out.push(Line::styled(l.replace('\t', "    "), dim));
                }
            }
            if !reasoning.is_empty() && !text.is_empty() {
                out.push(Line::default());
            }
            out.extend(markdown::render_with(text, Some(&app.highlighter)));
            out.push(Line::default());
        }
        Entry::Tool(row) => tool(&mut out, row, app.tick, app.expand_diffs),
        Entry::Subrun(row) => {
            let spinner = SPINNER[app.tick % SPINNER.len()];
            crate::subrun::lines(&mut out, row, spinner, app.expand_diffs);
        }
        Entry::Notice(text) => {
            for l in text.lines() {
                out.push(Line::styled(l.to_string(), Style::new().fg(Color::Yellow)));
            }
            out.push(Line::default());
        }
        Entry::Checkpoint(text) => {
            out.push(Line::styled(
                text.clone(),
                Style::new().fg(Color::DarkGray).add_modifier(Modifier::DIM),
            ));
        }
        Entry::Hook(row) => crate::hooks::lines(&mut out, row),
        Entry::Error(text) => {
            prefixed(&mut out, text, "✗ ", Style::new().fg(Color::Red));
            out.push(Line::default());
        }
    }
    out
}

/// The steers sent and not yet taken in, shown under the conversation.
pub fn pending_lines(app: &App) -> Vec<Line<'static>> {
    let mut out = Vec::new();
    for s in &app.pending_steers {
        let style = Style::new().fg(Color::Magenta).add_modifier(Modifier::DIM);
        prefixed(&mut out, s, "⧗ steer (pending): ", style);
    }
    out
}

/// `text` line by line, the first line after `prefix`, the rest indented.
fn prefixed(out: &mut Vec<Line<'static>>, text: &str, prefix: &str, style: Style) {
    let indent = " ".repeat(super::wrap::width_of(prefix));
    for (i, l) in text.lines().enumerate() {
        let head = if i == 0 { prefix } else { indent.as_str() };
        out.push(Line::from(vec![
            Span::styled(head.to_string(), style),
            Span::styled(l.replace('\t', "    "), style),
        ]));
    }
}

/// A tool call's row and its diff, folded unless `expand` (also `seekclaw
/// run`'s, see `print`).
pub(crate) fn tool(out: &mut Vec<Line<'static>>, row: &ToolRow, tick: usize, expand: bool) {
    let (mark, style) = match row.state {
        ToolState::Running => (SPINNER[tick % SPINNER.len()], Style::new().fg(Color::Cyan)),
        ToolState::Done => ("✓", Style::new().fg(Color::Green)),
        ToolState::Failed => ("✗", Style::new().fg(Color::Red)),
    };
    let mut spans = vec![
        Span::styled(format!("{mark} "), style),
        Span::styled(row.name.clone(), Style::new().bold()),
    ];
    let summary = row.summary.lines().next().unwrap_or_default();
    if !summary.is_empty() {
        spans.push(Span::raw(format!(" {summary}")));
    }
    if let Some(ms) = row.duration_ms {
        spans.push(Span::styled(
            format!(" ({})", duration(ms)),
            Style::new().fg(Color::DarkGray),
        ));
    }
    out.push(Line::from(spans));
    if let Some(diff) = &row.diff {
        let shown = if expand { usize::MAX } else { DIFF_FOLDED };
        diff_lines(out, diff, shown, " (Ctrl-O expands)");
    }
}

/// The first `shown` lines of a diff (or a command), indented and coloured,
/// then how many more there are, `hint` after the count.
pub(crate) fn diff_lines(out: &mut Vec<Line<'static>>, diff: &str, shown: usize, hint: &str) {
    let all: Vec<&str> = diff.lines().collect();
    for l in all.iter().take(shown) {
        let style = match l.as_bytes().first() {
            Some(b'+') if !l.starts_with("+++") => Style::new().fg(Color::Green),
            Some(b'-') if !l.starts_with("---") => Style::new().fg(Color::Red),
            Some(b'@') => Style::new().fg(Color::Cyan),
            _ => Style::new().fg(Color::DarkGray),
        };
        out.push(Line::styled(
            format!("  {}", l.replace('\t', "    ")),
            style,
        ));
    }
    if all.len() > shown {
        out.push(Line::styled(
            format!("  … {} more lines{hint}", all.len() - shown),
            Style::new().fg(Color::DarkGray),
        ));
    }
}

fn duration(ms: f64) -> String {
    if ms < 1000.0 {
        format!("{ms:.0} ms")
    } else {
        format!("{:.1} s", ms / 1000.0)
    }
}
