//! `seekclaw review`: a headless, read-only review of `base...HEAD` and the
//! working tree's uncommitted changes (OpenSeek §8.1, which reviews commits
//! only: a dirty tree reported clean misled; `--committed` is that). One turn in this process, in readonly mode, ends with the
//! `submit_review` tool; its arguments are checked against the repository
//! and a bad report goes back to the model to fix. Exactly one report is
//! printed: JSON with `--json`, readable text otherwise. Exit codes: 0 a
//! report without blockers, 1 no report, 2 a blocker found.

mod report;
mod scope;

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use clap::Args;
use seekclaw_agent::{AgentEvent, SubmitTool, TurnOutcome};
use seekclaw_config::{AgentMode, ApprovalPolicy, Home};
use seekclaw_engine::{Engine, RunOptions, TurnControls, TurnOverrides};

use report::Report;
use scope::Range;

/// Model requests a review may take unless `--max-steps` says otherwise.
const DEFAULT_MAX_STEPS: u32 = 100;
const SUBMIT: &str = "submit_review";

/// `seekclaw review`'s arguments.
#[derive(Args, Debug)]
pub struct ReviewArgs {
    /// What to compare against (default: the branch's upstream, else `main`).
    #[arg(long)]
    base: Option<String>,
    /// The repository (default: the current directory's).
    #[arg(long)]
    workspace: Option<PathBuf>,
    /// Review the commits `base...HEAD` only. By default the working tree's
    /// uncommitted changes (staged, unstaged and untracked files) are
    /// reviewed too; with this flag they are named as not reviewed.
    #[arg(long)]
    committed: bool,
    /// Print the report as one JSON document.
    #[arg(long)]
    json: bool,
    /// Model to use: `provider/model` or a model id.
    #[arg(long)]
    model: Option<String>,
    /// Model requests the review may take (default 100).
    #[arg(long)]
    max_steps: Option<u32>,
}

/// How a review ended.
enum Ended {
    Report(Box<Report>),
    NoReport(String),
    Cancelled,
}

/// Runs the review; the exit code says how it went.
pub fn run(args: ReviewArgs) -> ExitCode {
    let ended = (|| -> anyhow::Result<Ended> {
        let dir = match &args.workspace {
            Some(dir) => dir.clone(),
            None => crate::cwd::working_dir()?,
        };
        let range = scope::resolve(&dir, args.base.as_deref(), args.committed)?;
        say_what_is_reviewed(&range);
        if range.scope.files.is_empty() && range.diff.trim().is_empty() {
            return Ok(Ended::Report(Box::new(Report::empty(range.scope))));
        }
        let home = Home::from_env()?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()?;
        let ended = runtime.block_on(review(home, &args, range));
        runtime.shutdown_background();
        ended
    })();
    let mut stdout = std::io::stdout().lock();
    match ended {
        Ok(Ended::Report(report)) => {
            let printed = if args.json {
                serde_json::to_string(&report).map(|line| line + "\n")
            } else {
                Ok(report::render_text(&report))
            };
            match printed {
                Ok(text) => {
                    let _ = stdout.write_all(text.as_bytes());
                    let _ = stdout.flush();
                }
                Err(e) => {
                    eprintln!("seekclaw: {e}");
                    return ExitCode::from(1);
                }
            }
            ExitCode::from(if report.has_blocker() { 2 } else { 0 })
        }
        Ok(Ended::NoReport(why)) => {
            eprintln!("seekclaw: no report: {why}");
            ExitCode::from(1)
        }
        Ok(Ended::Cancelled) => ExitCode::from(130),
        Err(e) => {
            eprintln!("seekclaw: {e:#}");
            ExitCode::from(1)
        }
    }
}

async fn review(home: Home, args: &ReviewArgs, range: Range) -> anyhow::Result<Ended> {
    let engine = Engine::open(home)
        .await
        .map_err(|e| anyhow::anyhow!(e.message))?;
    let controls = TurnControls::default();
    let cancel = controls.cancel.clone();
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            cancel.cancel();
        }
    });
    let opts = RunOptions {
        cwd: range.root.clone(),
        prompt: instructions(&range),
        workspace: Some(range.root.clone()),
        global: false,
        session: None,
        continue_latest: false,
        images: Vec::new(),
        overrides: TurnOverrides {
            max_steps: Some(args.max_steps.unwrap_or(DEFAULT_MAX_STEPS)),
            model: args.model.clone(),
            // Read-only: the review changes nothing and asks nobody.
            mode: Some(AgentMode::Readonly),
            approval_policy: Some(ApprovalPolicy::Never),
            submit: Some(submit_tool(&range)),
            ..TurnOverrides::default()
        },
    };
    let mut turn = engine
        .start_run(&opts, controls)
        .await
        .map_err(|e| anyhow::anyhow!(e.message))?;
    // Progress for a person watching; the report alone goes to stdout.
    let progress = std::io::stderr().is_terminal();
    while let Some(ev) = turn.next_event().await {
        if let AgentEvent::ToolStart { name, summary, .. } = ev
            && progress
            && name != SUBMIT
        {
            eprintln!("  {name} {summary}");
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

/// On stderr (stdout is the report's): which changes the review covers when
/// the tree is dirty, so nobody takes a review of the commits for one of the
/// tree or the other way round.
fn say_what_is_reviewed(range: &Range) {
    let dirty = &range.scope.uncommitted;
    if dirty.is_empty() {
        return;
    }
    let n = dirty.len();
    let files = format!("{n} file{}", if n == 1 { "" } else { "s" });
    if range.with_worktree() {
        eprintln!(
            "seekclaw: reviewing {}...HEAD and the uncommitted changes in {files} ({}); --committed reviews the commits only",
            range.scope.base,
            report::few(dirty)
        );
    } else {
        eprintln!(
            "seekclaw: not reviewing the uncommitted changes in {files} ({}): --committed reviews {}...HEAD only",
            report::few(range.unreviewed()),
            range.scope.base
        );
    }
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
