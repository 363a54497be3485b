//! The prompt editor: multi-line text with a cursor, and the history of what
//! was sent (Up/Down recall it). A long paste is one block: a single
//! placeholder char in the buffer (shown as `[pasted 42 lines]`) whose full
//! text goes out with the message, so the cursor and Backspace treat it as
//! one unit.

/// Pastes longer than this many lines (or [`BLOCK_CHARS`] chars) fold.
const BLOCK_LINES: usize = 5;
/// Pastes longer than this many chars fold.
const BLOCK_CHARS: usize = 1000;
/// Placeholders are private-use chars from here on (one per folded paste).
const BLOCK_BASE: u32 = 0xF0000;

/// A multi-line text buffer with a cursor (a char index).
#[derive(Debug, Default)]
pub struct Editor {
    chars: Vec<char>,
    cursor: usize,
    history: Vec<String>,
    /// The history entry shown, when browsing.
    browsing: Option<usize>,
    /// What was typed before browsing started.
    draft: Vec<char>,
    /// Folded pastes; placeholder `BLOCK_BASE + i` stands for `blocks[i]`.
    blocks: Vec<String>,
}

impl Editor {
    /// The text typed so far, folded pastes expanded.
    pub fn text(&self) -> String {
        let mut out = String::with_capacity(self.chars.len());
        for &c in &self.chars {
            match self.block(c) {
                Some(block) => out.push_str(block),
                None => out.push(c),
            }
        }
        out
    }

    /// The buffer as it is edited: a folded paste is one placeholder char
    /// (see [`Editor::label`]); cursor positions index these chars.
    pub fn raw(&self) -> &[char] {
        &self.chars
    }

    /// How a placeholder char shows (`[pasted 42 lines]`); `None` for text.
    pub fn label(&self, c: char) -> Option<String> {
        let block = self.block(c)?;
        let lines = block.lines().count();
        Some(if lines > 1 {
            format!("[pasted {lines} lines]")
        } else {
            format!("[pasted {} chars]", block.chars().count())
        })
    }

    fn block(&self, c: char) -> Option<&String> {
        let i = u32::from(c).checked_sub(BLOCK_BASE)?;
        self.blocks.get(usize::try_from(i).ok()?)
    }

    /// Replaces the chars `start..end` (of [`Editor::raw`]) with `with`,
    /// leaving the cursor after it (completion uses this).
    pub fn replace_range(&mut self, start: usize, end: usize, with: &str) {
        let end = end.min(self.chars.len());
        let start = start.min(end);
        self.chars.splice(start..end, with.chars());
        self.cursor = start + with.chars().count();
    }

    /// A paste: a long one (more than 5 lines or 1000 chars) goes in as one
    /// folded block, a short one as typed text.
    pub fn paste(&mut self, s: &str) {
        let s = s.replace("\r\n", "\n").replace('\r', "\n");
        if s.lines().count() <= BLOCK_LINES && s.chars().count() <= BLOCK_CHARS {
            self.insert_str(&s);
            return;
        }
        let placeholder = u32::try_from(self.blocks.len())
            .ok()
            .and_then(|i| char::from_u32(BLOCK_BASE + i));
        match placeholder {
            Some(c) => {
                self.blocks.push(s);
                self.insert(c);
            }
            None => self.insert_str(&s),
        }
    }

    /// Whether nothing is typed.
    pub fn is_empty(&self) -> bool {
        self.chars.is_empty()
    }

    /// The cursor as a char index into [`Editor::text`].
    pub fn cursor(&self) -> usize {
        self.cursor
    }

    /// Inserts one character at the cursor.
    pub fn insert(&mut self, c: char) {
        self.chars.insert(self.cursor, c);
        self.cursor += 1;
    }

    /// Inserts a pasted text at the cursor (`\r\n` and `\r` become `\n`).
    pub fn insert_str(&mut self, s: &str) {
        let s = s.replace("\r\n", "\n").replace('\r', "\n");
        for c in s.chars() {
            self.insert(c);
        }
    }

    /// Deletes the character before the cursor.
    pub fn backspace(&mut self) {
        if self.cursor > 0 {
            self.cursor -= 1;
            self.chars.remove(self.cursor);
        }
    }

    /// Deletes the character under the cursor.
    pub fn delete(&mut self) {
        if self.cursor < self.chars.len() {
            self.chars.remove(self.cursor);
        }
    }

    /// Moves the cursor one character left.
    pub fn left(&mut self) {
        self.cursor = self.cursor.saturating_sub(1);
    }

    /// Moves the cursor one character right.
    pub fn right(&mut self) {
        self.cursor = (self.cursor + 1).min(self.chars.len());
    }

    /// Moves the cursor to the start of its line.
    pub fn home(&mut self) {
        self.cursor = self.line_start(self.cursor);
    }

    /// Moves the cursor to the end of its line.
    pub fn end(&mut self) {
        let mut i = self.cursor;
        while i < self.chars.len() && self.chars[i] != '\n' {
            i += 1;
        }
        self.cursor = i;
    }

    /// Up: the line above, or on the first line the previous history entry.
    pub fn up(&mut self) {
        let start = self.line_start(self.cursor);
        if start == 0 {
            self.history_back();
            return;
        }
        let col = self.cursor - start;
        let prev_start = self.line_start(start - 1);
        self.cursor = prev_start + col.min(start - 1 - prev_start);
    }

    /// Down: the line below, or on the last line the next history entry.
    pub fn down(&mut self) {
        let start = self.line_start(self.cursor);
        let col = self.cursor - start;
        let mut end = self.cursor;
        while end < self.chars.len() && self.chars[end] != '\n' {
            end += 1;
        }
        if end == self.chars.len() {
            self.history_forward();
            return;
        }
        let next_start = end + 1;
        let mut next_end = next_start;
        while next_end < self.chars.len() && self.chars[next_end] != '\n' {
            next_end += 1;
        }
        self.cursor = next_start + col.min(next_end - next_start);
    }

    /// Empties the editor and returns its text, recording it in the history.
    pub fn take(&mut self) -> String {
        let text = self.text();
        if !text.trim().is_empty() && self.history.last() != Some(&text) {
            self.history.push(text.clone());
        }
        self.clear();
        text
    }

    /// Empties the editor (the history stays).
    pub fn clear(&mut self) {
        self.chars.clear();
        self.blocks.clear();
        self.cursor = 0;
        self.browsing = None;
        self.draft.clear();
    }

    fn line_start(&self, mut i: usize) -> usize {
        while i > 0 && self.chars[i - 1] != '\n' {
            i -= 1;
        }
        i
    }

    fn history_back(&mut self) {
        let next = match self.browsing {
            None if self.history.is_empty() => return,
            None => {
                self.draft = std::mem::take(&mut self.chars);
                self.history.len() - 1
            }
            Some(0) => return,
            Some(i) => i - 1,
        };
        self.show_history(next);
    }

    fn history_forward(&mut self) {
        match self.browsing {
            None => {}
            Some(i) if i + 1 < self.history.len() => self.show_history(i + 1),
            Some(_) => {
                self.browsing = None;
                self.chars = std::mem::take(&mut self.draft);
                self.cursor = self.chars.len();
            }
        }
    }

    fn show_history(&mut self, i: usize) {
        self.browsing = Some(i);
        self.chars = self
            .history
            .get(i)
            .map_or_else(Vec::new, |s| s.chars().collect());
        self.cursor = self.chars.len();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn typed(s: &str) -> Editor {
        let mut e = Editor::default();
        e.insert_str(s);
        e
    }

    #[test]
    fn edits_at_the_cursor() {
        let mut e = typed("héllo");
        e.left();
        e.left();
        e.backspace();
        e.insert('L');
        assert_eq!(e.text(), "héLlo");
        e.home();
        e.delete();
        assert_eq!(e.text(), "éLlo");
        e.end();
        e.insert('!');
        assert_eq!(e.text(), "éLlo!");
    }

    #[test]
    fn up_and_down_move_between_lines_then_through_history() {
        let mut e = typed("first");
        assert_eq!(e.take(), "first");
        e.insert_str("second");
        e.take();
        e.insert_str("ab\ncdef");
        e.up();
        assert_eq!(e.cursor(), 2, "end of the shorter line above");
        e.up();
        assert_eq!(e.text(), "second");
        e.up();
        assert_eq!(e.text(), "first");
        e.up();
        assert_eq!(e.text(), "first", "stays at the oldest");
        e.down();
        assert_eq!(e.text(), "second");
        e.down();
        assert_eq!(e.text(), "ab\ncdef", "the draft comes back");
    }

    #[test]
    fn a_long_paste_is_one_folded_block_sent_in_full() {
        let mut e = typed("see ");
        let long: String = (1..=42).map(|i| format!("line {i}\r\n")).collect();
        e.paste(&long);
        e.insert('!');
        assert_eq!(e.raw().len(), 6, "one char for the whole block");
        assert_eq!(e.label(e.raw()[4]).as_deref(), Some("[pasted 42 lines]"));
        assert_eq!(e.text(), format!("see {}!", long.replace("\r\n", "\n")));
        e.left();
        e.backspace();
        assert_eq!(e.text(), "see !", "Backspace removes the whole block");
        e.paste("short\npaste");
        assert_eq!(e.text(), "see short\npaste!", "a short paste is typed text");
    }

    #[test]
    fn paste_normalises_line_ends() {
        let e = typed("a\r\nb\rc");
        assert_eq!(e.text(), "a\nb\nc");
    }
}
