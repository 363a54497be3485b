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
    /// Typographic characters may be written back as ASCII (per line: where
    /// the file used ASCII where the model wrote them).
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
    let keys = |m: &Model| -> Vec<String> {
        m.lines
            .iter()
            .map(|l| fold(l, style.folds).into_owned())
            .collect()
    };
    let (old_keys, new_keys) = (keys(old), keys(new));
    // Per old line: the model wrote typographic characters where the file
    // has ASCII (its new version gets ASCII too).
    let mistyped: Vec<bool> = old
        .lines
        .iter()
        .enumerate()
        .map(|(k, l)| {
            style.ascii && has_typographic(l) && !has_typographic(file_piece(text, lines, hit, k))
        })
        .collect();
    let any_mistyped = mistyped.iter().any(|m| *m);
    // A new line paired with old line `k` gets ASCII where the model mistyped
    // that line, or mistyped others and the file's line has none of its own.
    let fold_back = |k: usize| {
        mistyped[k] || (any_mistyped && !has_typographic(file_piece(text, lines, hit, k)))
    };
    let mut out: Vec<String> = Vec::with_capacity(new.lines.len());
    let new_at = |j: usize, ascii: bool| {
        let continues = j == 0 && hit.first_partial;
        new_line(&new.lines[j], continues, hit, style, ascii)
    };
    for op in capture_diff_slices(Algorithm::Myers, &old_keys, &new_keys) {
        match op {
            DiffOp::Equal {
                old_index,
                new_index,
                len,
            } => {
                for t in 0..len {
                    let (k, j) = (old_index + t, new_index + t);
                    // The same line but for what the fold hides. Where the
                    // model copied the file's line exactly and then changed
                    // it (trailing spaces, quotes), the change is meant;
                    // otherwise its text of the line is not to be trusted.
                    let file = file_piece(text, lines, hit, k);
                    out.push(if old.lines[k] != new.lines[j] && old.lines[k] == file {
                        new_at(j, fold_back(k))
                    } else {
                        file.to_string()
                    });
                }
            }
            DiffOp::Delete { .. } => {}
            DiffOp::Insert {
                new_index, new_len, ..
            } => out.extend((new_index..new_index + new_len).map(|j| new_at(j, any_mistyped))),
            DiffOp::Replace {
                old_index,
                old_len,
                new_index,
                new_len,
            } => {
                for j in new_index..new_index + new_len {
                    let k = old_index + (j - new_index).min(old_len - 1);
                    out.push(new_at(j, fold_back(k)));
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
fn new_line(line: &str, continues: bool, hit: &Hit, style: &Style, ascii: bool) -> String {
    let mut out = if continues {
        line.to_string()
    } else {
        indent::apply(line, &hit.indent)
    };
    if ascii && has_typographic(&out) {
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
