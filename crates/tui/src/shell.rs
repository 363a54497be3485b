//! `!cmd`: a shell command the user runs locally, in the chat's directory;
//! its output is shown and offered to the model as context (reference
//! OpenSeek §2.2: a `<user_shell_command>` envelope) — with the running
//! turn as guidance, or with the next message.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use tokio::io::AsyncReadExt;

/// A command still running after this is killed.
const TIME_LIMIT: Duration = Duration::from_secs(30);
/// Output kept (characters); the rest is cut with a note.
const OUTPUT_CHARS: usize = 8_000;

/// What `!cmd` printed, as the user sees it and as the model gets it.
pub struct ShellRun {
    /// `$ cmd` and its output (and how it ended, when it failed).
    pub shown: String,
    /// The same in a `<user_shell_command>` envelope.
    pub context: String,
}

/// Runs `command` with `/bin/bash -c` in `dir` (stdin closed; killed at
/// the time limit), stdout and stderr together.
pub async fn run(command: &str, dir: &Path) -> std::io::Result<ShellRun> {
    let mut child = tokio::process::Command::new("/bin/bash")
        .arg("-c")
        .arg(format!("exec 2>&1; {command}"))
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()?;
    let mut out = Vec::new();
    let mut stdout = child.stdout.take();
    let ran = tokio::time::timeout(TIME_LIMIT, async {
        if let Some(s) = stdout.as_mut() {
            s.read_to_end(&mut out).await?;
        }
        child.wait().await
    })
    .await;
    let status = match ran {
        Ok(status) => format!("{}", status?),
        Err(_) => {
            let _ = child.kill().await;
            format!("killed after {} s", TIME_LIMIT.as_secs())
        }
    };
    let text = String::from_utf8_lossy(&out);
    let mut body: String = text.chars().take(OUTPUT_CHARS).collect();
    if text.chars().count() > OUTPUT_CHARS {
        body.push_str("\n… (output cut)");
    }
    let body = body.trim_end();
    let ended = if status == "exit status: 0" {
        String::new()
    } else {
        format!("\n({status})")
    };
    let shown = format!("$ {command}\n{body}{ended}");
    Ok(ShellRun {
        context: format!("{OPEN}{shown}{CLOSE}"),
        shown,
    })
}

const OPEN: &str = "<user_shell_command>\n";
const CLOSE: &str = "\n</user_shell_command>";

/// A message this UI sent, split into the `!cmd` blocks it starts with
/// (each as it was shown) and the rest (what the user typed).
pub fn split_context(text: &str) -> (Vec<&str>, &str) {
    let mut blocks = Vec::new();
    let mut rest = text;
    while let Some(body) = rest.strip_prefix(OPEN) {
        let Some(end) = body.find(CLOSE) else { break };
        blocks.push(&body[..end]);
        rest = body[end + CLOSE.len()..].trim_start_matches('\n');
    }
    (blocks, rest)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sent_message_splits_into_its_blocks_and_the_prompt() {
        let one = format!("{OPEN}$ ls\na b{CLOSE}");
        let two = format!("{OPEN}$ pwd\n/x{CLOSE}");
        let sent = format!("{one}\n\n{two}\n\nwhat now?");
        assert_eq!(
            split_context(&sent),
            (vec!["$ ls\na b", "$ pwd\n/x"], "what now?")
        );
        assert_eq!(split_context(&one), (vec!["$ ls\na b"], ""));
        assert_eq!(split_context("plain"), (vec![], "plain"));
        let open = format!("{OPEN}$ ls");
        assert_eq!(
            split_context(&open),
            (vec![], open.as_str()),
            "no end: kept whole"
        );
    }

    #[tokio::test]
    async fn output_and_failures_are_shown_and_wrapped() {
        let dir = tempfile::tempdir().unwrap();
        let ok = run("echo hi; echo err >&2", dir.path()).await.unwrap();
        assert_eq!(ok.shown, "$ echo hi; echo err >&2\nhi\nerr");
        assert!(ok.context.starts_with("<user_shell_command>\n$ echo hi"));
        let bad = run("exit 3", dir.path()).await.unwrap();
        assert!(bad.shown.ends_with("(exit status: 3)"), "{}", bad.shown);
    }
}
