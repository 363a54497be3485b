//! A starter `AGENTS.md` for a project (`seekclaw init --agents`, the
//! terminal UI's `/init`): its build, test, lint and format commands found
//! from its manifests, its top-level layout, and room for its conventions.
//! An existing `AGENTS.md` is never overwritten.

use std::fmt::Write as _;
use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// What writing the starter did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StarterOutcome {
    /// Written at this path.
    Written(PathBuf),
    /// An `AGENTS.md` is already there: left as it is.
    Exists(PathBuf),
}

/// Writes `<root>/AGENTS.md` from the project unless one exists.
pub fn write_starter_agents_md(root: &Path) -> std::io::Result<StarterOutcome> {
    let path = root.join("AGENTS.md");
    let text = starter_agents_md(root);
    match fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&path)
    {
        Ok(mut file) => {
            file.write_all(text.as_bytes())?;
            Ok(StarterOutcome::Written(path))
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(StarterOutcome::Exists(path)),
        Err(e) => Err(e),
    }
}

/// One command the starter lists.
struct Command {
    what: &'static str,
    run: String,
}

/// The starter's text for the project at `root`.
pub fn starter_agents_md(root: &Path) -> String {
    let mut out = String::from(
        "# AGENTS.md\n\n\
         Instructions for coding agents working in this repository (read by SeekClaw, Codex,\n\
         Cursor, Zed and others). Keep it short and specific; a folder's own AGENTS.md adds\n\
         to this one for work inside that folder.\n",
    );
    let kinds = crate::project_kinds(root);
    let layout = top_level_folders(root);
    if !kinds.is_empty() || !layout.is_empty() {
        out.push_str("\n## Project\n\n");
        let shown: Vec<&str> = kinds
            .iter()
            .map(String::as_str)
            .filter(|k| *k != "git")
            .collect();
        if !shown.is_empty() {
            let _ = writeln!(out, "- Kind: {}", shown.join(", "));
        }
        if !layout.is_empty() {
            let folders: Vec<String> = layout.iter().map(|f| format!("`{f}/`")).collect();
            let _ = writeln!(out, "- Top-level folders: {}", folders.join(", "));
        }
    }
    let commands = commands(root);
    out.push_str("\n## Commands\n\n");
    if commands.is_empty() {
        out.push_str("- Build: (add the command)\n- Test: (add the command)\n");
    }
    for c in &commands {
        let _ = writeln!(out, "- {}: `{}`", c.what, c.run);
    }
    out.push_str(
        "\n## Conventions\n\n\
         - Run the tests before saying a change is done.\n\
         - (Add this project's conventions: code style, naming, what not to touch.)\n",
    );
    // Another agent's file at the root stays in the prompt: this one would
    // otherwise be read in its place.
    for other in ["CLAUDE.md", "GEMINI.md"] {
        if root.join(other).is_file() {
            let _ = write!(
                out,
                "\nThis project also keeps instructions in {other}: @{other}\n"
            );
        }
    }
    out
}

/// The project's commands, from its manifests, in a stable order.
fn commands(root: &Path) -> Vec<Command> {
    let mut out = Vec::new();
    let has = |name: &str| root.join(name).is_file();
    let mut add = |what: &'static str, run: &str| {
        if !out.iter().any(|c: &Command| c.what == what) {
            out.push(Command {
                what,
                run: run.to_string(),
            });
        }
    };
    if has("Cargo.toml") {
        add("Build", "cargo build");
        add("Test", "cargo test");
        add("Lint", "cargo clippy --all-targets -- -D warnings");
        add("Format", "cargo fmt");
    }
    if has("package.json") {
        let runner = node_runner(root);
        for (script, what) in node_scripts(root) {
            let run = match script.as_str() {
                "test" => format!("{runner} test"),
                _ => format!("{runner} run {script}"),
            };
            add(what, &run);
        }
    }
    if has("go.mod") {
        add("Build", "go build ./...");
        add("Test", "go test ./...");
        add("Lint", "go vet ./...");
        add("Format", "gofmt -w .");
    }
    if has("pyproject.toml") || has("setup.py") || has("requirements.txt") {
        let prefix = if has("uv.lock") {
            "uv run "
        } else if has("poetry.lock") {
            "poetry run "
        } else {
            ""
        };
        add("Test", &format!("{prefix}pytest"));
        let pyproject = fs::read_to_string(root.join("pyproject.toml")).unwrap_or_default();
        if pyproject.contains("[tool.ruff") {
            add("Lint", &format!("{prefix}ruff check ."));
            add("Format", &format!("{prefix}ruff format ."));
        }
    }
    if has("Makefile") || has("makefile") {
        for (target, what) in make_targets(root) {
            add(what, &format!("make {target}"));
        }
    }
    if fs::read_dir(root).is_ok_and(|entries| {
        entries
            .flatten()
            .any(|e| e.file_name().to_string_lossy().ends_with(".sln"))
    }) {
        add("Build", "dotnet build");
        add("Test", "dotnet test");
    }
    out
}

/// The package manager a Node project uses, from its lock file.
fn node_runner(root: &Path) -> &'static str {
    if root.join("pnpm-lock.yaml").is_file() {
        "pnpm"
    } else if root.join("yarn.lock").is_file() {
        "yarn"
    } else if root.join("bun.lockb").is_file() || root.join("bun.lock").is_file() {
        "bun"
    } else {
        "npm"
    }
}

/// The well-known scripts of `package.json` it defines.
fn node_scripts(root: &Path) -> Vec<(String, &'static str)> {
    let text = fs::read_to_string(root.join("package.json")).unwrap_or_default();
    let Ok(doc) = serde_json::from_str::<serde_json::Value>(&text) else {
        return Vec::new();
    };
    let Some(scripts) = doc.get("scripts").and_then(|s| s.as_object()) else {
        return Vec::new();
    };
    [
        ("build", "Build"),
        ("test", "Test"),
        ("lint", "Lint"),
        ("format", "Format"),
        ("typecheck", "Type check"),
        ("dev", "Run"),
    ]
    .into_iter()
    .filter(|(name, _)| scripts.contains_key(*name))
    .map(|(name, what)| (name.to_string(), what))
    .collect()
}

/// The well-known targets of the Makefile it defines.
fn make_targets(root: &Path) -> Vec<(String, &'static str)> {
    let text = fs::read_to_string(root.join("Makefile"))
        .or_else(|_| fs::read_to_string(root.join("makefile")))
        .unwrap_or_default();
    let defined = |target: &str| {
        text.lines().any(|l| {
            l.strip_prefix(target)
                .is_some_and(|rest| rest.starts_with(':'))
        })
    };
    [
        ("build", "Build"),
        ("test", "Test"),
        ("check", "Test"),
        ("lint", "Lint"),
        ("fmt", "Format"),
        ("format", "Format"),
    ]
    .into_iter()
    .filter(|(t, _)| defined(t))
    .map(|(t, what)| (t.to_string(), what))
    .collect()
}

/// The project's visible top-level folders (at most 12), sorted.
fn top_level_folders(root: &Path) -> Vec<String> {
    let skip = [
        "node_modules",
        "target",
        "dist",
        "build",
        "out",
        "vendor",
        "__pycache__",
    ];
    let mut names: Vec<String> = fs::read_dir(root)
        .map(|entries| {
            entries
                .flatten()
                .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| !n.starts_with('.') && !skip.contains(&n.as_str()))
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names.truncate(12);
    names
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn commands_come_from_the_manifests() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::write(root.join("Cargo.toml"), "[package]\nname = \"x\"\n").unwrap();
        fs::write(
            root.join("package.json"),
            r#"{"scripts": {"test": "vitest", "lint": "eslint .", "build": "tsc"}}"#,
        )
        .unwrap();
        fs::write(root.join("pnpm-lock.yaml"), "").unwrap();
        fs::write(root.join("Makefile"), "check:\n\tcargo test\n").unwrap();
        fs::create_dir_all(root.join("src")).unwrap();
        fs::create_dir_all(root.join("node_modules")).unwrap();
        fs::write(root.join("CLAUDE.md"), "rules").unwrap();
        let text = starter_agents_md(root);
        // Cargo's come first; a later manifest adds only what is missing.
        assert!(text.contains("- Build: `cargo build`\n"), "{text}");
        assert!(text.contains("- Test: `cargo test`\n"), "{text}");
        assert!(!text.contains("pnpm test"), "{text}");
        assert!(!text.contains("make check"), "{text}");
        assert!(text.contains("- Top-level folders: `src/`\n"), "{text}");
        assert!(text.contains("@CLAUDE.md"), "{text}");
        assert!(
            text.contains("- Kind: node, rust") || text.contains("- Kind: rust, node"),
            "{text}"
        );
    }

    #[test]
    fn node_python_and_make_projects() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::write(
            root.join("package.json"),
            r#"{"scripts": {"test": "jest", "typecheck": "tsc"}}"#,
        )
        .unwrap();
        fs::write(root.join("yarn.lock"), "").unwrap();
        let text = starter_agents_md(root);
        assert!(text.contains("- Test: `yarn test`"), "{text}");
        assert!(
            text.contains("- Type check: `yarn run typecheck`"),
            "{text}"
        );

        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::write(
            root.join("pyproject.toml"),
            "[tool.ruff]\nline-length = 100\n",
        )
        .unwrap();
        fs::write(root.join("uv.lock"), "").unwrap();
        fs::write(root.join("Makefile"), "lint:\n\truff\nbuild: deps\n").unwrap();
        let text = starter_agents_md(root);
        assert!(text.contains("- Test: `uv run pytest`"), "{text}");
        assert!(text.contains("- Lint: `uv run ruff check .`"), "{text}");
        assert!(text.contains("- Build: `make build`"), "{text}");

        let empty = tempfile::tempdir().unwrap();
        assert!(starter_agents_md(empty.path()).contains("- Test: (add the command)"));
    }

    #[test]
    fn an_existing_file_is_never_overwritten() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("AGENTS.md");
        assert_eq!(
            write_starter_agents_md(dir.path()).unwrap(),
            StarterOutcome::Written(path.clone())
        );
        fs::write(&path, "MINE").unwrap();
        assert_eq!(
            write_starter_agents_md(dir.path()).unwrap(),
            StarterOutcome::Exists(path.clone())
        );
        assert_eq!(fs::read_to_string(&path).unwrap(), "MINE");
    }
}
