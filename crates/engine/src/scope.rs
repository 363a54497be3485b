//! Where sessions live: a workspace's project root or the global scope.

use std::path::{Path, PathBuf};

use crate::error::EngineError;
use seekclaw_config::{GLOBAL_SCOPE, Home, detect_root, normalize_path, scope_key_workspace};

/// Where sessions live.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scope {
    /// The store's scope key.
    pub key: String,
    /// The project root (`None`: the global scope).
    pub workspace: Option<PathBuf>,
}

impl Scope {
    /// The directory-free global scope.
    pub fn global() -> Scope {
        Scope {
            key: GLOBAL_SCOPE.to_string(),
            workspace: None,
        }
    }

    /// The scope of a project root.
    pub fn of_root(root: &Path) -> Scope {
        Scope {
            key: scope_key_workspace(root),
            workspace: Some(root.to_path_buf()),
        }
    }

    /// The project root as stored in session rows.
    pub fn workspace_string(&self) -> Option<String> {
        self.workspace.as_ref().map(|p| p.display().to_string())
    }

    /// The scope a command without a daemon works in, as `seekclaw run` picks
    /// it: `global`, else the project root of `workspace` (relative to `cwd`),
    /// else that of `cwd`. A folder that does not exist is `not_found`.
    pub fn local(
        home: &Home,
        cwd: &Path,
        workspace: Option<&Path>,
        global: bool,
    ) -> Result<Scope, EngineError> {
        if global {
            return Ok(Scope::global());
        }
        Ok(Scope::of_root(&local_root(home, cwd, workspace)?))
    }
}

/// Refuses `root` as a workspace nobody named (it came from a working
/// directory): the filesystem root, the user's home or an ancestor of it
/// would let the agent edit anything under it. `how` says how to name one.
pub fn refuse_implicit(root: &Path, how: &str) -> Result<(), EngineError> {
    let Some(what) =
        seekclaw_config::too_broad_for_workspace(root, seekclaw_config::user_home().as_deref())
    else {
        return Ok(());
    };
    Err(EngineError::invalid_param(
        "workspace",
        format!(
            "Not using {} as the workspace: it is {what}, and the agent could change anything under it. {how}",
            root.display()
        ),
    ))
}

/// The project root of `workspace` (relative to `cwd`; `cwd` itself when
/// `None`); `not_found` when that folder does not exist.
pub fn local_root(
    home: &Home,
    cwd: &Path,
    workspace: Option<&Path>,
) -> Result<PathBuf, EngineError> {
    let start = normalize_path(workspace.unwrap_or(Path::new(".")), cwd);
    if !start.is_dir() {
        return Err(EngineError::not_found(format!(
            "Workspace directory not found: {}",
            start.display()
        )));
    }
    Ok(detect_root(&start, home))
}
