//! A subagent's row (`explore`, `review`): one line with its live progress
//! (steps, tokens, status), folded; Ctrl-O unfolds it to its session id and
//! how to read its log.

use ratatui::style::{Color, Style};
use ratatui::text::{Line, Span};
use seekclaw_protocol::events::{
    SubrunFinishedDetails, SubrunProgressDetails, SubrunStartedDetails,
};

/// A subagent of the running turn, as its events report it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubrunRow {
    /// Its own session's id.
    pub id: String,
    /// `explore` or `review`.
    pub kind: String,
    /// Its query or focus, one line.
    pub label: String,
    /// `running`, `done`, `cancelled` or `failed`.
    pub status: String,
    /// Model requests so far.
    pub steps: u64,
    /// Tokens so far.
    pub tokens: u64,
}

/// The row each `subrun_*` event's details describe (the three carry the
/// same fields, one type per event).
macro_rules! row_of {
    ($($details:ty),*) => {$(
        impl From<$details> for SubrunRow {
            fn from(d: $details) -> SubrunRow {
                SubrunRow {
                    id: d.id,
                    kind: d.kind,
                    label: d.label,
                    status: d.status,
                    steps: d.steps,
                    tokens: d.tokens,
                }
            }
        }
    )*};
}

row_of!(
    SubrunStartedDetails,
    SubrunProgressDetails,
    SubrunFinishedDetails
);

impl SubrunRow {
    /// A turn that ended leaves no subagent running.
    pub fn ended_with_turn(&mut self) {
        if self.status == "running" {
            self.status = "cancelled".into();
        }
    }
}

/// `1234` as `1234`, `12345` as `12.3k`.
fn tokens(n: u64) -> String {
    if n < 10_000 {
        n.to_string()
    } else {
        format!("{:.1}k", n as f64 / 1000.0)
    }
}

/// The row's lines: folded, one line; unfolded, its session and how to read it.
pub fn lines(out: &mut Vec<Line<'static>>, row: &SubrunRow, spinner: &str, unfold: bool) {
    let (mark, style) = match row.status.as_str() {
        "running" => (spinner, Style::new().fg(Color::Cyan)),
        "done" => ("✓", Style::new().fg(Color::Green)),
        _ => ("✗", Style::new().fg(Color::Red)),
    };
    let fold = if unfold { "▾" } else { "▸" };
    let dim = Style::new().fg(Color::DarkGray);
    out.push(Line::from(vec![
        Span::styled(format!("{mark} {fold} "), style),
        Span::styled(format!("{} subagent", row.kind), Style::new().bold()),
        Span::raw(format!(" {}", row.label)),
        Span::styled(
            format!(
                " · {} step{} · {} tokens · {}",
                row.steps,
                if row.steps == 1 { "" } else { "s" },
                tokens(row.tokens),
                row.status
            ),
            dim,
        ),
    ]));
    if unfold {
        out.push(Line::styled(format!("    session {}", row.id), dim));
        out.push(Line::styled(
            format!("    its log: seekclaw sessions show {}", row.id),
            dim,
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(lines: &[Line<'_>]) -> Vec<String> {
        lines
            .iter()
            .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
            .collect()
    }

    #[test]
    fn a_row_folds_to_one_line_of_progress_and_unfolds_to_its_session() {
        let mut row = SubrunRow::from(SubrunStartedDetails::of(
            "p-sr-1".into(),
            "explore".into(),
            "where is x?".into(),
            "running".into(),
            2,
            12_345,
        ));
        let mut out = Vec::new();
        lines(&mut out, &row, "⠋", false);
        assert_eq!(
            text(&out),
            ["⠋ ▸ explore subagent where is x? · 2 steps · 12.3k tokens · running"]
        );
        row.ended_with_turn();
        let mut out = Vec::new();
        lines(&mut out, &row, "⠋", true);
        assert_eq!(out.len(), 3);
        assert!(text(&out)[0].starts_with("✗ ▾ explore subagent"));
        assert!(text(&out)[0].ends_with("cancelled"));
        assert_eq!(text(&out)[1], "    session p-sr-1");
    }
}
