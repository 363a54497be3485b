//! The edit matcher shared by `edit_file`, `multi_edit` and `apply_patch`:
//! the exact text first, then near-miss recoveries that each normalize the
//! file and the model's strings one well-defined way (cumulatively, in a fixed
//! order) and must find exactly one match; anything else is refused with the
//! closest candidate named. Nothing is ever matched by similarity.

mod folds;
mod indent;
mod lines;
mod rebuild;
mod refuse;
mod search;

use std::borrow::Cow;
use std::fmt;

use folds::{Folds, fold, is_nfc, looks_escaped, unescape};
use lines::{Line, Model, file_lines};
use search::{Hit, Rules, search};

/// A recovery that made the model's text match, in the order they are tried;
/// reported to the model so it learns (`None` in [`Found::how`]: the text
/// matched as given).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Normalization {
    /// `\n` versus `\r\n`.
    LineEndings,
    /// Blank lines at the start or end of `old_string`.
    BlankEnds,
    /// A final line break the file's last line lacks.
    FinalNewline,
    /// Spaces and tabs at line ends.
    TrailingWhitespace,
    /// Every line shifted by the same indentation.
    Indentation,
    /// Tabs written as spaces or the reverse.
    Tabs,
    /// Typographic quotes, dashes, ellipses and odd spaces.
    Typographic,
    /// Unicode composed versus decomposed forms.
    Unicode,
    /// `read_file`'s `N<TAB>` line-number prefixes copied along.
    ReadPrefix,
    /// `\n` and `\"` sent as literal escapes.
    Escapes,
}

const STAGES: [Normalization; 10] = [
    Normalization::LineEndings,
    Normalization::BlankEnds,
    Normalization::FinalNewline,
    Normalization::TrailingWhitespace,
    Normalization::Indentation,
    Normalization::Tabs,
    Normalization::Typographic,
    Normalization::Unicode,
    Normalization::ReadPrefix,
    Normalization::Escapes,
];

impl Normalization {
    /// How the tool result names it.
    pub(crate) fn describe(self) -> &'static str {
        match self {
            Normalization::LineEndings => "line endings",
            Normalization::BlankEnds => "blank lines at the ends",
            Normalization::FinalNewline => "final newline",
            Normalization::TrailingWhitespace => "trailing whitespace",
            Normalization::Indentation => "indentation",
            Normalization::Tabs => "tabs and spaces",
            Normalization::Typographic => "typographic characters",
            Normalization::Unicode => "unicode normalization",
            Normalization::ReadPrefix => "read_file line numbers",
            Normalization::Escapes => "escapes",
        }
    }

    /// What matching tolerates from this stage on (the stages accumulate).
    fn rules(self) -> Rules {
        Rules {
            whole_lines: false,
            folds: Folds {
                trailing_ws: self >= Normalization::TrailingWhitespace,
                typographic: self >= Normalization::Typographic,
                nfc: self >= Normalization::Unicode,
            },
            indent: self >= Normalization::Indentation,
            tabs: self >= Normalization::Tabs,
            final_newline: self >= Normalization::FinalNewline,
        }
    }
}

/// One match: the byte range of the file's text it covers and the bytes that
/// replace it (already in the file's line endings, indentation and quotes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Found {
    pub start: usize,
    pub end: usize,
    pub replacement: String,
    pub how: Option<Normalization>,
}

/// Why an edit was refused; its text is written for the model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Refusal(pub String);

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The result of [`replace`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Replaced {
    pub text: String,
    pub count: usize,
    pub how: Option<Normalization>,
}

const BOM: &str = "\u{feff}";

/// The one place in `text[from..]` that `old` means, and what `new` becomes
/// there. `rel` names the file in refusals.
pub(crate) fn find(
    text: &str,
    old: &str,
    new: &str,
    from: usize,
    rel: &str,
) -> Result<Found, Refusal> {
    find_in(text, old, new, from, rel, false)
}

/// As [`find`], but only whole lines match: a patch's hunk is whole lines,
/// never the tail of a longer line.
pub(crate) fn find_whole_lines(
    text: &str,
    old: &str,
    new: &str,
    from: usize,
    rel: &str,
) -> Result<Found, Refusal> {
    find_in(text, old, new, from, rel, true)
}

fn find_in(
    text: &str,
    old: &str,
    new: &str,
    from: usize,
    rel: &str,
    whole_lines: bool,
) -> Result<Found, Refusal> {
    if old.is_empty() {
        return Err(Refusal(
            "old_string is empty: give the exact text to replace.".to_string(),
        ));
    }
    // A byte-order mark is never part of a match (nor lost by one).
    let from = if from == 0 && text.starts_with(BOM) {
        BOM.len()
    } else {
        from.min(text.len())
    };
    let python = rel.ends_with(".py") || rel.ends_with(".pyi");
    refuse::elisions(old, new, python, rel)?;
    let at_line_start = |at: usize| at == 0 || text[..at].ends_with('\n');
    let at_line_end = |end: usize| {
        old.ends_with('\n') || end == text.len() || text[end..].starts_with(['\r', '\n'])
    };
    let mut exact: Vec<usize> = occurrences(&text[from..], old)
        .map(|at| from + at)
        .filter(|&at| !whole_lines || (at_line_start(at) && at_line_end(at + old.len())))
        .collect();
    // The file's last line, lacking the final line break `old` ends with, is
    // one more candidate: with it a lone match is not unique.
    if let Some(body) = old.strip_suffix('\n')
        && !exact.is_empty()
        && !text.ends_with('\n')
        && text[from..].ends_with(body)
        && at_line_start(text.len() - body.len())
    {
        exact.push(text.len() - body.len());
    }
    match exact.as_slice() {
        [] => recover(text, old, new, from, rel, python, whole_lines),
        [start] => Ok(Found {
            // A match never splits a `\r\n`: the line break it starts
            // with is the file's whole line ending.
            start: if old.starts_with('\n') && text[..*start].ends_with('\r') {
                start - 1
            } else {
                *start
            },
            end: start + old.len(),
            replacement: with_eol(new, eol_near(text, *start)),
            how: None,
        }),
        several => Err(refuse::ambiguous(text, several, rel, None)),
    }
}

/// Where `needle` occurs in `hay`, overlapping occurrences included (two
/// lookalike lines sent as one block can match twice, one line apart).
pub(super) fn occurrences<'a>(hay: &'a str, needle: &'a str) -> impl Iterator<Item = usize> + 'a {
    let mut from = 0;
    std::iter::from_fn(move || {
        let at = from + hay.get(from..)?.find(needle)?;
        from = at + hay[at..].chars().next().map_or(1, char::len_utf8);
        Some(at)
    })
}

/// `text` with `old` replaced by `new`: the one match, or with `replace_all`
/// every exact occurrence (a near miss is recovered only when it is unique).
pub(crate) fn replace(
    text: &str,
    old: &str,
    new: &str,
    replace_all: bool,
    rel: &str,
) -> Result<Replaced, Refusal> {
    if replace_all && !old.is_empty() {
        let eol = line_ending(text);
        // Every exact occurrence; else, in a CRLF file, every occurrence of
        // the model's LF text in the file's line endings.
        let crlf = with_eol(old, eol);
        // The file's own line endings first: an LF `old` also matches inside
        // `\r\n` and would split it.
        let mut candidates = [
            (old, None),
            (crlf.as_str(), Some(Normalization::LineEndings)),
        ];
        if crlf != old {
            candidates.swap(0, 1);
        }
        for (old, how) in candidates {
            let count = text.matches(old).count();
            if count > 0 {
                let python = rel.ends_with(".py") || rel.ends_with(".pyi");
                refuse::elisions(old, new, python, rel)?;
                return Ok(Replaced {
                    text: text.replace(old, &with_eol(new, eol)),
                    count,
                    how,
                });
            }
        }
    }
    let found = find(text, old, new, 0, rel).map_err(|refusal| {
        if !replace_all {
            return refusal;
        }
        Refusal(refusal.0.replace(
            ", or set replace_all to true to replace every occurrence.",
            ". replace_all replaces exact occurrences only, and there are none: copy the text exactly to replace them all.",
        ))
    })?;
    Ok(Replaced {
        text: splice(text, &found),
        count: 1,
        how: found.how,
    })
}

/// `text` with `found` applied.
pub(crate) fn splice(text: &str, found: &Found) -> String {
    let mut out = String::with_capacity(text.len() + found.replacement.len());
    out.push_str(&text[..found.start]);
    out.push_str(&found.replacement);
    out.push_str(&text[found.end..]);
    out
}

/// The line ending `text` uses (`"\r\n"` when its first line ends so).
pub(crate) fn line_ending(text: &str) -> &'static str {
    match text.find('\n') {
        Some(i) if i > 0 && text.as_bytes()[i - 1] == b'\r' => "\r\n",
        _ => "\n",
    }
}

/// The line ending at or around byte `at`: the next one, else the file's.
fn eol_near(text: &str, at: usize) -> &'static str {
    match text[at..].find('\n') {
        Some(i) if at + i > 0 && text.as_bytes()[at + i - 1] == b'\r' => "\r\n",
        Some(_) => "\n",
        None => line_ending(text),
    }
}

/// `s` with every line break written as `eol`.
fn with_eol(s: &str, eol: &str) -> String {
    let lf = if s.contains('\r') {
        s.replace("\r\n", "\n")
    } else {
        s.to_string()
    };
    if eol == "\n" {
        lf
    } else {
        lf.replace('\n', eol)
    }
}

/// The fallbacks, in order; the first that finds anything decides.
fn recover(
    text: &str,
    old: &str,
    new: &str,
    from: usize,
    rel: &str,
    python: bool,
    whole_lines: bool,
) -> Result<Found, Refusal> {
    let lines = file_lines(text, from);
    let last_has_ending = lines.last().is_none_or(Line::has_ending);
    let mut folded: (Option<Folds>, Vec<Cow<str>>) = (None, Vec::new());
    for stage in STAGES {
        let Some((o, n)) = prepare(old, new, stage, last_has_ending) else {
            continue;
        };
        let rules = Rules {
            whole_lines,
            ..stage.rules()
        };
        if folded.0 != Some(rules.folds) {
            folded = (
                Some(rules.folds),
                lines
                    .iter()
                    .map(|l| fold(&text[l.start..l.end], rules.folds))
                    .collect(),
            );
        }
        let hits = search(text, &lines, &folded.1, &o, &rules, 16);
        match hits.as_slice() {
            [] => continue,
            [hit] => return Ok(build(text, &lines, hit, &o, &n, stage)),
            several => {
                let starts: Vec<usize> = several.iter().map(|h| h.start).collect();
                return Err(refuse::ambiguous(
                    text,
                    &starts,
                    rel,
                    Some(stage.describe()),
                ));
            }
        }
    }
    let all = Normalization::Unicode.rules().folds;
    let folded: Vec<Cow<str>> = lines
        .iter()
        .map(|l| fold(&text[l.start..l.end], all))
        .collect();
    let (o, _) = prepare(old, new, Normalization::ReadPrefix, last_has_ending)
        .or_else(|| prepare(old, new, Normalization::Unicode, last_has_ending))
        .unwrap_or((Model::new(old), Model::new(new)));
    Err(refuse::not_found(text, &lines, &folded, &o, rel, python))
}

/// The model's strings as `stage` reads them; `None` when the stage's repair
/// does not apply (it would find nothing the previous stage did not).
fn prepare(
    old: &str,
    new: &str,
    stage: Normalization,
    last_has_ending: bool,
) -> Option<(Model, Model)> {
    use Normalization as N;
    let escaped = looks_escaped(old);
    if stage == N::Escapes && !escaped {
        return None;
    }
    let (old, new): (Cow<str>, Cow<str>) = if stage == N::Escapes {
        (Cow::Owned(unescape(old)), Cow::Owned(unescape(new)))
    } else {
        (Cow::Borrowed(old), Cow::Borrowed(new))
    };
    let mut o = Model::new(&old);
    let mut n = Model::new(&new);
    if stage >= N::ReadPrefix {
        match folds::strip_read_prefixes(&o.lines) {
            Some(stripped) => {
                n.lines = folds::strip_new_read_prefixes(&o.lines, &n.lines)?;
                o.lines = stripped;
            }
            None if stage == N::ReadPrefix => return None,
            None => {}
        }
    }
    if stage >= N::BlankEnds {
        // Only blank lines both strings open or close with are context the
        // model added; a blank line the new text drops is part of the edit.
        let ((ol, ot), (nl, nt)) = (o.blank_ends(), n.blank_ends());
        let (lead, trail) = (ol.min(nl), ot.min(nt));
        o.trim_blank_ends_up_to(lead, trail);
        if stage == N::BlankEnds && lead + trail == 0 {
            return None;
        }
        n.trim_blank_ends_up_to(lead, trail);
    }
    if stage == N::FinalNewline && (!o.newline_end || last_has_ending) {
        return None;
    }
    Some((o, n))
}

/// The spaces and tabs that end `line`.
fn trailing(line: &str) -> &str {
    &line[line.trim_end_matches([' ', '\t']).len()..]
}

/// The found match of stage `stage` and its replacement.
fn build(
    text: &str,
    lines: &[Line],
    hit: &Hit,
    o: &Model,
    n: &Model,
    stage: Normalization,
) -> Found {
    let first = lines[hit.first];
    let eol = if first.has_ending() {
        if first.next - first.end == 2 {
            "\r\n"
        } else {
            "\n"
        }
    } else {
        line_ending(text)
    };
    let region = &text[hit.start..hit.end];
    let style = rebuild::Style {
        folds: stage.rules().folds,
        eol,
        ascii: stage >= Normalization::Typographic,
        nfc: stage >= Normalization::Unicode
            && !o.lines.iter().all(|l| is_nfc(l))
            && is_nfc(region),
        trim_trailing: stage >= Normalization::TrailingWhitespace
            && o.lines
                .iter()
                .zip(&lines[hit.first..])
                .any(|(model, file)| {
                    let file = &text[file.start..file.end];
                    trailing(model) != trailing(file)
                }),
    };
    Found {
        start: hit.start,
        end: hit.end,
        replacement: rebuild::replacement(text, lines, hit, o, n, &style),
        how: Some(stage),
    }
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod proptests;
