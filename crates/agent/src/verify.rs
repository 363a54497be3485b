//! Verify-and-repair: after a turn changed files in a project, run the workspace's
//! `verifyCommand` (or the default for its kind); a failure goes back to the model
//! as a repair message, a bounded number of times.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use seekclaw_config::{AgentMode, project_kinds};
use seekclaw_tools::SandboxPolicy;
use tokio::io::AsyncReadExt;
use tokio::sync::mpsc::UnboundedSender;
use tokio_util::sync::CancellationToken;

use crate::events::{AgentEvent, TurnStatus, WorkflowNode};
use crate::turn::TurnRuntime;

/// Longest a verification may run.
pub const VERIFY_TIMEOUT: Duration = Duration::from_secs(600);
/// Output kept for the repair message (the end, where errors are).
const KEEP_CHARS: usize = 8000;

/// The command to verify `root` with: the configured one, else by project kind.
pub fn verify_command(root: &Path, configured: Option<&str>, kinds: &[String]) -> Option<String> {
    if let Some(cmd) = configured.map(str::trim).filter(|c| !c.is_empty()) {
        return Some(cmd.to_string());
    }
    let has = |k: &str| kinds.iter().any(|x| x == k);
    if has("dotnet") {
        return Some("dotnet build --nologo -v q".into());
    }
    if has("rust") {
        return Some("cargo check --quiet".into());
    }
    if has("go") {
        return Some("go build ./...".into());
    }
    if has("node") {
        let pkg = std::fs::read_to_string(root.join("package.json")).unwrap_or_default();
        let has_build = serde_json::from_str::<serde_json::Value>(&pkg)
            .ok()
            .and_then(|v| v.pointer("/scripts/build").cloned())
            .is_some();
        if has_build {
            return Some("npm run build".into());
        }
    }
    None
}

/// Outcome of one verification run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verification {
    Passed,
    Failed { output: String },
    Cancelled,
}

/// The tail of `text`, at most `max` characters.
fn tail(text: &str, max: usize) -> String {
    let count = text.chars().count();
    if count <= max {
        return text.to_string();
    }
    let skip = count - max;
    format!(
        "[… {skip} characters omitted]\n{}",
        text.chars().skip(skip).collect::<String>()
    )
}

/// Runs `command` in `root` in its own process group; cancellation or the timeout
/// kills the whole group.
pub async fn run_verification(
    root: &Path,
    command: &str,
    sandbox: &SandboxPolicy,
    cancel: &CancellationToken,
) -> Verification {
    // The same sandbox as `bash`: a verify command is shell code from the workspace.
    let prepared = match sandbox.prepare() {
        Ok(p) => p,
        Err(e) => {
            return Verification::Failed {
                output: format!("Could not start `{command}`: {e}"),
            };
        }
    };
    let mut cmd = tokio::process::Command::new("/bin/bash");
    cmd.arg("-c")
        .arg(format!("{command} 2>&1"))
        .current_dir(root)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true);
    #[cfg(unix)]
    cmd.process_group(0);
    prepared.install(cmd.as_std_mut());
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => {
            return Verification::Failed {
                output: format!("Could not start `{command}`: {e}"),
            };
        }
    };
    let pid = child.id();
    let mut stdout = child.stdout.take();
    let run = async {
        let mut out = Vec::new();
        if let Some(s) = stdout.as_mut() {
            let _ = s.read_to_end(&mut out).await;
        }
        let status = child.wait().await;
        (status, out)
    };
    let result = tokio::select! {
        _ = cancel.cancelled() => None,
        r = tokio::time::timeout(VERIFY_TIMEOUT, run) => Some(r),
    };
    let kill_group = || {
        // The command's whole group (build tools spawn many children). A group id
        // of 1 or less would address other processes: never signal those.
        #[cfg(unix)]
        if let Some(pgid) = pid
            .filter(|p| *p > 1)
            .and_then(|p| rustix::process::Pid::from_raw(p as i32))
        {
            let _ = rustix::process::kill_process_group(pgid, rustix::process::Signal::KILL);
        }
    };
    match result {
        None => {
            kill_group();
            Verification::Cancelled
        }
        Some(Err(_)) => {
            kill_group();
            Verification::Failed {
                output: format!(
                    "`{command}` did not finish within {} s",
                    VERIFY_TIMEOUT.as_secs()
                ),
            }
        }
        Some(Ok((status, out))) => {
            let text = String::from_utf8_lossy(&out);
            match status {
                Ok(s) if s.success() => Verification::Passed,
                Ok(s) => Verification::Failed {
                    output: format!("`{command}` exited with {s}\n{}", tail(&text, KEEP_CHARS)),
                },
                Err(e) => Verification::Failed {
                    output: format!("`{command}` failed: {e}"),
                },
            }
        }
    }
}

/// The repair message sent back to the model.
pub fn repair_message(command: &str, output: &str) -> String {
    format!(
        ">>> [verification failed] The checks after your changes failed. Command: `{command}`\n\n{output}\n\n\
         Fix the cause of these errors (re-read the files you changed first), then finish."
    )
}

/// Runs the project's checks after file changes. `None` when they do not
/// apply (global scope, read-only modes, autoVerify off, no command); else
/// whether they failed, with the command and its output (the turn repairs).
pub(crate) async fn verify_turn(
    rt: &TurnRuntime,
    sandbox: &SandboxPolicy,
    events: &UnboundedSender<AgentEvent>,
    cancel: &CancellationToken,
    step: u32,
) -> Option<Verified> {
    let root = rt.workspace_root.as_deref()?;
    let ws = rt.workspace.as_ref();
    let auto = ws
        .and_then(|w| w.auto_verify)
        .unwrap_or(rt.config.agent.auto_verify);
    if !auto || matches!(rt.mode, AgentMode::Plan | AgentMode::Readonly) {
        return None;
    }
    let kinds = project_kinds(root);
    let command = verify_command(root, ws.and_then(|w| w.verify_command.as_deref()), &kinds)?;
    let _ = events.send(AgentEvent::Status(TurnStatus::Verifying));
    let _ = events.send(AgentEvent::Workflow {
        step,
        node: WorkflowNode::Verify,
        detail: command.clone(),
    });
    let failed = match run_verification(root, &command, sandbox, cancel).await {
        Verification::Failed { output } => Some((command, output)),
        Verification::Passed | Verification::Cancelled => None,
    };
    Some(Verified { failed })
}

/// The verify command ran (it may have changed files).
pub(crate) struct Verified {
    /// The command and its output, when it failed.
    pub failed: Option<(String, String)>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_by_kind_and_override() {
        let dir = tempfile::tempdir().unwrap();
        let kinds = |k: &[&str]| k.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            verify_command(dir.path(), Some(" make test "), &[]).as_deref(),
            Some("make test")
        );
        assert_eq!(
            verify_command(dir.path(), None, &kinds(&["git", "rust"])).as_deref(),
            Some("cargo check --quiet")
        );
        assert_eq!(verify_command(dir.path(), None, &kinds(&["python"])), None);
        std::fs::write(
            dir.path().join("package.json"),
            r#"{"scripts":{"test":"x"}}"#,
        )
        .unwrap();
        assert_eq!(verify_command(dir.path(), None, &kinds(&["node"])), None);
        std::fs::write(
            dir.path().join("package.json"),
            r#"{"scripts":{"build":"tsc"}}"#,
        )
        .unwrap();
        assert_eq!(
            verify_command(dir.path(), None, &kinds(&["node"])).as_deref(),
            Some("npm run build")
        );
    }

    #[tokio::test]
    async fn runs_passes_fails_and_cancels() {
        let dir = tempfile::tempdir().unwrap();
        let never = CancellationToken::new();
        let off = SandboxPolicy::off();
        assert_eq!(
            run_verification(dir.path(), "true", &off, &never).await,
            Verification::Passed
        );
        match run_verification(dir.path(), "echo broken >&2; exit 3", &off, &never).await {
            Verification::Failed { output } => {
                assert!(output.contains("broken") && output.contains("exit status: 3"))
            }
            other => panic!("{other:?}"),
        }
        let cancel = CancellationToken::new();
        let c2 = cancel.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(100)).await;
            c2.cancel();
        });
        let t = std::time::Instant::now();
        assert_eq!(
            run_verification(dir.path(), "sleep 30", &off, &cancel).await,
            Verification::Cancelled
        );
        assert!(t.elapsed() < Duration::from_secs(5));
    }

    #[tokio::test]
    async fn verification_runs_sandboxed() {
        let missing = seekclaw_tools::SandboxSupport::probe_cheap().missing();
        if seekclaw_testkit::capability_missing("sandbox", missing) {
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("ws");
        let home = dir.path().join("home");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::create_dir_all(&home).unwrap();
        std::fs::write(home.join("config.json"), "SECRET").unwrap();
        let policy = SandboxPolicy::new(
            seekclaw_config::SandboxMode::WorkspaceWrite,
            &root,
            &home,
            true,
        );
        let never = CancellationToken::new();
        assert_eq!(
            run_verification(&root, "echo ok > built.txt", &policy, &never).await,
            Verification::Passed
        );
        let outside = dir.path().join("escaped.txt");
        let escape = format!("echo x > {}", outside.display());
        assert!(matches!(
            run_verification(&root, &escape, &policy, &never).await,
            Verification::Failed { .. }
        ));
        assert!(!outside.exists());
        let read = format!("cat {}/config.json", home.display());
        match run_verification(&root, &read, &policy, &never).await {
            Verification::Failed { output } => assert!(!output.contains("SECRET"), "{output}"),
            other => panic!("{other:?}"),
        }
    }
}
