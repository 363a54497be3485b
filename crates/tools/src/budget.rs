//! The output budget: no tool result may flood the model's context. A result over
//! budget keeps its head and tail (errors usually sit at the end of command output)
//! around an explicit marker saying how much was left out.

/// Cuts `text` to at most `max_chars` characters (marker included, unless the
/// budget is smaller than the marker itself), keeping the head and the tail.
pub fn truncate(text: &str, max_chars: usize, label: &str) -> String {
    // Bytes bound chars from above: the common short case needs no count.
    if text.len() <= max_chars {
        return text.to_string();
    }
    let total = text.chars().count();
    if total <= max_chars {
        return text.to_string();
    }
    // Sized with the largest possible count so the result stays within budget.
    let marker_len = marker(label, total).chars().count();
    let keep = max_chars.saturating_sub(marker_len);
    let head = keep / 2;
    let tail = keep - head;
    let omitted = total - head - tail;
    let head_end = byte_offset(text, head);
    let tail_start = byte_offset(text, total - tail);
    let mut out = String::with_capacity(head_end + (text.len() - tail_start) + marker_len);
    out.push_str(&text[..head_end]);
    out.push_str(&marker(label, omitted));
    out.push_str(&text[tail_start..]);
    out
}

/// `… [<label> truncated: N characters omitted]` on a line of its own.
pub fn marker(label: &str, omitted: usize) -> String {
    format!("\n… [{label} truncated: {omitted} characters omitted]\n")
}

/// Byte offset of the `n`th character (or the end).
fn byte_offset(text: &str, n: usize) -> usize {
    text.char_indices().nth(n).map_or(text.len(), |(i, _)| i)
}

/// Cuts one line to `max_chars` characters, saying how many were dropped.
pub fn cut_line(line: &str, max_chars: usize) -> String {
    if line.len() <= max_chars {
        return line.to_string();
    }
    let end = byte_offset(line, max_chars);
    if end == line.len() {
        return line.to_string();
    }
    let dropped = line[end..].chars().count();
    format!("{}… [+{dropped} chars]", &line[..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_text_is_untouched() {
        assert_eq!(truncate("hello", 5, "output"), "hello");
        assert_eq!(truncate("héllo", 5, "output"), "héllo");
    }

    #[test]
    fn long_text_keeps_head_and_tail_with_a_marker() {
        let text: String = (0..1000).map(|i| format!("line {i}\n")).collect();
        let out = truncate(&text, 200, "output");
        assert!(out.chars().count() <= 200, "{}", out.chars().count());
        assert!(out.starts_with("line 0\n"));
        assert!(out.ends_with("line 999\n"));
        let omitted = text.chars().count() - (out.chars().count() - marker_text_len(&out));
        assert!(
            out.contains(&format!(
                "… [output truncated: {omitted} characters omitted]"
            )),
            "{out}"
        );
    }

    fn marker_text_len(out: &str) -> usize {
        let start = out.find("\n… [").unwrap();
        let end = out[start..].find("]\n").unwrap() + start + 2;
        out[start..end].chars().count()
    }

    #[test]
    fn multibyte_text_is_cut_on_char_boundaries() {
        let text = "日本語のテキスト".repeat(500);
        let out = truncate(&text, 100, "file");
        assert!(out.chars().count() <= 100);
        assert!(out.contains("[file truncated: "));
        let emoji = "🦀".repeat(300);
        let out = truncate(&emoji, 120, "output");
        assert!(out.starts_with('🦀') && out.ends_with('🦀'));
    }

    #[test]
    fn tiny_budgets_still_say_what_happened() {
        let out = truncate(&"x".repeat(100), 3, "output");
        assert!(out.contains("output truncated: 100 characters omitted"));
    }

    #[test]
    fn lines_are_cut_with_a_count() {
        assert_eq!(cut_line("abcdef", 10), "abcdef");
        assert_eq!(cut_line("abcdef", 3), "abc… [+3 chars]");
        assert_eq!(cut_line("ééééé", 2), "éé… [+3 chars]");
    }
}
