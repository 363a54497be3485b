//! Finding the model's lines among the file's lines under one stage's rules:
//! whole lines in the middle, the first line may be the end of a file line and
//! the last the start of one (as an exact substring would), nothing fuzzy.

use std::borrow::Cow;

use super::folds::{Folds, Mapped, fold};
use super::indent::{Indent, leading, relate};
use super::lines::{Line, Model};

/// What one stage tolerates.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Rules {
    pub folds: Folds,
    /// A uniform indentation shift.
    pub indent: bool,
    /// Tabs against spaces.
    pub tabs: bool,
    /// The model's final line break where the file's last line has none.
    pub final_newline: bool,
    /// Only whole lines match (a patch's hunk lines are whole lines).
    pub whole_lines: bool,
}

/// One place the model's lines match.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Hit {
    /// Index of the first file line covered.
    pub first: usize,
    /// File lines covered.
    pub count: usize,
    /// Byte range of the match in the file's text.
    pub start: usize,
    pub end: usize,
    /// The match begins after its first line's start.
    pub first_partial: bool,
    /// The match ends before its last line's content ends.
    pub last_partial: bool,
    /// The match includes its last line's line ending.
    pub consumed_ending: bool,
    /// How the model's indentation maps onto the file's.
    pub indent: Indent,
}

impl Hit {
    /// A match inside file line `line` (bytes `start..end`, short of the
    /// line's end), from the line's start unless `first_partial`.
    fn in_line(line: usize, start: usize, end: usize, first_partial: bool, indent: Indent) -> Hit {
        Hit {
            first: line,
            count: 1,
            start,
            end,
            first_partial,
            last_partial: true,
            consumed_ending: false,
            indent,
        }
    }
}

/// Every place (at most `limit`) `model`'s lines match `lines`, whose folded
/// forms under `rules.folds` are `folded`.
pub(super) fn search(
    text: &str,
    lines: &[Line],
    folded: &[Cow<str>],
    model: &Model,
    rules: &Rules,
    limit: usize,
) -> Vec<Hit> {
    let keys: Vec<Cow<str>> = model.lines.iter().map(|l| fold(l, rules.folds)).collect();
    if keys.is_empty() {
        return Vec::new();
    }
    if keys.len() == 1 && !model.newline_end {
        // Trailing whitespace the fold dropped pins a fragment to a line's end.
        let at_end = rules.folds.trailing_ws && ends_with_space(&model.lines[0]);
        return fragments(text, lines, folded, &keys[0], at_end, rules, limit);
    }
    let mut hits = Vec::new();
    let m = keys.len();
    for first in 0..(lines.len() + 1).saturating_sub(m) {
        if let Some(hit) = window(text, lines, folded, model, &keys, first, rules) {
            hits.push(hit);
            if hits.len() >= limit {
                break;
            }
        }
    }
    hits
}

fn ends_with_space(s: &str) -> bool {
    s.ends_with([' ', '\t'])
}

fn trim_indent(s: &str) -> &str {
    s.trim_start_matches([' ', '\t'])
}

/// Two lines are the same under the stage's rules.
fn same(file: &str, model: &str, rules: &Rules) -> bool {
    if rules.indent {
        trim_indent(file) == trim_indent(model)
    } else {
        file == model
    }
}

/// A single line with no line break: every occurrence inside any line. Under
/// the indentation rules a fragment that starts with indentation matches only
/// at the start of a line (never inside a word), re-indented.
fn fragments(
    text: &str,
    lines: &[Line],
    folded: &[Cow<str>],
    key: &str,
    at_end: bool,
    rules: &Rules,
    limit: usize,
) -> Vec<Hit> {
    let mut hits = Vec::new();
    if key.trim().is_empty() {
        return hits;
    }
    if rules.indent && !leading(key).is_empty() {
        return indented_fragments(text, lines, folded, key, at_end, rules, limit);
    }
    for (i, line) in lines.iter().enumerate() {
        for at in super::occurrences(&folded[i], key) {
            let whole = at == 0 && at + key.len() == folded[i].len();
            if (at_end && at + key.len() != folded[i].len()) || (rules.whole_lines && !whole) {
                continue;
            }
            let mapped = Mapped::new(&text[line.start..line.end], rules.folds);
            let (Some(s), Some(mut e)) = (mapped.original(at), mapped.original(at + key.len()))
            else {
                continue;
            };
            // Reaching the folded line's end means reaching the line's end:
            // its trailing whitespace goes with the match.
            if rules.folds.trailing_ws && at + key.len() == folded[i].len() {
                e = line.end - line.start;
            }
            hits.push(Hit::in_line(
                i,
                line.start + s,
                line.start + e,
                true,
                Indent::Same,
            ));
            if hits.len() >= limit {
                return hits;
            }
        }
    }
    hits
}

/// An indented fragment re-indented: the start of a line whose text after
/// its indentation begins with the fragment's.
fn indented_fragments(
    text: &str,
    lines: &[Line],
    folded: &[Cow<str>],
    key: &str,
    at_end: bool,
    rules: &Rules,
    limit: usize,
) -> Vec<Hit> {
    let body = trim_indent(key);
    let model_lead = leading(key);
    let mut hits = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let content = &folded[i];
        let lead = content.len() - trim_indent(content).len();
        if !content[lead..].starts_with(body)
            || ((at_end || rules.whole_lines) && content[lead..] != *body)
        {
            continue;
        }
        let raw = &text[line.start..line.end];
        let Some(indent) = relate(&[(leading(raw), model_lead)], rules.tabs) else {
            continue;
        };
        let Some(end) = Mapped::new(raw, rules.folds).original(lead + body.len()) else {
            continue;
        };
        hits.push(Hit::in_line(i, line.start, line.start + end, false, indent));
        if hits.len() >= limit {
            break;
        }
    }
    hits
}

/// The match of all of `model`'s lines starting at file line `first`.
fn window(
    text: &str,
    lines: &[Line],
    folded: &[Cow<str>],
    model: &Model,
    keys: &[Cow<str>],
    first: usize,
    rules: &Rules,
) -> Option<Hit> {
    let m = keys.len();
    let last = first + m - 1;
    // The first line: whole, or the file line's end (then `partial_at` is
    // where the match starts in the folded line).
    let head = &folded[first];
    let partial_at = if same(head, &keys[0], rules) {
        None
    } else if rules.whole_lines || (rules.indent && !leading(&model.lines[0]).is_empty()) {
        // An indented first line means a whole line: under the indentation
        // rules it is never the end of a longer one.
        return None;
    } else {
        let key = if rules.indent {
            trim_indent(&keys[0])
        } else {
            &keys[0]
        };
        if key.trim().is_empty() || !head.ends_with(key) {
            return None;
        }
        Some(head.len() - key.len())
    };
    for k in 1..m.saturating_sub(1) {
        if !same(&folded[first + k], &keys[k], rules) {
            return None;
        }
    }
    // The last line: whole, or (without a final line break) the file line's start.
    let mut last_partial_at = None;
    if m >= 2 && !same(&folded[last], &keys[m - 1], rules) {
        // A last line that ends in whitespace the fold dropped is whole.
        let pinned = rules.folds.trailing_ws && ends_with_space(&model.lines[m - 1]);
        if model.newline_end || pinned || rules.whole_lines {
            return None;
        }
        let tail = &folded[last];
        let (lead, key) = if rules.indent {
            (
                tail.len() - trim_indent(tail).len(),
                trim_indent(&keys[m - 1]),
            )
        } else {
            (0, &*keys[m - 1])
        };
        if !tail[lead..].starts_with(key) {
            return None;
        }
        last_partial_at = Some(lead + key.len());
    }
    if model.newline_end
        && !lines[last].has_ending()
        && !(rules.final_newline && last + 1 == lines.len())
    {
        return None;
    }
    let indent = if rules.indent {
        indentation(text, lines, model, first, partial_at.is_some(), rules.tabs)?
    } else {
        Indent::Same
    };
    let line_text = |i: usize| &text[lines[i].start..lines[i].end];
    let start = match partial_at {
        Some(at) => lines[first].start + Mapped::new(line_text(first), rules.folds).original(at)?,
        None => lines[first].start,
    };
    let (end, consumed_ending) = if model.newline_end {
        (lines[last].next, lines[last].has_ending())
    } else if let Some(at) = last_partial_at {
        let at = Mapped::new(line_text(last), rules.folds).original(at)?;
        (lines[last].start + at, false)
    } else {
        (lines[last].end, false)
    };
    Some(Hit {
        first,
        count: m,
        start,
        end,
        first_partial: partial_at.is_some(),
        last_partial: last_partial_at.is_some() || (m == 1 && !model.newline_end),
        consumed_ending,
        indent,
    })
}

/// The one indentation relation the window's non-blank lines share.
fn indentation(
    text: &str,
    lines: &[Line],
    model: &Model,
    first: usize,
    first_partial: bool,
    tabs: bool,
) -> Option<Indent> {
    let pairs: Vec<(&str, &str)> = model
        .lines
        .iter()
        .enumerate()
        .filter(|(k, line)| !(line.trim().is_empty() || *k == 0 && first_partial))
        .map(|(k, line)| {
            let file = &lines[first + k];
            (leading(&text[file.start..file.end]), leading(line))
        })
        .collect();
    if pairs.is_empty() {
        return Some(Indent::Same);
    }
    relate(&pairs, tabs)
}
