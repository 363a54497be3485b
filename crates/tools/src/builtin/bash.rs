//! `bash`, `bash_output`, `bash_stop`: shell commands in their own process group,
//! continuing in the background when they outlast a short foreground wait.

use std::sync::Arc;
use std::time::Duration;

use schemars::JsonSchema;
use serde::Deserialize;

use super::{MUTATES, READS, definition, impl_tool};
use crate::args::{lenient_bool, lenient_u64};
use crate::budget;
use crate::confine::confine;
use crate::error::ToolError;
use crate::jobs::{EndReason, Execution, ExitInfo, STOP_GRACE};
use crate::tool::{ToolContext, ToolDefinition, ToolOutput};

/// How long a command runs in the foreground before it becomes a background job.
pub const FOREGROUND_WAIT: Duration = Duration::from_secs(10);
const MAX_TIMEOUT_SECS: u64 = 3600;
const MAX_OUTPUT_WAIT_SECS: u64 = 60;
const MAX_OUTPUT_WAIT_MS: u64 = 120_000;
const SUMMARY_COMMAND_CHARS: usize = 60;

const BASH_DESCRIPTION: &str = "Run a command with /bin/bash -c in the workspace (or `cwd`). \
stdout and stderr are captured together; a non-zero exit is reported as a failure. A command \
still running after 10 seconds (or started with run_in_background) continues as a background job: \
read its new output with bash_output and end it with bash_stop. A foreground command is killed with \
its whole process group at `timeout_seconds` or when the turn ends; a background job outlives the \
turn (at most `timeout_seconds`, and 30 minutes) and you are told when it ends on its own. \
No stdin: nothing interactive.";

const OUTPUT_DESCRIPTION: &str = "Read the new output of a background job started by bash (only \
what arrived since the last read) and whether it is still running. `wait_ms` (up to 120000) or \
`wait_seconds` (up to 60) waits up to that long for the job to finish first.";

const STOP_DESCRIPTION: &str = "Stop a background job started by bash: SIGTERM to its whole \
process group, SIGKILL after 2 seconds. Returns its unread output.";

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct BashArgs {
    /// The command line, run by /bin/bash -c.
    command: String,
    /// Working directory, relative to the workspace root. Default: the workspace root.
    #[serde(default)]
    cwd: Option<String>,
    /// Kill the command after this many seconds, 1-3600. Default: agent.bashTimeoutSeconds.
    #[serde(default, deserialize_with = "lenient_u64")]
    timeout_seconds: Option<u64>,
    /// Start it as a background job right away (servers, watchers). Default false.
    #[serde(default, deserialize_with = "lenient_bool")]
    run_in_background: Option<bool>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct JobArgs {
    /// The job id bash returned, e.g. `bg-1`.
    job_id: String,
    /// Wait up to this many seconds (0-60) for the job to finish first. Default 0.
    #[serde(default, deserialize_with = "lenient_u64")]
    wait_seconds: Option<u64>,
    /// Wait up to this many milliseconds (0-120000) for the job to finish
    /// first; wins over `wait_seconds`.
    #[serde(default, deserialize_with = "lenient_u64")]
    wait_ms: Option<u64>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct StopArgs {
    /// The job id bash returned, e.g. `bg-1`.
    job_id: String,
}

fn short_command(command: &str) -> String {
    let line = command.trim().lines().next().unwrap_or_default();
    let cut: String = line.chars().take(SUMMARY_COMMAND_CHARS).collect();
    if cut.len() < line.len() || command.trim().lines().nth(1).is_some() {
        format!("{cut}…")
    } else {
        cut
    }
}

/// `Exit code N`, `Killed by signal N`, or how it was ended.
fn describe_end(info: &ExitInfo, timeout: Duration) -> String {
    match info.reason {
        EndReason::TimedOut => format!(
            "Timed out after {} s; the command and its process group were killed.",
            timeout.as_secs()
        ),
        EndReason::Cancelled => {
            "Cancelled; the command and its process group were killed.".to_string()
        }
        EndReason::Stopped => "Stopped by bash_stop.".to_string(),
        EndReason::OutputCap => "Killed: it printed more than 20 MB (the output cap).".to_string(),
        EndReason::TimeCap => "Killed: it ran past the 30-minute cap.".to_string(),
        EndReason::Exited => match (info.code, info.signal) {
            (Some(code), _) => format!("Exit code {code}"),
            (None, Some(sig)) => format!("Killed by signal {sig}"),
            (None, None) => "Exited".to_string(),
        },
    }
}

fn with_output(head: &str, output: &str, budget: usize) -> String {
    let room = budget.saturating_sub(head.chars().count() + 1);
    let output = budget::truncate(output, room, "output");
    match (head.is_empty(), output.is_empty()) {
        (true, true) => "(no output)".to_string(),
        (true, false) => output,
        (false, true) => format!("{head}\n(no output)"),
        (false, false) => format!("{head}\n{output}"),
    }
}

pub struct BashTool {
    def: ToolDefinition,
    foreground_wait: Duration,
}

impl BashTool {
    pub fn new() -> Self {
        BashTool::with_foreground_wait(FOREGROUND_WAIT)
    }

    /// A bash tool whose commands go to the background after `wait`.
    pub fn with_foreground_wait(wait: Duration) -> Self {
        BashTool {
            def: definition::<BashArgs>("bash", BASH_DESCRIPTION, MUTATES, "Running command"),
            foreground_wait: wait,
        }
    }

    async fn run(&self, args: BashArgs, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        if args.command.trim().is_empty() {
            return Err(ToolError::InvalidArgs("command is empty".to_string()));
        }
        let cwd = confine(ctx, args.cwd.as_deref().unwrap_or("."))?;
        match std::fs::metadata(&cwd.abs) {
            Ok(meta) if meta.is_dir() => {}
            Ok(_) => {
                return Err(ToolError::failed(format!(
                    "cwd is not a directory: {}",
                    cwd.abs.display()
                )));
            }
            Err(_) => {
                return Err(ToolError::failed(format!(
                    "cwd does not exist: {}",
                    cwd.abs.display()
                )));
            }
        }
        let timeout = args
            .timeout_seconds
            .map_or(ctx.bash_timeout, Duration::from_secs)
            .clamp(
                Duration::from_secs(1),
                Duration::from_secs(MAX_TIMEOUT_SECS),
            );
        let started = tokio::time::Instant::now();
        let exec = ctx
            .jobs
            .start(
                &args.command,
                &cwd.abs,
                &ctx.sandbox,
                started + timeout,
                &ctx.cancel,
            )
            .map_err(|e| ToolError::failed(e.to_string()))?;
        let short = short_command(&args.command);
        let wait = if args.run_in_background.unwrap_or(false) {
            Duration::ZERO
        } else {
            self.foreground_wait
        };

        // A timeout within the foreground wait is enforced by the supervisor; the
        // command then simply ends here.
        let ended = if timeout <= wait {
            tokio::select! {
                info = exec.wait() => info,
                _ = ctx.cancel.cancelled() => exec.wait().await,
            }
        } else {
            tokio::select! {
                info = exec.wait() => info,
                _ = ctx.cancel.cancelled() => exec.wait().await,
                _ = tokio::time::sleep(wait) => None,
            }
        };
        let budget = ctx.max_output_chars;
        let Some(info) = ended else {
            return Ok(background(ctx, &exec, &short, wait, timeout, budget));
        };
        let output = exec.read_new();
        let head = if info.success() {
            String::new()
        } else {
            describe_end(&info, timeout)
        };
        let summary = match info.reason {
            EndReason::TimedOut => format!("{short} → timed out"),
            EndReason::Cancelled => format!("{short} → cancelled"),
            _ => format!("{short} → {}", info.short()),
        };
        Ok(ToolOutput {
            success: info.success(),
            ..ToolOutput::ok(with_output(&head, &output, budget), summary)
        })
    }
}

impl_tool!(BashTool, BashArgs);

fn background(
    ctx: &ToolContext,
    exec: &Arc<Execution>,
    short: &str,
    waited: Duration,
    timeout: Duration,
    budget: usize,
) -> ToolOutput {
    let id = ctx.jobs.background(exec);
    let when = if waited.is_zero() {
        "Started".to_string()
    } else {
        format!("Still running after {};", seconds(waited))
    };
    let head = format!(
        "{when} in the background as job {id}. Read new output with bash_output {{\"job_id\":\"{id}\"}} and end it with bash_stop {{\"job_id\":\"{id}\"}}. It outlives this turn; it is killed after {} s, and you are told when it ends.\nOutput so far:",
        timeout.as_secs().min(30 * 60)
    );
    ToolOutput::ok(
        with_output(&head, &exec.read_new(), budget),
        format!("{short} → background {id}"),
    )
}

/// `10 s`, `0.3 s`.
fn seconds(d: Duration) -> String {
    if d.subsec_millis() == 0 {
        format!("{} s", d.as_secs())
    } else {
        format!("{:.1} s", d.as_secs_f64())
    }
}

fn unknown_job(ctx: &ToolContext, id: &str) -> ToolError {
    let ids = ctx.jobs.ids();
    let known = if ids.is_empty() {
        "There are no background jobs in this session.".to_string()
    } else {
        format!("Known jobs: {}.", ids.join(", "))
    };
    ToolError::failed(format!("No background job with id '{id}'. {known}"))
}

pub struct BashOutputTool {
    def: ToolDefinition,
}

impl BashOutputTool {
    pub fn new() -> Self {
        BashOutputTool {
            def: definition::<JobArgs>("bash_output", OUTPUT_DESCRIPTION, READS, "Running command"),
        }
    }

    async fn run(&self, args: JobArgs, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let id = args.job_id.trim();
        let exec = ctx.jobs.get(id).ok_or_else(|| unknown_job(ctx, id))?;
        let wait = match args.wait_ms {
            Some(ms) => Duration::from_millis(ms.min(MAX_OUTPUT_WAIT_MS)),
            None => Duration::from_secs(args.wait_seconds.unwrap_or(0).min(MAX_OUTPUT_WAIT_SECS)),
        };
        if !wait.is_zero() && exec.exit().is_none() {
            tokio::select! {
                _ = exec.wait() => {}
                _ = tokio::time::sleep(wait) => {}
                _ = ctx.cancel.cancelled() => {}
            }
        }
        let info = exec.exit();
        let output = exec.read_new();
        let (head, success, state) = match &info {
            None => (
                format!(
                    "Job {id} is still running ({} s).",
                    exec.started.elapsed().as_secs()
                ),
                true,
                "running".to_string(),
            ),
            Some(info) => (
                format!("Job {id} has ended: {}", describe_end(info, Duration::ZERO)),
                info.success(),
                info.short(),
            ),
        };
        let body = if output.is_empty() {
            "(no new output)"
        } else {
            output.as_str()
        };
        Ok(ToolOutput {
            success,
            ..ToolOutput::ok(
                with_output(&head, body, ctx.max_output_chars),
                format!("{id} → {state}"),
            )
        })
    }
}

impl_tool!(BashOutputTool, JobArgs);

pub struct BashStopTool {
    def: ToolDefinition,
}

impl BashStopTool {
    pub fn new() -> Self {
        BashStopTool {
            def: definition::<StopArgs>("bash_stop", STOP_DESCRIPTION, MUTATES, "Running command"),
        }
    }

    async fn run(&self, args: StopArgs, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let id = args.job_id.trim();
        let exec = ctx.jobs.get(id).ok_or_else(|| unknown_job(ctx, id))?;
        let head = match exec.exit() {
            Some(info) => format!(
                "Job {id} had already ended: {}",
                describe_end(&info, Duration::ZERO)
            ),
            None => {
                exec.request_stop();
                // The supervisor escalates to SIGKILL after the grace period.
                let _ =
                    tokio::time::timeout(STOP_GRACE + Duration::from_secs(1), exec.wait()).await;
                format!("Stopped job {id}.")
            }
        };
        let output = exec.read_new();
        let body = if output.is_empty() {
            "(no new output)"
        } else {
            output.as_str()
        };
        Ok(ToolOutput::ok(
            with_output(&head, body, ctx.max_output_chars),
            format!("{id} → stopped"),
        ))
    }
}

impl_tool!(BashStopTool, StopArgs);

#[cfg(test)]
#[path = "bash_tests.rs"]
mod tests;
