//! Refusals written so the model's next try succeeds: where the text is
//! ambiguous, which omission it made, and the closest candidate with the first
//! differing character.

use std::borrow::Cow;

use super::Refusal;
use super::folds::{Folds, fold, is_elision};
use super::lines::{Line, Model};

/// How many of the model's lines score a candidate (enough to find it).
const SCORED_LINES: usize = 64;

/// Refuses an edit whose new text stands for omitted code (`// ... existing
/// code ...`) that the old text does not have: it would be written literally.
pub(super) fn elisions(old: &str, new: &str, python: bool, rel: &str) -> Result<(), Refusal> {
    let old_lines: Vec<&str> = old.lines().map(str::trim).collect();
    for (j, line) in new.lines().enumerate() {
        if is_elision(line, python) && !old_lines.contains(&line.trim()) {
            return Err(Refusal(format!(
                "new_string line {} ({:?}) stands for omitted code and would be written into {rel} literally. Nothing was changed: write out every line the new text keeps, or make smaller edits.",
                j + 1,
                line.trim()
            )));
        }
    }
    Ok(())
}

/// The 1-based line number of byte `at`.
pub(super) fn line_number(text: &str, at: usize) -> usize {
    text.as_bytes()[..at.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// `old_string` matches several places (given by their byte offsets).
pub(super) fn ambiguous(text: &str, starts: &[usize], rel: &str, how: Option<&str>) -> Refusal {
    let mut numbers: Vec<String> = Vec::new();
    let mut line = 1;
    let mut seen = 0;
    for &at in starts.iter().take(5) {
        line += text.as_bytes()[seen..at]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        seen = at;
        numbers.push(line.to_string());
    }
    if starts.len() > 5 {
        numbers.push("…".to_string());
    }
    let how = how.map_or(String::new(), |h| format!(" after normalizing {h}"));
    Refusal(format!(
        "old_string matches {} places in {rel}{how} (lines {}). Add more surrounding context to make it unique, or set replace_all to true to replace every occurrence.",
        starts.len(),
        numbers.join(", ")
    ))
}

/// Nothing matched: names an omission in the old text, else the closest
/// candidate and where it first differs.
pub(super) fn not_found(
    text: &str,
    lines: &[Line],
    folded: &[Cow<str>],
    old: &Model,
    rel: &str,
    python: bool,
) -> Refusal {
    let retry = "Read the file again and retry with text copied exactly.";
    let line_text = |i: usize| &text[lines[i].start..lines[i].end];
    if let Some((k, line)) = old.lines.iter().enumerate().find(|(_, l)| {
        is_elision(l, python)
            && !lines
                .iter()
                .any(|f| line_text_of(text, f).trim() == l.trim())
    }) {
        return Refusal(format!(
            "old_string line {} ({:?}) stands for omitted text, which is not in {rel}. old_string must be the file's exact text without omissions: make several smaller edits instead (multi_edit).",
            k + 1,
            line.trim()
        ));
    }
    let Some((first, agree)) = closest(lines, folded, old) else {
        return Refusal(format!("old_string not found in {rel}. {retry}"));
    };
    let base = line_number(text, lines.first().map_or(0, |l| l.start));
    let shown = old.lines.len().min(lines.len() - first);
    let span = if shown > 1 {
        format!("lines {}–{}", base + first, base + first + shown - 1)
    } else {
        format!("line {}", base + first)
    };
    let mut message = if old.lines.len() > 1 {
        format!(
            "old_string not found in {rel}. The closest text is {span} ({agree} of {} lines agree).",
            old.lines.len()
        )
    } else {
        format!("old_string not found in {rel}. The closest text is {span}.")
    };
    for (k, want) in old.lines.iter().enumerate() {
        let Some(i) = (first + k < lines.len()).then_some(first + k) else {
            message.push_str(&format!(
                " The file ends at line {} but old_string goes on with {:?}.",
                base + lines.len() - 1,
                clip(want)
            ));
            break;
        };
        let have = line_text(i);
        if have == want {
            continue;
        }
        message.push_str(&first_difference(have, want, base + i));
        break;
    }
    message.push(' ');
    message.push_str(retry);
    Refusal(message)
}

/// Where `want` (the model's line) first differs from `have` (the file's
/// line `number`), leading whitespace set apart.
fn first_difference(have: &str, want: &str, number: usize) -> String {
    if have.trim() == want.trim() {
        return format!(
            " Line {number} differs only in whitespace: the file has {:?} where old_string has {:?}.",
            have, want
        );
    }
    let (have_body, want_body) = (have.trim_start(), want.trim_start());
    let lead = have.len() - have_body.len();
    let common = have_body
        .chars()
        .zip(want_body.chars())
        .take_while(|(a, b)| a == b)
        .count();
    let byte = |s: &str| s.char_indices().nth(common).map_or(s.len(), |(b, _)| b);
    let column = have[..lead].chars().count() + common + 1;
    format!(
        " First difference at line {number}, column {column}: the file has {:?} where old_string has {:?}.",
        clip(&have_body[byte(have_body)..]),
        clip(&want_body[byte(want_body)..])
    )
}

fn line_text_of<'t>(text: &'t str, line: &Line) -> &'t str {
    &text[line.start..line.end]
}

/// At most 40 characters of `s`, marked when cut.
fn clip(s: &str) -> String {
    let mut out: String = s.chars().take(40).collect();
    if out.len() < s.len() {
        out.push('…');
    }
    out
}

/// The file line where most of the model's lines agree (trimmed, under every
/// fold), and how many agree; `None` when nothing is close.
fn closest(lines: &[Line], folded: &[Cow<str>], old: &Model) -> Option<(usize, usize)> {
    const ALL: Folds = Folds {
        trailing_ws: true,
        typographic: true,
        nfc: true,
    };
    let keys: Vec<Cow<str>> = old
        .lines
        .iter()
        .take(SCORED_LINES)
        .map(|l| fold(l, ALL))
        .collect();
    if keys.len() == 1 {
        return closest_line(folded, keys[0].trim());
    }
    let mut best: Option<(usize, usize)> = None;
    for first in 0..lines.len() {
        let agree = keys
            .iter()
            .enumerate()
            .filter(|(k, key)| {
                !key.trim().is_empty()
                    && folded
                        .get(first + k)
                        .is_some_and(|f| f.trim() == key.trim())
            })
            .count();
        if agree > 0 && best.is_none_or(|(_, b)| agree > b) {
            best = Some((first, agree));
        }
    }
    best
}

/// For a one-line old text: the line sharing the longest start with it, when
/// that is at least half of it.
fn closest_line(folded: &[Cow<str>], key: &str) -> Option<(usize, usize)> {
    let need = (key.chars().count() / 2).max(4);
    let mut best: Option<(usize, usize)> = None;
    for (i, line) in folded.iter().enumerate() {
        let common = line
            .trim()
            .chars()
            .zip(key.chars())
            .take_while(|(a, b)| a == b)
            .count();
        if common >= need && best.is_none_or(|(_, b)| common > b) {
            best = Some((i, common));
        }
    }
    best.map(|(i, _)| (i, 0))
}
