//! Resolving the session scope of a request: a workspace path, the global scope, or
//! the daemon's current workspace.

use std::path::{Path, PathBuf};

use seekclaw_config::{GLOBAL_SCOPE, normalize_path, scope_key_workspace};
use seekclaw_protocol::{MethodError, ScopeParams};

use crate::daemon::Daemon;

/// Where sessions live: `key` is the store's scope, `workspace` the root (None = global).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scope {
    pub key: String,
    pub workspace: Option<PathBuf>,
}

impl Scope {
    pub fn global() -> Scope {
        Scope {
            key: GLOBAL_SCOPE.to_string(),
            workspace: None,
        }
    }

    pub fn of_root(root: &Path) -> Scope {
        Scope {
            key: scope_key_workspace(root),
            workspace: Some(root.to_path_buf()),
        }
    }

    pub fn workspace_string(&self) -> Option<String> {
        self.workspace.as_ref().map(|p| p.display().to_string())
    }
}

/// Validates a client path and walks up to its project root.
pub fn resolve_workspace_path(daemon: &Daemon, raw: &str) -> Result<PathBuf, MethodError> {
    let raw = raw.trim();
    if raw.is_empty() || raw.contains('\0') {
        return Err(MethodError::invalid_param(
            "workspace",
            format!("Invalid workspace path: {raw}"),
        ));
    }
    let full = normalize_path(Path::new(raw), &daemon.cwd);
    if !full.is_dir() {
        return Err(MethodError::not_found(format!(
            "Workspace directory not found: {}",
            full.display()
        )));
    }
    Ok(daemon.roots.root_of(&full, &daemon.home))
}

pub fn resolve(daemon: &Daemon, params: &ScopeParams) -> Result<Scope, MethodError> {
    if params.global {
        return Ok(Scope::global());
    }
    match &params.workspace {
        Some(raw) => Ok(Scope::of_root(&resolve_workspace_path(daemon, raw)?)),
        None => Ok(Scope::of_root(&daemon.current_workspace())),
    }
}
