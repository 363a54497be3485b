//! A bounded log of a command's merged stdout+stderr: the first bytes and the
//! most recent bytes are kept, the middle is counted and dropped, so a command
//! printing gigabytes costs a fixed amount of memory.

use std::collections::VecDeque;

const HEAD_CAP: usize = 512 * 1024;
const TAIL_CAP: usize = 1024 * 1024;

#[derive(Debug)]
pub(crate) struct OutputLog {
    head: Vec<u8>,
    /// The most recent bytes after `head`, at most `tail_cap`.
    tail: VecDeque<u8>,
    /// Bytes ever written.
    total: u64,
    head_cap: usize,
    tail_cap: usize,
}

impl Default for OutputLog {
    fn default() -> Self {
        OutputLog::with_caps(HEAD_CAP, TAIL_CAP)
    }
}

impl OutputLog {
    pub(crate) fn with_caps(head_cap: usize, tail_cap: usize) -> Self {
        OutputLog {
            head: Vec::new(),
            tail: VecDeque::new(),
            total: 0,
            head_cap,
            tail_cap,
        }
    }

    pub(crate) fn push(&mut self, mut data: &[u8]) {
        self.total += data.len() as u64;
        if self.head.len() < self.head_cap {
            let n = (self.head_cap - self.head.len()).min(data.len());
            self.head.extend_from_slice(&data[..n]);
            data = &data[n..];
        }
        if data.len() >= self.tail_cap {
            self.tail.clear();
            self.tail.extend(&data[data.len() - self.tail_cap..]);
        } else {
            self.tail.extend(data);
            let excess = self.tail.len().saturating_sub(self.tail_cap);
            self.tail.drain(..excess);
        }
    }

    /// Bytes ever written.
    pub(crate) fn total(&self) -> u64 {
        self.total
    }

    /// The text from byte offset `from` to the end, and the offset to continue
    /// from. While the command runs, a UTF-8 sequence split at the end is held
    /// back for the next read.
    pub(crate) fn read_from(&self, from: u64, finished: bool) -> (String, u64) {
        let head_len = self.head.len() as u64;
        let tail_base = self.total - self.tail.len() as u64;
        let mut head: &[u8] = &[];
        if from < head_len {
            head = &self.head[from as usize..];
        }
        let resume = from.max(head_len);
        let gap = tail_base.saturating_sub(resume);
        let start = (resume.max(tail_base) - tail_base) as usize;
        let tail: Vec<u8> = self.tail.range(start..).copied().collect();
        let mut end = self.total;
        let (mut head_keep, mut tail_keep) = (head.len(), tail.len());
        if !finished {
            // Only the very end can hold a sequence that is still arriving.
            if !tail.is_empty() {
                let held = incomplete_utf8_suffix(&tail);
                tail_keep -= held;
                end -= held as u64;
            } else if gap == 0 {
                let held = incomplete_utf8_suffix(head);
                head_keep -= held;
                end -= held as u64;
            }
        }
        let mut out = String::from_utf8_lossy(&head[..head_keep]).into_owned();
        if gap > 0 {
            out.push_str(&format!("\n… [{gap} bytes of output dropped]\n"));
        }
        out.push_str(&String::from_utf8_lossy(&tail[..tail_keep]));
        (out, end.max(from))
    }
}

/// Length of an unfinished UTF-8 sequence at the end of `bytes` (0–3).
fn incomplete_utf8_suffix(bytes: &[u8]) -> usize {
    for back in 1..=bytes.len().min(3) {
        let b = bytes[bytes.len() - back];
        if b & 0xC0 == 0x80 {
            continue; // continuation byte: keep looking for the lead
        }
        let needed = match b {
            0xC0..=0xDF => 2,
            0xE0..=0xEF => 3,
            0xF0..=0xF7 => 4,
            _ => return 0,
        };
        return if needed > back { back } else { 0 };
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn incremental_reads_return_only_new_output() {
        let mut log = OutputLog::default();
        log.push(b"one\n");
        let (text, at) = log.read_from(0, false);
        assert_eq!((text.as_str(), at), ("one\n", 4));
        log.push(b"two\n");
        let (text, at) = log.read_from(at, false);
        assert_eq!((text.as_str(), at), ("two\n", 8));
        assert_eq!(log.read_from(at, true).0, "");
    }

    #[test]
    fn a_split_utf8_sequence_waits_for_its_end() {
        let mut log = OutputLog::default();
        let snowman = "☃".as_bytes();
        log.push(&snowman[..2]);
        let (text, at) = log.read_from(0, false);
        assert_eq!((text.as_str(), at), ("", 0));
        log.push(&snowman[2..]);
        assert_eq!(log.read_from(at, false).0, "☃");
    }

    #[test]
    fn the_middle_of_a_flood_is_dropped_and_counted() {
        let mut log = OutputLog::with_caps(10, 10);
        log.push(b"0123456789");
        for _ in 0..100 {
            log.push(b"xxxxxxxxxx");
        }
        log.push(b"abcdefghij");
        assert_eq!(log.total(), 1020);
        let (text, at) = log.read_from(0, true);
        assert_eq!(
            text,
            "0123456789\n… [1000 bytes of output dropped]\nabcdefghij"
        );
        assert_eq!(at, 1020);
        let (text, _) = log.read_from(15, true);
        assert_eq!(text, "\n… [995 bytes of output dropped]\nabcdefghij");
        let (text, _) = log.read_from(1015, true);
        assert_eq!(text, "fghij");
    }
}
