//! `seekclaw run` on a terminal: the chat's look printed as scrolling text.
//! Styled lines (the same builders the UI draws with) become SGR sequences
//! through crossterm's style API, wrapped to the terminal's width.
//!
//! The answer is settled a Markdown block at a time: deltas are buffered and
//! each run of complete blocks (up to a blank line outside a code fence) is
//! rendered once it is complete, the rest when the step's text ends (a tool
//! starts, the turn ends); rendering whole blocks keeps emphasis split over
//! deltas, fences and tables right. On a terminal ([`Printer::live`]) the
//! unfinished block also shows raw as it streams and is redrawn rendered
//! when it ends (see `print_live`), and a spinner line shows while the run
//! waits for the model or a tool. A running tool shows as one transient
//! line, replaced by its ✓/✗ row (duration, diff) when it ends.

use std::collections::HashMap;
use std::io::{self, Write};
use std::time::Instant;

use crossterm::style::{Print, PrintStyledContent, StyledContent};
use crossterm::terminal::{Clear, ClearType};
use crossterm::{cursor, queue};
use ratatui::backend::IntoCrossterm;
use ratatui::style::{Color, Style};
use ratatui::text::{Line, Span};

use crate::app::{ToolRow, ToolState};
use crate::print_live::{LiveText, frame};
use crate::render::{conversation, wrap};

/// The terminal's width in columns (80 when it cannot be read).
pub fn terminal_width() -> usize {
    crossterm::terminal::size().map_or(80, |(w, _)| usize::from(w))
}

/// The terminal's height in rows (24 when it cannot be read).
pub fn terminal_height() -> usize {
    crossterm::terminal::size().map_or(24, |(_, h)| usize::from(h))
}

/// Writes `lines` wrapped to `width` columns, one terminal line each, styled
/// with SGR sequences (each styled span resets after itself).
pub fn write_lines(
    out: &mut impl Write,
    lines: Vec<Line<'static>>,
    width: usize,
) -> io::Result<()> {
    for line in wrap::wrap(lines, width) {
        write_line(out, &line)?;
        queue!(out, Print('\n'))?;
    }
    Ok(())
}

fn write_line(out: &mut impl Write, line: &Line<'_>) -> io::Result<()> {
    for span in &line.spans {
        let style = line.style.patch(span.style);
        if style == Style::default() {
            queue!(out, Print(span.content.as_ref()))?;
        } else {
            let content = StyledContent::new(style.into_crossterm(), span.content.as_ref());
            queue!(out, PrintStyledContent(content))?;
        }
    }
    Ok(())
}

/// The byte length of the leading complete Markdown blocks of `text`: up to
/// its last blank line that is outside a fenced code block (`None` when there
/// is none yet).
pub fn complete_blocks(text: &str) -> Option<usize> {
    let mut in_fence = false;
    let mut end = None;
    let mut pos = 0;
    for line in text.split_inclusive('\n') {
        pos += line.len();
        if !line.ends_with('\n') {
            break; // an unfinished line decides nothing yet
        }
        let t = line.trim_start();
        if t.starts_with("```") || t.starts_with("~~~") {
            in_fence = !in_fence;
        } else if !in_fence && t.trim().is_empty() {
            end = Some(pos);
        }
    }
    end
}

/// Prints one turn's events as they come (see the module doc).
pub struct Printer<W: Write> {
    out: W,
    width: usize,
    /// Answer text of the current step not printed yet.
    text: String,
    /// Whether any answer text streamed (else the final answer is printed).
    streamed: bool,
    /// Tools started and not done: (call id, name, summary).
    running: Vec<(String, String, String)>,
    /// Diffs of tools not done yet, by call id.
    diffs: HashMap<String, String>,
    /// A running tool's or the spinner's line is on screen, without its newline.
    transient: bool,
    /// The terminal's height when printing live (raw streaming, spinner).
    height: Option<usize>,
    /// The unfinished block as streamed raw (live only).
    raw: LiveText,
    /// What the run waits for, since when (the spinner's line; live only).
    waiting: Option<(Instant, String)>,
    started: Instant,
    steps: u32,
    input_tokens: u64,
    output_tokens: u64,
    /// USD so far; `None` once a step's model had no known prices.
    cost: Option<f64>,
}

impl<W: Write> Printer<W> {
    /// A printer to `out`, a terminal `width` columns wide.
    pub fn new(out: W, width: usize) -> Printer<W> {
        Printer {
            out,
            width: width.max(1),
            text: String::new(),
            streamed: false,
            running: Vec::new(),
            diffs: HashMap::new(),
            transient: false,
            height: None,
            raw: LiveText::default(),
            waiting: None,
            started: Instant::now(),
            steps: 0,
            input_tokens: 0,
            output_tokens: 0,
            cost: Some(0.0),
        }
    }

    /// The writer back (tests read what was printed).
    pub fn into_inner(self) -> W {
        self.out
    }

    /// Prints live to a terminal `height` rows tall: the unfinished block
    /// raw as it streams, and a spinner while waiting ([`Printer::tick`]).
    pub fn live(mut self, height: usize) -> Printer<W> {
        self.height = Some(height.max(2));
        self.waiting = Some((Instant::now(), "starting".into()));
        self
    }

    /// A piece of the answer.
    pub fn delta(&mut self, delta: &str) -> io::Result<()> {
        self.streamed = true;
        self.waiting = None;
        let Some(height) = self.height else {
            self.text.push_str(delta);
            if let Some(end) = complete_blocks(&self.text) {
                let done: String = self.text.drain(..end).collect();
                self.markdown(&done)?;
            }
            return Ok(());
        };
        self.clear_transient()?;
        let shown = self.text.len();
        self.text.push_str(delta);
        match complete_blocks(&self.text) {
            // The block's end came with this delta (`end > shown`): its
            // rendering replaces the raw text, the rest streams raw again.
            Some(end) => {
                let done: String = self.text.drain(..end).collect();
                self.settle(&done, done.get(shown..).unwrap_or_default())?;
                let rest = self.text.clone();
                self.raw.push(&mut self.out, &rest, self.width, height)?;
            }
            None => self.raw.push(&mut self.out, delta, self.width, height)?,
        }
        self.out.flush()
    }

    /// A model step starts (`step` counts from 1).
    pub fn step(&mut self, step: u32) -> io::Result<()> {
        self.steps = self.steps.max(step);
        self.end_text()
    }

    /// The run now waits for `what` (a model): the spinner says so.
    pub fn waiting(&mut self, what: impl Into<String>) -> io::Result<()> {
        if self.height.is_none() {
            return Ok(());
        }
        self.waiting = Some((Instant::now(), what.into()));
        self.show_running()
    }

    /// Redraws the spinner (call every ~100 ms); nothing while text streams.
    pub fn tick(&mut self) -> io::Result<()> {
        if self.height.is_some() && !self.raw.is_active() {
            self.show_running()?;
        }
        Ok(())
    }

    /// One provider attempt's tokens and its cost in USD (`None`: its model
    /// has no prices in the config, so the total is unknown, not free).
    pub fn usage(&mut self, input_tokens: u64, output_tokens: u64, cost: Option<f64>) {
        self.input_tokens += input_tokens;
        self.output_tokens += output_tokens;
        self.cost = self.cost.zip(cost).map(|(a, b)| a + b);
    }

    /// A tool call starts: the step's text so far is printed, then the
    /// call's transient line.
    pub fn tool_start(&mut self, call_id: &str, name: &str, summary: &str) -> io::Result<()> {
        self.end_text()?;
        self.running
            .push((call_id.into(), name.into(), summary.into()));
        self.show_running()
    }

    /// A line from the engine about the model (a failover, a retry),
    /// printed as it comes between the answer's blocks.
    pub fn notice(&mut self, text: &str) -> io::Result<()> {
        self.end_text()?;
        let line = Line::styled(text.to_string(), Style::new().fg(Color::Yellow));
        self.emit(vec![line])?;
        self.show_running()
    }

    /// A hook run ended: the chat's row for it (dim; a block, deny, stop,
    /// error or timeout highlighted with its message). Only finished runs
    /// are printed: a started one would be a line replaced a moment later.
    pub fn hook(&mut self, row: &crate::hooks::HookRow) -> io::Result<()> {
        self.end_text()?;
        let mut lines = Vec::new();
        crate::hooks::lines(&mut lines, row);
        self.emit(lines)?;
        self.show_running()
    }

    /// A tool changed a file (printed under its row when it ends). A call
    /// that changed several (`apply_patch`) sends one per file: all are kept.
    pub fn file_diff(&mut self, call_id: &str, diff: &str) {
        let kept = self.diffs.entry(call_id.into()).or_default();
        if !kept.is_empty() && !kept.ends_with('\n') {
            kept.push('\n');
        }
        kept.push_str(diff);
    }

    /// A tool call ended: its ✓/✗ row with the duration, and its diff.
    pub fn tool_done(
        &mut self,
        call_id: &str,
        name: &str,
        success: bool,
        duration_ms: f64,
        summary: &str,
    ) -> io::Result<()> {
        let start_summary = match self.running.iter().position(|r| r.0 == call_id) {
            Some(i) => self.running.remove(i).2,
            None => String::new(),
        };
        let row = ToolRow {
            call_id: call_id.into(),
            name: name.into(),
            // As the chat shows it: the result's summary, else the call's.
            summary: if summary.is_empty() {
                start_summary
            } else {
                summary.into()
            },
            state: if success {
                ToolState::Done
            } else {
                ToolState::Failed
            },
            duration_ms: Some(duration_ms),
            diff: self.diffs.remove(call_id),
        };
        let mut lines = Vec::new();
        conversation::tool(&mut lines, &row, 0, true);
        self.emit(lines)?;
        if self.running.is_empty() && self.height.is_some() {
            self.waiting = Some((Instant::now(), "waiting for the model".into()));
        }
        self.show_running()
    }

    /// The turn ended: the rest of the answer (`answer` when none streamed)
    /// and the closing usage line.
    pub fn finish(&mut self, answer: &str) -> io::Result<()> {
        if !self.streamed && !answer.is_empty() {
            self.text.push_str(answer);
        }
        self.waiting = None;
        self.end_text()?;
        self.running.clear();
        self.clear_transient()?;
        let line = Line::styled(self.closing_line(), Style::new().fg(Color::DarkGray));
        self.emit(vec![line])?;
        self.out.flush()
    }

    /// `tokens ↑IN ↓OUT · $COST · N steps · 12.3 s`.
    pub fn closing_line(&self) -> String {
        let steps = self.steps.max(1);
        format!(
            "tokens ↑{} ↓{} · {} · {steps} step{} · {:.1} s",
            self.input_tokens,
            self.output_tokens,
            match self.cost {
                // `max` keeps a rounding `-0.0` from printing as `$-0.0000`.
                Some(usd) => format!("${:.4}", usd.max(0.0)),
                None => "cost unknown".to_string(),
            },
            if steps == 1 { "" } else { "s" },
            self.started.elapsed().as_secs_f64()
        )
    }

    /// Prints the step's buffered text (all of it).
    fn end_text(&mut self) -> io::Result<()> {
        let text = std::mem::take(&mut self.text);
        if text.trim().is_empty() {
            self.raw.erase(&mut self.out, self.width)?;
            return Ok(());
        }
        self.settle(&text, "")
    }

    /// `done` rendered in place of its raw text on screen; `unshown` is the
    /// end of it not yet shown raw (printed raw when the raw text could not
    /// be erased: it stays as streamed).
    fn settle(&mut self, done: &str, unshown: &str) -> io::Result<()> {
        if self.raw.is_active()
            && let Some(height) = self.height
            && !unshown.is_empty()
            && self.raw.overflowed()
        {
            self.raw.push(&mut self.out, unshown, self.width, height)?;
        }
        if self.raw.erase(&mut self.out, self.width)? {
            self.markdown(done)
        } else {
            self.out.flush()
        }
    }

    fn markdown(&mut self, text: &str) -> io::Result<()> {
        let mut lines = crate::markdown::render(text);
        if lines.is_empty() {
            return Ok(());
        }
        lines.push(Line::default()); // a blank line between blocks, as in the chat
        self.emit(lines)
    }

    /// Prints whole lines, first clearing a transient tool line.
    fn emit(&mut self, lines: Vec<Line<'static>>) -> io::Result<()> {
        self.clear_transient()?;
        write_lines(&mut self.out, lines, self.width)?;
        self.out.flush()
    }

    fn clear_transient(&mut self) -> io::Result<()> {
        if self.transient {
            queue!(
                self.out,
                cursor::MoveToColumn(0),
                Clear(ClearType::CurrentLine)
            )?;
            self.transient = false;
        }
        Ok(())
    }

    /// The latest running tool as one line, cut to the width, no newline;
    /// live, with a spinner, or the spinner and what the run waits for.
    fn show_running(&mut self) -> io::Result<()> {
        if self.raw.is_active() {
            return self.out.flush();
        }
        self.clear_transient()?;
        let mut text = match (self.running.last(), &self.waiting, self.height) {
            (Some((_, name, summary)), _, live) => {
                let glyph = if live.is_some() {
                    frame(self.started)
                } else {
                    '⋯'
                };
                format!(
                    "{glyph} {name} {}",
                    summary.lines().next().unwrap_or_default()
                )
            }
            (None, Some((since, what)), Some(_)) => format!(
                "{} {what} · {:.1} s",
                frame(*since),
                since.elapsed().as_secs_f64()
            ),
            _ => return self.out.flush(),
        };
        while wrap::width_of(&text) >= self.width && text.pop().is_some() {}
        let line = Line::from(Span::styled(text, Style::new().fg(Color::Cyan)));
        write_line(&mut self.out, &line)?;
        self.transient = true;
        self.out.flush()
    }
}

#[cfg(test)]
#[path = "print_tests.rs"]
mod tests;
