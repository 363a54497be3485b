//! `seekclaw doctor` and `seekclaw init`. The doctor runs the daemon's checks:
//! through `doctor.run` when a daemon runs, in this process otherwise (the
//! same code, `seekclaw_daemon::doctor_in_process`). Exit status 1 when a
//! check fails.

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args;
use seekclaw_config::Home;
use seekclaw_protocol::api::{CheckLevel, DoctorCheck, DoctorParams};
use seekclaw_protocol::method;

use crate::client::DaemonClient;

/// `seekclaw doctor`.
#[derive(Args, Debug, Clone, Default)]
pub struct DoctorArgs {
    /// Print the checks as JSON (`doctor.run`'s shape) instead of text.
    #[arg(long)]
    pub json: bool,
}

/// `seekclaw init`.
#[derive(Args, Debug, Clone, Default)]
pub struct InitArgs {
    /// The project directory (default: the project around the current directory).
    pub dir: Option<PathBuf>,
    /// Leave the project's `.gitignore` alone. By default the lines missing
    /// of `.seekclaw/`, `.session/`, `.cache/` and `logs/` are appended under
    /// a `# SeekClaw` heading (the file is created if needed), and printed.
    #[arg(long)]
    pub no_gitignore: bool,
    /// Write a starter AGENTS.md at the project root instead (its build and
    /// test commands found from its manifests); an existing one is never
    /// overwritten.
    #[arg(long)]
    pub agents: bool,
}

/// Whether any check failed (the exit status says so).
pub fn doctor(home: &Home, args: &DoctorArgs) -> Result<bool> {
    let (checks, via) = match DaemonClient::running(home) {
        Some(mut daemon) => {
            // The project this command runs in, not the one the daemon started in.
            let cwd = crate::cwd::working_dir()?;
            let params = DoctorParams {
                workspace: Some(cwd.display().to_string()),
            };
            let checks = daemon.call::<method::DoctorRun>(&params)?;
            (checks, "through the running daemon")
        }
        None => {
            let cwd = crate::cwd::working_dir()?;
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()?;
            let checks = runtime.block_on(seekclaw_daemon::doctor_in_process(home.clone(), cwd))?;
            (checks, "in this process (no daemon is running)")
        }
    };
    let failed = checks.iter().any(|c| c.level == CheckLevel::Fail);
    if args.json {
        println!("{}", serde_json::to_string_pretty(&checks)?);
    } else {
        print!("{}", human(&checks, home, via));
    }
    Ok(failed)
}

/// The report: a header, one line per check, fixes under failures and warnings.
fn human(checks: &[DoctorCheck], home: &Home, via: &str) -> String {
    let mut out = format!(
        "seekclaw doctor — home {}, checked {via}\n\n",
        home.root().display()
    );
    let width = checks.iter().map(|c| c.name.len()).max().unwrap_or(0);
    for c in checks {
        out.push_str(&format!(
            "{:<5} {:<width$}  {}\n",
            c.level.label(),
            c.name,
            c.detail
        ));
        if let Some(fix) = &c.fix {
            out.push_str(&format!("{:<5} {:<width$}  fix: {fix}\n", "", ""));
        }
    }
    let count = |level| checks.iter().filter(|c| c.level == level).count();
    let (fails, warns) = (count(CheckLevel::Fail), count(CheckLevel::Warn));
    out.push('\n');
    out.push_str(&match (fails, warns) {
        (0, 0) => "All checks passed.\n".to_string(),
        (0, w) => format!("No failures; {w} warning(s).\n"),
        (f, w) => format!("{f} check(s) failed, {w} warning(s): see the fixes above.\n"),
    });
    out
}

/// Creates the project's `.seekclaw/` (starter config and memory file), never
/// overwriting what exists.
pub fn init(home: &Home, args: &InitArgs) -> Result<()> {
    let cwd = crate::cwd::working_dir()?;
    let root = match &args.dir {
        Some(dir) => {
            let dir = std::path::absolute(dir)?;
            anyhow::ensure!(dir.is_dir(), "not a directory: {}", dir.display());
            dir
        }
        None => seekclaw_config::detect_root(&cwd, home),
    };
    if args.agents {
        return init_agents(&root);
    }
    let init = seekclaw_config::init_workspace_with(&root, !args.no_gitignore)?;
    let memory = root.join(".seekclaw").join("memory").join("MEMORY.md");
    let wrote_memory = create_new(&memory, MEMORY_STARTER)?;
    if init.created.is_empty() && !wrote_memory && init.gitignore.is_none() {
        println!(
            "{} is already initialized; nothing was changed.",
            root.join(".seekclaw").display()
        );
        return Ok(());
    }
    if !init.created.is_empty() || wrote_memory {
        println!("initialized {}:", root.display());
        for item in &init.created {
            println!("  {item}");
        }
        if wrote_memory {
            println!("  .seekclaw/memory/MEMORY.md");
        }
    }
    if let Some(edit) = &init.gitignore {
        print!("{}", gitignore_note(&root, edit));
    }
    println!(
        "Put notes for the agent in .seekclaw/memory/MEMORY.md and per-project settings in .seekclaw/config.json."
    );
    Ok(())
}

/// `init --agents`: the starter AGENTS.md, or why it was left alone.
fn init_agents(root: &std::path::Path) -> Result<()> {
    match seekclaw_config::write_starter_agents_md(root)
        .with_context(|| format!("cannot write {}", root.join("AGENTS.md").display()))?
    {
        seekclaw_config::StarterOutcome::Written(path) => {
            print!("{}", std::fs::read_to_string(&path).unwrap_or_default());
            println!(
                "\nwrote {} (above). Edit it: every turn in this project reads it.",
                path.display()
            );
        }
        seekclaw_config::StarterOutcome::Exists(path) => {
            println!("{} already exists; left unchanged.", path.display());
        }
    }
    Ok(())
}

/// What `init` added to `.gitignore`, line for line, and how to undo it:
/// the project's file is the user's, so nothing in it changes unsaid.
fn gitignore_note(root: &std::path::Path, edit: &seekclaw_config::GitignoreEdit) -> String {
    let path = root.join(".gitignore");
    let mut out = format!(
        "{} {} (so the agent's local files stay out of git):\n",
        if edit.created {
            "created"
        } else {
            "appended to"
        },
        path.display()
    );
    for line in &edit.lines {
        out.push_str(&format!("  {line}\n"));
    }
    out.push_str(&if edit.created {
        format!(
            "To undo, delete {} (it did not exist before); `seekclaw init --no-gitignore` leaves .gitignore alone.\n",
            path.display()
        )
    } else {
        format!(
            "To undo, delete these {} line(s){} at the end of {}; `seekclaw init --no-gitignore` leaves .gitignore alone.\n",
            edit.lines.len(),
            if edit.separated {
                " and the blank line above them"
            } else {
                ""
            },
            path.display()
        )
    });
    out
}

const MEMORY_STARTER: &str = "# Project memory\n\n\
<!-- Notes here reach every turn in this project: conventions, commands, things to avoid. -->\n";

/// Writes `text` to a file that does not exist yet; `false` when it does.
fn create_new(path: &std::path::Path, text: &str) -> Result<bool> {
    use std::io::Write;
    match std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
    {
        Ok(mut f) => {
            f.write_all(text.as_bytes())
                .with_context(|| format!("cannot write {}", path.display()))?;
            Ok(true)
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(false),
        Err(e) => Err(e).with_context(|| format!("cannot create {}", path.display())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(name: &str, level: CheckLevel, fix: Option<&str>) -> DoctorCheck {
        DoctorCheck {
            name: name.into(),
            ok: level != CheckLevel::Fail,
            detail: "d".into(),
            kind: "runtime".into(),
            level,
            fix: fix.map(str::to_string),
        }
    }

    #[test]
    fn the_report_has_a_header_levels_fixes_and_a_summary() {
        let checks = [
            row("A", CheckLevel::Ok, None),
            row("Longer", CheckLevel::Info, None),
            row("C", CheckLevel::Fail, Some("do x")),
        ];
        let text = human(&checks, &Home::at("/h"), "here");
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "seekclaw doctor — home /h, checked here");
        assert_eq!(lines[2], "OK    A       d");
        assert_eq!(lines[3], "INFO  Longer  d");
        assert_eq!(lines[4], "FAIL  C       d");
        assert_eq!(lines[5], "              fix: do x");
        assert_eq!(
            lines[7],
            "1 check(s) failed, 0 warning(s): see the fixes above."
        );
    }
}
