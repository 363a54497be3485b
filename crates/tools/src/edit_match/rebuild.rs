//! The bytes that replace a match: lines the old and new strings share are
//! the file's own bytes; only the model's new lines are written, in the file's
//! conventions (line ending, indentation, ASCII punctuation, NFC).

use similar::{Algorithm, DiffOp, capture_diff_slices};
use unicode_normalization::UnicodeNormalization;

use super::folds::{Folds, fold, fold_typographic, has_typographic, is_nfc};
use super::indent;
use super::lines::{Line, Model};
use super::search::Hit;

/// How the model's new lines are brought into the file's conventions.
#[derive(Debug, Clone, Copy)]
pub(super) struct Style {
    /// Folds under which an old line and a new line count as the same line.
    pub folds: Folds,
    /// The file's line ending.
    pub eol: &'static str,
    /// Write typographic characters as ASCII (the file used ASCII where the
    /// model wrote them).
    pub ascii: bool,
    /// Write new lines in NFC.
    pub nfc: bool,
    /// Drop trailing whitespace from new lines (the model added it where the
    /// file has none).
    pub trim_trailing: bool,
}

/// The text that replaces `hit` (`old` matched there; `new` replaces it).
pub(super) fn replacement(
    text: &str,
    lines: &[Line],
    hit: &Hit,
    old: &Model,
    new: &Model,
    style: &Style,
) -> String {
    let old_keys: Vec<String> = old
        .lines
        .iter()
        .map(|l| fold(l, style.folds).into_owned())
        .collect();
    let new_keys: Vec<String> = new
        .lines
        .iter()
        .map(|l| fold(l, style.folds).into_owned())
        .collect();
    let mut out: Vec<String> = Vec::with_capacity(new.lines.len());
    for op in capture_diff_slices(Algorithm::Myers, &old_keys, &new_keys) {
        match op {
            DiffOp::Equal { old_index, len, .. } => {
                for k in old_index..old_index + len {
                    out.push(file_piece(text, lines, hit, k).to_string());
                }
            }
            DiffOp::Delete { .. } => {}
            DiffOp::Insert {
                new_index, new_len, ..
            }
            | DiffOp::Replace {
                new_index, new_len, ..
            } => {
                for j in new_index..new_index + new_len {
                    out.push(new_line(
                        &new.lines[j],
                        j == 0 && hit.first_partial,
                        hit,
                        style,
                    ));
                }
            }
        }
    }
    let mut text_out = out.join(style.eol);
    // The model's final line break, unless it was the one the file's last
    // line lacks (the file keeps having none).
    let dropped_final = old.newline_end && !hit.consumed_ending;
    if new.newline_end && !dropped_final {
        text_out.push_str(style.eol);
    }
    text_out
}

/// The file's bytes of the `k`th matched line (only the matched part of a
/// partial first or last line).
fn file_piece<'t>(text: &'t str, lines: &[Line], hit: &Hit, k: usize) -> &'t str {
    let line = lines[hit.first + k];
    let start = if k == 0 && hit.first_partial {
        hit.start
    } else {
        line.start
    };
    let end = if k + 1 == hit.count && hit.last_partial {
        hit.end
    } else {
        line.end
    };
    &text[start..end.max(start)]
}

/// One of the model's new lines, in the file's conventions. A line that
/// continues a partial first line keeps its indentation (the file's prefix
/// precedes it).
fn new_line(line: &str, continues: bool, hit: &Hit, style: &Style) -> String {
    let mut out = if continues {
        line.to_string()
    } else {
        indent::apply(line, &hit.indent)
    };
    if style.ascii && has_typographic(&out) {
        out = fold_typographic(&out);
    }
    if style.nfc && !is_nfc(&out) {
        out = out.nfc().collect();
    }
    if style.trim_trailing {
        out.truncate(out.trim_end_matches([' ', '\t']).len());
    }
    out
}
