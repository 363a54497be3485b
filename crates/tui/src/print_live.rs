//! The live part of `seekclaw run` on a terminal: the answer's unfinished
//! Markdown block shown raw as it streams (erased and redrawn rendered once
//! the block ends), and the spinner line shown while the run waits for the
//! model or a tool.
//!
//! The raw block can only be erased while all of it is still on screen: the
//! rows it takes are counted, and a block that grows taller than the terminal
//! simply stays as it streamed (nothing is lost, only its styling).

use std::io::{self, Write};
use std::time::Instant;

use crossterm::style::Print;
use crossterm::terminal::{Clear, ClearType};
use crossterm::{cursor, queue};

use crate::render::wrap;

/// Braille spinner frames, one per 80 ms.
const FRAMES: [char; 10] = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/// The spinner glyph for a wait that began at `since`.
pub(crate) fn frame(since: Instant) -> char {
    let n = since.elapsed().as_millis() / 80;
    FRAMES[usize::try_from(n % FRAMES.len() as u128).unwrap_or(0)]
}

/// The raw text of the block being streamed, as it is on screen.
#[derive(Debug, Default)]
pub(crate) struct LiveText {
    /// What is shown, as printed (tabs expanded, control characters gone).
    shown: String,
    /// It no longer fits on screen: it stays as streamed.
    overflowed: bool,
}

impl LiveText {
    /// Whether raw text is on screen.
    pub(crate) fn is_active(&self) -> bool {
        !self.shown.is_empty()
    }

    /// It grew taller than the screen: it will stay as streamed.
    pub(crate) fn overflowed(&self) -> bool {
        self.overflowed
    }

    /// Shows `text` after what is already shown.
    pub(crate) fn push(
        &mut self,
        out: &mut impl Write,
        text: &str,
        width: usize,
        height: usize,
    ) -> io::Result<()> {
        let clean = printable(text);
        queue!(out, Print(&clean))?;
        self.shown.push_str(&clean);
        if rows(&self.shown, width) + 1 >= height {
            self.overflowed = true;
        }
        Ok(())
    }

    /// Takes the raw text off the screen so its rendering can replace it.
    /// `false` when it could not be (it scrolled away): it stays, ended by
    /// a newline, and the caller must not print the same text again.
    pub(crate) fn erase(&mut self, out: &mut impl Write, width: usize) -> io::Result<bool> {
        let shown = std::mem::take(&mut self.shown);
        if shown.is_empty() {
            return Ok(true);
        }
        if std::mem::take(&mut self.overflowed) {
            if !shown.ends_with('\n') {
                queue!(out, Print("\n"))?;
            }
            return Ok(false);
        }
        let up = rows(&shown, width).saturating_sub(1);
        queue!(out, cursor::MoveToColumn(0))?;
        if up > 0 {
            queue!(out, cursor::MoveUp(u16::try_from(up).unwrap_or(u16::MAX)))?;
        }
        queue!(out, Clear(ClearType::FromCursorDown))?;
        Ok(true)
    }
}

/// `text` as it can be printed raw: tabs as spaces, no control characters
/// but newlines (they would move the cursor where the row count cannot see).
fn printable(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\n' => out.push('\n'),
            '\t' => out.push_str("    "),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

/// Terminal rows `text` takes from the start of a row, `width` columns wide
/// (the cursor ends on the last).
fn rows(text: &str, width: usize) -> usize {
    let width = width.max(1);
    text.split('\n')
        .map(|line| wrap::width_of(line).div_ceil(width).max(1))
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_count_wrapped_lines_and_newlines() {
        assert_eq!(rows("abc", 10), 1);
        assert_eq!(
            rows("abcdefghij", 10),
            1,
            "a full row keeps the cursor on it"
        );
        assert_eq!(rows("abcdefghijk", 10), 2);
        assert_eq!(rows("a\nb", 10), 2);
        assert_eq!(
            rows("a\n", 10),
            2,
            "after a newline the cursor is on the next row"
        );
    }

    #[test]
    fn raw_text_is_erased_row_by_row_unless_it_overflowed() {
        let mut live = LiveText::default();
        let mut out = Vec::new();
        live.push(&mut out, "one\ttwo\x07\nthree", 80, 24).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), "one    two\nthree");
        let mut out = Vec::new();
        assert!(live.erase(&mut out, 80).unwrap());
        // Column 0, one row up, clear to the end of the screen.
        assert_eq!(String::from_utf8(out).unwrap(), "\x1b[1G\x1b[1A\x1b[J");
        assert!(!live.is_active());

        let mut out = Vec::new();
        live.push(&mut out, "a\nb\nc\nd", 80, 4).unwrap();
        let mut out = Vec::new();
        assert!(!live.erase(&mut out, 80).unwrap(), "taller than the screen");
        assert_eq!(String::from_utf8(out).unwrap(), "\n");
    }
}
