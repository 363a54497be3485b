//! `seekclaw review`: a headless, read-only review of `base...HEAD` and the
//! working tree's uncommitted changes (OpenSeek §8.1, which reviews commits
//! only: a dirty tree reported clean misled; `--committed` is that). One turn in this process, in readonly mode, ends with the
//! `submit_review` tool; its arguments are checked against the repository
//! and a bad report goes back to the model to fix. Exactly one report is
//! printed: JSON with `--json`, readable text otherwise. Exit codes: 0 a
//! report without blockers, 1 no report, 2 a blocker found.

mod report;
mod scope;

use std::path::PathBuf;
use std::sync::Arc;

use seekclaw_agent::{AgentEvent, SubmitTool, TurnOutcome};
use seekclaw_config::{AgentMode, ApprovalPolicy, Home};
use seekclaw_engine::{Engine, TurnControls};

use crate::run::{RunOptions, start_run};

use crate::TurnFlags;
use crate::error::{ExecError, IoContext, refuse};

pub use report::{Report, render_text};
use scope::Range;

const SUBMIT: &str = "submit_review";

/// What to review and how.
#[derive(Debug, Clone)]
pub struct ReviewSpec {
    /// A folder in the repository (`--workspace`, else the current one).
    pub dir: PathBuf,
    /// What to compare against (default: the branch's upstream, else `main`).
    pub base: Option<String>,
    /// The commits `base...HEAD` only, not the working tree's changes.
    pub committed: bool,
    /// The turn flags; the mode must be read-only (plan or readonly).
    pub turn: TurnFlags,
}

/// How a review ended.
#[derive(Debug)]
pub enum Ended {
    Report(Box<Report>),
    NoReport(String),
    Cancelled,
}

/// What a review says while it works (not the report): for a person
/// watching, on stderr.
#[derive(Debug, Clone, Copy)]
pub enum Progress<'a> {
    /// Which changes are reviewed, when the tree is dirty (one sentence).
    Scope(&'a str),
    /// The model called a tool.
    Tool { name: &'a str, summary: &'a str },
}

/// Runs the review: one read-only turn in this process that ends with the
/// `submit_review` tool (a range with no changes gets an empty report
/// without asking a model).
pub fn review(
    home: Home,
    spec: &ReviewSpec,
    progress: &mut dyn FnMut(Progress<'_>),
) -> Result<Ended, ExecError> {
    let mode = match spec.turn.mode {
        None => AgentMode::Readonly,
        Some(mode @ (AgentMode::Plan | AgentMode::Readonly)) => mode,
        Some(_) => refuse!("a review is read-only: --mode takes plan or readonly"),
    };
    let range = scope::resolve(&spec.dir, spec.base.as_deref(), spec.committed)?;
    if let Some(line) = what_is_reviewed(&range) {
        progress(Progress::Scope(&line));
    }
    if range.scope.files.is_empty() && range.diff.trim().is_empty() {
        return Ok(Ended::Report(Box::new(Report::empty(range.scope))));
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .at(|| "cannot start the async runtime".into())?;
    let ended = runtime.block_on(run_review(home, spec, mode, range, progress));
    runtime.shutdown_background();
    ended
}

async fn run_review(
    home: Home,
    spec: &ReviewSpec,
    mode: AgentMode,
    range: Range,
    progress: &mut dyn FnMut(Progress<'_>),
) -> Result<Ended, ExecError> {
    let engine = Engine::open(home).await?;
    engine.start_telemetry("review");
    let controls = TurnControls::default();
    let cancel = controls.cancel.clone();
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            cancel.cancel();
        }
    });
    let mut overrides = spec.turn.overrides();
    // Read-only: the review changes nothing and, by default, asks nobody.
    overrides.mode = Some(mode);
    overrides.approval_policy = Some(spec.turn.approval.unwrap_or(ApprovalPolicy::Never));
    overrides.finish_tool = false;
    overrides.submit = Some(submit_tool(&range));
    let opts = RunOptions {
        cwd: range.root.clone(),
        prompt: instructions(&range),
        workspace: Some(range.root.clone()),
        global: false,
        session: None,
        continue_latest: false,
        images: Vec::new(),
        overrides,
    };
    let mut turn = start_run(&engine, &opts, controls).await?;
    while let Some(ev) = turn.next_event().await {
        if let AgentEvent::ToolStart { name, summary, .. } = &ev
            && name != SUBMIT
        {
            progress(Progress::Tool { name, summary });
        }
    }
    let ended = match turn.outcome().await {
        TurnOutcome::Done(answer) => match serde_json::from_str::<Report>(&answer) {
            Ok(report) => Ended::Report(Box::new(report)),
            Err(_) => Ended::NoReport(format!(
                "the model ended without calling {SUBMIT}{}",
                excerpt(&answer)
            )),
        },
        TurnOutcome::Cancelled(_) => Ended::Cancelled,
        TurnOutcome::Failed(f) => Ended::NoReport(f.message),
        TurnOutcome::Unsaved { error, .. } => {
            Ended::NoReport(seekclaw_protocol::wording::unsaved_message(&error))
        }
    };
    engine.close().await;
    Ok(ended)
}

/// Which changes the review covers when the tree is dirty, so nobody takes
/// a review of the commits for one of the tree or the other way round.
fn what_is_reviewed(range: &Range) -> Option<String> {
    let dirty = &range.scope.uncommitted;
    if dirty.is_empty() {
        return None;
    }
    let n = dirty.len();
    let files = format!("{n} file{}", if n == 1 { "" } else { "s" });
    Some(if range.with_worktree() {
        format!(
            "seekclaw: reviewing {}...HEAD and the uncommitted changes in {files} ({}); --committed reviews the commits only",
            range.scope.base,
            report::few(dirty)
        )
    } else {
        format!(
            "seekclaw: not reviewing the uncommitted changes in {files} ({}): --committed reviews {}...HEAD only",
            report::few(range.unreviewed()),
            range.scope.base
        )
    })
}

/// The `submit_review` tool, checking each call against the repository.
fn submit_tool(range: &Range) -> SubmitTool {
    let (root, scope) = (range.root.clone(), range.scope.clone());
    SubmitTool::new(
        SUBMIT,
        "Submit the review report: every finding with its file, line, severity and category, and a summary. Call it exactly once, when the review is complete; an empty findings list is a valid report.",
        report::parameters(),
        Arc::new(move |args| {
            let report = report::check(args, &root, &scope)?;
            serde_json::to_string(&report).map_err(|e| e.to_string())
        }),
    )
}

/// The turn's message: the range, its files and its diff.
fn instructions(range: &Range) -> String {
    let files: String = range
        .scope
        .files
        .iter()
        .map(|f| format!("- {f}\n"))
        .collect();
    let cut = if range.diff_cut {
        "\n(The diff is cut here: read the remaining files with your tools.)\n"
    } else {
        ""
    };
    let what = if range.with_worktree() {
        format!(
            "the changes between `{}` and the working tree: the commits `{0}...HEAD` and the uncommitted changes (staged, unstaged and untracked files)",
            range.scope.base
        )
    } else {
        format!("the changes between `{}` and `HEAD`", range.scope.base)
    };
    format!(
        "Review {what} in this repository. You are read-only: change nothing.\n\n\
         Look for real problems a careful reviewer would block or flag: correctness, safety (security, data loss), performance, and style where it hurts readability. Read the surrounding code where the diff is not enough. Point each finding at a line of the new version of a file.\n\n\
         Severities: blocker (must not merge), high, medium, low, nit. Categories: correctness, safety, perf, style.\n\n\
         When you are done, call {SUBMIT} once with all findings and a short summary. If your call is rejected, fix what the error says and call it again.\n\n\
         Changed files:\n{files}\n```diff\n{diff}```{cut}",
        diff = range.diff,
    )
}

/// The start of a plain answer, for the error that says none was submitted.
fn excerpt(answer: &str) -> String {
    let text = answer.trim();
    if text.is_empty() {
        return String::new();
    }
    let short: String = text.chars().take(200).collect();
    format!(" (it answered: {short})")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A review changes nothing: a mode that edits is refused before
    /// anything is read or asked.
    #[test]
    fn a_review_refuses_a_mode_that_edits() {
        let tmp = tempfile::tempdir().unwrap();
        for mode in [AgentMode::Edit, AgentMode::Auto] {
            let spec = ReviewSpec {
                dir: tmp.path().to_path_buf(),
                base: None,
                committed: false,
                turn: TurnFlags {
                    mode: Some(mode),
                    ..TurnFlags::default()
                },
            };
            let mut told = Vec::new();
            let e = review(Home::at(tmp.path()), &spec, &mut |p| {
                told.push(format!("{p:?}"))
            })
            .unwrap_err();
            assert_eq!(
                e.to_string(),
                "a review is read-only: --mode takes plan or readonly"
            );
            assert!(told.is_empty());
        }
        // A read-only mode goes on (here to the folder, which is no repository).
        let spec = ReviewSpec {
            dir: tmp.path().to_path_buf(),
            base: None,
            committed: false,
            turn: TurnFlags {
                mode: Some(AgentMode::Plan),
                ..TurnFlags::default()
            },
        };
        let e = review(Home::at(tmp.path()), &spec, &mut |_| {}).unwrap_err();
        assert!(
            e.to_string().contains("is not inside a git repository"),
            "{e}"
        );
    }
}
