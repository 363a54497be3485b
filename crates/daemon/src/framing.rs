//! Newline framing with a hard cap per line. An over-long line is discarded up to its
//! newline and reported once, so one huge request never takes the connection down.
//! Writes give up on a peer that stops reading.

use std::time::Duration;

use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWrite, AsyncWriteExt, BufReader};

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

/// Cancel-safe: a partly read line stays in `buf` (and a partly skipped one in
/// `discarded`) when `next` is dropped, so the connection can `select!` on it.
pub struct LineReader<R> {
    inner: R,
    max: usize,
    buf: Vec<u8>,
    discarded: usize,
}

impl<R: tokio::io::AsyncRead + Unpin> LineReader<BufReader<R>> {
    /// True when input is already buffered, so the next frame may need no read.
    pub fn has_buffered(&self) -> bool {
        !self.inner.buffer().is_empty()
    }

    /// The next line if it is already complete in the buffer; never waits.
    /// Partial, blank or over-long lines are left to `next`.
    pub fn next_buffered(&mut self) -> Option<Frame> {
        if self.discarded > 0 {
            return None;
        }
        let chunk = self.inner.buffer();
        let pos = memchr::memchr(b'\n', chunk)?;
        if self.buf.len() + pos > self.max {
            return None;
        }
        let mut body = &chunk[..pos];
        if body.last() == Some(&b'\r') {
            body = &body[..body.len() - 1];
        }
        if self.buf.is_empty() && body.iter().all(u8::is_ascii_whitespace) {
            return None;
        }
        self.buf.extend_from_slice(body);
        self.inner.consume(pos + 1);
        Some(Frame::Line(std::mem::take(&mut self.buf)))
    }
}

impl<R: AsyncBufRead + Unpin> LineReader<R> {
    pub fn new(inner: R, max: usize) -> Self {
        LineReader {
            inner,
            max,
            buf: Vec::new(),
            discarded: 0,
        }
    }

    /// The underlying reader, with what it buffered past the last line, for
    /// an upgraded connection. `None` while a line is partly read.
    pub fn into_inner(self) -> Option<R> {
        (self.buf.is_empty() && self.discarded == 0).then_some(self.inner)
    }

    /// Hands a processed line's buffer back so the next line reuses its allocation.
    pub fn recycle(&mut self, mut line: Vec<u8>) {
        if self.buf.is_empty() && line.capacity() <= 1 << 20 {
            line.clear();
            self.buf = line;
        }
    }

    /// Next frame. Blank lines are skipped, as the protocol asks.
    pub async fn next(&mut self) -> std::io::Result<Frame> {
        loop {
            match self.read_one().await? {
                Frame::Line(line) if line.iter().all(u8::is_ascii_whitespace) => {
                    self.recycle(line);
                    continue;
                }
                other => return Ok(other),
            }
        }
    }

    async fn read_one(&mut self) -> std::io::Result<Frame> {
        loop {
            let chunk = self.inner.fill_buf().await?;
            if chunk.is_empty() {
                // A final line without `\n` still counts; a discarded one is reported.
                return Ok(if self.discarded > 0 {
                    Frame::TooLarge(std::mem::take(&mut self.discarded))
                } else if self.buf.is_empty() {
                    Frame::Eof
                } else {
                    Frame::Line(std::mem::take(&mut self.buf))
                });
            }
            let (take, found) = match memchr::memchr(b'\n', chunk) {
                Some(pos) => (pos + 1, true),
                None => (chunk.len(), false),
            };
            let body = if found {
                &chunk[..take - 1]
            } else {
                &chunk[..take]
            };
            if self.discarded > 0 || self.buf.len() + body.len() > self.max {
                self.discarded += self.buf.len() + body.len();
                self.buf = Vec::new();
            } else {
                self.buf.extend_from_slice(body);
            }
            self.inner.consume(take);
            if found {
                if self.discarded > 0 {
                    return Ok(Frame::TooLarge(std::mem::take(&mut self.discarded)));
                }
                if self.buf.last() == Some(&b'\r') {
                    self.buf.pop();
                }
                return Ok(Frame::Line(std::mem::take(&mut self.buf)));
            }
        }
    }
}

/// Writes `buf`, giving up when the peer accepts no byte for `stall` (a client
/// that stopped reading is cut off; a slow one that keeps reading is not).
pub async fn write_all_or_stall<W: AsyncWrite + Unpin>(
    w: &mut W,
    buf: &[u8],
    stall: Duration,
) -> bool {
    let mut off = 0;
    while off < buf.len() {
        match tokio::time::timeout(stall, w.write(&buf[off..])).await {
            Ok(Ok(n)) if n > 0 => off += n,
            Ok(_) => return false,
            Err(_) => {
                tracing::warn!(timeout = ?stall, "client stopped reading; disconnecting it");
                return false;
            }
        }
    }
    true
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
    async fn buffered_lines_are_taken_without_waiting_and_next_stays_cancel_safe() {
        let input: &[u8] = b"{\"a\":1}\r\n{\"b\":2}\npartial";
        let mut r = LineReader::new(tokio::io::BufReader::new(input), 64);
        assert_eq!(r.next().await.unwrap(), Frame::Line(b"{\"a\":1}".to_vec()));
        assert!(r.has_buffered());
        assert_eq!(r.next_buffered(), Some(Frame::Line(b"{\"b\":2}".to_vec())));
        assert_eq!(
            r.next_buffered(),
            None,
            "a partial line waits for more input"
        );
        assert_eq!(r.next().await.unwrap(), Frame::Line(b"partial".to_vec()));
        assert_eq!(r.next().await.unwrap(), Frame::Eof);

        // Dropping `next` mid-line keeps what was read.
        let (mut tx, rx) = tokio::io::duplex(64);
        let mut r = LineReader::new(tokio::io::BufReader::new(rx), 64);
        tokio::io::AsyncWriteExt::write_all(&mut tx, b"hel")
            .await
            .unwrap();
        let pending = tokio::time::timeout(std::time::Duration::from_millis(20), r.next()).await;
        assert!(pending.is_err());
        tokio::io::AsyncWriteExt::write_all(&mut tx, b"lo\n")
            .await
            .unwrap();
        assert_eq!(r.next().await.unwrap(), Frame::Line(b"hello".to_vec()));
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
