//! Resolving the session scope of a request: a workspace path, the global
//! scope, or the daemon's current workspace.

use std::path::{Path, PathBuf};

use seekclaw_config::normalize_path;
pub use seekclaw_engine::Scope;
use seekclaw_engine::refuse_implicit;
use seekclaw_protocol::{MethodError, ScopeParams};

use crate::ctx::Ctx;
use crate::error::Wire;

/// Validates a client path and walks up to its project root.
pub fn resolve_workspace_path(daemon: &Ctx, raw: &str) -> Result<PathBuf, MethodError> {
    let raw = raw.trim();
    if raw.is_empty() || raw.contains('\0') {
        return Err(MethodError::invalid_param(
            "workspace",
            format!("Invalid workspace path: {raw}"),
        ));
    }
    let full = normalize_path(Path::new(raw), daemon.cwd());
    if !full.is_dir() {
        return Err(MethodError::not_found(format!(
            "Workspace directory not found: {}",
            full.display()
        )));
    }
    Ok(daemon.engine.roots.root_of(&full, &daemon.engine.home))
}

/// The scope a turn runs in: as [`resolve`], but the daemon's working
/// directory is refused as an implicit workspace when it is too broad (a
/// client that sends `workspace` or opened one has named it).
pub fn resolve_for_turn(daemon: &Ctx, params: &ScopeParams) -> Result<Scope, MethodError> {
    let scope = resolve(daemon, params)?;
    let named = params.workspace.is_some() || daemon.workspace.is_named();
    if let (false, Some(root)) = (named, &scope.workspace) {
        refuse_implicit(
            root,
            "Send the chat a `workspace` path (or open one with `workspace.open`), or `global: true`.",
        ).wire()?;
    }
    Ok(scope)
}

pub fn resolve(daemon: &Ctx, params: &ScopeParams) -> Result<Scope, MethodError> {
    if params.global {
        return Ok(Scope::global());
    }
    match &params.workspace {
        Some(raw) => Ok(Scope::of_root(&resolve_workspace_path(daemon, raw)?)),
        None => Ok(Scope::of_root(&daemon.current_workspace())),
    }
}
