//! Texts as lines: the file's lines as byte ranges (so a match maps back to
//! its exact bytes), the model's strings as owned lines.

/// One line of the file: its content `start..end` (without the line ending)
/// and where the next line begins (`next == end` for a last line without one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Line {
    pub start: usize,
    pub end: usize,
    pub next: usize,
}

impl Line {
    /// The line has a line ending after it.
    pub(super) fn has_ending(&self) -> bool {
        self.next > self.end
    }
}

/// The lines of `text[from..]`, with offsets into `text`.
pub(super) fn file_lines(text: &str, from: usize) -> Vec<Line> {
    let mut lines = Vec::with_capacity(text.len() / 32 + 1);
    let mut start = from;
    let bytes = text.as_bytes();
    while start < text.len() {
        match memchr_newline(&bytes[start..]) {
            Some(i) => {
                let nl = start + i;
                let end = if nl > start && bytes[nl - 1] == b'\r' {
                    nl - 1
                } else {
                    nl
                };
                lines.push(Line {
                    start,
                    end,
                    next: nl + 1,
                });
                start = nl + 1;
            }
            None => {
                lines.push(Line {
                    start,
                    end: text.len(),
                    next: text.len(),
                });
                break;
            }
        }
    }
    lines
}

fn memchr_newline(bytes: &[u8]) -> Option<usize> {
    bytes.iter().position(|&b| b == b'\n')
}

/// A string from the model as lines (`\r` dropped), and whether it ended
/// with a line break.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Model {
    pub lines: Vec<String>,
    pub newline_end: bool,
}

impl Model {
    pub(super) fn new(text: &str) -> Model {
        let newline_end = text.ends_with('\n');
        let body = text.strip_suffix('\n').unwrap_or(text);
        let lines = if body.is_empty() && newline_end {
            vec![String::new()]
        } else if body.is_empty() {
            Vec::new()
        } else {
            body.split('\n')
                .map(|l| l.strip_suffix('\r').unwrap_or(l).to_string())
                .collect()
        };
        Model { lines, newline_end }
    }

    /// How many blank lines open and close the text (none when it is all blank).
    pub(super) fn blank_ends(&self) -> (usize, usize) {
        let blank = |l: &&String| l.trim().is_empty();
        let lead = self.lines.iter().take_while(blank).count();
        if lead == self.lines.len() {
            return (0, 0);
        }
        (lead, self.lines.iter().rev().take_while(blank).count())
    }

    /// Drops up to `lead`/`trail` blank lines from the ends.
    pub(super) fn trim_blank_ends_up_to(&mut self, lead: usize, trail: usize) {
        let l = self
            .lines
            .iter()
            .take(lead)
            .take_while(|l| l.trim().is_empty())
            .count();
        self.lines.drain(..l);
        let t = self
            .lines
            .iter()
            .rev()
            .take(trail)
            .take_while(|l| l.trim().is_empty())
            .count();
        self.lines.truncate(self.lines.len() - t);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_lines_keep_their_endings_apart() {
        let text = "a\r\nb\n\nc";
        let lines = file_lines(text, 0);
        let content: Vec<&str> = lines.iter().map(|l| &text[l.start..l.end]).collect();
        assert_eq!(content, ["a", "b", "", "c"]);
        assert!(lines[0].has_ending() && !lines[3].has_ending());
        assert_eq!(lines[0].next, 3);
        assert_eq!(file_lines("x\n", 0).len(), 1);
        assert_eq!(file_lines("ab\ncd\n", 3)[0].start, 3);
    }

    #[test]
    fn model_lines() {
        let m = Model::new("a\r\nb\n");
        assert_eq!(m.lines, ["a", "b"]);
        assert!(m.newline_end);
        assert_eq!(Model::new("\n").lines, [""]);
        let mut m = Model::new("\n\nx\ny\n\n");
        assert_eq!(m.blank_ends(), (2, 1));
        m.trim_blank_ends_up_to(2, 1);
        assert_eq!(m.lines, ["x", "y"]);
        assert_eq!(Model::new("\n \n").blank_ends(), (0, 0));
        let mut n = Model::new("\nz\n");
        n.trim_blank_ends_up_to(2, 1);
        assert_eq!(n.lines, ["z"]);
    }
}
