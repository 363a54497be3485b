//! Which errors an edit introduced, and how they read for the model. An
//! error is the same before and after when its message, code, source and the
//! text of its line are: line numbers move when lines are added above it.

use std::collections::HashMap;

use lsp_types::{Diagnostic, DiagnosticSeverity, NumberOrString};

/// Errors listed in one result; the rest are counted.
const MAX_SHOWN: usize = 10;
/// Characters of one message.
const MAX_MESSAGE: usize = 400;

type Key<'a> = (&'a str, Option<String>, Option<&'a str>, &'a str);

fn is_error(d: &Diagnostic) -> bool {
    // No severity: the client decides; an unlabelled problem is worth showing.
    d.severity.is_none_or(|s| s == DiagnosticSeverity::ERROR)
}

fn key<'a>(d: &'a Diagnostic, lines: &[&'a str]) -> Key<'a> {
    let code = d.code.as_ref().map(|c| match c {
        NumberOrString::Number(n) => n.to_string(),
        NumberOrString::String(s) => s.clone(),
    });
    let line = lines
        .get(d.range.start.line as usize)
        .map_or("", |l| l.trim());
    (d.message.as_str(), code, d.source.as_deref(), line)
}

/// The errors of `now` (for `after`) that `baseline` (for `before`) lacks,
/// counted as a multiset: a second copy of an existing error is new.
pub(crate) fn introduced<'a>(
    before: &str,
    baseline: &[Diagnostic],
    after: &str,
    now: &'a [Diagnostic],
) -> Vec<&'a Diagnostic> {
    let before_lines: Vec<&str> = before.lines().collect();
    let after_lines: Vec<&str> = after.lines().collect();
    let mut had: HashMap<Key, usize> = HashMap::new();
    for d in baseline.iter().filter(|d| is_error(d)) {
        *had.entry(key(d, &before_lines)).or_default() += 1;
    }
    let mut new: Vec<&Diagnostic> = now
        .iter()
        .filter(|d| is_error(d))
        .filter(|d| match had.get_mut(&key(d, &after_lines)) {
            Some(n) if *n > 0 => {
                *n -= 1;
                false
            }
            _ => true,
        })
        .collect();
    new.sort_by_key(|d| (d.range.start.line, d.range.start.character));
    new
}

/// `Diagnostics after this edit (pyright):` and one line per error,
/// `path:line:col error: message [code]` (1-based; the column in characters).
pub(crate) fn format(server: &str, rel: &str, after: &str, errors: &[&Diagnostic]) -> String {
    let lines: Vec<&str> = after.lines().collect();
    let mut out = format!("Diagnostics after this edit ({server}):");
    for d in errors.iter().take(MAX_SHOWN) {
        let line = d.range.start.line as usize;
        let column = lines
            .get(line)
            .map_or(d.range.start.character as usize, |l| {
                utf16_to_chars(l, d.range.start.character as usize)
            });
        // Continuation lines (pyright indents them with no-break spaces) get ours.
        let mut message: String = d
            .message
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect::<Vec<_>>()
            .join("\n    ");
        if message.chars().count() > MAX_MESSAGE {
            message = message.chars().take(MAX_MESSAGE).collect::<String>() + "…";
        }
        out.push_str(&format!(
            "\n {rel}:{}:{} error: {message}",
            line + 1,
            column + 1
        ));
        if let Some(code) = &d.code {
            match code {
                NumberOrString::Number(n) => out.push_str(&format!(" [{n}]")),
                NumberOrString::String(s) => out.push_str(&format!(" [{s}]")),
            }
        }
    }
    if errors.len() > MAX_SHOWN {
        out.push_str(&format!("\n … and {} more", errors.len() - MAX_SHOWN));
    }
    out
}

/// LSP columns count UTF-16 units; the model counts characters.
fn utf16_to_chars(line: &str, units: usize) -> usize {
    let mut seen = 0;
    for (i, c) in line.chars().enumerate() {
        if seen >= units {
            return i;
        }
        seen += c.len_utf16();
    }
    line.chars().count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use lsp_types::{Position, Range};

    fn diag(line: u32, col: u32, message: &str, severity: DiagnosticSeverity) -> Diagnostic {
        Diagnostic {
            range: Range::new(Position::new(line, col), Position::new(line, col + 1)),
            severity: Some(severity),
            code: Some(NumberOrString::String("reportX".into())),
            source: Some("Pyright".into()),
            message: message.into(),
            ..Default::default()
        }
    }

    #[test]
    fn old_errors_survive_line_shifts_and_only_new_errors_count() {
        let before = "a: int = 'x'\nb = 1\n";
        let after = "import os\na: int = 'x'\nb: str = 1\nc: int = 'y'\n";
        let baseline = vec![
            diag(0, 9, "bad str", DiagnosticSeverity::ERROR),
            diag(1, 0, "just a hint", DiagnosticSeverity::HINT),
        ];
        let now = vec![
            diag(3, 9, "bad str", DiagnosticSeverity::ERROR),
            diag(1, 9, "bad str", DiagnosticSeverity::ERROR),
            diag(2, 9, "bad int", DiagnosticSeverity::ERROR),
            diag(0, 7, "unused", DiagnosticSeverity::WARNING),
        ];
        let new = introduced(before, &baseline, after, &now);
        let lines: Vec<u32> = new.iter().map(|d| d.range.start.line).collect();
        // Line 2 (was line 1, moved) is old; the same message on a new line is new.
        assert_eq!(lines, [2, 3]);
        let text = format("pyright", "src/a.py", after, &new);
        assert_eq!(
            text,
            "Diagnostics after this edit (pyright):\n src/a.py:3:10 error: bad int [reportX]\n src/a.py:4:10 error: bad str [reportX]"
        );
        assert!(introduced(after, &now, after, &now).is_empty());
    }

    #[test]
    fn columns_are_characters_and_long_lists_are_capped() {
        assert_eq!(utf16_to_chars("😀x", 2), 1);
        assert_eq!(utf16_to_chars("ab", 9), 2);
        let now: Vec<Diagnostic> = (0..12)
            .map(|i| diag(i, 0, &format!("e{i}\ndetail"), DiagnosticSeverity::ERROR))
            .collect();
        let refs: Vec<&Diagnostic> = now.iter().collect();
        let text = format("x", "a.py", "", &refs);
        assert!(text.contains("a.py:1:1 error: e0\n    detail"), "{text}");
        assert!(text.ends_with("\n … and 2 more"), "{text}");
    }
}
