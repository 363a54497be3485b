//! Applying a parsed patch to the files' current texts, in memory: every
//! file's result is computed before anything is written, so a patch lands
//! whole or not at all.

use std::collections::BTreeMap;
use std::path::PathBuf;

use super::parse::{FileOp, Hunk, Line};
use crate::confine::ConfinedPath;
use crate::edit_match;
use crate::fsio::unified_diff;

/// A file as it was before the patch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Original {
    Missing,
    Text(String),
    /// Exists but cannot be edited as text (binary, not UTF-8): it may be
    /// deleted, not updated.
    Opaque(String),
}

/// What the patch does to one file in the end.
#[derive(Debug, Clone)]
pub(crate) struct Outcome {
    pub path: ConfinedPath,
    /// The text before (`None`: the file did not exist or was not text).
    pub before: Option<String>,
    /// The text after (`None`: the file is deleted).
    pub after: Option<String>,
}

/// The whole patch, computed.
#[derive(Debug, Clone, Default)]
pub(crate) struct Plan {
    /// One line per file operation (`Updated a.rs`, …).
    pub messages: Vec<String>,
    /// Each operation's diff, with the path it shows.
    pub diffs: Vec<(String, String)>,
    /// Files whose content changes, in the order the patch first names them.
    pub outcomes: Vec<Outcome>,
}

/// A file while the patch is being applied.
struct Slot {
    path: ConfinedPath,
    original: Original,
    current: Original,
}

/// Applies `ops` (paths already confined: `paths[i]` is `ops[i]`'s source,
/// `moves[i]` its destination) to the `originals`.
pub(crate) fn plan(
    ops: &[FileOp],
    paths: &[ConfinedPath],
    moves: &[Option<ConfinedPath>],
    originals: &BTreeMap<PathBuf, Original>,
) -> Result<Plan, String> {
    let mut slots: Vec<Slot> = Vec::new();
    let mut index: BTreeMap<PathBuf, usize> = BTreeMap::new();
    let mut slot_of = |p: &ConfinedPath, slots: &mut Vec<Slot>| -> usize {
        *index.entry(p.abs.clone()).or_insert_with(|| {
            let original = originals.get(&p.abs).cloned().unwrap_or(Original::Missing);
            slots.push(Slot {
                path: p.clone(),
                current: original.clone(),
                original,
            });
            slots.len() - 1
        })
    };
    let mut out = Plan::default();
    for (i, op) in ops.iter().enumerate() {
        let src = slot_of(&paths[i], &mut slots);
        let rel = paths[i].rel.clone();
        match op {
            FileOp::Add { lines, .. } => {
                if slots[src].current != Original::Missing {
                    return Err(format!(
                        "Cannot add {rel}: it already exists. Use `*** Update File: {rel}` to change it (or delete it first)."
                    ));
                }
                let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
                out.diffs.push((rel.clone(), unified_diff(&rel, "", &text)));
                out.messages.push(format!("Added {rel}"));
                slots[src].current = Original::Text(text);
            }
            FileOp::Delete { .. } => {
                let before = match &slots[src].current {
                    Original::Missing => {
                        return Err(format!("Cannot delete {rel}: file not found."));
                    }
                    Original::Text(t) => t.clone(),
                    Original::Opaque(_) => String::new(),
                };
                out.diffs
                    .push((rel.clone(), unified_diff(&rel, &before, "")));
                out.messages.push(format!("Deleted {rel}"));
                slots[src].current = Original::Missing;
            }
            FileOp::Update { hunks, .. } => {
                let before = match &slots[src].current {
                    Original::Missing => {
                        return Err(format!("Cannot update {rel}: file not found."));
                    }
                    Original::Opaque(why) => return Err(why.clone()),
                    Original::Text(t) => t.clone(),
                };
                let (after, hows) = apply_hunks(&before, hunks, &rel)?;
                let mut message = match &moves[i] {
                    Some(dest) if dest.abs != paths[i].abs => {
                        let to = slot_of(dest, &mut slots);
                        if slots[to].current != Original::Missing {
                            return Err(format!(
                                "Cannot move {rel} to {}: it already exists.",
                                dest.rel
                            ));
                        }
                        let diff = unified_diff(&dest.rel, &before, &after);
                        out.diffs
                            .push((dest.rel.clone(), moved_diff(&diff, &rel, &dest.rel)));
                        slots[src].current = Original::Missing;
                        slots[to].current = Original::Text(after);
                        format!("Moved {rel} → {}", dest.rel)
                    }
                    _ => {
                        out.diffs
                            .push((rel.clone(), unified_diff(&rel, &before, &after)));
                        slots[src].current = Original::Text(after);
                        format!("Updated {rel}")
                    }
                };
                if !hows.is_empty() {
                    message.push_str(&format!(" (matched after normalizing {})", hows.join(", ")));
                }
                out.messages.push(message);
            }
        }
    }
    out.outcomes = slots
        .into_iter()
        .filter(|s| s.current != s.original)
        .map(|s| Outcome {
            before: match s.original {
                Original::Text(t) => Some(t),
                _ => None,
            },
            after: match s.current {
                Original::Text(t) => Some(t),
                _ => None,
            },
            path: s.path,
        })
        .collect();
    Ok(out)
}

/// A diff of a renamed file: `--- a/<from>` over `+++ b/<to>`, and a bare
/// rename when the text did not change.
fn moved_diff(diff: &str, from: &str, to: &str) -> String {
    if diff.is_empty() {
        return format!("--- a/{from}\n+++ b/{to}\n");
    }
    match diff.strip_prefix(&format!("--- a/{to}\n")) {
        Some(rest) => format!("--- a/{from}\n{rest}"),
        None => diff.to_string(),
    }
}

/// `text` with every hunk applied in order, and the normalizations used.
fn apply_hunks(
    text: &str,
    hunks: &[Hunk],
    rel: &str,
) -> Result<(String, Vec<&'static str>), String> {
    let mut text = text.to_string();
    let mut from = 0;
    let mut hows: Vec<&'static str> = Vec::new();
    let total = hunks.len();
    for (n, hunk) in hunks.iter().enumerate() {
        let fail = |why: String| {
            format!(
                "Hunk {} of {total} for {rel} (patch line {}) failed: {why} No changes were written.",
                n + 1,
                hunk.line_no
            )
        };
        let mut anchor_line = None;
        for anchor in &hunk.anchors {
            let (start, end) = anchor_line_at(&text, anchor, from, rel).map_err(fail)?;
            anchor_line = Some(start);
            from = end;
        }
        let old = hunk.old_text();
        let new = hunk.new_text();
        if old.is_empty() {
            // Only added lines: they go right after the anchor, or at the end.
            let at = if !hunk.anchors.is_empty() && !hunk.end_of_file {
                from
            } else {
                text.len()
            };
            let (next, end) = insert(&text, at, &new);
            text = next;
            from = end;
            continue;
        }
        let found = match find_hunk(&text, &old, &new, from, hunk, rel) {
            Ok(found) => Ok(found),
            // The hunk repeats its `@@` line as its first context line.
            Err(why) => match anchor_line {
                Some(start) => find_hunk(&text, &old, &new, start, hunk, rel).map_err(|_| why),
                None => Err(why),
            },
        }
        .map_err(fail)?;
        if let Some(how) = found.how {
            let how = how.describe();
            if !hows.contains(&how) {
                hows.push(how);
            }
        }
        from = found.start + found.replacement.len();
        text = edit_match::splice(&text, &found);
    }
    Ok((text, hows))
}

/// The hunk's one match at or after `from`. `*** End of File` hunks try the
/// file's end first; a file without a final newline is matched without the
/// hunk's last line break (and keeps having none).
fn find_hunk(
    text: &str,
    old: &str,
    new: &str,
    from: usize,
    hunk: &Hunk,
    rel: &str,
) -> Result<edit_match::Found, String> {
    if hunk.end_of_file {
        let lines = hunk
            .lines
            .iter()
            .filter(|l| !matches!(l, Line::Added(_)))
            .count();
        let tail = nth_line_from_end(text, lines).max(from);
        if let Ok(found) = find_at_end(text, old, new, tail, rel) {
            return Ok(found);
        }
    }
    match edit_match::find_whole_lines(text, old, new, from, rel) {
        Ok(found) => Ok(found),
        Err(refusal) => {
            if !text.ends_with('\n')
                && let Ok(found) = find_at_end(text, old, new, from, rel)
            {
                return Ok(found);
            }
            Err(reworded(&refusal.0))
        }
    }
}

/// A match of `old` that ends the file (with or without a final newline).
fn find_at_end(
    text: &str,
    old: &str,
    new: &str,
    from: usize,
    rel: &str,
) -> Result<edit_match::Found, edit_match::Refusal> {
    if let Ok(found) = edit_match::find_whole_lines(text, old, new, from, rel)
        && text[found.end..].trim_end_matches(['\r', '\n']).is_empty()
    {
        return Ok(found);
    }
    if !text.ends_with('\n') {
        let (o, n) = (old.strip_suffix('\n'), new.strip_suffix('\n'));
        if let (Some(o), Some(n)) = (o, n) {
            let found = edit_match::find_whole_lines(text, o, n, from, rel)?;
            if found.end == text.len() {
                return Ok(found);
            }
        }
    }
    Err(edit_match::Refusal(String::new()))
}

/// The byte offset where the `n`th line from the end starts.
fn nth_line_from_end(text: &str, n: usize) -> usize {
    let body = text.strip_suffix('\n').unwrap_or(text);
    let mut at = body.len();
    for _ in 0..n {
        match body[..at].rfind('\n') {
            Some(i) => at = i,
            None => return 0,
        }
    }
    if at == body.len() { at } else { at + 1 }.min(text.len())
}

/// The matcher's refusal, in the patch's words.
fn reworded(refusal: &str) -> String {
    refusal
        .replace(
            ", or set replace_all to true to replace every occurrence",
            " or an `@@` line naming the function or class it is in",
        )
        .replace("old_string", "the hunk's text (context and `-` lines)")
        .replace("new_string", "the hunk's new text (context and `+` lines)")
}

/// The start and end of the one line at or after `from` that reads
/// `anchor` (exactly, else ignoring surrounding whitespace).
fn anchor_line_at(
    text: &str,
    anchor: &str,
    from: usize,
    rel: &str,
) -> Result<(usize, usize), String> {
    let exact = |l: &str| l.trim_end_matches(['\r', '\n']) == anchor;
    let loose = |l: &str| l.trim() == anchor.trim();
    for matches in [&exact as &dyn Fn(&str) -> bool, &loose] {
        let mut at = from;
        let mut hits = Vec::new();
        for line in text[from..].split_inclusive('\n') {
            if matches(line) {
                hits.push((at, at + line.len()));
            }
            at += line.len();
        }
        match hits.as_slice() {
            [] => continue,
            [one] => return Ok(*one),
            many => {
                return Err(format!(
                    "the `@@ {anchor}` line matches {} lines in {rel}; name a unique line (or drop it and give more context).",
                    many.len()
                ));
            }
        }
    }
    Err(format!("the `@@ {anchor}` line was not found in {rel}."))
}

/// `text` with `lines` (LF, each ending in `\n`) inserted at `at` in the
/// file's line ending, and where the insertion ends.
fn insert(text: &str, at: usize, lines: &str) -> (String, usize) {
    let eol = edit_match::line_ending(text);
    let mut add = lines.replace('\n', eol);
    let mut out = String::with_capacity(text.len() + add.len() + 2);
    out.push_str(&text[..at]);
    if at > 0 && !text[..at].ends_with('\n') {
        // Appending to a file without a final newline: end its last line,
        // and leave the file as it was (without one) after the addition.
        out.push_str(eol);
        if at == text.len() {
            add.truncate(add.len() - eol.len());
        }
    }
    out.push_str(&add);
    let end = out.len();
    out.push_str(&text[at..]);
    (out, end)
}

#[cfg(test)]
#[path = "apply_tests.rs"]
mod tests;
