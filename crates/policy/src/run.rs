//! Running hook commands: each through `sh -c` in the workspace, the event
//! as JSON on stdin, in its own process group killed at its timeout. A hook
//! that hangs, crashes or prints garbage is reported, never fatal.

use std::path::PathBuf;
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::process::Command;

use crate::Layer;
use crate::hooks::{HookCommand, HookEvent};

/// Where and for whom hooks run.
#[derive(Debug, Clone)]
pub struct HookContext {
    /// The session.
    pub session_id: String,
    /// The session's transcript (JSON lines), for scripts that read it.
    pub transcript_path: PathBuf,
    /// The turn's directory.
    pub cwd: PathBuf,
    /// The project root (`CLAUDE_PROJECT_DIR`, `SEEKCLAW_PROJECT_DIR`); the hooks' cwd.
    pub project_dir: PathBuf,
    /// The approval policy in Claude Code's words (`default`, `bypassPermissions`…).
    pub permission_mode: String,
}

impl HookContext {
    /// The fields every event's input carries, and the event's name.
    pub fn input(&self, event: HookEvent) -> serde_json::Map<String, Value> {
        let mut m = serde_json::Map::new();
        m.insert("session_id".into(), Value::from(self.session_id.clone()));
        m.insert(
            "transcript_path".into(),
            Value::from(self.transcript_path.display().to_string()),
        );
        m.insert("cwd".into(), Value::from(self.cwd.display().to_string()));
        m.insert(
            "permission_mode".into(),
            Value::from(self.permission_mode.clone()),
        );
        m.insert("hook_event_name".into(), Value::from(event.as_str()));
        m
    }
}

/// Bytes of stdout or stderr kept per hook.
const OUTPUT_CAP: usize = 64 * 1024;
/// After the hook exits, how long its output may still arrive (a process
/// it left behind may hold the pipes open).
const DRAIN_GRACE: Duration = Duration::from_millis(200);

/// What one hook run did.
#[derive(Debug, Clone)]
pub struct HookResult {
    /// The command.
    pub command: String,
    /// Its layer.
    pub layer: Layer,
    /// Its exit code; `None` when it was killed or never started.
    pub exit_code: Option<i32>,
    /// Its stdout (cut at 64 KiB).
    pub stdout: String,
    /// Its stderr (cut at 64 KiB).
    pub stderr: String,
    /// Wall time.
    pub duration: Duration,
    /// Killed at its timeout.
    pub timed_out: bool,
    /// Why it could not start.
    pub spawn_error: Option<String>,
}

/// Runs `hook` with `input` on stdin.
pub async fn run_hook(hook: &HookCommand, input: &Value, cx: &HookContext) -> HookResult {
    let started = Instant::now();
    let mut result = HookResult {
        command: hook.command.clone(),
        layer: hook.layer,
        exit_code: None,
        stdout: String::new(),
        stderr: String::new(),
        duration: Duration::ZERO,
        timed_out: false,
        spawn_error: None,
    };
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg(&hook.command)
        .current_dir(&cx.project_dir)
        .env("CLAUDE_PROJECT_DIR", &cx.project_dir)
        .env("SEEKCLAW_PROJECT_DIR", &cx.project_dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    if let Some(root) = &hook.plugin_root {
        // Scripts of Claude Code plugins read it, not only their command line.
        cmd.env("CLAUDE_PLUGIN_ROOT", root)
            .env("SEEKCLAW_PLUGIN_ROOT", root);
    }
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => {
            result.spawn_error = Some(e.to_string());
            result.duration = started.elapsed();
            return result;
        }
    };
    let mut group = Group {
        pid: child.id().and_then(|pid| i32::try_from(pid).ok()),
        armed: true,
    };
    let stdin = child.stdin.take();
    let payload = serde_json::to_vec(input).unwrap_or_default();
    // A hook that never reads its stdin must not hold the write up.
    let feed = async move {
        if let Some(mut stdin) = stdin {
            let _ = stdin.write_all(&payload).await;
            let _ = stdin.shutdown().await;
        }
    };
    let out = tokio::spawn(read_capped(child.stdout.take()));
    let err = tokio::spawn(read_capped(child.stderr.take()));
    let waited = tokio::time::timeout(hook.timeout, async {
        let ((), status) = tokio::join!(feed, child.wait());
        status
    })
    .await;
    match waited {
        Ok(Ok(status)) => result.exit_code = status.code(),
        Ok(Err(e)) => result.spawn_error = Some(e.to_string()),
        Err(_) => {
            result.timed_out = true;
            group.kill();
            let _ = child.wait().await;
        }
    }
    group.armed = false;
    let drained = tokio::time::timeout(DRAIN_GRACE, async {
        (out.await.unwrap_or_default(), err.await.unwrap_or_default())
    })
    .await;
    if let Ok((o, e)) = drained {
        result.stdout = o;
        result.stderr = e;
    }
    result.duration = started.elapsed();
    result
}

/// A hook's process group: killed at its timeout, and when the run is
/// dropped unfinished (a cancelled turn). What a hook that exited left
/// running on purpose (a notifier) is left alone.
struct Group {
    pid: Option<i32>,
    armed: bool,
}

impl Group {
    fn kill(&self) {
        if let Some(pid) = self.pid.and_then(rustix::process::Pid::from_raw) {
            let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
        }
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        if self.armed {
            self.kill();
        }
    }
}

async fn read_capped(pipe: Option<impl AsyncRead + Unpin>) -> String {
    let Some(mut pipe) = pipe else {
        return String::new();
    };
    let mut kept = Vec::new();
    let mut buf = [0u8; 8192];
    loop {
        match pipe.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                let room = OUTPUT_CAP.saturating_sub(kept.len());
                kept.extend_from_slice(&buf[..n.min(room)]);
            }
        }
    }
    String::from_utf8_lossy(&kept).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn hook(command: &str, timeout: Duration) -> HookCommand {
        let mut problems = Vec::new();
        let mut hooks = crate::hooks::read_hooks(
            &serde_json::json!({"Stop": [{"hooks": [{"type": "command", "command": command}]}]}),
            Layer::User,
            Path::new("/c.json"),
            &mut problems,
        );
        let mut h = hooks.remove(0);
        h.timeout = timeout;
        h
    }

    fn cx(dir: &Path) -> HookContext {
        HookContext {
            session_id: "s1".into(),
            transcript_path: dir.join("t.jsonl"),
            cwd: dir.to_path_buf(),
            project_dir: dir.to_path_buf(),
            permission_mode: "default".into(),
        }
    }

    #[tokio::test]
    async fn a_hook_reads_its_input_and_its_exit_code_and_output_are_kept() {
        let dir = tempfile::tempdir().unwrap();
        let h = hook(
            "cat > got.json; echo out; echo err >&2; exit 2",
            Duration::from_secs(10),
        );
        let r = run_hook(&h, &serde_json::json!({"a": 1}), &cx(dir.path())).await;
        assert_eq!(r.exit_code, Some(2));
        assert_eq!(r.stdout, "out\n");
        assert_eq!(r.stderr, "err\n");
        let got = std::fs::read_to_string(dir.path().join("got.json")).unwrap();
        assert_eq!(got, r#"{"a":1}"#);
    }

    #[tokio::test]
    async fn a_hook_past_its_timeout_is_killed_with_what_it_started() {
        let dir = tempfile::tempdir().unwrap();
        let h = hook("sleep 30 & sleep 30", Duration::from_millis(300));
        let started = Instant::now();
        let r = run_hook(&h, &serde_json::json!({}), &cx(dir.path())).await;
        assert!(r.timed_out && r.exit_code.is_none());
        assert!(started.elapsed() < Duration::from_secs(5));
    }
}
