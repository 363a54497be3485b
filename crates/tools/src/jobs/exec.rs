//! One shell command: `/bin/bash -c` in its own process group, output pumped into
//! a bounded log, and a supervisor that owns the child and kills the whole group
//! on timeout, stop, cancellation or teardown. Foreground and background commands
//! are the same object; "background" is only a status (and a job id).

use std::path::Path;
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError};
use std::time::Duration;

use rustix::process::{Pid, Signal, kill_process_group, test_kill_process_group};
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::process::Child;
use tokio::sync::watch;
use tokio::task::JoinHandle;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::log::OutputLog;
use crate::sandbox::SandboxPolicy;

/// SIGTERM-to-SIGKILL grace when the turn is cancelled or the command times out:
/// short, because a cancel must take effect in well under 200 ms.
const FAST_GRACE: Duration = Duration::from_millis(100);
/// Grace for `bash_stop`, which is not in a hurry.
pub(crate) const STOP_GRACE: Duration = Duration::from_secs(2);
/// A background job printing more than this is killed (its log keeps a bounded
/// head and tail either way; this stops a runaway from burning CPU and disk).
pub(crate) const OUTPUT_CAP_BYTES: u64 = 20 * 1024 * 1024;
/// A background job is killed this long after it started, whatever its timeout.
pub(crate) const BACKGROUND_WALL_CAP: Duration = Duration::from_secs(30 * 60);
/// Output still arriving after the leader exits (from descendants holding the
/// pipe) is waited for this long before the result is taken.
const DRAIN_GRACE: Duration = Duration::from_millis(100);

/// Why a command ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum EndReason {
    Exited,
    TimedOut,
    Cancelled,
    Stopped,
    /// A background job printed past [`OUTPUT_CAP_BYTES`].
    OutputCap,
    /// A background job ran past [`BACKGROUND_WALL_CAP`].
    TimeCap,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ExitInfo {
    /// The exit code, when it exited rather than died of a signal.
    pub code: Option<i32>,
    pub signal: Option<i32>,
    pub reason: EndReason,
}

impl ExitInfo {
    pub(crate) fn success(&self) -> bool {
        self.reason == EndReason::Exited && self.code == Some(0)
    }

    /// `exit 0`, `exit 2`, `signal 9`: for summaries.
    pub(crate) fn short(&self) -> String {
        match (self.code, self.signal) {
            (Some(code), _) => format!("exit {code}"),
            (None, Some(sig)) => format!("signal {sig}"),
            (None, None) => "exit ?".to_string(),
        }
    }
}

pub(crate) struct Execution {
    pub(crate) command: String,
    pgid: Option<Pid>,
    log: Arc<Mutex<OutputLog>>,
    exit: watch::Receiver<Option<ExitInfo>>,
    /// Byte offset of the model's last read.
    cursor: AtomicU64,
    stop: CancellationToken,
    pub(crate) started: Instant,
    /// Fired when the command becomes a background job: from then on it
    /// outlives the turn (see [`Detached`]).
    detached: CancellationToken,
    job: OnceLock<Detached>,
    /// Its end was announced (the supervisor and `detach` may both see it).
    announced: AtomicBool,
}

/// A background job's identity and whom to tell when it ends on its own.
pub(crate) struct Detached {
    pub(crate) id: String,
    pub(crate) notify: Option<super::Notify>,
}

/// Locks a mutex, ignoring poisoning: the log stays usable after a panicking reader.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Execution {
    /// Starts `command` in `cwd`. It is killed (whole group) at `deadline`, when
    /// `cancel` (the turn) or `teardown` (the job table) fires, or on request.
    pub(crate) fn spawn(
        command: &str,
        cwd: &Path,
        sandbox: &SandboxPolicy,
        deadline: Instant,
        cancel: CancellationToken,
        teardown: CancellationToken,
    ) -> Result<Arc<Execution>, super::StartError> {
        let prepared = sandbox.prepare()?;
        let temp = prepared.in_use();
        let mut cmd = tokio::process::Command::new("/bin/bash");
        cmd.arg("-c")
            .arg(command)
            .current_dir(cwd)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            // Its own group, so the kill reaches every descendant.
            .process_group(0)
            // Nothing may wait for a terminal that is not there.
            .env("PAGER", "cat")
            .env("GIT_PAGER", "cat")
            .env("GIT_TERMINAL_PROMPT", "0");
        // agent.sandbox: Landlock, seccomp and (where allowed) its own PID
        // namespace, whose init dies with this group and takes every
        // descendant along (see crate::sandbox).
        prepared.install(cmd.as_std_mut());
        let mut child = cmd.spawn()?;
        let pgid = child.id().and_then(|id| Pid::from_raw(id as i32));
        let log = Arc::new(Mutex::new(OutputLog::default()));
        let flood = CancellationToken::new();
        let mut readers = Vec::new();
        if let Some(out) = child.stdout.take() {
            readers.push(tokio::spawn(pump(out, log.clone(), flood.clone())));
        }
        if let Some(err) = child.stderr.take() {
            readers.push(tokio::spawn(pump(err, log.clone(), flood.clone())));
        }
        let (tx, rx) = watch::channel(None);
        let exec = Arc::new(Execution {
            command: command.to_string(),
            pgid,
            log,
            exit: rx,
            cursor: AtomicU64::new(0),
            stop: CancellationToken::new(),
            started: Instant::now(),
            detached: CancellationToken::new(),
            job: OnceLock::new(),
            announced: AtomicBool::new(false),
        });
        let ends = Ends {
            deadline,
            cancel,
            teardown,
            stop: exec.stop.clone(),
            flood,
            detached: exec.detached.clone(),
            started: exec.started,
        };
        tokio::spawn(supervise(
            child,
            pgid,
            readers,
            tx,
            ends,
            exec.clone(),
            temp,
        ));
        Ok(exec)
    }

    /// Makes it background job `id`: it no longer ends with the turn, and
    /// `notify` hears when it ends on its own.
    pub(crate) fn detach(&self, id: String, notify: Option<super::Notify>) {
        let _ = self.job.set(Detached { id, notify });
        self.detached.cancel();
        // It may have ended just before it became a job.
        if let Some(info) = self.exit() {
            self.announce(&info);
        }
    }

    /// Tells the job table a background job ended on its own (once).
    fn announce(&self, info: &ExitInfo) {
        if matches!(info.reason, EndReason::Stopped | EndReason::Cancelled) {
            return;
        }
        let Some(job) = self.job.get() else { return };
        let Some(notify) = &job.notify else { return };
        if self.announced.swap(true, Ordering::AcqRel) {
            return;
        }
        notify(super::JobNotice {
            job_id: job.id.clone(),
            text: notice_text(&job.id, &self.command, info),
        });
    }

    /// Whether it is a background job.
    pub(crate) fn is_detached(&self) -> bool {
        self.detached.is_cancelled()
    }

    /// How it ended, if it has.
    pub(crate) fn exit(&self) -> Option<ExitInfo> {
        *self.exit.borrow()
    }

    /// Waits until it ends.
    pub(crate) async fn wait(&self) -> Option<ExitInfo> {
        let mut rx = self.exit.clone();
        match rx.wait_for(Option::is_some).await {
            Ok(info) => *info,
            // The supervisor is gone without a word: nothing left to wait for.
            Err(_) => *self.exit.borrow(),
        }
    }

    /// Output since the last read (the first read starts at the beginning).
    pub(crate) fn read_new(&self) -> String {
        let finished = self.exit().is_some();
        let from = self.cursor.load(Ordering::Acquire);
        let (text, next) = lock(&self.log).read_from(from, finished);
        self.cursor.store(next, Ordering::Release);
        text
    }

    /// Asks the supervisor to stop it gracefully (SIGTERM, SIGKILL after 2 s).
    pub(crate) fn request_stop(&self) {
        self.stop.cancel();
    }

    /// SIGKILL to the whole group now, without waiting (teardown path).
    pub(crate) fn kill_now(&self) {
        if let Some(pgid) = self.pgid {
            let _ = kill_process_group(pgid, Signal::KILL);
        }
    }
}

async fn pump<R: AsyncRead + Unpin>(
    mut reader: R,
    log: Arc<Mutex<OutputLog>>,
    flood: CancellationToken,
) {
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        match reader.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                let mut log = lock(&log);
                log.push(&buf[..n]);
                if log.total() > OUTPUT_CAP_BYTES {
                    flood.cancel();
                }
            }
        }
    }
}

/// Everything that can end a command besides its own exit.
struct Ends {
    deadline: Instant,
    /// The turn: ends a command until it is detached.
    cancel: CancellationToken,
    teardown: CancellationToken,
    stop: CancellationToken,
    flood: CancellationToken,
    detached: CancellationToken,
    started: Instant,
}

impl Ends {
    /// The turn's end or cancel, while the command is not a background job.
    async fn turn_over(&self) {
        tokio::select! {
            biased;
            _ = self.detached.cancelled() => std::future::pending().await,
            _ = self.cancel.cancelled() => {}
        }
    }

    /// The output cap, once the command is a background job (a foreground
    /// command's output is bounded by its timeout and the turn).
    async fn output_cap(&self) {
        self.detached.cancelled().await;
        self.flood.cancelled().await;
    }

    /// The wall-clock cap, once the command is a background job.
    async fn wall_cap(&self) {
        self.detached.cancelled().await;
        tokio::time::sleep_until(self.started + BACKGROUND_WALL_CAP).await;
    }
}

async fn supervise(
    mut child: Child,
    pgid: Option<Pid>,
    readers: Vec<JoinHandle<()>>,
    tx: watch::Sender<Option<ExitInfo>>,
    ends: Ends,
    exec: Arc<Execution>,
    // The sandbox's private temp dir, kept while anything of the command may
    // use it (a background job outlives the turn that made it).
    temp: crate::sandbox::InUse,
) {
    let (mut reason, grace) = tokio::select! {
        _ = child.wait() => (EndReason::Exited, Duration::ZERO),
        _ = ends.turn_over() => (EndReason::Cancelled, FAST_GRACE),
        _ = ends.teardown.cancelled() => (EndReason::Cancelled, FAST_GRACE),
        _ = ends.stop.cancelled() => (EndReason::Stopped, STOP_GRACE),
        _ = ends.output_cap() => (EndReason::OutputCap, FAST_GRACE),
        _ = ends.wall_cap() => (EndReason::TimeCap, FAST_GRACE),
        _ = tokio::time::sleep_until(ends.deadline) => (EndReason::TimedOut, FAST_GRACE),
    };
    if reason != EndReason::Exited {
        terminate(&mut child, pgid, grace).await;
    } else if ends.teardown.is_cancelled() {
        // Killed by a teardown (raised before its signal), not ended on its own.
        reason = EndReason::Cancelled;
    }
    let status = child.wait().await.ok();
    // Descendants may still hold the pipes; take what arrives shortly, then go on.
    let drain = async {
        for reader in readers {
            let _ = reader.await;
        }
    };
    let _ = tokio::time::timeout(DRAIN_GRACE, drain).await;
    let info = ExitInfo {
        code: status.and_then(|s| s.code()),
        signal: status.and_then(|s| {
            use std::os::unix::process::ExitStatusExt;
            s.signal()
        }),
        reason,
    };
    let _ = tx.send(Some(info));
    // A background job that ended on its own is announced (a requested stop
    // or a teardown is not).
    exec.announce(&info);
    drop(exec);
    // Once nothing of the command is left (a sandbox's init exits just after
    // the command), its private temp dir may go; else it goes with the group.
    let settled = !temp.is_held()
        || tokio::time::timeout(GROUP_SETTLE, group_gone(pgid))
            .await
            .is_ok();
    let _temp = (!settled).then_some(temp);
    if reason == EndReason::Exited {
        // Leftover descendants (`server &`) die with the turn (or, for a
        // background job, with the session's jobs).
        tokio::select! {
            _ = ends.turn_over() => {}
            _ = ends.teardown.cancelled() => {}
        }
        if let Some(pgid) = pgid {
            let _ = kill_process_group(pgid, Signal::KILL);
        }
    }
}

/// How long a finished command's group may take to empty (its sandbox init
/// reaping) before its temp dir is kept for the leftovers.
const GROUP_SETTLE: Duration = Duration::from_millis(500);

/// Returns once no live process of the group is left.
async fn group_gone(pgid: Option<Pid>) {
    while let Some(group) = pgid
        && test_kill_process_group(group).is_ok()
        && group_has_a_live_member(group)
    {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Whether a process of `group` is alive: an orphaned sandbox init stays a
/// zombie in the group until whoever adopts orphans reaps it, and a zombie
/// uses no files.
fn group_has_a_live_member(group: Pid) -> bool {
    let Ok(procs) = std::fs::read_dir("/proc") else {
        // Cannot tell: the group counts as alive (its dir is kept).
        return true;
    };
    let group = group.as_raw_nonzero().to_string();
    procs.flatten().any(|entry| {
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            return false;
        };
        // After the command name: state, ppid, pgrp, …
        let mut fields = stat.rsplit(')').next().unwrap_or("").split_whitespace();
        let state = fields.next().unwrap_or("Z");
        let pgrp = fields.nth(1).unwrap_or("");
        pgrp == group && state != "Z" && state != "X"
    })
}

/// `background job bg-3 finished (exit=0): `cmd` — read its output with …`.
fn notice_text(id: &str, command: &str, info: &ExitInfo) -> String {
    let status = match info.reason {
        EndReason::OutputCap => "killed: flooded past the output cap".to_string(),
        EndReason::TimeCap => "killed: outlived the wall-clock cap".to_string(),
        EndReason::TimedOut => "killed: timed out".to_string(),
        _ => match (info.code, info.signal) {
            (Some(code), _) => format!("exit={code}"),
            (None, Some(sig)) => format!("signal={sig}"),
            (None, None) => "exit=?".to_string(),
        },
    };
    let line = command.trim().lines().next().unwrap_or_default();
    let short: String = line.chars().take(80).collect();
    format!(
        "background job {id} finished ({status}): `{short}` — read its output with bash_output (job_id=\"{id}\")."
    )
}

/// SIGTERM to the group; SIGKILL once `grace` has passed while any member lives.
async fn terminate(child: &mut Child, pgid: Option<Pid>, grace: Duration) {
    let Some(pgid) = pgid else {
        let _ = child.kill().await;
        return;
    };
    let _ = kill_process_group(pgid, Signal::TERM);
    let until = Instant::now() + grace;
    let mut leader_gone = false;
    while Instant::now() < until {
        if !leader_gone {
            // Reaping the leader keeps it from counting as a live member.
            leader_gone = matches!(child.try_wait(), Ok(Some(_)));
        }
        if leader_gone && test_kill_process_group(pgid).is_err() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let _ = kill_process_group(pgid, Signal::KILL);
}
