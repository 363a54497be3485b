//! The patch format Codex's models are trained on:
//!
//! ```text
//! *** Begin Patch
//! *** Add File: path          (then `+line`s)
//! *** Delete File: path
//! *** Update File: path
//! *** Move to: new/path       (optional, right after Update File)
//! @@ optional anchor line
//!  context
//! -removed
//! +added
//! *** End of File             (optional: the hunk ends the file)
//! *** End Patch
//! ```
//!
//! Lenient where Codex is: a heredoc wrapper (`apply_patch <<'EOF' … EOF`),
//! whitespace around the markers, a blank line inside a hunk read as an empty
//! context line, an update's first hunk without `@@`.

use std::fmt;

/// One file operation of a patch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum FileOp {
    /// A new file with these lines (each without its line break).
    Add { path: String, lines: Vec<String> },
    /// A file removed.
    Delete { path: String },
    /// A file changed by hunks, maybe renamed.
    Update {
        path: String,
        move_to: Option<String>,
        hunks: Vec<Hunk>,
    },
}

impl FileOp {
    /// The path the operation starts from.
    pub(crate) fn path(&self) -> &str {
        match self {
            FileOp::Add { path, .. } | FileOp::Delete { path } | FileOp::Update { path, .. } => {
                path
            }
        }
    }
}

/// One hunk line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Line {
    Context(String),
    Removed(String),
    Added(String),
}

/// One `@@` hunk of an update.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Hunk {
    /// The `@@ anchor` lines (each a line the hunk comes after, found in
    /// order: `@@ class A` then `@@ def f():`), if given.
    pub anchors: Vec<String>,
    pub lines: Vec<Line>,
    /// `*** End of File`: the hunk's text ends the file.
    pub end_of_file: bool,
    /// The patch line of its `@@` (or first line), 1-based, for errors.
    pub line_no: usize,
}

impl Hunk {
    /// The text the hunk replaces: context and removed lines, each ending in `\n`.
    pub(crate) fn old_text(&self) -> String {
        self.joined(|l| match l {
            Line::Context(t) | Line::Removed(t) => Some(t),
            Line::Added(_) => None,
        })
    }

    /// The text it becomes: context and added lines, each ending in `\n`.
    pub(crate) fn new_text(&self) -> String {
        self.joined(|l| match l {
            Line::Context(t) | Line::Added(t) => Some(t),
            Line::Removed(_) => None,
        })
    }

    fn joined(&self, pick: impl Fn(&Line) -> Option<&String>) -> String {
        let mut out = String::new();
        for text in self.lines.iter().filter_map(pick) {
            out.push_str(text);
            out.push('\n');
        }
        out
    }
}

/// Why a patch could not be read; names the patch line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ParseError {
    /// 1-based line of the patch (0: the patch as a whole).
    pub line: usize,
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "Invalid patch: {}", self.message)
        } else {
            write!(f, "Invalid patch, line {}: {}", self.line, self.message)
        }
    }
}

const BEGIN: &str = "*** Begin Patch";
const END: &str = "*** End Patch";
const ADD: &str = "*** Add File:";
const DELETE: &str = "*** Delete File:";
const UPDATE: &str = "*** Update File:";
const MOVE: &str = "*** Move to:";
const EOF_MARK: &str = "*** End of File";

fn err(line: usize, message: impl Into<String>) -> ParseError {
    ParseError {
        line,
        message: message.into(),
    }
}

/// The patch's lines (numbered from 1), unwrapped from a heredoc if any.
fn body(input: &str) -> Result<Vec<(usize, &str)>, ParseError> {
    let mut lines: Vec<(usize, &str)> = input
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.strip_suffix('\r').unwrap_or(l)))
        .collect();
    let trim_blank = |lines: &mut Vec<(usize, &str)>| {
        while lines.first().is_some_and(|(_, l)| l.trim().is_empty()) {
            lines.remove(0);
        }
        while lines.last().is_some_and(|(_, l)| l.trim().is_empty()) {
            lines.pop();
        }
    };
    trim_blank(&mut lines);
    // `apply_patch <<'EOF'` … `EOF`, as a model used to a shell writes it.
    if let Some((_, first)) = lines.first()
        && let Some(rest) = first.trim().strip_prefix("apply_patch")
        && let Some(tag) = rest.trim().strip_prefix("<<")
    {
        let tag = tag.trim().trim_matches(['\'', '"']).to_string();
        lines.remove(0);
        if !tag.is_empty() && lines.last().is_some_and(|(_, l)| l.trim() == tag) {
            lines.pop();
        }
        trim_blank(&mut lines);
    }
    let (Some(&(first_no, first)), Some(&(last_no, last))) = (lines.first(), lines.last()) else {
        return Err(err(0, "the patch is empty"));
    };
    if first.trim() != BEGIN {
        return Err(err(first_no, format!("the first line must be `{BEGIN}`")));
    }
    if last.trim() != END || lines.len() < 2 {
        return Err(err(last_no, format!("the last line must be `{END}`")));
    }
    Ok(lines[1..lines.len() - 1].to_vec())
}

/// A file header line (`*** Add File: p` …). Not trimmed at its start: a
/// context line may hold such text after its leading space.
fn header(line: &str) -> Option<(&'static str, &str)> {
    [ADD, DELETE, UPDATE]
        .into_iter()
        .find_map(|h| line.strip_prefix(h).map(|p| (h, p.trim())))
}

/// Reads a patch.
pub(crate) fn parse(input: &str) -> Result<Vec<FileOp>, ParseError> {
    let lines = body(input)?;
    let mut ops = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let (n, line) = lines[i];
        if line.trim().is_empty() {
            i += 1;
            continue;
        }
        let Some((kind, path)) = header(line.trim_start()) else {
            return Err(err(
                n,
                format!(
                    "expected a file header (`{}`, `{}` or `{}`), found `{}`",
                    ADD,
                    DELETE,
                    UPDATE,
                    line.trim()
                ),
            ));
        };
        if path.is_empty() {
            return Err(err(n, "the file header names no path"));
        }
        let path = path.to_string();
        i += 1;
        match kind {
            ADD => {
                let mut added = Vec::new();
                while i < lines.len() && header(lines[i].1).is_none() {
                    let (n, l) = lines[i];
                    if separator(&lines, i) {
                        i += 1;
                        continue;
                    }
                    match l.strip_prefix('+') {
                        Some(text) => added.push(text.to_string()),
                        None => {
                            return Err(err(
                                n,
                                format!("every line of an added file starts with `+` ({path})"),
                            ));
                        }
                    }
                    i += 1;
                }
                ops.push(FileOp::Add { path, lines: added });
            }
            DELETE => ops.push(FileOp::Delete { path }),
            _ => {
                let mut move_to = None;
                if let Some((mn, l)) = lines.get(i)
                    && let Some(dest) = l.trim_start().strip_prefix(MOVE)
                {
                    let dest = dest.trim();
                    if dest.is_empty() {
                        return Err(err(*mn, "`*** Move to:` names no path"));
                    }
                    move_to = Some(dest.to_string());
                    i += 1;
                }
                let (hunks, next) = hunks(&lines, i, &path)?;
                i = next;
                if hunks.is_empty() && move_to.is_none() {
                    return Err(err(n, format!("the update of {path} has no hunks")));
                }
                ops.push(FileOp::Update {
                    path,
                    move_to,
                    hunks,
                });
            }
        }
    }
    if ops.is_empty() {
        return Err(err(0, "the patch changes no file"));
    }
    Ok(ops)
}

/// The hunks of an update starting at `lines[i]`, and where the next file starts.
fn hunks(
    lines: &[(usize, &str)],
    mut i: usize,
    path: &str,
) -> Result<(Vec<Hunk>, usize), ParseError> {
    let mut hunks: Vec<Hunk> = Vec::new();
    let mut current: Option<Hunk> = None;
    while i < lines.len() {
        let (n, line) = lines[i];
        if header(line).is_some() {
            break;
        }
        if separator(lines, i) {
            i += 1;
            continue;
        }
        let trimmed = line.trim();
        if trimmed == "@@" || trimmed.starts_with("@@ ") {
            let anchor = trimmed
                .strip_prefix("@@")
                .map(str::trim)
                .filter(|a| !a.is_empty() && !is_line_numbers(a))
                .map(str::to_string);
            match current.as_mut() {
                // `@@ class A` then `@@ def f():`: anchors narrowing one hunk.
                Some(h) if h.lines.is_empty() => h.anchors.extend(anchor),
                _ => {
                    if let Some(h) = current.take() {
                        hunks.push(finished(h, path)?);
                    }
                    current = Some(Hunk {
                        anchors: anchor.into_iter().collect(),
                        lines: Vec::new(),
                        end_of_file: false,
                        line_no: n,
                    });
                }
            }
            i += 1;
            continue;
        }
        if trimmed == EOF_MARK {
            match current.as_mut() {
                Some(h) if !h.lines.is_empty() => h.end_of_file = true,
                _ => return Err(err(n, "`*** End of File` follows no hunk lines")),
            }
            i += 1;
            continue;
        }
        let hunk = current.get_or_insert_with(|| Hunk {
            anchors: Vec::new(),
            lines: Vec::new(),
            end_of_file: false,
            line_no: n,
        });
        if hunk.end_of_file {
            return Err(err(n, "hunk lines after `*** End of File` need a new `@@`"));
        }
        let parsed = match line.chars().next() {
            Some(' ') => Line::Context(line[1..].to_string()),
            Some('-') => Line::Removed(line[1..].to_string()),
            Some('+') => Line::Added(line[1..].to_string()),
            // A blank line is an empty context line (editors strip the space).
            None => Line::Context(String::new()),
            Some(_) => {
                return Err(err(
                    n,
                    format!(
                        "a hunk line starts with ` ` (context), `-` (removed) or `+` (added), found `{line}` in {path}"
                    ),
                ));
            }
        };
        hunk.lines.push(parsed);
        i += 1;
    }
    if let Some(h) = current.take() {
        hunks.push(finished(h, path)?);
    }
    Ok((hunks, i))
}

/// Whether `lines[i]` is an empty line that only separates sections: all
/// empty up to the next file header, `@@`, `*** End of File` or the end (an
/// empty context line inside a hunk is kept).
fn separator(lines: &[(usize, &str)], i: usize) -> bool {
    let mut j = i;
    while j < lines.len() && lines[j].1.is_empty() {
        j += 1;
    }
    j > i
        && lines.get(j).is_none_or(|(_, l)| {
            let t = l.trim();
            header(l).is_some() || t == "@@" || t.starts_with("@@ ") || t == EOF_MARK
        })
}

/// A unified diff's `-12,3 +12,4 @@` (a model mixing formats): numbers,
/// not a line to find.
fn is_line_numbers(anchor: &str) -> bool {
    let Some(rest) = anchor.strip_suffix("@@") else {
        return false;
    };
    let mut parts = rest.split_whitespace();
    let range = |p: Option<&str>, sign: char| {
        p.and_then(|p| p.strip_prefix(sign)).is_some_and(|r| {
            !r.is_empty()
                && r.split(',')
                    .all(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        })
    };
    range(parts.next(), '-') && range(parts.next(), '+') && parts.next().is_none()
}

fn finished(h: Hunk, path: &str) -> Result<Hunk, ParseError> {
    if h.lines.is_empty() {
        return Err(err(h.line_no, format!("an empty hunk in {path}")));
    }
    if h.lines.iter().all(|l| matches!(l, Line::Context(_))) {
        return Err(err(
            h.line_no,
            format!("a hunk in {path} changes nothing (no `-` or `+` lines)"),
        ));
    }
    Ok(h)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx(t: &str) -> Line {
        Line::Context(t.into())
    }
    fn del(t: &str) -> Line {
        Line::Removed(t.into())
    }
    fn add(t: &str) -> Line {
        Line::Added(t.into())
    }

    #[test]
    fn reads_every_header_kind() {
        let patch = "*** Begin Patch\n\
*** Add File: new.txt\n+one\n+two\n\
*** Delete File: old.txt\n\
*** Update File: src/a.rs\n*** Move to: src/b.rs\n@@ fn main() {\n a\n-b\n+c\n@@\n x\n+y\n*** End of File\n\
*** End Patch\n";
        let ops = parse(patch).unwrap();
        assert_eq!(
            ops[0],
            FileOp::Add {
                path: "new.txt".into(),
                lines: vec!["one".into(), "two".into()]
            }
        );
        assert_eq!(
            ops[1],
            FileOp::Delete {
                path: "old.txt".into()
            }
        );
        let FileOp::Update {
            path,
            move_to,
            hunks,
        } = &ops[2]
        else {
            panic!("{ops:?}")
        };
        assert_eq!(
            (path.as_str(), move_to.as_deref()),
            ("src/a.rs", Some("src/b.rs"))
        );
        assert_eq!(hunks.len(), 2);
        assert_eq!(hunks[0].anchors, ["fn main() {"]);
        assert_eq!(hunks[0].lines, vec![ctx("a"), del("b"), add("c")]);
        assert_eq!(hunks[0].old_text(), "a\nb\n");
        assert_eq!(hunks[0].new_text(), "a\nc\n");
        assert!(!hunks[0].end_of_file && hunks[1].end_of_file);
        assert!(hunks[1].anchors.is_empty());
        assert_eq!(hunks[0].line_no, 8);
    }

    #[test]
    fn lenient_where_codex_is() {
        let wrapped = "  \napply_patch <<'EOF'\n*** Begin Patch\r\n*** Update File: a.txt\r\n x\r\n\r\n-y\r\n+z\r\n  *** End Patch  \nEOF\n\n";
        let ops = parse(wrapped).unwrap();
        let FileOp::Update { hunks, .. } = &ops[0] else {
            panic!()
        };
        assert_eq!(hunks[0].lines, vec![ctx("x"), ctx(""), del("y"), add("z")]);
        assert!(hunks[0].anchors.is_empty());
        assert!(
            parse("apply_patch <<EOF\n*** Begin Patch\n*** Delete File: a\n*** End Patch\nEOF")
                .is_ok()
        );
    }

    #[test]
    fn errors_name_the_line() {
        let e = |p: &str| parse(p).unwrap_err().to_string();
        assert_eq!(e(""), "Invalid patch: the patch is empty");
        assert_eq!(
            e("hello\n*** End Patch"),
            "Invalid patch, line 1: the first line must be `*** Begin Patch`"
        );
        assert_eq!(
            e("*** Begin Patch\n*** Delete File: a"),
            "Invalid patch, line 2: the last line must be `*** End Patch`"
        );
        assert_eq!(
            e("*** Begin Patch\n*** End Patch"),
            "Invalid patch: the patch changes no file"
        );
        assert_eq!(
            e("*** Begin Patch\n*** Frobnicate: a\n*** End Patch"),
            "Invalid patch, line 2: expected a file header (`*** Add File:`, `*** Delete File:` or `*** Update File:`), found `*** Frobnicate: a`"
        );
        assert_eq!(
            e("*** Begin Patch\n*** Add File: a\nno plus\n*** End Patch"),
            "Invalid patch, line 3: every line of an added file starts with `+` (a)"
        );
        assert_eq!(
            e("*** Begin Patch\n*** Update File: a\n@@\n x\n*oops\n*** End Patch"),
            "Invalid patch, line 5: a hunk line starts with ` ` (context), `-` (removed) or `+` (added), found `*oops` in a"
        );
        assert_eq!(
            e("*** Begin Patch\n*** Update File: a\n@@\n x\n y\n*** End Patch"),
            "Invalid patch, line 3: a hunk in a changes nothing (no `-` or `+` lines)"
        );
        assert_eq!(
            e("*** Begin Patch\n*** Update File: a\n*** End Patch"),
            "Invalid patch, line 2: the update of a has no hunks"
        );
        assert_eq!(
            e("*** Begin Patch\n*** Update File: a\n@@\n-x\n*** End of File\n+y\n*** End Patch"),
            "Invalid patch, line 6: hunk lines after `*** End of File` need a new `@@`"
        );
        assert_eq!(
            e("*** Begin Patch\n*** Add File: \n*** End Patch"),
            "Invalid patch, line 2: the file header names no path"
        );
    }
}
