//! `seekclaw run --concurrency N`: the same task N times side by side, each
//! in its own copy of the workspace and its own session, then one summary.
//! The original workspace is only read; the copies stay for inspection
//! (also after Ctrl-C, which cancels every run) with a manifest
//! (`fleet.json`), and `seekclaw fleet apply|clean|list` (`apply.rs`) take
//! a chosen copy's changes back or remove them. All turns go through one
//! engine in this process, as `seekclaw run` does.

mod apply;
mod copy;
mod diff;
mod manifest;
mod report;
pub mod tasks;

pub use apply::{FleetListing, apply, clean, list};
pub use copy::Skipped;
pub use diff::DiffStat;
pub use report::{CopyReport, FleetReport, RunReport};

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use seekclaw_agent::{AgentEvent, Approvals, TurnOutcome, Unattended, WorkflowNode};
use seekclaw_config::{Home, normalize_path};
use seekclaw_engine::{
    Engine, Scope, SessionTarget, TurnControls, TurnHandle, TurnOrigin, TurnOverrides, TurnRequest,
};
use tokio_util::sync::CancellationToken;

use crate::error::{ExecError, IoContext, refuse};
use copy::{CopyStats, Rules, Tree};
use report::{copy_name, shown};

/// What the fleet was asked.
#[derive(Debug, Clone)]
pub struct FleetSpec {
    pub prompt: String,
    pub copies: usize,
    /// Where the copies go (`None`: beside the workspace).
    pub fleet_dir: Option<PathBuf>,
    pub workspace: Option<PathBuf>,
    pub images: Vec<PathBuf>,
    pub overrides: TurnOverrides,
    /// Tell a person watching what each run does (else only Ctrl-C's note).
    pub verbose: bool,
}

/// Where the fleet's notes go, line by line (stderr: stdout is the summary's).
pub type Say = Arc<dyn Fn(&str) + Send + Sync>;

/// How the fleet ended.
#[derive(Debug)]
pub enum FleetEnd {
    Report(Box<FleetReport>),
    /// Ctrl-C before the runs started, or a second one: no summary.
    Stopped(String),
}

/// Runs the fleet in `cwd` over the engine of `home`.
pub fn run(home: Home, cwd: PathBuf, spec: &FleetSpec, say: Say) -> Result<FleetEnd, ExecError> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .at(|| "cannot start the async runtime".into())?;
    let end = runtime.block_on(run_fleet(home, cwd, spec, say));
    // After a forced stop (a second Ctrl-C) a store write may still be
    // on a blocking thread: don't wait for it.
    runtime.shutdown_background();
    end
}

async fn run_fleet(
    home: Home,
    cwd: PathBuf,
    spec: &FleetSpec,
    say: Say,
) -> Result<FleetEnd, ExecError> {
    let home_root = std::fs::canonicalize(home.root()).unwrap_or_else(|_| home.root().into());
    let engine = Engine::open(home).await?;
    engine.start_telemetry("fleet");
    let scope = engine.scope_of(
        spec.workspace.as_deref(),
        false,
        &cwd,
        seekclaw_protocol::wording::IMPLICIT_WORKSPACE,
    )?;
    let Some(root) = scope.workspace.as_deref() else {
        refuse!("the fleet needs a workspace");
    };
    let root = std::fs::canonicalize(root).at(|| format!("{}", root.display()))?;
    // A bad `--model` fails here, before any copy is made.
    engine.check_overrides(&spec.overrides)?;
    let images = spec
        .images
        .iter()
        .map(|p| seekclaw_engine::image_from_path(&normalize_path(p, &cwd)))
        .collect::<Result<Vec<_>, _>>()?;
    let fleet_dir = make_fleet_dir(&root, spec.fleet_dir.as_deref(), &cwd)?;
    let paths: Vec<PathBuf> = (0..spec.copies)
        .map(|i| fleet_dir.join(copy_name(i)))
        .collect();
    let rules = Rules {
        never: vec![home_root, fleet_dir.clone()],
        skip_git_dirs: false,
    };
    // Ctrl-C from here on cancels the fleet (during the copies: no run starts).
    let all = CancellationToken::new();
    let force = CancellationToken::new();
    watch_ctrl_c(
        all.clone(),
        force.clone(),
        fleet_dir.clone(),
        spec.copies,
        say.clone(),
    );
    let started = Instant::now();
    let (tree, stats) = {
        let (root, rules, paths) = (root.clone(), rules.clone(), paths.clone());
        let (dir, task, copies) = (fleet_dir.clone(), spec.prompt.clone(), spec.copies);
        tokio::task::spawn_blocking(move || {
            let (tree, stats) = make_copies(&root, &rules, &paths)?;
            let names = (0..copies).map(copy_name).collect();
            manifest::Manifest::new(&root, &task, names, &tree)
                .on("cannot read", &root)?
                .write(&dir)?;
            Ok::<_, ExecError>((tree, stats))
        })
        .await??
    };
    let copy_ms = started.elapsed().as_millis() as u64;
    if all.is_cancelled() {
        return Ok(FleetEnd::Stopped(format!(
            "cancelled while copying; no run started (the copies are in {})",
            fleet_dir.display()
        )));
    }
    if spec.verbose {
        say(&format!(
            "copied {} into {} copies in {} ms: {}",
            root.display(),
            spec.copies,
            copy_ms,
            fleet_dir.display()
        ));
    }
    let mut runs = Vec::new();
    for (i, path) in paths.iter().enumerate() {
        let turn = start(&engine, path, spec, images.clone(), all.child_token()).await;
        let label = copy_name(i);
        let say = spec.verbose.then(|| say.clone());
        runs.push(tokio::spawn(async move { drive(turn, label, say).await }));
    }
    let tallies = tokio::select! {
        t = join_in_order(runs) => t?,
        _ = force.cancelled() => return Ok(FleetEnd::Stopped(format!(
            "stopped waiting for the runs; the copies stay in {}",
            fleet_dir.display()
        ))),
    };
    let mut reports = Vec::new();
    for ((i, path), tally) in paths.iter().enumerate().zip(tallies) {
        let (orig, copy, rules) = (root.clone(), path.clone(), rules.clone());
        let diff = tokio::task::spawn_blocking(move || diff::diff_trees(&orig, &copy, &rules))
            .await?
            .at(|| format!("compare {} with the original", path.display()))?;
        reports.push(tally.into_report(copy_name(i), path, diff));
    }
    let status = if all.is_cancelled() {
        "cancelled"
    } else if reports.iter().all(|r| r.status == "done") {
        "done"
    } else {
        "failed"
    };
    tokio::select! {
        _ = engine.close() => {}
        _ = force.cancelled() => {}
    }
    Ok(FleetEnd::Report(Box::new(FleetReport {
        task: spec.prompt.clone(),
        workspace: shown(&root),
        fleet_dir: shown(&fleet_dir),
        concurrency: spec.copies,
        status,
        copy: CopyReport::new(copy_ms, stats, tree.skipped),
        wall_ms: started.elapsed().as_millis() as u64,
        runs: reports,
    })))
}

/// The folder the copies go in, made here: `--fleet-dir`, or a new
/// `<workspace>-fleet-<time>` beside the workspace. Never inside the
/// workspace (that would write the original).
fn make_fleet_dir(root: &Path, asked: Option<&Path>, cwd: &Path) -> Result<PathBuf, ExecError> {
    let dir = match asked {
        Some(dir) => {
            let dir = resolve(&normalize_path(dir, cwd));
            refuse_inside(root, &dir)?;
            std::fs::create_dir_all(&dir).on("cannot create the fleet folder", &dir)?;
            dir
        }
        None => {
            let Some(parent) = root.parent() else {
                refuse!(
                    "the workspace has no parent folder to put the copies beside; name one with --fleet-dir"
                );
            };
            let name = root
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| "workspace".into());
            let stamp = chrono::Local::now().format("%Y%m%d-%H%M%S");
            let mut made = None;
            for n in 1..100 {
                let suffix = if n == 1 {
                    String::new()
                } else {
                    format!("-{n}")
                };
                let dir = parent.join(format!("{name}-fleet-{stamp}{suffix}"));
                match std::fs::create_dir(&dir) {
                    Ok(()) => {
                        made = Some(dir);
                        break;
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                    Err(e) => refuse!(
                        "cannot create the fleet folder {} ({e}); name another with --fleet-dir",
                        dir.display()
                    ),
                }
            }
            let Some(made) = made else {
                refuse!(
                    "no free fleet folder name beside the workspace; name one with --fleet-dir"
                );
            };
            made
        }
    };
    let dir = std::fs::canonicalize(&dir).on("cannot create the fleet folder", &dir)?;
    refuse_inside(root, &dir)?;
    Ok(dir)
}

/// `path` with its longest existing ancestor's symlinks resolved (the rest
/// does not exist yet), to compare with the workspace before creating it.
fn resolve(path: &Path) -> PathBuf {
    let mut rest = Vec::new();
    let mut at = path;
    loop {
        if let Ok(real) = std::fs::canonicalize(at) {
            return rest.iter().rev().fold(real, |p, part| p.join(part));
        }
        match (at.parent(), at.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_os_string());
                at = parent;
            }
            _ => return path.to_path_buf(),
        }
    }
}

fn refuse_inside(root: &Path, dir: &Path) -> Result<(), ExecError> {
    if dir.starts_with(root) {
        refuse!(
            "the fleet folder {} is inside the workspace {}: the copies must go elsewhere (the original is never written)",
            dir.display(),
            root.display()
        );
    }
    Ok(())
}

/// One walk of the original, then the copies side by side (each on its own
/// thread: the work is mostly waiting on the filesystem).
fn make_copies(
    root: &Path,
    rules: &Rules,
    paths: &[PathBuf],
) -> Result<(Tree, CopyStats), ExecError> {
    for path in paths {
        if std::fs::symlink_metadata(path).is_ok() {
            refuse!(
                "{} already exists: name an empty --fleet-dir",
                path.display()
            );
        }
    }
    let tree = copy::scan(root, rules).on("read", root)?;
    let results: Vec<std::io::Result<CopyStats>> = std::thread::scope(|s| {
        let handles: Vec<_> = paths
            .iter()
            .map(|p| s.spawn(|| copy::copy_tree(root, &tree, p)))
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(std::io::Error::other("a copy thread panicked")))
            })
            .collect()
    });
    let mut stats = CopyStats::default();
    for r in results {
        stats = r?;
    }
    Ok((tree, stats))
}

/// Ctrl-C cancels every run (each ends `cancelled`, its copy kept); a
/// second one stops waiting for them.
fn watch_ctrl_c(
    all: CancellationToken,
    force: CancellationToken,
    dir: PathBuf,
    n: usize,
    say: Say,
) {
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            say(&format!(
                "\nseekclaw: cancelling {n} runs (Ctrl-C again to stop waiting); the copies stay in {}",
                dir.display()
            ));
            all.cancel();
            if tokio::signal::ctrl_c().await.is_ok() {
                force.cancel();
            }
        }
    });
}

/// Starts the run of one copy: a new session in the copy's own scope (the
/// copy is the project root whatever markers its parents have).
async fn start(
    engine: &Engine,
    path: &Path,
    spec: &FleetSpec,
    images: Vec<seekclaw_agent::UserImage>,
    cancel: CancellationToken,
) -> Result<TurnHandle, String> {
    let mut controls = TurnControls::new(Approvals::unattended(Unattended::Reject(
        "`seekclaw run` cannot ask a person (use `seekclaw serve` or `seekclaw chat` to be asked)"
            .into(),
    )));
    controls.cancel = cancel;
    engine
        .start_turn(TurnRequest {
            scope: Scope::of_root(path),
            session: SessionTarget::New { id: None },
            message: spec.prompt.clone(),
            images,
            reasoning: None,
            overrides: split_budget(&spec.overrides, spec.copies),
            controls,
            origin: TurnOrigin::new("run"),
        })
        .await
        .map_err(|e| e.message)
}

/// Each copy's share of `--max-cost`: the fleet's budget split evenly, so
/// the fleet together never spends more than it.
fn split_budget(overrides: &TurnOverrides, copies: usize) -> TurnOverrides {
    let mut each = overrides.clone();
    if let Some(b) = each.budget.as_mut() {
        b.usd = b.usd.map(|usd| usd / copies.max(1) as f64);
    }
    each
}

async fn join_in_order(runs: Vec<tokio::task::JoinHandle<Tally>>) -> Result<Vec<Tally>, ExecError> {
    let mut out = Vec::with_capacity(runs.len());
    for run in runs {
        out.push(run.await?);
    }
    Ok(out)
}

/// What one run did, counted from its events.
#[derive(Default)]
struct Tally {
    session: Option<String>,
    status: &'static str,
    answer: Option<String>,
    error: Option<String>,
    steps: u32,
    input_tokens: u64,
    output_tokens: u64,
    cost_usd: Option<f64>,
}

impl Tally {
    fn into_report(self, copy: String, path: &Path, diff: DiffStat) -> RunReport {
        RunReport {
            copy,
            path: shown(path),
            session: self.session,
            status: self.status,
            answer: self.answer,
            error: self.error,
            steps: self.steps,
            input_tokens: self.input_tokens,
            output_tokens: self.output_tokens,
            cost_usd: self.cost_usd,
            diff,
        }
    }

    fn event(&mut self, ev: &AgentEvent) {
        match ev {
            AgentEvent::Workflow {
                step,
                node: WorkflowNode::Think { .. },
                ..
            } => self.steps = self.steps.max(*step),
            AgentEvent::Usage {
                total_input_tokens,
                output_tokens,
                cost_usd,
                ..
            } => {
                self.input_tokens += total_input_tokens;
                self.output_tokens += output_tokens;
                if let Some(c) = cost_usd {
                    self.cost_usd = Some(self.cost_usd.unwrap_or(0.0) + c);
                }
            }
            _ => {}
        }
    }

    fn outcome(&mut self, outcome: TurnOutcome) {
        let (status, answer, error) = match outcome {
            TurnOutcome::Done(a) => ("done", Some(a), None),
            TurnOutcome::Cancelled(a) => ("cancelled", Some(a), None),
            TurnOutcome::Failed(f) if f.kind == seekclaw_agent::FailureKind::Budget => {
                ("budget_exhausted", None, Some(f.message))
            }
            TurnOutcome::Failed(f) => ("failed", None, Some(f.message)),
            TurnOutcome::Unsaved { error, .. } => (
                "failed",
                None,
                Some(seekclaw_protocol::wording::unsaved_message(&error)),
            ),
        };
        (self.status, self.answer, self.error) = (status, answer, error);
    }
}

/// Reads one run to its end; with `say`, its tool calls and its end are
/// told, tagged with the copy's name.
async fn drive(turn: Result<TurnHandle, String>, label: String, say: Option<Say>) -> Tally {
    let mut tally = Tally::default();
    let mut turn = match turn {
        Ok(turn) => turn,
        Err(e) => {
            if let Some(say) = &say {
                say(&format!("[{label}] could not start: {e}"));
            }
            tally.status = "failed";
            tally.error = Some(e);
            return tally;
        }
    };
    tally.session = Some(turn.session().id.clone());
    while let Some(ev) = turn.next_event().await {
        if let Some(say) = &say
            && let AgentEvent::ToolStart { name, summary, .. } = &ev
        {
            say(&format!("[{label}] {name} {summary}"));
        }
        tally.event(&ev);
    }
    tally.outcome(turn.outcome().await);
    if let Some(say) = &say {
        say(&format!(
            "[{label}] {} after {} step(s)",
            tally.status, tally.steps
        ));
    }
    tally
}
