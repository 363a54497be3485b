//! Markdown to styled lines (pulldown-cmark): headings, emphasis, lists, quotes,
//! inline code and fenced code blocks (syntax-highlighted when given a
//! [`Highlighter`]). Lines are unwrapped; `render::wrap` fits them to the
//! width. A partial answer (mid-stream) renders as far as it goes.

use pulldown_cmark::{CodeBlockKind, Event, HeadingLevel, Options, Parser, Tag, TagEnd};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

use crate::highlight::Highlighter;

/// How code (inline and blocks) looks.
pub const CODE: Style = Style::new().fg(Color::LightYellow);
const CODE_BLOCK: Style = Style::new().fg(Color::LightGreen).bg(Color::Black);
const HEADING: Style = Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD);
const QUOTE: Style = Style::new().fg(Color::Gray).add_modifier(Modifier::ITALIC);

/// Renders `text` as Markdown, code blocks in one colour.
pub fn render(text: &str) -> Vec<Line<'static>> {
    render_with(text, None)
}

/// Renders `text` as Markdown; code blocks naming a language `highlighter`
/// knows are syntax-highlighted.
pub fn render_with(text: &str, highlighter: Option<&Highlighter>) -> Vec<Line<'static>> {
    let mut r = Renderer {
        highlighter,
        ..Renderer::default()
    };
    for event in Parser::new_ext(text, Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TABLES) {
        r.event(event);
    }
    // An unclosed fence (mid-stream) still shows its code.
    r.code_lines();
    r.flush();
    while r.lines.last().is_some_and(|l| l.spans.is_empty()) {
        r.lines.pop();
    }
    r.lines
}

#[derive(Default)]
struct Renderer<'h> {
    highlighter: Option<&'h Highlighter>,
    /// The open code block: its language and code so far.
    code: Option<(String, String)>,
    lines: Vec<Line<'static>>,
    current: Vec<Span<'static>>,
    styles: Vec<Style>,
    /// One entry per open list: the next number of an ordered list.
    lists: Vec<Option<u64>>,
    quote_depth: usize,
    link: Option<String>,
    table: Option<Table>,
}

/// A table being read: rows of cells of spans; the first `header` rows are the head.
#[derive(Default)]
struct Table {
    rows: Vec<Vec<Vec<Span<'static>>>>,
    row: Vec<Vec<Span<'static>>>,
    header: usize,
}

impl Table {
    /// The table as lines: cells padded to their column's width, `│` between
    /// them, a rule under the head.
    fn lines(self) -> Vec<Line<'static>> {
        let rule = Style::new().fg(Color::DarkGray);
        let width = |cell: &Vec<Span<'static>>| -> usize {
            cell.iter()
                .map(|s| crate::render::wrap::width_of(&s.content))
                .sum()
        };
        let columns = self.rows.iter().map(Vec::len).max().unwrap_or(0);
        let widths: Vec<usize> = (0..columns)
            .map(|c| {
                self.rows
                    .iter()
                    .filter_map(|r| r.get(c))
                    .map(width)
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        let mut out = Vec::new();
        for (i, row) in self.rows.into_iter().enumerate() {
            let head = i < self.header;
            let mut spans = Vec::new();
            for (c, w) in widths.iter().enumerate() {
                if c > 0 {
                    spans.push(Span::styled(" │ ", rule));
                }
                let cell = row.get(c).cloned().unwrap_or_default();
                let pad = w - width(&cell).min(*w);
                for span in cell {
                    let style = if head {
                        span.style.add_modifier(Modifier::BOLD)
                    } else {
                        span.style
                    };
                    spans.push(Span::styled(span.content, style));
                }
                spans.push(Span::raw(" ".repeat(pad)));
            }
            out.push(Line::from(spans));
            if head && i + 1 == self.header {
                let parts: Vec<String> = widths.iter().map(|w| "─".repeat(*w)).collect();
                out.push(Line::styled(parts.join("─┼─"), rule));
            }
        }
        out
    }
}

impl Renderer<'_> {
    /// Ends the open code block: its lines, highlighted when it can be.
    fn code_lines(&mut self) {
        let Some((lang, code)) = self.code.take() else {
            return;
        };
        let gutter = Span::styled("  ", CODE_BLOCK);
        if let Some(lines) = self.highlighter.and_then(|h| h.highlight(&lang, &code)) {
            for spans in lines {
                let mut all = vec![gutter.clone()];
                all.extend(spans.into_iter().map(|s| {
                    let style = CODE_BLOCK.patch(s.style);
                    s.style(style)
                }));
                self.lines.push(Line::from(all));
            }
            return;
        }
        for line in code.lines() {
            self.lines.push(Line::from(vec![
                gutter.clone(),
                Span::styled(line.replace('\t', "    "), CODE_BLOCK),
            ]));
        }
    }

    fn style(&self) -> Style {
        self.styles
            .iter()
            .fold(Style::default(), |acc, s| acc.patch(*s))
    }

    fn push_text(&mut self, text: &str) {
        if self.current.is_empty() && self.quote_depth > 0 {
            self.current
                .push(Span::styled("│ ".repeat(self.quote_depth), QUOTE));
        }
        self.current
            .push(Span::styled(text.replace('\t', "    "), self.style()));
    }

    fn flush(&mut self) {
        if !self.current.is_empty() {
            self.lines
                .push(Line::from(std::mem::take(&mut self.current)));
        }
    }

    /// Ends a block: its line, then one blank line (not inside a list).
    fn end_block(&mut self) {
        self.flush();
        if self.lists.is_empty() && self.lines.last().is_some_and(|l| !l.spans.is_empty()) {
            self.lines.push(Line::default());
        }
    }

    fn event(&mut self, event: Event<'_>) {
        match event {
            Event::Start(tag) => self.start(tag),
            Event::End(tag) => self.end(tag),
            Event::Text(t) if self.code.is_some() => {
                if let Some((_, code)) = self.code.as_mut() {
                    code.push_str(&t);
                }
            }
            Event::Text(t) => self.push_text(&t),
            Event::Code(c) => {
                let style = self.style().patch(CODE);
                self.current.push(Span::styled(c.to_string(), style));
            }
            Event::SoftBreak => self.push_text(" "),
            Event::HardBreak => self.flush(),
            Event::Rule => {
                self.flush();
                self.lines.push(Line::styled(
                    "────────────────",
                    Style::new().fg(Color::DarkGray),
                ));
                self.lines.push(Line::default());
            }
            Event::TaskListMarker(done) => self.push_text(if done { "[x] " } else { "[ ] " }),
            Event::Html(h) | Event::InlineHtml(h) => self.push_text(&h),
            _ => {}
        }
    }

    fn start(&mut self, tag: Tag<'_>) {
        match tag {
            Tag::Heading { level, .. } => {
                self.flush();
                let marks = match level {
                    HeadingLevel::H1 => "",
                    HeadingLevel::H2 => "",
                    _ => "› ",
                };
                self.styles.push(HEADING);
                if !marks.is_empty() {
                    self.push_text(marks);
                }
            }
            Tag::Strong => self.styles.push(Style::new().add_modifier(Modifier::BOLD)),
            Tag::Emphasis => self
                .styles
                .push(Style::new().add_modifier(Modifier::ITALIC)),
            Tag::Strikethrough => self
                .styles
                .push(Style::new().add_modifier(Modifier::CROSSED_OUT)),
            Tag::Link { dest_url, .. } => {
                self.link = Some(dest_url.to_string());
                self.styles.push(
                    Style::new()
                        .fg(Color::Blue)
                        .add_modifier(Modifier::UNDERLINED),
                );
            }
            Tag::BlockQuote(_) => {
                self.flush();
                self.quote_depth += 1;
                self.styles.push(QUOTE);
            }
            Tag::CodeBlock(kind) => {
                self.flush();
                let lang = match kind {
                    CodeBlockKind::Fenced(l) => l.to_string(),
                    CodeBlockKind::Indented => String::new(),
                };
                let shown = if lang.is_empty() {
                    String::new()
                } else {
                    format!(" {lang}")
                };
                self.lines.push(Line::styled(
                    format!("  ┌{shown}"),
                    Style::new().fg(Color::DarkGray),
                ));
                self.code = Some((lang, String::new()));
            }
            Tag::Table(_) => {
                self.flush();
                self.table = Some(Table::default());
            }
            Tag::TableHead | Tag::TableRow => {
                if let Some(t) = self.table.as_mut() {
                    t.row.clear();
                }
            }
            Tag::TableCell => self.current.clear(),
            Tag::List(start) => {
                self.flush();
                self.lists.push(start);
            }
            Tag::Item => {
                self.flush();
                let indent = "  ".repeat(self.lists.len().saturating_sub(1));
                let marker = match self.lists.last_mut() {
                    Some(Some(n)) => {
                        let m = format!("{n}. ");
                        *n += 1;
                        m
                    }
                    _ => "• ".to_string(),
                };
                self.current.push(Span::raw(indent));
                self.current
                    .push(Span::styled(marker, Style::new().fg(Color::Cyan)));
            }
            _ => {}
        }
    }

    fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::Heading(_) => {
                self.styles.pop();
                self.end_block();
            }
            TagEnd::Strong | TagEnd::Emphasis | TagEnd::Strikethrough => {
                self.styles.pop();
            }
            TagEnd::Link => {
                self.styles.pop();
                if let Some(url) = self.link.take() {
                    let shown = self.current.last().map(|s| s.content.to_string());
                    if shown.as_deref() != Some(url.as_str()) {
                        self.current.push(Span::styled(
                            format!(" ({url})"),
                            Style::new().fg(Color::DarkGray),
                        ));
                    }
                }
            }
            TagEnd::Paragraph => self.end_block(),
            TagEnd::BlockQuote(_) => {
                self.styles.pop();
                self.quote_depth = self.quote_depth.saturating_sub(1);
                self.end_block();
            }
            TagEnd::CodeBlock => {
                self.code_lines();
                self.lines
                    .push(Line::styled("  └", Style::new().fg(Color::DarkGray)));
                self.end_block();
            }
            TagEnd::TableCell => {
                let cell = std::mem::take(&mut self.current);
                if let Some(t) = self.table.as_mut() {
                    t.row.push(cell);
                }
            }
            TagEnd::TableHead | TagEnd::TableRow => {
                if let Some(t) = self.table.as_mut() {
                    let row = std::mem::take(&mut t.row);
                    t.rows.push(row);
                    if tag == TagEnd::TableHead {
                        t.header = t.rows.len();
                    }
                }
            }
            TagEnd::Table => {
                if let Some(t) = self.table.take() {
                    self.lines.extend(t.lines());
                }
                self.end_block();
            }
            TagEnd::Item => self.flush(),
            TagEnd::List(_) => {
                self.flush();
                self.lists.pop();
                if self.lists.is_empty() {
                    self.lines.push(Line::default());
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(lines: &[Line<'_>]) -> Vec<String> {
        lines.iter().map(|l| l.to_string()).collect()
    }

    #[test]
    fn emphasis_loses_its_markers_and_keeps_its_style() {
        let lines = render("Some **bold** and *it* and `code`.");
        assert_eq!(plain(&lines), ["Some bold and it and code."]);
        let bold = lines[0].spans.iter().find(|s| s.content == "bold").unwrap();
        assert!(bold.style.add_modifier.contains(Modifier::BOLD));
        let code = lines[0].spans.iter().find(|s| s.content == "code").unwrap();
        assert_eq!(code.style.fg, CODE.fg);
    }

    #[test]
    fn code_blocks_lists_and_headings() {
        let md = "# Title\n\n1. one\n2. two\n   - inner\n\n```rust\nfn main() {}\n\tx\n```\n";
        let text = plain(&render(md));
        assert_eq!(
            text,
            [
                "Title",
                "",
                "1. one",
                "2. two",
                "  • inner",
                "",
                "  ┌ rust",
                "  fn main() {}",
                "      x",
                "  └",
            ]
        );
    }

    #[test]
    fn tables_line_up_by_display_width() {
        let md = "| name | 值 |\n|---|---:|\n| `a` | 1 |\n| 你好 | 22 |\n";
        let text = plain(&render(md));
        assert_eq!(text, ["name │ 值", "─────┼───", "a    │ 1 ", "你好 │ 22",]);
    }

    #[test]
    fn a_highlighter_colours_known_languages_only() {
        let h = Highlighter::default();
        let md = "```rust\nlet x = 1;\n```\n\n```\nplain\n```\n";
        let lines = render_with(md, Some(&h));
        assert_eq!(plain(&lines), plain(&render(md)), "the same text");
        let rgb = |l: &Line<'_>| {
            l.spans
                .iter()
                .any(|s| matches!(s.style.fg, Some(Color::Rgb(..))))
        };
        let code = lines
            .iter()
            .find(|l| l.to_string().contains("let x"))
            .unwrap();
        assert!(rgb(code), "{code:?}");
        assert_eq!(code.spans[1].style.bg, CODE_BLOCK.bg);
        let other = lines
            .iter()
            .find(|l| l.to_string().contains("plain"))
            .unwrap();
        assert!(!rgb(other));
    }

    #[test]
    fn an_unclosed_fence_mid_stream_still_shows_its_code() {
        let text = plain(&render("Look:\n\n```\nlet x = 1;\n"));
        assert!(text.contains(&"  let x = 1;".to_string()), "{text:?}");
    }
}
