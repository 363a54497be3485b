//! Property tests: no byte stream, however it is split into chunks, can crash
//! the SSE decoder, and the events never depend on where the network split the
//! bytes. A plain whole-input reading of the same rules (below) is the oracle.
//! `PROPTEST_CASES` raises the case count (`scripts/fuzz --proptest` runs them
//! long).

use proptest::prelude::*;

// The owned API (`push` / `finish`), as the unit tests drive it.
use super::tests::decode_chunks as decode_push;
use super::*;

/// The decoder's rules applied to the whole input at once, as simply as
/// possible: lines end at `\n` (one `\r` before it is dropped; a lone `\r` is
/// not a line end), a leading BOM is skipped, a blank line dispatches, the
/// unterminated last line counts and a pending event is dispatched at the end.
fn reference(input: &[u8]) -> Vec<SseEvent> {
    let input = match input.strip_prefix(BOM) {
        Some(rest) => rest,
        None if input.len() < BOM.len() && BOM.starts_with(input) => &[],
        None => input,
    };
    let mut lines: Vec<&[u8]> = input.split(|&b| b == b'\n').collect();
    if lines.last().is_some_and(|tail| tail.is_empty()) {
        lines.pop();
    }
    let mut out = Vec::new();
    let mut event: Option<String> = None;
    let mut data: Option<Vec<u8>> = None;
    let dispatch =
        |out: &mut Vec<SseEvent>, event: &mut Option<String>, data: &mut Option<Vec<u8>>| {
            let name = event.take();
            if let Some(d) = data.take() {
                out.push(SseEvent::Message {
                    event: name,
                    data: String::from_utf8_lossy(&d).into_owned(),
                });
            }
        };
    for line in lines {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.is_empty() {
            dispatch(&mut out, &mut event, &mut data);
            continue;
        }
        if line[0] == b':' {
            out.push(SseEvent::Comment);
            continue;
        }
        let (name, value) = match line.iter().position(|&b| b == b':') {
            Some(i) => (&line[..i], &line[i + 1..]),
            None => (line, &[][..]),
        };
        let value = value.strip_prefix(b" ").unwrap_or(value);
        match name {
            b"data" => match &mut data {
                // Each further data line is joined with `\n`.
                Some(d) => {
                    d.push(b'\n');
                    d.extend_from_slice(value);
                }
                None => data = Some(value.to_vec()),
            },
            b"event" => event = Some(String::from_utf8_lossy(value).into_owned()),
            _ => {}
        }
    }
    dispatch(&mut out, &mut event, &mut data);
    out
}

/// Splits `input` at the given cut points (any order, duplicates allowed).
fn split_at<'a>(input: &'a [u8], cuts: &[prop::sample::Index]) -> Vec<&'a [u8]> {
    let mut at: Vec<usize> = cuts.iter().map(|c| c.index(input.len() + 1)).collect();
    at.push(0);
    at.push(input.len());
    at.sort_unstable();
    at.windows(2).map(|w| &input[w[0]..w[1]]).collect()
}

/// The borrowed API (`feed` / `finish_with`).
fn decode_feed(chunks: &[&[u8]]) -> Vec<SseEvent> {
    let mut d = SseDecoder::new();
    let mut out = Vec::new();
    let mut collect = |ev: SseEventRef<'_>| {
        out.push(ev.to_owned_event());
        Ok::<(), Infallible>(())
    };
    for c in chunks {
        let _ = d.feed(c, &mut collect);
    }
    let _ = d.finish_with(&mut collect);
    out
}

/// Every reading of `input` agrees with the oracle: whole, at the given cuts
/// through both APIs, and byte by byte.
fn check_stream(input: &[u8], cuts: &[prop::sample::Index]) -> Result<(), TestCaseError> {
    let want = reference(input);
    prop_assert_eq!(&decode_push(&[input]), &want, "whole");
    let chunks = split_at(input, cuts);
    prop_assert_eq!(&decode_push(&chunks), &want, "push, chunks {:?}", chunks);
    prop_assert_eq!(&decode_feed(&chunks), &want, "feed, chunks {:?}", chunks);
    let bytes: Vec<&[u8]> = input.chunks(1).collect();
    prop_assert_eq!(&decode_feed(&bytes), &want, "byte by byte");
    Ok(())
}

/// One of `items`.
fn pick(items: &[&'static [u8]]) -> impl Strategy<Value = &'static [u8]> + use<> {
    prop::sample::select(items.to_vec())
}

/// Bytes where SSE's structure characters are common.
fn arb_sse_byte() -> impl Strategy<Value = u8> {
    prop_oneof![
        2 => any::<u8>(),
        3 => prop::sample::select(b"\r\n\n: dataevent\xEF\xBB\xBF\xC3\xA9".to_vec()),
    ]
}

/// A field value: ASCII, multi-byte UTF-8 (to be split inside), invalid
/// UTF-8, colons, spaces and lone `\r`.
fn arb_value() -> impl Strategy<Value = Vec<u8>> {
    let piece = pick(&[
        b"{\"a\":1}",
        b"x",
        b" ",
        b":",
        b"\r",
        "é".as_bytes(),
        "你好".as_bytes(),
        "😀".as_bytes(),
        b"\xFF",
        b"\xC3",
        b"\xE4\xBD",
        b"[DONE]",
    ]);
    prop::collection::vec(piece, 0..6).prop_map(|p| p.concat())
}

/// One line without its terminator.
fn arb_line() -> impl Strategy<Value = Vec<u8>> {
    let field = |name: &'static [u8]| {
        (pick(&[b":", b": ", b":  "]), arb_value())
            .prop_map(move |(sep, v)| [name, sep, &v].concat())
    };
    prop_oneof![
        6 => field(b"data"),
        2 => field(b"event"),
        1 => field(b""),
        1 => field(b"id"),
        1 => field(b"retry"),
        1 => field(b"DATA"),
        1 => pick(&[b"data", b"event", b"x", b"data "]).prop_map(<[u8]>::to_vec),
        3 => Just(Vec::new()),
        1 => arb_value(),
    ]
}

/// A stream of lines with mixed (and sometimes missing or lone-`\r`) line
/// ends, optionally behind a whole or partial BOM.
fn arb_stream() -> impl Strategy<Value = Vec<u8>> {
    let end = pick(&[b"\n", b"\r\n", b"\r", b"\r\r\n", b"\n\n", b""]);
    let bom = pick(&[b"", b"", b"", BOM, b"\xEF", b"\xEF\xBB"]);
    (bom, prop::collection::vec((arb_line(), end), 0..12)).prop_map(|(bom, lines)| {
        let mut out = bom.to_vec();
        for (line, end) in lines {
            out.extend_from_slice(&line);
            out.extend_from_slice(end);
        }
        out
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Arbitrary bytes, split anywhere: the same events as the oracle.
    #[test]
    fn any_bytes_split_anywhere_decode_like_the_whole(
        input in prop::collection::vec(arb_sse_byte(), 0..200),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..8),
    ) {
        check_stream(&input, &cuts)?;
    }

    /// Near-valid streams (fields, comments, blank lines, BOMs, `\r`/`\n`/
    /// `\r\n` mixtures, UTF-8 split mid-sequence, invalid UTF-8): the same
    /// events however they are chunked.
    #[test]
    fn structured_streams_split_anywhere_decode_like_the_whole(
        input in arb_stream(),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..8),
    ) {
        check_stream(&input, &cuts)?;
    }

    /// A consumer's error stops decoding at once and is returned; the decoder
    /// never panics on what follows it being dropped.
    #[test]
    fn a_consumer_error_stops_the_stream(
        input in arb_stream(),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..4),
        stop_after in 0usize..4,
    ) {
        let want = reference(&input);
        let mut d = SseDecoder::new();
        let mut seen = 0usize;
        let mut stop = |_: SseEventRef<'_>| {
            seen += 1;
            if seen > stop_after { Err(()) } else { Ok(()) }
        };
        let mut failed = false;
        for c in split_at(&input, &cuts) {
            if d.feed(c, &mut stop).is_err() {
                failed = true;
                break;
            }
        }
        if !failed {
            failed = d.finish_with(&mut stop).is_err();
        }
        prop_assert_eq!(failed, want.len() > stop_after);
        prop_assert_eq!(seen, want.len().min(stop_after + 1));
    }
}
