//! The review report (OpenSeek §8.1): what `submit_review` takes, how a call
//! is checked against the repository (a bad one goes back to the model with
//! what is wrong), and the one report `seekclaw review` prints.

use std::path::{Component, Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// The report's schema version.
pub const SCHEMA_VERSION: u32 = 1;
/// More findings than this are a report nobody reads: the model is asked to
/// keep the ones that matter.
const MAX_FINDINGS: usize = 100;

/// How bad a finding is, worst first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Blocker,
    High,
    Medium,
    Low,
    Nit,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Blocker => "blocker",
            Severity::High => "high",
            Severity::Medium => "medium",
            Severity::Low => "low",
            Severity::Nit => "nit",
        }
    }
}

/// What kind of problem a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Category {
    Correctness,
    Safety,
    Perf,
    Style,
}

/// Whether the build or the tests were run, and how they went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Check {
    Pass,
    Fail,
    #[default]
    NotRun,
}

/// One problem, at a line of the new version of a file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Finding {
    pub file: String,
    pub line: u64,
    pub severity: Severity,
    pub category: Category,
    pub title: String,
    pub detail: String,
    #[serde(default)]
    pub suggestion: String,
}

/// The arguments of a `submit_review` call.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Submitted {
    findings: Vec<Finding>,
    summary: String,
    #[serde(default)]
    files_reviewed: Option<u64>,
    #[serde(default)]
    build: Check,
    #[serde(default)]
    tests: Check,
}

/// What was reviewed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Scope {
    pub base: String,
    /// `HEAD` (the commits only), or `working tree`: the commits and the
    /// uncommitted changes.
    pub head: String,
    pub files: Vec<String>,
    /// Files with uncommitted changes (staged, unstaged or untracked) when
    /// the review ran: reviewed when `head` is the working tree, else not.
    #[serde(default)]
    pub uncommitted: Vec<String>,
}

impl Scope {
    /// Uncommitted changes the review did not cover (`--committed`).
    pub fn unreviewed(&self) -> &[String] {
        if self.head == super::scope::WORKING_TREE {
            &[]
        } else {
            &self.uncommitted
        }
    }

    /// `main...HEAD`, or `main...HEAD and the uncommitted changes`.
    pub fn describe(&self) -> String {
        if self.head == super::scope::WORKING_TREE {
            format!("{}...HEAD and the uncommitted changes", self.base)
        } else {
            format!("{}...{}", self.base, self.head)
        }
    }
}

/// `a, b, c` (the first few) or `a, b, c and 4 more`.
pub fn few(files: &[String]) -> String {
    const SHOWN: usize = 5;
    let head = files
        .iter()
        .take(SHOWN)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    match files.len().saturating_sub(SHOWN) {
        0 => head,
        more => format!("{head} and {more} more"),
    }
}

/// Counts and checks of the report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Stats {
    pub files_reviewed: u64,
    pub findings: u64,
    pub build: Check,
    pub tests: Check,
}

/// The one report `seekclaw review` prints.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    pub schema_version: u32,
    pub scope: Scope,
    pub findings: Vec<Finding>,
    pub summary: String,
    pub stats: Stats,
}

impl Report {
    /// The report of a range with nothing to review.
    pub fn empty(scope: Scope) -> Report {
        let summary = match scope.unreviewed().len() {
            0 => format!("No changes between {} and {}.", scope.base, scope.head),
            n => format!(
                "No committed changes between {} and {}; the uncommitted changes in {n} file{} were not reviewed (--committed).",
                scope.base,
                scope.head,
                if n == 1 { "" } else { "s" }
            ),
        };
        Report {
            schema_version: SCHEMA_VERSION,
            scope,
            findings: Vec::new(),
            summary,
            stats: Stats {
                files_reviewed: 0,
                findings: 0,
                build: Check::NotRun,
                tests: Check::NotRun,
            },
        }
    }

    /// Whether a finding blocks the change (exit code 2).
    pub fn has_blocker(&self) -> bool {
        self.findings
            .iter()
            .any(|f| f.severity == Severity::Blocker)
    }
}

/// The JSON schema of `submit_review`'s arguments, as the model sees it.
pub fn parameters() -> Value {
    let check = json!({"type": "string", "enum": ["pass", "fail", "not_run"]});
    json!({
        "type": "object",
        "properties": {
            "findings": {
                "type": "array",
                "description": "Every real problem found; an empty list when the change is clean.",
                "items": {
                    "type": "object",
                    "properties": {
                        "file": {"type": "string", "description": "Path relative to the repository root."},
                        "line": {"type": "integer", "minimum": 1, "description": "Line in the new version of the file."},
                        "severity": {"type": "string", "enum": ["blocker", "high", "medium", "low", "nit"]},
                        "category": {"type": "string", "enum": ["correctness", "safety", "perf", "style"]},
                        "title": {"type": "string", "description": "One line."},
                        "detail": {"type": "string", "description": "What is wrong and why it matters."},
                        "suggestion": {"type": "string", "description": "How to fix it."}
                    },
                    "required": ["file", "line", "severity", "category", "title", "detail"],
                    "additionalProperties": false
                }
            },
            "summary": {"type": "string", "description": "Two or three sentences on the change and its state."},
            "files_reviewed": {"type": "integer", "minimum": 0},
            "build": check.clone(),
            "tests": check
        },
        "required": ["findings", "summary"],
        "additionalProperties": false
    })
}

/// Checks a `submit_review` call against the repository at `root`: the
/// report it makes, or what the model must fix.
pub fn check(args: &Value, root: &Path, scope: &Scope) -> Result<Report, String> {
    let submitted: Submitted =
        serde_json::from_value(args.clone()).map_err(|e| format!("invalid arguments: {e}"))?;
    if submitted.summary.trim().is_empty() {
        return Err("summary is empty".into());
    }
    if submitted.findings.len() > MAX_FINDINGS {
        return Err(format!(
            "{} findings: keep the {MAX_FINDINGS} that matter most",
            submitted.findings.len()
        ));
    }
    let mut findings = Vec::with_capacity(submitted.findings.len());
    for (i, mut finding) in submitted.findings.into_iter().enumerate() {
        let n = i + 1;
        finding.file = repo_path(root, &finding.file)
            .ok_or_else(|| format!("finding {n}: `{}` is not a file in the repository (use a path relative to its root)", finding.file))?;
        let lines = line_count(&root.join(&finding.file))
            .ok_or_else(|| format!("finding {n}: `{}` is not a readable file", finding.file))?;
        if finding.line == 0 || finding.line > lines.max(1) {
            return Err(format!(
                "finding {n}: line {} is outside `{}` ({lines} lines)",
                finding.line, finding.file
            ));
        }
        if finding.title.trim().is_empty() || finding.detail.trim().is_empty() {
            return Err(format!("finding {n}: title and detail must not be empty"));
        }
        findings.push(finding);
    }
    // Worst first; the model's order within a severity.
    findings.sort_by_key(|f| f.severity);
    Ok(Report {
        schema_version: SCHEMA_VERSION,
        scope: scope.clone(),
        stats: Stats {
            files_reviewed: submitted.files_reviewed.unwrap_or(scope.files.len() as u64),
            findings: findings.len() as u64,
            build: submitted.build,
            tests: submitted.tests,
        },
        findings,
        summary: submitted.summary.trim().to_string(),
    })
}

/// `file` as a clean path relative to `root`, when it names a file inside it.
fn repo_path(root: &Path, file: &str) -> Option<String> {
    let given = Path::new(file.trim());
    let relative = match given.strip_prefix(root) {
        Ok(rest) => rest.to_path_buf(),
        Err(_) if given.is_absolute() => return None,
        Err(_) => given.to_path_buf(),
    };
    let mut clean = PathBuf::new();
    for part in relative.components() {
        match part {
            Component::Normal(p) => clean.push(p),
            Component::CurDir => {}
            _ => return None,
        }
    }
    let text = clean.to_str()?.to_string();
    (!text.is_empty() && root.join(&clean).is_file()).then_some(text)
}

/// The number of lines of a text file.
fn line_count(path: &Path) -> Option<u64> {
    let bytes = std::fs::read(path).ok()?;
    let newlines = bytes.iter().filter(|b| **b == b'\n').count() as u64;
    Some(newlines + u64::from(!bytes.is_empty() && bytes.last() != Some(&b'\n')))
}

/// The report as a person reads it.
pub fn render_text(report: &Report) -> String {
    let n = report.scope.files.len();
    let mut out = format!(
        "Review of {} ({n} file{})\n",
        report.scope.describe(),
        if n == 1 { "" } else { "s" }
    );
    let unreviewed = report.scope.unreviewed();
    if !unreviewed.is_empty() {
        out.push_str(&format!(
            "Not reviewed: the uncommitted changes in {} (drop --committed to include them)\n",
            few(unreviewed)
        ));
    }
    for f in &report.findings {
        out.push_str(&format!(
            "\n{:<8} {}:{}  [{}] {}\n",
            f.severity.as_str().to_uppercase(),
            f.file,
            f.line,
            serde_json::to_value(f.category)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default(),
            f.title
        ));
        for line in f.detail.lines() {
            out.push_str(&format!("         {line}\n"));
        }
        if !f.suggestion.trim().is_empty() {
            out.push_str(&format!("         suggestion: {}\n", f.suggestion.trim()));
        }
    }
    if report.findings.is_empty() && !report.scope.files.is_empty() {
        out.push_str("\nNo findings.\n");
    }
    out.push_str(&format!("\n{}\n", report.summary));
    let check = |c: Check| match c {
        Check::Pass => "pass",
        Check::Fail => "fail",
        Check::NotRun => "not run",
    };
    // "no findings" would claim a review that did not happen.
    let found = if report.scope.files.is_empty() && report.findings.is_empty() {
        "nothing reviewed".to_string()
    } else {
        counts(&report.findings)
    };
    out.push_str(&format!(
        "\n{found} · build: {} · tests: {}\n",
        check(report.stats.build),
        check(report.stats.tests)
    ));
    out
}

/// "1 blocker, 2 medium" (or "no findings").
fn counts(findings: &[Finding]) -> String {
    let all = [
        Severity::Blocker,
        Severity::High,
        Severity::Medium,
        Severity::Low,
        Severity::Nit,
    ];
    let parts: Vec<String> = all
        .iter()
        .filter_map(|s| {
            let n = findings.iter().filter(|f| f.severity == *s).count();
            (n > 0).then(|| format!("{n} {}", s.as_str()))
        })
        .collect();
    if parts.is_empty() {
        "no findings".into()
    } else {
        parts.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repo() -> (tempfile::TempDir, Scope) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("src/a.rs"), "one\ntwo\nthree\n").unwrap();
        let scope = Scope {
            base: "main".into(),
            head: "HEAD".into(),
            files: vec!["src/a.rs".into()],
            uncommitted: Vec::new(),
        };
        (dir, scope)
    }

    fn finding(file: &str, line: u64, severity: &str) -> Value {
        json!({"file": file, "line": line, "severity": severity, "category": "correctness",
               "title": "t", "detail": "d"})
    }

    #[test]
    fn a_good_report_is_sorted_worst_first_and_counted() {
        let (dir, scope) = repo();
        let args = json!({"findings": [finding("src/a.rs", 2, "nit"), finding("./src/a.rs", 3, "blocker")],
                          "summary": "ok", "tests": "pass"});
        let report = check(&args, dir.path(), &scope).unwrap();
        assert_eq!(report.findings[0].severity, Severity::Blocker);
        assert_eq!(report.findings[0].file, "src/a.rs");
        assert_eq!(report.stats.findings, 2);
        assert_eq!(report.stats.files_reviewed, 1);
        assert_eq!(report.stats.tests, Check::Pass);
        assert_eq!(report.stats.build, Check::NotRun);
        assert!(report.has_blocker());
        let text = render_text(&report);
        assert!(text.contains("BLOCKER  src/a.rs:3"), "{text}");
        assert!(text.contains("1 blocker, 1 nit"), "{text}");
    }

    #[test]
    fn bad_reports_say_what_to_fix() {
        let (dir, scope) = repo();
        let cases = [
            (json!({"findings": [], "summary": " "}), "summary is empty"),
            (
                json!({"findings": [finding("src/a.rs", 4, "low")], "summary": "s"}),
                "line 4 is outside `src/a.rs` (3 lines)",
            ),
            (
                json!({"findings": [finding("src/b.rs", 1, "low")], "summary": "s"}),
                "`src/b.rs` is not a file",
            ),
            (
                json!({"findings": [finding("../etc/passwd", 1, "low")], "summary": "s"}),
                "not a file in the repository",
            ),
            (
                json!({"findings": [finding("src/a.rs", 1, "critical")], "summary": "s"}),
                "unknown variant `critical`",
            ),
            (json!({"summary": "s"}), "missing field `findings`"),
            (
                json!({"findings": [], "summary": "s", "extra": 1}),
                "unknown field `extra`",
            ),
        ];
        for (args, wanted) in cases {
            let err = check(&args, dir.path(), &scope).unwrap_err();
            assert!(err.contains(wanted), "{args}: {err}");
        }
    }

    #[test]
    fn an_absolute_path_inside_the_root_is_made_relative() {
        let (dir, scope) = repo();
        let abs = dir.path().join("src/a.rs");
        let args = json!({"findings": [finding(abs.to_str().unwrap(), 1, "low")], "summary": "s"});
        assert_eq!(
            check(&args, dir.path(), &scope).unwrap().findings[0].file,
            "src/a.rs"
        );
    }
}
