//! Newline framing with a hard cap per line. An over-long line is discarded up to its
//! newline and reported once, so one huge request never takes the connection down.

use tokio::io::{AsyncBufRead, AsyncBufReadExt};

/// What the reader produced next.
#[derive(Debug, PartialEq, Eq)]
pub enum Frame {
    /// A complete line without its `\n` (and without a trailing `\r`).
    Line(Vec<u8>),
    /// A line longer than the cap was skipped; holds the bytes seen.
    TooLarge(usize),
    /// The peer closed its side.
    Eof,
}

pub struct LineReader<R> {
    inner: R,
    max: usize,
    buf: Vec<u8>,
}

impl<R: AsyncBufRead + Unpin> LineReader<R> {
    pub fn new(inner: R, max: usize) -> Self {
        LineReader {
            inner,
            max,
            buf: Vec::new(),
        }
    }

    /// Next frame. Blank lines are skipped, as the protocol asks.
    pub async fn next(&mut self) -> std::io::Result<Frame> {
        loop {
            match self.read_one().await? {
                Frame::Line(line) if line.iter().all(u8::is_ascii_whitespace) => continue,
                other => return Ok(other),
            }
        }
    }

    async fn read_one(&mut self) -> std::io::Result<Frame> {
        self.buf.clear();
        let mut discarded: usize = 0;
        loop {
            let chunk = self.inner.fill_buf().await?;
            if chunk.is_empty() {
                // A final line without `\n` still counts; a discarded one is reported.
                return Ok(if discarded > 0 {
                    Frame::TooLarge(discarded)
                } else if self.buf.is_empty() {
                    Frame::Eof
                } else {
                    Frame::Line(std::mem::take(&mut self.buf))
                });
            }
            let (take, found) = match chunk.iter().position(|b| *b == b'\n') {
                Some(pos) => (pos + 1, true),
                None => (chunk.len(), false),
            };
            let body = if found {
                &chunk[..take - 1]
            } else {
                &chunk[..take]
            };
            if discarded > 0 || self.buf.len() + body.len() > self.max {
                discarded += self.buf.len() + body.len();
                self.buf = Vec::new();
            } else {
                self.buf.extend_from_slice(body);
            }
            self.inner.consume(take);
            if found {
                if discarded > 0 {
                    return Ok(Frame::TooLarge(discarded));
                }
                if self.buf.last() == Some(&b'\r') {
                    self.buf.pop();
                }
                return Ok(Frame::Line(std::mem::take(&mut self.buf)));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn frames(input: &[u8], max: usize) -> Vec<Frame> {
        let mut r = LineReader::new(tokio::io::BufReader::with_capacity(4, input), max);
        let mut out = Vec::new();
        loop {
            let f = r.next().await.unwrap();
            let eof = f == Frame::Eof;
            out.push(f);
            if eof {
                return out;
            }
        }
    }

    #[tokio::test]
    async fn splits_lines_skips_blanks_and_caps_length() {
        let out = frames(b"ab\r\n\n  \ncdef\n0123456789abc\nxy", 8).await;
        assert_eq!(
            out,
            vec![
                Frame::Line(b"ab".to_vec()),
                Frame::Line(b"cdef".to_vec()),
                Frame::TooLarge(13),
                Frame::Line(b"xy".to_vec()),
                Frame::Eof
            ]
        );
    }
}
