//! `ui.statusLine.command`: a command the user writes gets the session's
//! state as JSON on stdin and prints one line, shown under the prompt. It is
//! run (`sh -c`, in the chat's workspace, in its own process group) at most
//! every [`MIN_GAP`] and only when the state changed (or `refreshSeconds`
//! passed); one run at a time, the last good line staying while the next
//! runs. A run that outlasts [`TIMEOUT`] is killed with its whole group; a
//! slow or failing command never holds up the UI (the loop only polls a
//! task). Unset, nothing here runs: no JSON is built, no timer is armed.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use serde::Serialize;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::task::JoinHandle;
use tokio::time::Instant;

use crate::app::App;

/// The shortest time between two runs' starts.
pub const MIN_GAP: Duration = Duration::from_millis(300);
/// A run that takes longer is killed (with what it started).
pub const TIMEOUT: Duration = Duration::from_secs(3);
/// Output read from a run; the rest is cut off (only the first line counts).
const MAX_OUTPUT: u64 = 16 * 1024;
/// Characters of a line kept (the bar cuts it to the width anyway).
const MAX_CHARS: usize = 1000;

/// What the status line row shows.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Shown {
    /// The command's first line (sanitised), or why it failed.
    pub text: String,
    /// `text` says why the command failed (drawn dimmed).
    pub failed: bool,
}

/// The session's state as the command reads it on stdin (docs/attention.md).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StatusInput {
    /// The session id (`null` before the first prompt).
    pub session: Option<String>,
    /// `provider/model`: the one answering, else the one a new turn uses.
    pub model: Option<String>,
    /// The session's cost so far.
    pub cost: Cost,
    /// The budget that applies and what was spent against it; `null` while
    /// none is known.
    pub budget: Option<Budget>,
    /// Tokens of the context the last model request filled, and the model's window.
    pub context: Context,
    /// Tokens used by the session, summed.
    pub tokens: Tokens,
    /// The agent mode (`plan`, `readonly`, `edit`, `auto`), when known.
    pub mode: Option<String>,
    /// The workspace's git branch (a short commit id when detached).
    pub branch: Option<String>,
    /// The chat's folder.
    pub workspace: Option<String>,
    /// `idle`, `running`, `approval` (a call or form waits) or `disconnected`.
    pub state: &'static str,
}

/// `cost`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Cost {
    /// USD; `null` while a model used has no known price.
    pub usd: Option<f64>,
}

/// `budget`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Budget {
    /// The budget, USD.
    pub usd: f64,
    /// Spent against it, USD.
    pub spent_usd: f64,
}

/// `context`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Context {
    /// Tokens; `null` before the session's first model request here.
    pub used: Option<u64>,
    /// The model's context window; `null` when not known.
    pub window: Option<u64>,
}

/// `tokens`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Tokens {
    /// Input tokens.
    pub input: u64,
    /// Output tokens.
    pub output: u64,
}

impl StatusInput {
    /// The state of `app` (with the mode and branch the caller knows).
    pub fn of(app: &App, mode: Option<&str>, branch: Option<String>) -> StatusInput {
        let model = app.model_label().filter(|_| app.any_model != Some(false));
        let window = model
            .as_deref()
            .and_then(|m| app.context_windows.get(m).copied());
        let state = if app.disconnected {
            "disconnected"
        } else if !app.approvals.is_empty() {
            "approval"
        } else if app.turn.is_some() {
            "running"
        } else {
            "idle"
        };
        StatusInput {
            session: app.session_id.clone(),
            model,
            cost: Cost { usd: app.cost() },
            // The tightest dollar budget the status bar shows too.
            budget: app.budget.map(|b| Budget {
                usd: b.usd,
                spent_usd: b.spent_usd,
            }),
            context: Context {
                used: app.context_used,
                window,
            },
            tokens: Tokens {
                input: app.input_tokens,
                output: app.output_tokens,
            },
            mode: mode.map(str::to_string),
            branch,
            workspace: app.root.as_ref().map(|r| r.display().to_string()),
            state,
        }
    }
}

/// The first line of `out`, without escape sequences or other control
/// characters (a tab reads as a space), at most [`MAX_CHARS`] characters.
pub fn sanitise(out: &str) -> String {
    let line = out.split('\n').next().unwrap_or_default();
    let mut kept = String::new();
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\u{1b}' => skip_escape(&mut chars),
            '\t' => kept.push(' '),
            c if c.is_control() => {}
            c => kept.push(c),
        }
        if kept.chars().count() >= MAX_CHARS {
            break;
        }
    }
    kept.trim_end().to_string()
}

/// Skips the rest of an escape sequence whose ESC was just read: CSI (`ESC [`
/// … final byte), OSC/DCS/APC/PM/SOS (up to BEL or ESC \), or a two-byte one.
fn skip_escape(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    match chars.next() {
        Some('[') => {
            for c in chars.by_ref() {
                if ('\u{40}'..='\u{7e}').contains(&c) {
                    break;
                }
            }
        }
        Some(']' | 'P' | '_' | '^' | 'X') => {
            while let Some(c) = chars.next() {
                if c == '\u{7}' {
                    break;
                }
                if c == '\u{1b}' {
                    if chars.peek() == Some(&'\\') {
                        chars.next();
                    }
                    break;
                }
            }
        }
        _ => {}
    }
}

/// `text` cut to `width` terminal cells (an ellipsis marks a cut).
pub fn fit(text: &str, width: usize) -> String {
    if crate::render::wrap::width_of(text) <= width {
        return text.to_string();
    }
    let mut out = String::new();
    let mut used = 0;
    for c in text.chars() {
        let w = crate::render::wrap::width_of(c.encode_utf8(&mut [0; 4]));
        if used + w + 1 > width {
            break;
        }
        out.push(c);
        used += w;
    }
    if width > 0 {
        out.push('…');
    }
    out
}

/// Runs the command when due; see the module's comment.
#[derive(Debug, Default)]
pub struct Runner {
    /// The command (`None`: no status line).
    command: Option<String>,
    /// The periodic re-run, when configured.
    refresh: Option<Duration>,
    /// The input of the last run started.
    last_input: Option<String>,
    /// When the state was last looked at (a run may have started then).
    last_check: Option<Instant>,
    /// When the last run started.
    last_start: Option<Instant>,
    /// The next check runs even when the state is the same.
    stale: bool,
    /// The run in flight.
    running: Option<JoinHandle<Shown>>,
}

impl Runner {
    /// Whether a command is configured.
    pub fn enabled(&self) -> bool {
        self.command.is_some()
    }

    /// Takes the config's command and periodic re-run; a changed command runs
    /// at the next check (the one in flight is stopped).
    pub fn configure(&mut self, command: Option<&str>, refresh: Option<Duration>) {
        self.refresh = refresh;
        if self.command.as_deref() == command {
            return;
        }
        self.command = command.map(str::to_string);
        self.stop();
        self.last_input = None;
        self.stale = true;
    }

    /// Stops the run in flight (its process group is killed).
    fn stop(&mut self) {
        if let Some(run) = self.running.take() {
            run.abort();
        }
    }

    /// Starts a run when one is due; else when to look again (`None`: when
    /// something happens). `input` builds the state only when it is needed.
    pub fn poll(
        &mut self,
        now: Instant,
        cwd: Option<&Path>,
        input: impl FnOnce() -> StatusInput,
    ) -> Option<Instant> {
        let command = self.command.as_ref()?;
        if self.running.is_some() {
            return None;
        }
        if let Some(due) = self.last_check.map(|at| at + MIN_GAP)
            && now < due
        {
            // The state may have changed since: looked at once the gap is over.
            return Some(due);
        }
        self.last_check = Some(now);
        let json = serde_json::to_string(&input()).unwrap_or_default();
        if self.last_input.as_deref() == Some(json.as_str()) && !self.stale {
            return None;
        }
        self.stale = false;
        self.last_start = Some(now);
        let cwd = cwd
            .map(Path::to_path_buf)
            .or_else(|| std::env::current_dir().ok());
        self.running = Some(tokio::spawn(run(command.clone(), cwd, json.clone())));
        self.last_input = Some(json);
        None
    }

    /// Resolves with a finished run's result (`Some`), or when the periodic
    /// re-run is due (`None`, the state marked stale: the next poll runs it);
    /// never while neither can happen.
    pub async fn next(&mut self) -> Option<Shown> {
        if let Some(run) = self.running.as_mut() {
            let shown = run.await.unwrap_or_else(|e| Shown {
                text: format!("status line: {e}"),
                failed: true,
            });
            self.running = None;
            return Some(shown);
        }
        match (self.refresh, self.last_start, &self.command) {
            (Some(every), Some(at), Some(_)) => {
                tokio::time::sleep_until(at + every).await;
                self.stale = true;
                None
            }
            _ => std::future::pending().await,
        }
    }
}

impl Drop for Runner {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Resolves at `at`; never without one.
pub async fn wake(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

/// Kills a run's process group unless disarmed (the run ended by itself):
/// on a timeout, and when the run is dropped (the chat quits, the command changes).
struct Group(Option<u32>);

impl Drop for Group {
    fn drop(&mut self) {
        if let Some(pid) = self.0.and_then(|p| i32::try_from(p).ok())
            && let Some(pid) = rustix::process::Pid::from_raw(pid)
        {
            let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
        }
    }
}

/// One run of `command` with `input` on stdin.
async fn run(command: String, cwd: Option<PathBuf>, input: String) -> Shown {
    let mut cmd = tokio::process::Command::new("sh");
    cmd.arg("-c")
        .arg(&command)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    if let Some(dir) = cwd {
        cmd.current_dir(dir);
    }
    let failed = |text: String| Shown { text, failed: true };
    let mut child = match cmd.spawn() {
        Ok(child) => child,
        Err(e) => return failed(format!("status line: cannot run sh: {e}")),
    };
    let mut group = Group(child.id());
    let (stdin, stdout, stderr) = (child.stdin.take(), child.stdout.take(), child.stderr.take());
    let work = async {
        let write = async {
            if let Some(mut stdin) = stdin {
                // A command that does not read its input is fine.
                let _ = stdin.write_all(input.as_bytes()).await;
            }
        };
        let (_, out, err) = tokio::join!(write, read_capped(stdout), read_capped(stderr));
        (child.wait().await, out, err)
    };
    let Ok((status, out, err)) = tokio::time::timeout(TIMEOUT, work).await else {
        return failed(format!(
            "status line: no answer within {} s",
            TIMEOUT.as_secs()
        ));
    };
    group.0 = None;
    match status {
        Ok(s) if s.success() => Shown {
            text: sanitise(&out),
            failed: false,
        },
        Ok(s) => {
            let why = sanitise(&err);
            let code = s
                .code()
                .map_or_else(|| "killed".to_string(), |c| format!("exit {c}"));
            failed(match why.is_empty() {
                true => format!("status line: {code}"),
                false => format!("status line: {code}: {why}"),
            })
        }
        Err(e) => failed(format!("status line: {e}")),
    }
}

/// Up to [`MAX_OUTPUT`] bytes of `pipe`, as text.
async fn read_capped(pipe: Option<impl AsyncRead + Unpin>) -> String {
    let mut bytes = Vec::new();
    if let Some(pipe) = pipe {
        let _ = pipe.take(MAX_OUTPUT).read_to_end(&mut bytes).await;
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

/// The git branch of `dir` (or of the repository above it): the name `HEAD`
/// points at, or a short commit id when detached. Read from the files (no
/// `git` run): cheap enough for every check.
pub fn git_branch(dir: &Path) -> Option<String> {
    let (repo, git) = dir.ancestors().find_map(|d| {
        let git = d.join(".git");
        git.exists().then(|| (d.to_path_buf(), git))
    })?;
    let git_dir = if git.is_dir() {
        git
    } else {
        // A worktree or submodule: `gitdir: PATH`.
        let text = std::fs::read_to_string(&git).ok()?;
        let path = PathBuf::from(text.trim().strip_prefix("gitdir:")?.trim());
        if path.is_absolute() {
            path
        } else {
            repo.join(path)
        }
    };
    let head = std::fs::read_to_string(git_dir.join("HEAD")).ok()?;
    let head = head.trim();
    match head.strip_prefix("ref:") {
        Some(r) => {
            let r = r.trim();
            Some(r.strip_prefix("refs/heads/").unwrap_or(r).to_string())
        }
        None => Some(head.chars().take(7).collect()).filter(|s: &String| !s.is_empty()),
    }
}

#[cfg(test)]
#[path = "status_line_tests.rs"]
mod tests;
