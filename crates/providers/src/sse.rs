//! Incremental Server-Sent Events decoder.
//!
//! Bytes arrive in arbitrary network chunks; lines (and UTF-8 sequences) may be
//! split anywhere. Complete lines are decoded straight from the chunk. The
//! borrowed API ([`SseDecoder::feed`]) hands out events whose `data` points
//! into the chunk when the event lies inside it (the common case: no copy, no
//! allocation, no UTF-8 pass: the JSON parser validates the strings it reads);
//! only data that spans chunks or lines is copied, into a reused buffer.
//! [`SseDecoder::push`] is the owned convenience on top.

use std::convert::Infallible;

use memchr::memchr_iter;

/// One decoded SSE item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SseEvent {
    /// A `:` comment line (a keep-alive); reported so the transport can reset
    /// its idle timer.
    Comment,
    /// A dispatched event.
    Message {
        /// The `event:` name, if any.
        event: Option<String>,
        /// The `data:` lines joined with `\n`.
        data: String,
    },
}

/// [`SseEvent`] borrowed from the decoder or the chunk being fed. `data` is
/// raw bytes, not yet checked to be UTF-8 (JSON consumers parse them with
/// `serde_json::from_slice`, which checks).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SseEventRef<'a> {
    /// A `:` comment line (a keep-alive).
    Comment,
    /// A dispatched event.
    Message {
        /// The `event:` name, if any.
        event: Option<&'a str>,
        /// The `data:` lines joined with `\n`.
        data: &'a [u8],
    },
}

impl SseEvent {
    /// The same event, borrowed.
    pub fn as_event_ref(&self) -> SseEventRef<'_> {
        match self {
            SseEvent::Comment => SseEventRef::Comment,
            SseEvent::Message { event, data } => SseEventRef::Message {
                event: event.as_deref(),
                data: data.as_bytes(),
            },
        }
    }
}

impl SseEventRef<'_> {
    /// Invalid UTF-8 in `data` becomes U+FFFD.
    pub fn to_owned_event(self) -> SseEvent {
        match self {
            SseEventRef::Comment => SseEvent::Comment,
            SseEventRef::Message { event, data } => SseEvent::Message {
                event: event.map(str::to_string),
                data: String::from_utf8_lossy(data).into_owned(),
            },
        }
    }
}

impl<'a> From<&'a SseEvent> for SseEventRef<'a> {
    fn from(ev: &'a SseEvent) -> Self {
        ev.as_event_ref()
    }
}

/// Line-oriented SSE parser; `\n` and `\r\n` line endings. `id:` and `retry:`
/// are ignored (we never reconnect with Last-Event-ID).
#[derive(Debug, Default)]
pub struct SseDecoder {
    /// The unterminated tail of the previous chunk(s).
    partial: Vec<u8>,
    /// The `event:` name (valid if `has_event`); the buffer is reused.
    event: String,
    has_event: bool,
    /// Copied data: multi-line data, or data whose event spans chunks.
    data: Vec<u8>,
    /// The data is the single line at this byte range of the current chunk
    /// (only between lines of one `process` call; copied out at its end).
    data_range: Option<(usize, usize)>,
    /// At least one `data` field was seen since the last dispatch (the SSE
    /// rule: an event with only `event:` is not dispatched).
    has_data: bool,
    /// The leading byte-order mark, if any, has been dealt with.
    started: bool,
}

const BOM: &[u8] = b"\xEF\xBB\xBF";

impl SseDecoder {
    /// A decoder at the start of a stream.
    pub fn new() -> Self {
        Self::default()
    }

    /// Feeds one chunk, appending every event it completes to `out`.
    pub fn push(&mut self, chunk: &[u8], out: &mut Vec<SseEvent>) {
        let _ = self.feed(chunk, |ev| {
            out.push(ev.to_owned_event());
            Ok::<(), Infallible>(())
        });
    }

    /// Ends the stream, appending what was pending to `out` (see [`Self::finish_with`]).
    pub fn finish(&mut self, out: &mut Vec<SseEvent>) {
        let _ = self.finish_with(|ev| {
            out.push(ev.to_owned_event());
            Ok::<(), Infallible>(())
        });
    }

    /// Feeds one chunk, calling `f` for every event it completes, in order.
    /// The first error from `f` stops decoding and is returned; the decoder
    /// should then be dropped.
    pub fn feed<E>(
        &mut self,
        chunk: &[u8],
        mut f: impl FnMut(SseEventRef<'_>) -> Result<(), E>,
    ) -> Result<(), E> {
        if self.started {
            return self.process(chunk, &mut f);
        }
        // Stream start: the BOM may itself be split, so collect until three
        // bytes are known (one copy of the first chunk, once per stream).
        self.partial.extend_from_slice(chunk);
        if self.partial.len() < BOM.len() && BOM.starts_with(&self.partial) {
            return Ok(());
        }
        self.started = true;
        let head = std::mem::take(&mut self.partial);
        self.process(head.strip_prefix(BOM).unwrap_or(&head), &mut f)
    }

    /// Ends the stream: a final unterminated line is processed and a pending
    /// event is dispatched even without the closing blank line (lenient, so a
    /// body cut right after its last `data:` line is not lost).
    pub fn finish_with<E>(
        &mut self,
        mut f: impl FnMut(SseEventRef<'_>) -> Result<(), E>,
    ) -> Result<(), E> {
        if !self.started {
            self.started = true;
            let head = std::mem::take(&mut self.partial);
            if !BOM.starts_with(&head) {
                self.process(&head, &mut f)?;
            }
        }
        let line = std::mem::take(&mut self.partial);
        if !line.is_empty() {
            self.line(&line, 0, line.len(), false, &mut f)?;
        }
        self.dispatch(&[], &mut f)
    }

    fn process<E>(
        &mut self,
        chunk: &[u8],
        f: &mut impl FnMut(SseEventRef<'_>) -> Result<(), E>,
    ) -> Result<(), E> {
        let result = self.process_lines(chunk, f);
        // Data still pointing into the chunk must outlive it.
        if let Some((a, b)) = self.data_range.take() {
            self.data.extend_from_slice(&chunk[a..b]);
        }
        result
    }

    fn process_lines<E>(
        &mut self,
        chunk: &[u8],
        f: &mut impl FnMut(SseEventRef<'_>) -> Result<(), E>,
    ) -> Result<(), E> {
        let mut lines = memchr_iter(b'\n', chunk);
        let mut start = 0;
        if !self.partial.is_empty() {
            let Some(nl) = lines.next() else {
                self.partial.extend_from_slice(chunk);
                return Ok(());
            };
            let mut line = std::mem::take(&mut self.partial);
            line.extend_from_slice(&chunk[..nl]);
            let result = self.line(&line, 0, line.len(), false, f);
            // Keep the allocation for the next split line.
            line.clear();
            self.partial = line;
            result?;
            start = nl + 1;
        }
        for nl in lines {
            self.line(chunk, start, nl, true, f)?;
            start = nl + 1;
        }
        self.partial.extend_from_slice(&chunk[start..]);
        Ok(())
    }

    /// Handles the line `src[start..end]`; `in_chunk` says whether `src` is
    /// the chunk (so data may stay borrowed from it until dispatch).
    fn line<E>(
        &mut self,
        src: &[u8],
        start: usize,
        mut end: usize,
        in_chunk: bool,
        f: &mut impl FnMut(SseEventRef<'_>) -> Result<(), E>,
    ) -> Result<(), E> {
        if end > start && src[end - 1] == b'\r' {
            end -= 1;
        }
        let line = &src[start..end];
        let Some(&first) = line.first() else {
            return self.dispatch(src, f);
        };
        if first == b':' {
            return f(SseEventRef::Comment);
        }
        // `data:` first: nearly every line is one.
        let (name, value_at) = if line.starts_with(b"data:") {
            (&b"data"[..], 5)
        } else {
            match memchr::memchr(b':', line) {
                Some(i) => (&line[..i], i + 1),
                None => (line, line.len()),
            }
        };
        let mut value_start = start + value_at;
        if src.get(value_start) == Some(&b' ') && value_start < end {
            value_start += 1;
        }
        match name {
            b"data" => {
                if !self.has_data && in_chunk {
                    self.data_range = Some((value_start, end));
                } else {
                    if let Some((a, b)) = self.data_range.take() {
                        self.data.extend_from_slice(&src[a..b]);
                    }
                    if self.has_data {
                        self.data.push(b'\n');
                    }
                    self.data.extend_from_slice(&src[value_start..end]);
                }
                self.has_data = true;
            }
            b"event" => {
                self.event.clear();
                push_utf8(&mut self.event, &src[value_start..end]);
                self.has_event = true;
            }
            _ => {}
        }
        Ok(())
    }

    fn dispatch<E>(
        &mut self,
        src: &[u8],
        f: &mut impl FnMut(SseEventRef<'_>) -> Result<(), E>,
    ) -> Result<(), E> {
        let has_event = std::mem::take(&mut self.has_event);
        if !std::mem::take(&mut self.has_data) {
            return Ok(());
        }
        let event = has_event.then_some(self.event.as_str());
        let data = match self.data_range.take() {
            Some((a, b)) => &src[a..b],
            None => &self.data[..],
        };
        let result = f(SseEventRef::Message { event, data });
        self.data.clear();
        result
    }
}

/// Appends bytes as text; invalid UTF-8 becomes U+FFFD rather than an error,
/// since a single bad byte should not kill a whole answer.
fn push_utf8(dst: &mut String, bytes: &[u8]) {
    match std::str::from_utf8(bytes) {
        Ok(s) => dst.push_str(s),
        Err(_) => dst.push_str(&String::from_utf8_lossy(bytes)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn msg(event: Option<&str>, data: &str) -> SseEvent {
        SseEvent::Message {
            event: event.map(str::to_string),
            data: data.to_string(),
        }
    }

    /// The owned API (`push` / `finish`) over `chunks`.
    pub(super) fn decode_chunks(chunks: &[&[u8]]) -> Vec<SseEvent> {
        let mut d = SseDecoder::new();
        let mut out = Vec::new();
        for c in chunks {
            d.push(c, &mut out);
        }
        d.finish(&mut out);
        out
    }

    fn decode_all_splits(input: &[u8]) -> Vec<SseEvent> {
        let whole = decode_chunks(&[input]);
        for i in 0..=input.len() {
            let (a, b) = input.split_at(i);
            assert_eq!(decode_chunks(&[a, b]), whole, "split at {i}");
        }
        for i in 0..input.len() {
            for j in i..=input.len() {
                let parts = [&input[..i], &input[i..j], &input[j..]];
                assert_eq!(decode_chunks(&parts), whole, "split at {i},{j}");
            }
        }
        let bytes: Vec<&[u8]> = input.chunks(1).collect();
        assert_eq!(decode_chunks(&bytes), whole, "byte by byte");
        whole
    }

    #[test]
    fn fields_comments_and_dispatch() {
        let input = b": keep-alive\r\nevent: delta\r\ndata: {\"a\":1}\r\n\r\n\
id: 7\nretry: 100\ndata:no-space\ndata:  two spaces\ndata\n\nevent: lonely\n\ndata: x\n\n";
        let out = decode_all_splits(input);
        assert_eq!(
            out,
            vec![
                SseEvent::Comment,
                msg(Some("delta"), "{\"a\":1}"),
                msg(None, "no-space\n two spaces\n"),
                msg(None, "x"),
            ]
        );
    }

    #[test]
    fn multibyte_utf8_split_anywhere() {
        let input = "data: é你😀\n\nevent: ü\ndata: a\ndata: 你\n\n".as_bytes();
        let out = decode_all_splits(input);
        assert_eq!(out, vec![msg(None, "é你😀"), msg(Some("ü"), "a\n你")]);
    }

    #[test]
    fn unterminated_tail_is_flushed_on_finish() {
        assert_eq!(
            decode_chunks(&[b"data: {\"x\":1}"]),
            vec![msg(None, "{\"x\":1}")]
        );
        assert_eq!(decode_chunks(&[b"data: a\n"]), vec![msg(None, "a")]);
        assert_eq!(decode_chunks(&[b""]), vec![]);
        assert_eq!(decode_chunks(&[b":"]), vec![SseEvent::Comment]);
    }

    #[test]
    fn bom_is_stripped_even_when_split() {
        let input = b"\xEF\xBB\xBFdata: a\n\n";
        assert_eq!(decode_all_splits(input), vec![msg(None, "a")]);
        // A lone partial BOM is not data.
        assert_eq!(decode_chunks(&[b"\xEF\xBB"]), vec![]);
        // A first chunk that merely starts like a BOM is not swallowed.
        assert_eq!(decode_chunks(&[b":", b"\xEF\n"]), vec![SseEvent::Comment]);
    }

    #[test]
    fn invalid_utf8_is_replaced() {
        assert_eq!(
            decode_chunks(&[b"data: a\xFFb\n\n"]),
            vec![msg(None, "a\u{FFFD}b")]
        );
    }

    #[test]
    fn crlf_split_between_cr_and_lf() {
        assert_eq!(
            decode_chunks(&[b"data: a\r", b"\n\r", b"\n"]),
            vec![msg(None, "a")]
        );
    }

    #[test]
    fn feed_borrows_from_the_chunk_and_stops_on_error() {
        let mut d = SseDecoder::new();
        d.feed(b": hello\n", |_| Ok::<(), ()>(())).unwrap();
        let chunk = b"data: one\n\ndata: two\n\n";
        let mut seen = Vec::new();
        let r = d.feed(chunk, |ev| {
            if let SseEventRef::Message { data, .. } = ev {
                assert!(chunk.as_ptr_range().contains(&data.as_ptr()));
                seen.push(data.to_vec());
            }
            Err("stop")
        });
        assert_eq!(r, Err("stop"));
        assert_eq!(seen, [b"one".to_vec()]);
    }

    #[test]
    fn owned_and_borrowed_forms_convert() {
        let ev = msg(Some("e"), "d");
        let r: SseEventRef = (&ev).into();
        assert_eq!(
            r,
            SseEventRef::Message {
                event: Some("e"),
                data: b"d"
            }
        );
        assert_eq!(r.to_owned_event(), ev);
        assert_eq!(SseEventRef::Comment.to_owned_event(), SseEvent::Comment);
    }

    /// Throughput against a plain memchr line split of the same bytes. Run with
    /// `cargo test --release -p seekclaw-providers sse_throughput -- --ignored --nocapture`.
    #[test]
    #[ignore]
    fn sse_throughput() {
        let frame = "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hello wörld 你好\"},\"finish_reason\":null}]}\n\n";
        let stream = frame.repeat(10 * 1024 * 1024 / frame.len());
        let chunks: Vec<&[u8]> = stream.as_bytes().chunks(1400).collect();
        let runs = 10;
        let t = std::time::Instant::now();
        let mut lines = 0usize;
        for _ in 0..runs {
            for c in &chunks {
                let mut start = 0;
                for nl in memchr_iter(b'\n', c) {
                    std::hint::black_box(&c[start..nl]);
                    lines += 1;
                    start = nl + 1;
                }
            }
        }
        let base = t.elapsed();
        let t = std::time::Instant::now();
        let mut events = 0usize;
        for _ in 0..runs {
            let mut d = SseDecoder::new();
            for c in &chunks {
                let _ = d.feed(c, |ev| {
                    if let SseEventRef::Message { data, .. } = ev {
                        events += data.len() & 1;
                    }
                    Ok::<(), Infallible>(())
                });
            }
        }
        let borrowed = t.elapsed();
        let t = std::time::Instant::now();
        for _ in 0..runs {
            let mut d = SseDecoder::new();
            let mut out = Vec::new();
            for c in &chunks {
                d.push(c, &mut out);
                events += out.len();
                out.clear();
            }
        }
        let owned = t.elapsed();
        let ratio = |d: std::time::Duration| base.as_secs_f64() / d.as_secs_f64();
        println!(
            "lines {lines} events {events}: baseline {base:?}; feed {borrowed:?} (ratio {:.2}); push {owned:?} (ratio {:.2})",
            ratio(borrowed),
            ratio(owned)
        );
    }
}

#[cfg(test)]
#[path = "sse_proptests.rs"]
mod proptests;
