//! The character-level normalizations a fallback compares lines under, and the
//! model-side repairs (read prefixes, escapes, blank ends).

use std::borrow::Cow;

use unicode_normalization::char::is_combining_mark;
use unicode_normalization::{IsNormalized, UnicodeNormalization, is_nfc_quick};

/// Which character folds apply when two lines are compared.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Folds {
    /// Spaces and tabs at the end of a line are ignored.
    pub trailing_ws: bool,
    /// Typographic quotes, dashes, ellipses and odd spaces read as ASCII.
    pub typographic: bool,
    /// Compared in Unicode NFC.
    pub nfc: bool,
}

/// The ASCII a typographic character stands for, if it is one.
fn typographic(c: char) -> Option<&'static str> {
    Some(match c {
        '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{201B}' => "'",
        '\u{201C}' | '\u{201D}' | '\u{201E}' | '\u{201F}' => "\"",
        '\u{2012}' | '\u{2013}' | '\u{2014}' | '\u{2015}' | '\u{2212}' => "-",
        '\u{2026}' => "...",
        '\u{00A0}' | '\u{202F}' | '\u{2000}'..='\u{200A}' => " ",
        _ => return None,
    })
}

/// True when `s` holds a character [`fold_typographic`] changes.
pub(super) fn has_typographic(s: &str) -> bool {
    !s.is_ascii() && s.chars().any(|c| typographic(c).is_some())
}

/// `s` with typographic characters written as ASCII.
pub(super) fn fold_typographic(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match typographic(c) {
            Some(ascii) => out.push_str(ascii),
            None => out.push(c),
        }
    }
    out
}

/// True when `s` is already in NFC.
pub(super) fn is_nfc(s: &str) -> bool {
    s.is_ascii() || matches!(is_nfc_quick(s.chars()), IsNormalized::Yes) || s.nfc().eq(s.chars())
}

/// `line` as compared under `folds`.
pub(super) fn fold(line: &str, folds: Folds) -> Cow<'_, str> {
    let mut out = Cow::Borrowed(line);
    if folds.typographic && has_typographic(&out) {
        out = Cow::Owned(fold_typographic(&out));
    }
    if folds.nfc && !is_nfc(&out) {
        out = Cow::Owned(out.nfc().collect());
    }
    if folds.trailing_ws {
        out = match out {
            Cow::Borrowed(s) => Cow::Borrowed(s.trim_end_matches([' ', '\t'])),
            Cow::Owned(mut s) => {
                let keep = s.trim_end_matches([' ', '\t']).len();
                s.truncate(keep);
                Cow::Owned(s)
            }
        };
    }
    out
}

/// `line` folded, with the original byte offset of every folded byte (and of
/// the end): a match found in the folded line maps back to the file's bytes.
/// A base character and its combining marks fold as one unit; offsets inside
/// a unit map to `None` (a match may not split it).
pub(super) struct Mapped {
    offsets: Vec<Option<usize>>,
}

impl Mapped {
    pub(super) fn new(line: &str, folds: Folds) -> Mapped {
        let mut folded = String::with_capacity(line.len());
        let mut offsets = Vec::with_capacity(line.len() + 1);
        let mut chars = line.char_indices().peekable();
        while let Some((at, c)) = chars.next() {
            let mut end = at + c.len_utf8();
            while let Some(&(next_at, next)) = chars.peek() {
                if !is_combining_mark(next) {
                    break;
                }
                end = next_at + next.len_utf8();
                chars.next();
            }
            let unit = &line[at..end];
            let unit = if folds.typographic && has_typographic(unit) {
                Cow::Owned(fold_typographic(unit))
            } else {
                Cow::Borrowed(unit)
            };
            let unit: Cow<str> = if folds.nfc && !is_nfc(&unit) {
                Cow::Owned(unit.nfc().collect())
            } else {
                unit
            };
            for i in 0..unit.len() {
                offsets.push((i == 0).then_some(at));
            }
            folded.push_str(&unit);
        }
        let mut end = line.len();
        if folds.trailing_ws {
            let keep = folded.trim_end_matches([' ', '\t']).len();
            if keep < folded.len() {
                end = offsets.get(keep).copied().flatten().unwrap_or(end);
            }
            folded.truncate(keep);
            offsets.truncate(keep);
        }
        offsets.push(Some(end));
        Mapped { offsets }
    }

    /// The original offset of folded byte `i`, when it starts a unit.
    pub(super) fn original(&self, i: usize) -> Option<usize> {
        self.offsets.get(i).copied().flatten()
    }
}

/// Strips our `read_file` prefixes (`12\t`) when every line of `lines` has one
/// and the numbers run consecutively; `None` otherwise.
pub(super) fn strip_read_prefixes(lines: &[String]) -> Option<Vec<String>> {
    let mut expected = None;
    let mut out = Vec::with_capacity(lines.len());
    for line in lines {
        let (n, rest) = read_prefix(line)?;
        if expected.is_some_and(|e| e != n) {
            return None;
        }
        expected = Some(n + 1);
        out.push(rest.to_string());
    }
    (!out.is_empty()).then_some(out)
}

/// `new`'s lines without the read prefixes the model copied along with
/// `old`'s: a line copied from `old` loses its prefix, and so does one whose
/// number continues the numbering; a line with no prefix stays as it is. A
/// number out of sequence could be the text's own (a TSV row): `None`.
pub(super) fn strip_new_read_prefixes(old: &[String], new: &[String]) -> Option<Vec<String>> {
    let mut expected = read_prefix(old.first()?)?.0;
    let mut out = Vec::with_capacity(new.len());
    for line in new {
        match read_prefix(line) {
            Some((n, rest)) if n == expected || old.contains(line) => {
                expected = n + 1;
                out.push(rest.to_string());
            }
            Some(_) => return None,
            None => out.push(line.clone()),
        }
    }
    Some(out)
}

/// `(N, rest)` for a line `   N\trest`.
fn read_prefix(line: &str) -> Option<(u64, &str)> {
    let trimmed = line.trim_start_matches(' ');
    let digits = trimmed.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 || digits > 9 {
        return None;
    }
    let rest = trimmed[digits..].strip_prefix('\t')?;
    Some((trimmed[..digits].parse().ok()?, rest))
}

/// True when `old` looks JSON-escaped twice: no real line break, but a
/// literal `\n` or `\"`.
pub(super) fn looks_escaped(old: &str) -> bool {
    !old.contains('\n') && (old.contains("\\n") || old.contains("\\\""))
}

/// `s` with `\n`, `\t`, `\"`, `\'` and `\\` unescaped.
pub(super) fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => {}
            Some(q @ ('"' | '\'' | '\\')) => out.push(q),
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
            None => out.push('\\'),
        }
    }
    out
}

/// True for a line that stands for omitted text rather than being text:
/// `...`, `// ... existing code ...`, `# rest unchanged`, `/* ... */`.
pub(super) fn is_elision(line: &str, python: bool) -> bool {
    let trimmed = line.trim();
    let (body, commented) = strip_comment(trimmed);
    let body = body.trim();
    let lower = body.to_lowercase();
    let dots = lower.contains("...") || lower.contains('…');
    if lower == "..." || lower == "…" {
        // A bare `...` is Python's Ellipsis (a stub body); anywhere else it
        // is an omission.
        return commented || !python;
    }
    if !commented {
        return false;
    }
    const WORDS: [&str; 9] = [
        "existing",
        "unchanged",
        "rest of",
        "remaining",
        "omitted",
        "same as before",
        "as before",
        "previous code",
        "other code",
    ];
    let worded = WORDS.iter().any(|w| lower.contains(w));
    let only_dots = lower
        .chars()
        .all(|c| c == '.' || c == '…' || c.is_whitespace());
    (dots && (worded || only_dots)) || (worded && lower.split_whitespace().count() <= 6)
}

/// The text of a comment line without its markers, and whether it was one.
fn strip_comment(line: &str) -> (&str, bool) {
    for (open, close) in [("/*", "*/"), ("<!--", "-->"), ("{/*", "*/}")] {
        if let Some(rest) = line.strip_prefix(open) {
            return (rest.strip_suffix(close).unwrap_or(rest), true);
        }
    }
    for lead in ["//", "#", "--", ";", "%", "*"] {
        if let Some(rest) = line.strip_prefix(lead) {
            return (rest, true);
        }
    }
    (line, false)
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: Folds = Folds {
        trailing_ws: true,
        typographic: true,
        nfc: true,
    };

    #[test]
    fn folds_compare_what_the_model_meant() {
        assert_eq!(fold("say(“hi”) – ok…  ", ALL), "say(\"hi\") - ok...");
        assert_eq!(fold("caf\u{65}\u{301}", ALL), "caf\u{e9}");
        assert!(matches!(fold("plain", ALL), Cow::Borrowed("plain")));
        assert_eq!(fold("a\u{a0}b", Folds::default()), "a\u{a0}b");
    }

    #[test]
    fn mapped_offsets_point_at_the_original_bytes() {
        let line = "x = ‘a’ + e\u{301}  ";
        let m = Mapped::new(line, ALL);
        let folded = fold(line, ALL);
        assert_eq!(folded, "x = 'a' + \u{e9}");
        let at = folded.find("'a'").unwrap();
        assert_eq!(m.original(at), Some(4));
        assert_eq!(m.original(at + 3), Some(line.find(" + ").unwrap()));
        assert_eq!(m.original(folded.len()), Some(line.trim_end().len()));
    }

    #[test]
    fn read_prefixes_need_consecutive_numbers_on_every_line() {
        let lines = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            strip_read_prefixes(&lines(&["  9\tfn a() {", " 10\t}"])),
            Some(lines(&["fn a() {", "}"]))
        );
        assert_eq!(strip_read_prefixes(&lines(&["9\ta", "11\tb"])), None);
        assert_eq!(strip_read_prefixes(&lines(&["9\ta", "b"])), None);
        let old = lines(&["2\t1\tfoo", "3\t2\tbar"]);
        assert_eq!(
            strip_new_read_prefixes(&old, &lines(&["2\t1\tfoo", "3\tnew", "4\t2\tbar", "plain"])),
            Some(lines(&["1\tfoo", "new", "2\tbar", "plain"]))
        );
        // A TSV row that only looks like a prefix: out of sequence, ambiguous.
        assert_eq!(
            strip_new_read_prefixes(&old, &lines(&["2\t1\tfoo", "3\t2\tbar", "3\tbaz"])),
            None
        );
    }

    #[test]
    fn escapes_and_elisions() {
        assert!(looks_escaped(r#"a\nb"#) && !looks_escaped("a\nb\\n"));
        assert_eq!(unescape(r#"say(\"hi\")\n\tx\\y"#), "say(\"hi\")\n\tx\\y");
        for line in [
            "// ... existing code ...",
            "    # rest unchanged",
            "/* ... */",
            "...",
            "  // …",
            "<!-- ... -->",
            "// rest of the function unchanged",
        ] {
            assert!(is_elision(line, false), "{line}");
        }
        for line in [
            "x = y...z",
            "// see the existing tests for details on how the cache works",
            "print('...')",
            "return;",
            "# TODO...",
            "// wait...",
        ] {
            assert!(!is_elision(line, false), "{line}");
        }
        assert!(!is_elision("    ...", true));
    }
}
