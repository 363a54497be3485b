//! Fitting styled lines to a width: word wrap by display width (graphemes
//! measured with unicode-width, as ratatui draws them), so CJK and emoji take
//! two columns and never split; a word longer than the width is broken.

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use unicode_segmentation::UnicodeSegmentation;
use unicode_width::UnicodeWidthStr;

/// `lines` wrapped to `width` columns (at least 1).
pub fn wrap(lines: Vec<Line<'static>>, width: usize) -> Vec<Line<'static>> {
    let width = width.max(1);
    let mut out = Vec::with_capacity(lines.len());
    for line in lines {
        wrap_line(line, width, &mut out);
    }
    out
}

/// The display width of `s`.
pub fn width_of(s: &str) -> usize {
    s.graphemes(true).map(UnicodeWidthStr::width).sum()
}

fn wrap_line(line: Line<'static>, width: usize, out: &mut Vec<Line<'static>>) {
    let line_style = line.style;
    let mut cells: Vec<(&str, Style, usize)> = Vec::new();
    for span in &line.spans {
        let style = line_style.patch(span.style);
        for g in span.content.graphemes(true) {
            let w = if g == "\t" { 4 } else { g.width() };
            cells.push((g, style, w));
        }
    }
    if cells.iter().map(|c| c.2).sum::<usize>() <= width {
        out.push(line);
        return;
    }
    let mut start = 0;
    while start < cells.len() {
        // The longest run from `start` that fits.
        let mut used = 0;
        let mut end = start;
        while end < cells.len() && used + cells[end].2 <= width {
            used += cells[end].2;
            end += 1;
        }
        if end == start {
            end = start + 1; // one cell wider than the whole width
        }
        let mut next = end;
        if end < cells.len() {
            // Mid-word: break after the last space of the run, when there is one.
            if cells[end].0 != " "
                && let Some(space) = (start + 1..=end).rev().find(|&i| cells[i - 1].0 == " ")
            {
                end = space;
                next = space;
            }
            while next < cells.len() && cells[next].0 == " " {
                next += 1;
            }
        }
        out.push(to_line(&cells[start..end], line_style));
        start = next;
    }
}

fn to_line(cells: &[(&str, Style, usize)], line_style: Style) -> Line<'static> {
    let mut spans: Vec<Span<'static>> = Vec::new();
    for (g, style, _) in cells {
        match spans.last_mut() {
            Some(last) if last.style == *style => last.content.to_mut().push_str(g),
            _ => spans.push(Span::styled(g.to_string(), *style)),
        }
    }
    let mut line = Line::from(spans);
    line.style = line_style;
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(lines: &[Line<'_>]) -> Vec<String> {
        lines.iter().map(|l| l.to_string()).collect()
    }

    #[test]
    fn breaks_at_spaces_and_keeps_styles() {
        let bold = Style::new().bold();
        let line = Line::from(vec![
            Span::raw("one two "),
            Span::styled("three four", bold),
        ]);
        let out = wrap(vec![line], 9);
        assert_eq!(texts(&out), ["one two ", "three ", "four"]);
        assert_eq!(out[1].spans[0].style, bold);
    }

    #[test]
    fn wide_characters_take_two_columns_and_are_never_split() {
        let out = wrap(vec![Line::raw("你好世界🎉ok")], 5);
        assert_eq!(texts(&out), ["你好", "世界", "🎉ok"]);
        assert!(out.iter().all(|l| width_of(&l.to_string()) <= 5));
    }

    #[test]
    fn a_word_that_ends_at_the_width_stays_on_its_line() {
        assert_eq!(
            texts(&wrap(vec![Line::raw("ab cd ef")], 5)),
            ["ab cd", "ef"]
        );
        assert_eq!(
            texts(&wrap(vec![Line::raw("ab cd ef")], 6)),
            ["ab cd ", "ef"]
        );
    }

    #[test]
    fn long_words_are_broken() {
        let out = wrap(vec![Line::raw("abcdefgh ij")], 3);
        assert_eq!(texts(&out), ["abc", "def", "gh ", "ij"]);
    }
}
