//! `/init` and `/memory`: the instruction files the turns of this chat read.
//! `/init` writes a starter `AGENTS.md` at the project root (never over one);
//! `/memory` opens the chat's instruction files and the workspace's
//! `MEMORY.md` in `$VISUAL`/`$EDITOR`, with the terminal handed over to it.

use std::io::Stdout;
use std::path::{Path, PathBuf};
use std::process::Command;

use crossterm::event::{
    DisableBracketedPaste, DisableFocusChange, DisableMouseCapture, EnableBracketedPaste,
    EnableFocusChange, EnableMouseCapture, EventStream,
};
use crossterm::execute;
use crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use seekclaw_config::{Config, Home, StarterOutcome};

use crate::app::{Action, App};
use crate::{Scope, TuiError};

/// The terminal the chat draws on, and its key stream.
pub(crate) type Screen<'a> = (
    &'a mut Terminal<CrosstermBackend<Stdout>>,
    &'a mut EventStream,
);

/// Runs `/init` and `/memory`; any other action is handed back for `act`.
pub(crate) fn intercept(
    action: Action,
    home: &Home,
    scope: &Scope,
    app: &mut App,
    screen: Screen<'_>,
) -> Result<Option<Action>, TuiError> {
    let Scope::Workspace(dir) = scope else {
        if matches!(action, Action::Init | Action::Memory) {
            app.error(
                "This chat is in the global scope: open it in a project folder for its AGENTS.md.",
            );
            return Ok(None);
        }
        return Ok(Some(action));
    };
    match action {
        Action::Init => {
            init(home, dir, app);
            Ok(None)
        }
        Action::Memory => {
            let files = memory_files(home, dir);
            edit(&files, app, screen)?;
            Ok(None)
        }
        other => Ok(Some(other)),
    }
}

/// Writes the starter `AGENTS.md` at the project root of `dir`.
fn init(home: &Home, dir: &Path, app: &mut App) {
    let root = seekclaw_config::detect_root(dir, home);
    match seekclaw_config::write_starter_agents_md(&root) {
        Ok(StarterOutcome::Written(path)) => app.notice(format!(
            "Wrote {} from the project's manifests (its build and test commands). \
             Review it with /memory; the next turn reads it.",
            path.display()
        )),
        Ok(StarterOutcome::Exists(path)) => app.notice(format!(
            "{} already exists; left unchanged (/memory opens it).",
            path.display()
        )),
        Err(e) => app.error(format!(
            "cannot write {}: {e}",
            root.join("AGENTS.md").display()
        )),
    }
}

/// The chat's instruction files (as a turn from `dir` reads them), and the
/// workspace's `MEMORY.md`; the root's `AGENTS.md` when the workspace has none.
fn memory_files(home: &Home, dir: &Path) -> Vec<PathBuf> {
    let root = seekclaw_config::detect_root(dir, home);
    let config = seekclaw_config::load_json_file::<Config>(&home.config_path())
        .map(|l| l.value)
        .unwrap_or_default();
    let names = config.instructions.names();
    let mut looked_at = Vec::new();
    let found = seekclaw_config::instruction_paths(
        Some(home.root()),
        Some(&root),
        Some(dir),
        &names,
        &mut looked_at,
    );
    let mut files: Vec<PathBuf> = found.iter().map(|f| f.path.clone()).collect();
    if !found.iter().any(|f| !f.user) {
        files.push(root.join("AGENTS.md"));
    }
    let memory = root.join(".seekclaw").join("memory").join("MEMORY.md");
    if let Some(parent) = memory.parent() {
        // The editor can then save a new MEMORY.md.
        let _ = std::fs::create_dir_all(parent);
    }
    files.push(memory);
    files
}

/// Hands the terminal to the user's editor on `files`, then takes it back.
fn edit(files: &[PathBuf], app: &mut App, (terminal, keys): Screen<'_>) -> Result<(), TuiError> {
    let editor = ["VISUAL", "EDITOR"]
        .iter()
        .find_map(|v| std::env::var(v).ok().filter(|e| !e.trim().is_empty()))
        .unwrap_or_else(|| "vi".to_string());
    // The key stream is replaced, not read, while the editor runs: a reader
    // left polling would take the keys typed into the editor.
    let _ = std::mem::replace(keys, EventStream::new());
    leave()?;
    // Through the shell, as git runs it: `$EDITOR` may carry arguments.
    let status = Command::new("sh")
        .arg("-c")
        .arg(format!("{editor} \"$@\""))
        .arg("sh")
        .args(files)
        .status();
    enter()?;
    *keys = EventStream::new();
    // A full redraw without `clear` (which asks the terminal where its
    // cursor is, an answer the key stream may take first).
    let size = terminal.size().map_err(TuiError::Terminal)?;
    terminal
        .resize(ratatui::layout::Rect::new(0, 0, size.width, size.height))
        .map_err(TuiError::Terminal)?;
    let listed: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
    match status {
        Ok(s) if s.success() => app.notice(format!(
            "Opened in {editor}: {}. The next turn reads what you saved.",
            listed.join(", ")
        )),
        Ok(s) => app.error(format!(
            "{editor} exited with {s}; files: {}",
            listed.join(", ")
        )),
        Err(e) => app.error(format!(
            "cannot start the editor `{editor}`: {e} (set $EDITOR); files: {}",
            listed.join(", ")
        )),
    }
    Ok(())
}

fn leave() -> Result<(), TuiError> {
    execute!(
        std::io::stdout(),
        DisableFocusChange,
        DisableMouseCapture,
        DisableBracketedPaste,
        LeaveAlternateScreen
    )
    .map_err(TuiError::Terminal)?;
    disable_raw_mode().map_err(TuiError::Terminal)
}

fn enter() -> Result<(), TuiError> {
    enable_raw_mode().map_err(TuiError::Terminal)?;
    execute!(
        std::io::stdout(),
        EnterAlternateScreen,
        EnableBracketedPaste,
        EnableMouseCapture,
        EnableFocusChange
    )
    .map_err(TuiError::Terminal)
}
