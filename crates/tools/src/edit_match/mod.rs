//! The edit matcher shared by `edit_file`, `multi_edit` and `apply_patch`:
//! the exact text first, then near-miss recoveries that each normalize the
//! file and the model's strings one well-defined way and must find exactly one
//! match; anything else is refused with the closest candidate named.

use std::fmt;

/// A recovery that made the model's text match; reported to the model so it
/// learns (`None` in [`Found::how`] means the text matched as given).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Normalization {
    /// `\n` versus `\r\n`.
    LineEndings,
}

impl Normalization {
    /// How the tool result names it.
    pub(crate) fn describe(self) -> &'static str {
        match self {
            Normalization::LineEndings => "line endings",
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

/// The one place in `text[from..]` that `old` means, and what `new` becomes
/// there. `rel` names the file in refusals.
pub(crate) fn find(
    text: &str,
    old: &str,
    new: &str,
    from: usize,
    rel: &str,
) -> Result<Found, Refusal> {
    let hay = text.get(from..).unwrap_or_default();
    if line_ending(text) == "\r\n"
        && old.contains('\n')
        && !old.contains('\r')
        && !hay.contains(old)
    {
        let crlf = old.replace('\n', "\r\n");
        if hay.contains(&crlf) {
            let new = new.replace("\r\n", "\n").replace('\n', "\r\n");
            let mut found = find(text, &crlf, &new, from, rel)?;
            found.how = Some(Normalization::LineEndings);
            return Ok(found);
        }
    }
    let mut hits = hay.match_indices(old);
    match (hits.next(), hits.next()) {
        (Some((at, _)), None) => Ok(Found {
            start: from + at,
            end: from + at + old.len(),
            replacement: new.to_string(),
            how: None,
        }),
        (None, _) => Err(Refusal(format!(
            "old_string not found in {rel}. Read the file again and retry with text copied exactly."
        ))),
        (Some(_), Some(_)) => Err(Refusal(format!(
            "old_string matches {} places in {rel}. Add more surrounding context to make it unique, or set replace_all to true to replace every occurrence.",
            hay.matches(old).count()
        ))),
    }
}

/// `text` with `old` replaced by `new`: the one match, or every exact
/// occurrence with `replace_all`.
pub(crate) fn replace(
    text: &str,
    old: &str,
    new: &str,
    replace_all: bool,
    rel: &str,
) -> Result<Replaced, Refusal> {
    if replace_all {
        let count = text.matches(old).count();
        if count == 0 {
            return Err(Refusal(format!(
                "old_string not found in {rel}. Read the file again and retry with text copied exactly."
            )));
        }
        return Ok(Replaced {
            text: text.replace(old, new),
            count,
            how: None,
        });
    }
    let found = find(text, old, new, 0, rel)?;
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
