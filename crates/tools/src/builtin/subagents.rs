//! `explore` and `review`: tools that run a child turn (a subagent) with its
//! own session and a read-only tool set, through the turn's
//! [`crate::ChildTurns`] handle. Both may run beside neighbouring calls.

use std::sync::atomic::Ordering;

use schemars::JsonSchema;
use serde::Deserialize;

// A subagent changes nothing itself and runs beside neighbouring calls: a read.
use super::{READS, definition, impl_tool};
use crate::children::{ChildRequest, ChildStatus, ChildTurns, MAX_SUBRUNS_PER_TURN, SubrunKind};
use crate::error::ToolError;
use crate::tool::{ToolContext, ToolDefinition, ToolOutput};

/// Longest `explore` query, in characters.
const MAX_QUERY_CHARS: usize = 2000;
/// Longest answer handed back, in characters.
pub(crate) const MAX_ANSWER_CHARS: usize = 8000;
/// `file:line` citations kept in an answer.
pub(crate) const MAX_CITATIONS: usize = 20;
/// The severities a review finding is tagged with, most severe first.
const SEVERITIES: [&str; 5] = ["blocker", "high", "medium", "low", "nit"];

const EXPLORE_DESCRIPTION: &str = "Send a read-only scout subagent to answer a question about \
the workspace (where something is defined, how a feature works, what calls what). It reads \
files, searches and runs read-only shell commands in its own session, then answers with \
`file:line` citations (at most 20, at most 8,000 characters). Use it for open-ended searches \
that would take many reads; several explore calls in one step run at the same time.";

const REVIEW_DESCRIPTION: &str = "Send a review subagent to audit the work done so far against \
the standing goal, or against `focus` when given. It inspects the changes read-only and \
returns findings tagged by severity (blocker, high, medium, low, nit). Without a standing \
goal, `focus` is required.";

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct ExploreArgs {
    /// The question to answer, at most 2000 characters.
    query: String,
    /// Where to start looking (paths, names), if known.
    #[serde(default)]
    hints: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct ReviewArgs {
    /// What to review (required when no standing goal is set).
    #[serde(default)]
    focus: Option<String>,
}

pub struct ExploreTool {
    def: ToolDefinition,
}

impl ExploreTool {
    pub fn new() -> Self {
        ExploreTool {
            def: definition::<ExploreArgs>("explore", EXPLORE_DESCRIPTION, READS, "Exploring"),
        }
    }

    async fn run(&self, args: ExploreArgs, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let query = args.query.trim();
        if query.is_empty() {
            return Err(ToolError::InvalidArgs("query is empty".into()));
        }
        if query.chars().count() > MAX_QUERY_CHARS {
            return Err(ToolError::InvalidArgs(format!(
                "query is longer than {MAX_QUERY_CHARS} characters; ask a shorter question"
            )));
        }
        let children = handle(ctx, "explore")?;
        take_budget(ctx)?;
        let hints = args
            .hints
            .filter(|h| !h.trim().is_empty())
            .map(|h| format!("\n\nHints:\n{h}"))
            .unwrap_or_default();
        let message = format!(
            "You are a read-only scout subagent. Answer the question below about this workspace. \
             Read files (read_file, grep, glob, list_dir) and run read-only shell commands \
             (ls, cat, grep, find, git log/diff/show); anything that changes something is \
             refused. Answer concisely, at most {MAX_ANSWER_CHARS} characters, and cite your \
             evidence as `path:line` (at most {MAX_CITATIONS} citations).\n\nQuestion:\n{query}{hints}"
        );
        let request = ChildRequest {
            kind: SubrunKind::Explore,
            label: one_line(query),
            message,
        };
        let report = children
            .run(request, ctx.cancel.clone())
            .await
            .map_err(|e| ToolError::failed(e.to_string()))?;
        ended(report, "explore", |text| {
            let (answer, cited) = cap_answer(text);
            let summary = format!("Explored: {cited} citation{}", plural(cited));
            (answer, summary)
        })
    }
}

impl_tool!(ExploreTool, ExploreArgs);

pub struct ReviewTool {
    def: ToolDefinition,
}

impl ReviewTool {
    pub fn new() -> Self {
        ReviewTool {
            def: definition::<ReviewArgs>("review", REVIEW_DESCRIPTION, READS, "Reviewing"),
        }
    }

    async fn run(&self, args: ReviewArgs, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let children = handle(ctx, "review")?;
        let focus = args.focus.filter(|f| !f.trim().is_empty());
        let goal = children.standing_goal().await;
        if goal.is_none() && focus.is_none() {
            return Err(ToolError::failed(
                "error: no standing goal exists — pass `focus` to say what to review \
                 (e.g. {\"focus\": \"the changes to src/parser.rs\"}).",
            ));
        }
        take_budget(ctx)?;
        let mut against = String::new();
        if let Some(goal) = &goal {
            against.push_str(&format!("\n\nStanding goal:\n{goal}"));
        }
        if let Some(focus) = &focus {
            against.push_str(&format!("\n\nFocus:\n{focus}"));
        }
        let message = format!(
            "You are a code-review subagent. Audit the work done so far in this workspace \
             against what follows. Inspect the changes with read-only commands (git status, \
             git diff, git log) and read the files involved; anything that changes something \
             is refused. Report each finding on its own line as \
             `[severity] path:line — title: detail`, severity one of blocker, high, medium, \
             low, nit, most severe first. If nothing is wrong, say so in one line.{against}"
        );
        let label = one_line(focus.as_deref().or(goal.as_deref()).unwrap_or_default());
        let request = ChildRequest {
            kind: SubrunKind::Review,
            label,
            message,
        };
        let report = children
            .run(request, ctx.cancel.clone())
            .await
            .map_err(|e| ToolError::failed(e.to_string()))?;
        ended(report, "review", |text| {
            let (answer, _) = cap_answer(text);
            let summary = severity_summary(&answer);
            (answer, summary)
        })
    }
}

impl_tool!(ReviewTool, ReviewArgs);

/// The turn's child-turn handle, or why there is none.
fn handle<'c>(ctx: &'c ToolContext, tool: &str) -> Result<&'c dyn ChildTurns, ToolError> {
    ctx.children
        .as_deref()
        .ok_or_else(|| ToolError::failed(format!("Tool '{tool}' is not available in this turn.")))
}

/// Counts one subagent call against the turn's budget; the 11th is refused.
fn take_budget(ctx: &ToolContext) -> Result<(), ToolError> {
    let used = ctx.subruns.fetch_add(1, Ordering::SeqCst);
    if used >= MAX_SUBRUNS_PER_TURN {
        return Err(ToolError::failed(format!(
            "Subagent budget exhausted: this turn already ran {MAX_SUBRUNS_PER_TURN} subagents \
             (explore/review). Do the work directly with read_file, grep, glob and bash."
        )));
    }
    Ok(())
}

/// A child's report as the tool's result: an answer, or a failed result.
fn ended(
    report: crate::children::ChildReport,
    tool: &str,
    shape: impl FnOnce(&str) -> (String, String),
) -> Result<ToolOutput, ToolError> {
    let session = &report.session_id;
    match report.status {
        ChildStatus::Done => {
            let (answer, summary) = shape(&report.text);
            Ok(ToolOutput::ok(answer, summary))
        }
        ChildStatus::Cancelled => Err(ToolError::failed(format!(
            "The {tool} subagent was cancelled (session {session})."
        ))),
        ChildStatus::Failed => Err(ToolError::failed(format!(
            "The {tool} subagent failed (session {session}): {}",
            report.text
        ))),
    }
}

/// `text` on one line, cut at 80 characters.
fn one_line(text: &str) -> String {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= 80 {
        return flat;
    }
    let cut: String = flat.chars().take(79).collect();
    format!("{cut}…")
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// The places in files that `line` cites, normalized to `path:line`:
/// `src/a.rs:12`, `a.rs:3-9`, `lib.rs:12:5` (a column), `a.rs#L12`, with
/// the Markdown and punctuation around them left out (`` `a.rs:1` ``,
/// `**a.rs:1**`, `(a.rs:1).`, `[a.rs:1](a.rs#L1)` counts once). A path has a
/// file name with an extension or a folder; URLs, times (`10:30`) and
/// versions (`v1.2:3`) are not citations.
fn citations(line: &str) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    let words = line.split(|c: char| c.is_whitespace() || "`'\"()[]{}<>,;|*".contains(c));
    for word in words {
        let word = word.trim_matches(|c: char| ".:!?_~".contains(c));
        if let Some(cited) = citation(word)
            && !found.contains(&cited)
        {
            found.push(cited);
        }
    }
    found
}

/// `word` as `path:line` when it cites a line of a file.
fn citation(word: &str) -> Option<String> {
    let (path, place) = match word.split_once('#') {
        Some((path, anchor)) => (path, anchor.strip_prefix('L')?),
        None => word.split_once(':')?,
    };
    let line: String = place.chars().take_while(char::is_ascii_digit).collect();
    let rest = &place[line.len()..];
    // What may follow the line: a column (`:5`), a range (`-9`, `–9`, `-L9`).
    let tail_ok = rest.is_empty()
        || rest
            .trim_start_matches([':', '-', '–', 'L'])
            .chars()
            .all(|c| c.is_ascii_digit());
    // A file name's extension has a letter (`a.rs`, not `v1.2`); a path
    // with a folder needs none (`src/Makefile`).
    let name = path.rsplit('/').next().unwrap_or(path);
    let extension = name
        .rsplit_once('.')
        .is_some_and(|(_, ext)| ext.chars().any(char::is_alphabetic));
    let path_ok = (extension || (path.contains('/') && !name.is_empty()))
        && path.chars().any(char::is_alphabetic)
        && !path.contains("//")
        && !path.contains(':');
    (path_ok && !line.is_empty() && tail_ok).then(|| format!("{path}:{line}"))
}

/// The answer within its limits: lines up to the one that would bring the
/// 21st distinct citation, then at most 8,000 characters. Returns it with
/// the number of distinct citations kept (a place cited twice counts once).
pub(crate) fn cap_answer(text: &str) -> (String, usize) {
    let mut kept = String::new();
    let mut cited: Vec<String> = Vec::new();
    let mut cut = false;
    for line in text.lines() {
        let new: Vec<String> = citations(line)
            .into_iter()
            .filter(|c| !cited.contains(c))
            .collect();
        if cited.len() + new.len() > MAX_CITATIONS {
            cut = true;
            break;
        }
        cited.extend(new);
        kept.push_str(line);
        kept.push('\n');
    }
    let mut answer = kept.trim_end().to_string();
    if answer.chars().count() > MAX_ANSWER_CHARS {
        answer = answer.chars().take(MAX_ANSWER_CHARS).collect();
        cut = true;
    }
    if cut {
        answer.push_str("\n[answer cut to the subagent limits: 20 citations, 8,000 characters]");
    }
    (answer, cited.len())
}

/// `Reviewed: 1 blocker, 2 medium`, or `Reviewed: no findings`.
fn severity_summary(answer: &str) -> String {
    let counts: Vec<String> = SEVERITIES
        .iter()
        .filter_map(|s| {
            let tag = format!("[{s}]");
            let n = answer
                .lines()
                .filter(|l| l.trim_start().to_ascii_lowercase().starts_with(&tag))
                .count();
            (n > 0).then(|| format!("{n} {s}"))
        })
        .collect();
    if counts.is_empty() {
        "Reviewed: no findings".into()
    } else {
        format!("Reviewed: {}", counts.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_keep_at_most_twenty_citations_and_eight_thousand_chars() {
        let text: String = (1..=30).map(|i| format!("see src/a.rs:{i}\n")).collect();
        let (answer, cited) = cap_answer(&text);
        assert_eq!(cited, 20);
        assert!(answer.contains("src/a.rs:20") && !answer.contains("src/a.rs:21"));
        assert!(answer.ends_with("8,000 characters]"));
        let long = "x".repeat(9000);
        let (answer, cited) = cap_answer(&long);
        assert_eq!(cited, 0);
        assert!(answer.chars().count() < 8100 && answer.contains("[answer cut"));
        let (plain, cited) = cap_answer("no cites: http://x.y:80 and 10:30 and a.b:c, 1.2:3");
        assert!(!plain.contains("[answer cut"));
        assert_eq!(cited, 0);
    }

    #[test]
    fn citations_are_counted_once_whatever_surrounds_them() {
        let count = |text: &str| cap_answer(text).1;
        assert_eq!(count("`crates/x/src/lib.rs:12`, a.rs:3-9"), 2);
        // Sentence ends, brackets, emphasis, links, columns, anchors.
        assert_eq!(count("It is at src/a.rs:12."), 1);
        assert_eq!(count("(see src/a.rs:12)."), 1);
        assert_eq!(count("**src/a.rs:3**: the entry"), 1);
        assert_eq!(count("[src/a.rs:4](src/a.rs#L4)"), 1, "one place, twice");
        assert_eq!(count("src/lib.rs:12:5 and src/lib.rs:12"), 1);
        assert_eq!(count("src/a.rs#L7-L9"), 1);
        assert_eq!(count("a.rs:1,b.rs:2;c.rs:3"), 3);
        assert_eq!(count("a.rs:3–9 (en dash)"), 1);
        // The same place cited again is one citation.
        assert_eq!(count("src/a.rs:3 then\nagain `src/a.rs:3`"), 1);
        // Not citations: URLs, times, versions, ratios, labels.
        assert_eq!(
            count("https://example.com:8080/x at 10:30, v1.2:3, note: 12, e.g.: x"),
            0
        );
        let many: String = (1..=25)
            .map(|i| format!("see src/a.rs:{i} and src/a.rs:{i}.\n"))
            .collect();
        let (answer, cited) = cap_answer(&many);
        assert_eq!(cited, 20);
        assert!(answer.contains("src/a.rs:20.") && !answer.contains("src/a.rs:21"));
    }

    #[test]
    fn review_summaries_count_severities() {
        let s = severity_summary("[blocker] a.rs:1 — x\n[medium] b.rs:2 — y\n[MEDIUM] c.rs:3 — z");
        assert_eq!(s, "Reviewed: 1 blocker, 2 medium");
        assert_eq!(severity_summary("All good."), "Reviewed: no findings");
    }
}
