//! The doctor's look at the user's policy: how many permission rules and
//! hooks apply to the workspace, entries that were skipped (by file and
//! path), a workspace hook set waiting for approval, and hook commands whose
//! program cannot run (a typo'd path, a script without its executable bit:
//! the hook would fail on every event, quietly, as a non-blocking error).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use seekclaw_policy::Verdict;
use seekclaw_protocol::api::{CheckLevel, DoctorCheck as Check};

use crate::ctx::Ctx;

/// Shell words that run without a program on the PATH.
const BUILTINS: &[&str] = &[
    ".", ":", "[", "alias", "bg", "cd", "command", "echo", "eval", "exec", "exit", "export",
    "false", "fg", "printf", "pwd", "read", "return", "set", "shift", "source", "test", "times",
    "trap", "true", "type", "ulimit", "umask", "unset", "wait",
];

fn row(name: &str, level: CheckLevel, detail: impl Into<String>, fix: Option<String>) -> Check {
    Check {
        name: name.into(),
        ok: level != CheckLevel::Fail,
        detail: detail.into(),
        kind: "runtime".into(),
        level,
        fix,
    }
}

/// The policy checks for a turn in `root`.
pub async fn checks(daemon: &Ctx, root: &Path) -> Vec<Check> {
    let view = match daemon.engine.policy_view(Some(root)).await {
        Ok(view) => view,
        Err(e) => {
            return vec![row(
                "Permission rules",
                CheckLevel::Warn,
                format!("could not be read: {}", e.message),
                Some("check config.json and the workspace's .seekclaw/config.json".into()),
            )];
        }
    };
    let mut out = vec![rules_row(&view), hooks_row(&view)];
    for p in &view.problems {
        out.push(row(
            "Policy entry skipped",
            CheckLevel::Warn,
            p.to_string(),
            Some("fix or remove the entry (the rest of the file still applies)".into()),
        ));
    }
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let path = std::env::var_os("PATH");
    for hook in &view.hooks {
        if let Some(why) = not_runnable(&hook.command, root, home.as_deref(), path.as_deref()) {
            out.push(row(
                "Hook command",
                CheckLevel::Warn,
                format!(
                    "{} hook `{}` ({}): {why}",
                    hook.event.as_str(),
                    hook.command,
                    hook.file.display()
                ),
                Some("make the program executable (`chmod +x`) or correct its path".into()),
            ));
        }
    }
    out
}

fn rules_row(view: &seekclaw_engine::PolicyView) -> Check {
    let count = |v: Verdict| view.rules.iter().filter(|r| r.verdict == v).count();
    let inactive = view.rules.iter().filter(|r| !r.active).count();
    let mut detail = format!(
        "{} rule(s): {} allow, {} ask, {} deny",
        view.rules.len(),
        count(Verdict::Allow),
        count(Verdict::Ask),
        count(Verdict::Deny)
    );
    if inactive > 0 {
        detail.push_str(&format!(
            "; {inactive} inactive (allow rules of an untrusted workspace)"
        ));
    }
    let level = if view.rules.is_empty() {
        CheckLevel::Info
    } else {
        CheckLevel::Ok
    };
    row("Permission rules", level, detail, None)
}

fn hooks_row(view: &seekclaw_engine::PolicyView) -> Check {
    let events: BTreeSet<&str> = view.hooks.iter().map(|h| h.event.as_str()).collect();
    let inactive = view.hooks.iter().filter(|h| !h.active).count();
    if view.hooks.is_empty() {
        return row("Hooks", CheckLevel::Info, "none configured", None);
    }
    let mut detail = format!(
        "{} hook(s) on {}",
        view.hooks.len(),
        events.into_iter().collect::<Vec<_>>().join(", ")
    );
    if inactive == 0 {
        return row("Hooks", CheckLevel::Ok, detail, None);
    }
    detail.push_str(&format!("; {inactive} off"));
    let fix = if !view.trusted {
        "the workspace is not trusted: open it in `seekclaw chat` and trust it (or register it as a project)"
    } else {
        "the workspace's hook set changed since it was approved: review it with `seekclaw hooks list`, then `seekclaw hooks approve`"
    };
    row("Hooks", CheckLevel::Warn, detail, Some(fix.into()))
}

/// Why the program of hook `command` cannot run, or `None` when it can (or
/// cannot be told: a command that starts with a variable other than the
/// project dir).
fn not_runnable(
    command: &str,
    root: &Path,
    home: Option<&Path>,
    path: Option<&std::ffi::OsStr>,
) -> Option<String> {
    let words = shlex::split(command)?;
    // `FOO=1 cmd`: the program is the first word that is not an assignment.
    let program = words
        .into_iter()
        .find(|w| !(w.contains('=') && !w.starts_with('=') && !w.contains('/')))?;
    let program = expand(&program, root, home)?;
    if BUILTINS.contains(&program.as_str()) {
        return None;
    }
    if program.contains('/') {
        let file = root.join(&program);
        return match std::fs::metadata(&file) {
            Err(_) => Some(format!("{} does not exist", file.display())),
            Ok(m) if m.is_dir() => Some(format!("{} is a directory", file.display())),
            Ok(m) if !executable(&m) => Some(format!("{} is not executable", file.display())),
            Ok(_) => None,
        };
    }
    let found = path
        .map(std::env::split_paths)
        .into_iter()
        .flatten()
        .map(|dir| dir.join(&program))
        .any(|p| std::fs::metadata(&p).is_ok_and(|m| m.is_file() && executable(&m)));
    (!found).then(|| format!("`{program}` is not on the PATH"))
}

/// The project-dir variables and `~` as the hook's shell would expand them;
/// `None` for a program named by another variable (not ours to guess).
fn expand(word: &str, root: &Path, home: Option<&Path>) -> Option<String> {
    let root_s = root.display().to_string();
    let mut w = word.to_string();
    for var in ["CLAUDE_PROJECT_DIR", "SEEKCLAW_PROJECT_DIR"] {
        w = w
            .replace(&format!("${{{var}}}"), &root_s)
            .replace(&format!("${var}"), &root_s);
    }
    if let Some(rest) = w.strip_prefix("~/") {
        w = home?.join(rest).display().to_string();
    }
    (!w.contains('$')).then_some(w)
}

#[cfg(unix)]
fn executable(m: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::PermissionsExt;
    m.permissions().mode() & 0o111 != 0
}

#[cfg(not(unix))]
fn executable(_m: &std::fs::Metadata) -> bool {
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn programs_resolve_against_the_path_and_the_workspace() {
        use std::os::unix::fs::PermissionsExt;
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        let bin = root.join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        std::fs::write(bin.join("fmt"), "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(bin.join("fmt"), std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::write(root.join("guard.sh"), "#!/bin/sh\n").unwrap();
        let path = std::ffi::OsString::from(bin.display().to_string());
        let check = |c: &str| not_runnable(c, root, None, Some(&path));
        assert_eq!(check("fmt --all"), None);
        assert_eq!(check("X=1 fmt"), None);
        assert_eq!(check("true"), None);
        assert_eq!(check("\"$CLAUDE_PROJECT_DIR\"/bin/fmt"), None);
        assert_eq!(check("$OTHER/x"), None, "not ours to guess");
        assert!(
            check("nosuchprogram -x")
                .unwrap()
                .contains("not on the PATH")
        );
        assert!(check("./guard.sh").unwrap().contains("is not executable"));
        assert!(check("./missing.sh").unwrap().contains("does not exist"));
    }
}
