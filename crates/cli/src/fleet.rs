//! `seekclaw fleet list|apply|clean` and the summary of `seekclaw run
//! --concurrency N`: parsing and printing; the fleet itself (copies, runs,
//! diff stats, apply and clean) is `seekclaw_exec::fleet`.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use clap::Subcommand;
use seekclaw_config::Home;
use seekclaw_exec::fleet::{FleetEnd, FleetReport, FleetSpec, RunReport};

/// `seekclaw fleet`.
#[derive(Subcommand)]
pub enum FleetCommand {
    /// The fleets of the workspace, found beside it (a `--fleet-dir`
    /// elsewhere is not searched): folder, creation time, copies, task.
    List {
        /// The workspace (default: the current directory's project).
        #[arg(long)]
        workspace: Option<PathBuf>,
    },
    /// Take one copy's changes into the original workspace: the files its
    /// run added, changed or deleted. A file also changed in the original
    /// since the copy was made is a conflict: then nothing is written
    /// (`--force` takes the copy's version of those too). The copy stays.
    Apply {
        /// The copy's folder (`<workspace>-fleet-<time>/run-N`), or `run-N`
        /// for a copy of the workspace's newest fleet.
        copy: PathBuf,
        /// Print what would change, write nothing.
        #[arg(long)]
        dry_run: bool,
        /// Take the copy's version also of files changed in the original since.
        #[arg(long)]
        force: bool,
    },
    /// Remove fleet folders: the ones named (a fleet folder, or one copy in
    /// it), else every fleet of the workspace found beside it. Only folders
    /// `seekclaw run --concurrency` made (with a `fleet.json`) are removed.
    Clean {
        /// Fleet folders or copies to remove.
        dirs: Vec<PathBuf>,
        /// The workspace whose fleets to remove (default: the current
        /// directory's project).
        #[arg(long, conflicts_with = "dirs")]
        workspace: Option<PathBuf>,
        /// Print what would be removed, remove nothing.
        #[arg(long)]
        dry_run: bool,
    },
}

/// Runs a `fleet` command; an apply with conflicts is an error (exit 1).
pub fn fleet(home: &Home, cmd: FleetCommand) -> anyhow::Result<()> {
    let cwd = crate::cwd::working_dir()?;
    let mut out = std::io::stdout().lock();
    match cmd {
        FleetCommand::List { workspace } => {
            let (root, fleets) = seekclaw_exec::fleet::list(home, &cwd, workspace.as_deref())?;
            if fleets.is_empty() {
                eprintln!("seekclaw: no fleets of {} beside it", root.display());
                return Ok(());
            }
            let rows: Vec<[String; 4]> = fleets
                .into_iter()
                .map(|f| {
                    [
                        f.dir.display().to_string(),
                        f.created,
                        f.copies.to_string(),
                        f.task,
                    ]
                })
                .collect();
            crate::table::write_table(&mut out, ["FLEET", "CREATED", "COPIES", "TASK"], &rows)?;
        }
        FleetCommand::Apply {
            copy,
            dry_run,
            force,
        } => seekclaw_exec::fleet::apply(home, &cwd, &copy, dry_run, force, &mut out)?,
        FleetCommand::Clean {
            dirs,
            workspace,
            dry_run,
        } => {
            seekclaw_exec::fleet::clean(home, &cwd, &dirs, workspace.as_deref(), dry_run, &mut out)?
        }
    }
    Ok(())
}

/// Runs the fleet and prints its summary: exit 0 when every run is done,
/// 130 after Ctrl-C, else 1.
pub fn run(spec: FleetSpec) -> ExitCode {
    let json = !spec.verbose;
    let outcome = (|| -> anyhow::Result<FleetEnd> {
        let cwd = crate::cwd::working_dir()?;
        let home = Home::from_env()?;
        let say: seekclaw_exec::fleet::Say = Arc::new(|line: &str| eprintln!("{line}"));
        Ok(seekclaw_exec::fleet::run(home, cwd, &spec, say)?)
    })();
    match outcome {
        Ok(FleetEnd::Report(report)) => {
            let mut stdout = std::io::stdout().lock();
            let written = if json {
                report.write_json(&mut stdout)
            } else {
                write_text(&report, &mut stdout)
            };
            if let Err(e) = written {
                eprintln!("seekclaw: cannot print the summary: {e}");
                return ExitCode::from(1);
            }
            match report.status {
                "done" => ExitCode::SUCCESS,
                "cancelled" => ExitCode::from(130),
                _ => ExitCode::from(1),
            }
        }
        Ok(FleetEnd::Stopped(why)) => {
            eprintln!("seekclaw: {why}");
            ExitCode::from(130)
        }
        Err(e) => {
            eprintln!("seekclaw: {e:#}");
            ExitCode::from(1)
        }
    }
}

/// Each answer, the table, and where the copies are.
fn write_text(report: &FleetReport, out: &mut impl Write) -> std::io::Result<()> {
    for run in &report.runs {
        writeln!(out, "── {} ({}) ──", run.copy, run.status)?;
        if let Some(answer) = run.answer.as_deref().filter(|a| !a.trim().is_empty()) {
            writeln!(out, "{}", answer.trim_end())?;
        }
        if let Some(error) = &run.error {
            writeln!(out, "error: {error}")?;
        }
    }
    writeln!(out)?;
    let rows: Vec<[String; 8]> = report.runs.iter().map(row).collect();
    crate::table::write_table(
        out,
        [
            "COPY", "STATUS", "STEPS", "TOKENS", "COST", "FILES", "DIFF", "SESSION",
        ],
        &rows,
    )?;
    writeln!(out)?;
    let c = &report.copy;
    let how = if c.files == 0 {
        "no files"
    } else if c.reflinked == c.files {
        "copy-on-write clones"
    } else if c.reflinked == 0 {
        "plain copies: no copy-on-write here"
    } else {
        "partly copy-on-write"
    };
    writeln!(
        out,
        "copied {} files ({}) into each of {} copies in {} ms ({how})",
        c.files,
        size(c.bytes),
        report.concurrency,
        c.ms
    )?;
    if !c.skipped.is_empty() {
        let left: Vec<String> = c
            .skipped
            .iter()
            .map(|s| format!("{} ({})", s.path, s.why))
            .collect();
        writeln!(out, "left out: {}", left.join(", "))?;
    }
    writeln!(
        out,
        "copies kept in {} (the original {} was not written); {} in {:.1} s",
        report.fleet_dir,
        report.workspace,
        report.status,
        report.wall_ms as f64 / 1000.0
    )?;
    writeln!(
        out,
        "take one copy's changes into the original: seekclaw fleet apply {}/run-N (--dry-run shows them first)",
        report.fleet_dir
    )?;
    writeln!(
        out,
        "remove the copies: seekclaw fleet clean {}",
        report.fleet_dir
    )
}

fn row(run: &RunReport) -> [String; 8] {
    let cost = match run.cost_usd {
        Some(c) => format!("${c:.4}"),
        None => "-".into(),
    };
    [
        run.copy.clone(),
        run.status.to_string(),
        run.steps.to_string(),
        (run.input_tokens + run.output_tokens).to_string(),
        cost,
        run.diff.files_changed.to_string(),
        run.diff.short(),
        run.session.clone().unwrap_or_else(|| "-".into()),
    ]
}

fn size(bytes: u64) -> String {
    match bytes {
        b if b >= 1 << 20 => format!("{:.1} MB", b as f64 / f64::from(1 << 20)),
        b if b >= 1 << 10 => format!("{:.1} kB", b as f64 / f64::from(1 << 10)),
        b => format!("{b} B"),
    }
}
